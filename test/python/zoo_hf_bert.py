# The model zoo (issue 35): Hugging Face BertForSequenceClassification at a
# tiny configuration (2 layers, width 32), trained through amp.compile;
# Inputs/zoo_check.py says what is checked and why.
# REQUIRES: torch2-transformers
# RUN: %amp_python2 %s | FileCheck %s
# CHECK: hf_bert: fp32 like PyTorch
# CHECK: hf_bert: eval outputs within 1e-4
# CHECK: hf_bert: cuda-emulator within 1e-4 of the CPU backend
# CHECK: hf_bert: bf16 drift within 3x autocast's
# CHECK: hf_bert: fp16 drift within 3x autocast's
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import zoo_check  # noqa: E402

zoo_check.main("hf_bert")

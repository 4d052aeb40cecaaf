# The examples of examples/python at their reduced size (--small) and fewer
# steps: bf16 training with a cosine schedule and gradients accumulated over
# 2 micro-batches per optimizer step, through a DataLoader, against
# PyTorch fp32 (tolerance: 3x PyTorch's own bf16 autocast drift, at least
# 2%; examples/python/parity.py), then fp32 eval logits within 1e-4 of
# PyTorch's eval mode. ResNet skips its eval comparison (a second compile of
# the slowest model here; test/python/cnn.py checks eval of conv, batch norm
# and pooling at 1e-4). The full-size runs (ResNet-18, 50 steps) are the
# examples themselves.
# RUN: %amp_python %amp_src_root/examples/python/transformer.py --small --steps 8 | FileCheck %s --check-prefix=TRANSFORMER
# RUN: %if torch2 %{ %amp_python2 %amp_src_root/examples/python/transformer.py --small --steps 8 | FileCheck %s --check-prefix=TRANSFORMER %}
# TRANSFORMER: 8 bf16 steps of 2 micro-batches:
# TRANSFORMER: PyTorch bf16 autocast drifts
# TRANSFORMER: fp32 eval logits: max difference
# TRANSFORMER: PASS
# RUN: %amp_python %amp_src_root/examples/python/resnet18.py --small --steps 3 --no-eval | FileCheck %s --check-prefix=RESNET
# RUN: %if torch2 %{ %amp_python2 %amp_src_root/examples/python/resnet18.py --small --steps 3 --no-eval | FileCheck %s --check-prefix=RESNET %}
# RESNET: 3 bf16 steps of 2 micro-batches:
# RESNET: PyTorch bf16 autocast drifts
# RESNET: PASS

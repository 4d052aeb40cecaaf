import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from training_cases import make_reference  # noqa: E402

# Regenerate the test: python3 training_cases.py transformer adamw > ../gradients_train_transformer_adamw.mlir
reference = make_reference("transformer", "adamw")

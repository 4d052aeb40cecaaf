import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from example_training import make_reference  # noqa: E402

# Regenerate the test: python3 example_training.py mlp adamw > ../gradients_train_example_mlp_adamw.mlir
reference = make_reference("mlp", "adamw")

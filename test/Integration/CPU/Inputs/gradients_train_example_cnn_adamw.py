import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from example_training import make_reference  # noqa: E402

# Regenerate the test: python3 example_training.py cnn adamw > ../gradients_train_example_cnn_adamw.mlir
reference = make_reference("cnn", "adamw")

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from training_cases import make_reference  # noqa: E402

# Regenerate the test: python3 training_cases.py cnn sgd > ../gradients_train_cnn_sgd.mlir
reference = make_reference("cnn", "sgd")

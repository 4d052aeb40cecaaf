"""The PyTorch 2.x front door: torch.export capture (capture.py) and the
import of its ATen graph into the amp dialect (importer.py, with one
module of op handlers per op family under ops/)."""
from .capture import capture
from .errors import ImportError_
from .importer import import_program

__all__ = ["capture", "import_program", "to_mlir", "ImportError_"]


def to_mlir(model, example_inputs, input_names=None):
    """The forward model of `model` (a torch.nn.Module) on inputs shaped
    like `example_inputs`, as amp dialect text: what amp.compile trains,
    for amp-opt and amp-compile (its parameters and buffers carry their
    state_dict names; their values are not in the text)."""
    return import_program(capture(model, example_inputs), input_names).text

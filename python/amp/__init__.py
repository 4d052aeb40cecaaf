"""amp: compile a torch.nn.Module into a mixed-precision training step.

    import amp
    trainer = amp.compile(model, example_inputs=(x,), loss="cross_entropy",
                          optimizer="adamw", lr=1e-3, precision="bf16")
    for x, y in loader:
        loss = trainer.step(x, y)
    logits = trainer.eval(x)

The module is exported to ONNX in memory and compiled by amp's training
pipeline (the library code amp-compile runs) into a shared library that is
loaded into this process. docs/Python.md documents the API.
"""
from ._amp import AmpError
from .errors import CompileError, ExportError
from .trainer import Trainer, compile
from . import presets, schedules

__all__ = ["AmpError", "CompileError", "ExportError", "Trainer", "compile",
           "presets", "schedules"]

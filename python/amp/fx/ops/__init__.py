"""The aten op handlers, one module per op family; importing the package
registers them all (registry.HANDLERS)."""
from . import (attention, contraction, elementwise, indexing,  # noqa: F401
               normalization, resampling, shape)

"""Tensors across the _amp binding, with numpy 1.x and 2.x alike.

The extension speaks only the Python buffer protocol: State.tensor() and
State.eval() give _amp.Tensor objects (a view of the state's memory, or a
copy for eval results), State.set() and compile_mlir() take any buffer of
the tensor's dtype and shape in C order and refuse anything else. These
functions are the conversions on this side: numpy arrays and torch tensors
to buffers, and _amp.Tensor to numpy or torch. bfloat16 crosses as its
int16 bits (numpy has no bfloat16).
"""
import numpy as np

__all__ = ["as_array", "as_torch", "to_numpy", "to_torch", "item"]


def _torch():
    import torch

    return torch


def as_array(value, what):
    """`value` (a torch.Tensor or numpy.ndarray) as a C-contiguous numpy
    array for State.set: a view of a contiguous CPU tensor or array (read
    in place), a contiguous copy otherwise (another device, other
    strides). bfloat16 tensors as their int16 view. The dtype stays as it
    is: the binding checks it against the tensor's."""
    if isinstance(value, np.ndarray):
        return np.asarray(value, order="C")
    torch = _torch()
    if isinstance(value, torch.Tensor):
        value = value.detach()
        if value.device.type != "cpu":
            value = value.cpu()
        value = value.contiguous()
        if value.dtype == torch.bfloat16:
            value = value.view(torch.int16)
        return value.numpy()
    raise TypeError("%s must be a torch.Tensor or a numpy.ndarray, got %s" %
                    (what, type(value).__name__))


def as_torch(value):
    """A torch tensor of `value` (a torch.Tensor, returned as it is, or a
    numpy array, shared with it)."""
    torch = _torch()
    if isinstance(value, torch.Tensor):
        return value
    return torch.from_numpy(np.asarray(value, order="C"))


def to_numpy(tensor):
    """A numpy view of an _amp.Tensor, without a copy: it keeps the state
    alive and sees its later changes. bfloat16 as int16."""
    return np.asarray(tensor)


def to_torch(tensor):
    """A torch tensor with a copy of an _amp.Tensor's values, in its dtype
    (bfloat16 included)."""
    torch = _torch()
    copy = torch.from_numpy(np.array(tensor))
    return copy.view(torch.bfloat16) if tensor.dtype == "bfloat16" else copy


def item(tensor):
    """The value of a one-element _amp.Tensor as a Python number (bool,
    int or float; bfloat16 converted)."""
    if tensor.dtype == "bfloat16":
        return to_torch(tensor).item()
    return np.asarray(tensor).item()

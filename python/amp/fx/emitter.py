"""Writes a forward model in the amp dialect as MLIR text.

Ops are written in MLIR's generic form (`"amp.add"(%a, %b) {...} : (...) ->
...`), so the emitter needs no knowledge of each op's custom syntax: the
library parses the text and the ops' verifiers check every shape and type,
pointing at the location each op carries (the aten op, the module path and
the user's source line).
"""
import struct

from .errors import ImportError_

# torch dtype name -> amp element type. Floating point models are captured
# in fp32: amp chooses the low precision itself (precision=...).
ELEMENT_TYPES = {"float32": "f32", "int64": "i64", "int32": "i32",
                 "bool": "i1"}
_PACK = {"f32": "<f", "i64": "<q", "i32": "<i"}


class Value:
    """An SSA value of the function being written: its name, static shape
    and element type."""

    __slots__ = ("name", "shape", "dtype")

    def __init__(self, name, shape, dtype):
        self.name = name
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtype

    @property
    def type(self):
        return tensor_type(self.shape, self.dtype)

    @property
    def rank(self):
        return len(self.shape)

    def __repr__(self):
        return "Value(%s : %s)" % (self.name, self.type)


def tensor_type(shape, dtype):
    dims = "".join("%dx" % d for d in shape)
    return "tensor<%s%s>" % (dims, dtype)


def element_type(torch_dtype, what):
    name = str(torch_dtype).replace("torch.", "")
    if name not in ELEMENT_TYPES:
        raise ImportError_("%s has dtype %s; amp imports float32, int64, int32 "
                           "and bool tensors (train the model in fp32 and "
                           "choose precision= for amp's mixed precision)"
                           % (what, name))
    return ELEMENT_TYPES[name]


def _string(text):
    """An MLIR string literal."""
    out = []
    for ch in text:
        if ch in "\"\\" or not (32 <= ord(ch) < 127):
            for byte in ch.encode("utf-8"):
                out.append("\\%02X" % byte)
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _float(value):
    """An f64 attribute value that round-trips exactly."""
    return "0x%016X" % struct.unpack("<Q", struct.pack("<d", float(value)))[0]


def i64_array(values):
    return "array<i64: %s>" % ", ".join("%d" % int(v) for v in values) \
        if len(values) else "array<i64>"


class Attr:
    """Attribute spellings for the generic op form."""

    @staticmethod
    def i64(value):
        return "%d : i64" % int(value)

    @staticmethod
    def f64(value):
        return "%s : f64" % _float(value)

    @staticmethod
    def array(values):
        return i64_array(values)

    @staticmethod
    def boolean(value):
        return "true" if value else "false"

    unit = "unit"


def dense(array, dtype):
    """A dense elements attribute of a numpy array (exact bits)."""
    import numpy as np

    flat = np.ascontiguousarray(array).reshape(-1)
    type_ = tensor_type(array.shape, dtype)
    if dtype == "i1":
        values = [bool(v) for v in flat.tolist()]
        if flat.size and all(v == values[0] for v in values):
            return "dense<%s> : %s" % ("true" if values[0] else "false", type_)
        return "dense<%s> : %s" % (_nested(np.asarray(values).reshape(
            array.shape).tolist()), type_)
    data = flat.astype({"f32": "<f4", "i64": "<i8", "i32": "<i4"}[dtype])
    if data.size and (data == data[0]).all() and not (
            dtype == "f32" and np.isnan(data[0])):
        data = data[:1]  # a splat
    return 'dense<"0x%s"> : %s' % (data.tobytes().hex().upper(), type_)


def _nested(values):
    if isinstance(values, list):
        return "[" + ", ".join(_nested(v) for v in values) + "]"
    return "true" if values else "false"


class Emitter:
    """Collects the body of one function: each op appends a line; values
    get fresh names."""

    def __init__(self):
        self.lines = []
        self.count = 0
        self.location = None

    def fresh(self, shape, dtype):
        self.count += 1
        return Value("%%v%d" % self.count, shape, dtype)

    def op(self, name, operands, results, attrs=None):
        """Appends `name` applied to `operands` with `attrs` (name ->
        spelled value) and returns Values of the `results` ((shape, dtype)
        pairs): one Value, or a list for several results."""
        values = [self.fresh(shape, dtype) for shape, dtype in results]
        lhs = ""
        if len(values) == 1:
            lhs = values[0].name + " = "
        elif values:
            lhs = "%s:%d = " % (values[0].name, len(values))
            # Results of a multi-result op are %name#i.
            base = values[0].name
            for index, value in enumerate(values):
                value.name = "%s#%d" % (base, index)
        attr_text = ""
        if attrs:
            attr_text = " {" + ", ".join(
                k if v == Attr.unit else "%s = %s" % (k, v)
                for k, v in attrs.items()) + "}"
        self.lines.append("    %s\"%s\"(%s)%s : (%s) -> (%s)%s" % (
            lhs, name, ", ".join(v.name for v in operands), attr_text,
            ", ".join(v.type for v in operands),
            ", ".join(v.type for v in values), self._loc()))
        if len(values) == 1:
            return values[0]
        return values

    def _loc(self):
        return " loc(%s)" % _string(self.location) if self.location else ""

    def constant(self, array, dtype):
        value = self.fresh(array.shape, dtype)
        self.lines.append("    %s = \"amp.constant\"() {value = %s} : () -> %s%s"
                          % (value.name, dense(array, dtype), value.type,
                             self._loc()))
        return value


def function_text(name, arguments, results, body_lines):
    """The module text: `arguments` and `results` are (Value, role, name)
    triples; results also give the returned Values."""
    args = ",\n      ".join(
        "%s: %s {amp.name = %s, amp.role = #amp.role<%s>}" %
        (value.name, value.type, _string(amp_name), role)
        for value, role, amp_name in arguments)
    result_types = ", ".join(
        "%s {amp.name = %s, amp.role = #amp.role<%s>}" %
        (value.type, _string(amp_name), role)
        for value, role, amp_name in results)
    returned = ", ".join(value.name for value, _, _ in results)
    returned_types = ", ".join(value.type for value, _, _ in results)
    return ("module {\n  func.func @%s(\n      %s)\n      -> (%s)\n"
            "      attributes {amp.graph = #amp.graph<forward>} {\n%s\n"
            "    func.return %s : %s\n  }\n}\n" %
            (name, args, result_types, "\n".join(body_lines), returned,
             returned_types))

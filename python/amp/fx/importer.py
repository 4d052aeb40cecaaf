"""Imports a captured ExportedProgram (capture.py) as a forward model in
the amp dialect (MLIR text, parsed and verified by the library).

Roles come from the graph signature, never from what a value looks like:
trainable parameters are `parameter` arguments; frozen parameters and
buffers are `buffer` arguments (state that is never trained; the buffers
the forward mutates, such as batch-norm running statistics, are returned
updated); lifted constants become amp.constant ops. Nodes that depend on
no argument (a causal mask built with torch.ones and torch.triu, position
ids from torch.arange) are evaluated here with torch and become constants
too; nothing that depends on a parameter or a buffer is ever folded.
"""
import os

import numpy as np

from . import ops  # noqa: F401  (registers the handlers)
from .emitter import Emitter, Value, element_type, function_text
from .errors import ImportError_
from .registry import HANDLERS

# Ops whose result must not be computed at import time even when their
# operands are known: they draw random numbers each step.
_RANDOM = ("rand", "bernoulli", "dropout", "normal", "randint", "randperm",
           "multinomial", "exponential", "uniform")


class Imported:
    """The result: the module text, the initial contents of every
    parameter and buffer argument by name, and what the trainer must know
    beyond the library (counters it keeps itself, buffers that are not part
    of the module's state_dict)."""

    def __init__(self, text, initial, counters, non_persistent,
                 dropout_seeds, integer_constants):
        self.integer_constants = integer_constants
        self.text = text
        self.initial = initial
        self.counters = counters
        self.non_persistent = non_persistent
        self.dropout_seeds = dropout_seeds


def op_name(target):
    """"aten.add.Tensor" for torch.ops.aten.add.Tensor; the callable's
    name for others (operator.getitem -> "getitem")."""
    name = getattr(target, "_name", None)
    if name is not None:  # an OpOverload: "aten::add.Tensor"
        overload = getattr(target, "_overloadname", "default")
        base = name.replace("::", ".")
        return base if base.endswith("." + overload) else \
            "%s.%s" % (base, overload)
    return getattr(target, "__name__", str(target))


def _module_path(node):
    stack = node.meta.get("nn_module_stack")
    if not stack:
        return None
    return _clean_path(list(stack.values())[-1][0]) or None


def _user_line(node, model):
    """"file.py:12" of the innermost frame of the node's stack trace that is
    not inside torch itself; without a stack trace (torch.export records
    none by default), where the forward of the innermost module of the
    user's own (not torch's) around the node is defined."""
    import inspect

    import torch

    torch_dir = os.path.dirname(torch.__file__)
    best = None
    for line in (node.meta.get("stack_trace") or "").splitlines():
        line = line.strip()
        if not line.startswith('File "'):
            continue
        filename = line[6:line.index('"', 6)]
        if not filename.startswith(torch_dir) and ", line " in line:
            best = "%s:%s" % (os.path.basename(filename),
                              line.split(", line ")[1].split(",")[0])
    if best or model is None:
        return best
    paths = [entry[0] for entry in (node.meta.get("nn_module_stack") or
                                    {}).values()]
    for path in reversed([""] + [_clean_path(p) for p in paths]):
        try:
            module = model.get_submodule(path) if path else model
            forward = type(module).forward
            filename = inspect.getsourcefile(forward)
            if filename is None or filename.startswith(torch_dir):
                continue
            return "%s.forward, %s:%d" % (
                type(module).__name__, os.path.basename(filename),
                inspect.getsourcelines(forward)[1])
        except (AttributeError, OSError, TypeError):
            continue
    return None


def _clean_path(path):
    # Older exporters spell it "L['self'].layer1.conv" or "L__self___layer1".
    for prefix in ("L['self'].", "L__self___"):
        if path.startswith(prefix):
            path = path[len(prefix):]
    return path


def describe(node, model=None):
    """The op, the module path and the user's source line of `node`."""
    text = op_name(node.target) if node.op == "call_function" else node.name
    if text.endswith(".default"):
        text = text[:-len(".default")]
    path = _module_path(node)
    if path:
        text += " in module '%s'" % path
    line = _user_line(node, model)
    if line:
        text += " (%s)" % line
    return text


class Context:
    """What a handler works with: the emitter, the node's output shapes,
    and conversions of operands (Values, folded torch constants, Python
    scalars) to amp Values."""

    def __init__(self, emitter):
        self.emit = emitter
        self.node = None
        self._constants = {}

    # The node's results as torch describes them (fake tensors).
    def result(self, index=None):
        val = self.node.meta.get("val")
        if index is not None:
            val = val[index]
        return tuple(val.shape), element_type(val.dtype,
                                              "the result of " + self.where())

    def where(self):
        return self.emit.location

    def fail(self, reason):
        raise ImportError_(reason)

    # Operands.
    def tensor(self, value, like=None, dtype=None):
        """`value` as a Value: a Value as is, a torch tensor as a constant,
        a Python number as a scalar constant of `dtype` (or `like`'s)."""
        import torch

        if isinstance(value, Value):
            return value
        if isinstance(value, torch.Tensor):
            key = id(value)
            if key not in self._constants:
                dt = element_type(value.dtype, "a constant of " + self.where())
                array = value.detach().cpu().numpy() if dt != "i1" else \
                    value.detach().cpu().numpy().astype(bool)
                self._constants[key] = (value, self.emit.constant(
                    np.asarray(array), dt))
            return self._constants[key][1]
        if isinstance(value, (bool, int, float)):
            dt = dtype or (like.dtype if like is not None else "f32")
            numpy_type = {"f32": np.float32, "i64": np.int64,
                          "i32": np.int32, "i1": np.bool_}[dt]
            return self.emit.constant(np.array(value, dtype=numpy_type), dt)
        self.fail("operand %r is not a tensor or a number" % (value,))

    def new_seed(self):
        """A new i64 seed input of the step (the trainer draws one per
        seed each step) for an op that draws random numbers."""
        seed = self.emit.fresh((), "i64")
        seed.name = "%%dropout_seed_%d" % self.emit.count
        self.seeds.append(seed)
        return seed

    def reshape(self, value, shape):
        shape = tuple(shape)
        if value.shape == shape:
            return value
        return self.emit.op("amp.reshape", [value], [(shape, value.dtype)])

    def broadcast(self, value, shape):
        shape = tuple(shape)
        if value.shape == shape:
            return value
        return self.emit.op("amp.broadcast", [value], [(shape, value.dtype)])

    def cast(self, value, dtype):
        """Converts between element types amp has ops for: float to
        float (amp.cast), bool to float or integer (a select)."""
        if value.dtype == dtype:
            return value
        if value.dtype == "i1":
            one = self.broadcast(self.tensor(1, dtype=dtype), value.shape)
            zero = self.broadcast(self.tensor(0, dtype=dtype), value.shape)
            return self.emit.op("amp.where", [value, one, zero],
                                [(value.shape, dtype)])
        self.fail("amp cannot convert a %s tensor to %s inside the step "
                  "(only bool to numbers, and floats between precisions)"
                  % (value.dtype, dtype))

    def operands(self, values, shape, dtype):
        """Each of `values` as a Value of `shape` and `dtype` (numbers
        become constants, tensors are broadcast)."""
        out = []
        for value in values:
            v = self.tensor(value, dtype=dtype)
            if v.dtype != dtype:
                v = self.cast(v, dtype)
            out.append(self.broadcast(v, shape))
        return out


def _resolve(arg, env):
    import torch.fx

    if isinstance(arg, torch.fx.Node):
        return env[arg]
    if isinstance(arg, (list, tuple)):
        return type(arg)(_resolve(a, env) for a in arg)
    if isinstance(arg, dict):
        return {k: _resolve(v, env) for k, v in arg.items()}
    return arg


def _has_value(arg):
    if isinstance(arg, Value):
        return True
    if isinstance(arg, (list, tuple)):
        return any(_has_value(a) for a in arg)
    if isinstance(arg, dict):
        return any(_has_value(a) for a in arg.values())
    return False


def _numpy(tensor):
    return np.array(tensor.detach().cpu().numpy(), order="C")


class _Importer:
    def __init__(self, captured, input_names):
        self.captured = captured
        self.input_names = input_names
        self.emitter = Emitter()
        self.context = Context(self.emitter)
        self.env = {}
        self.context.seeds = []
        self.arguments = []      # (Value, role, name)
        self.initial = {}
        self.counters = {}
        self.integer_constants = {}
        self.dropout_seeds = []

    def run(self, function_name):
        self._arguments()
        needed = self._needed_nodes()
        for node in self.captured.graph.nodes:
            if node.op == "call_function" and node in needed:
                self._call(node)
        results = []
        outputs = self.captured.user_outputs
        for node in outputs:
            value = self._output(node, "the forward's output")
            if len(outputs) == 1 and value.shape == () and \
                    value.dtype == "f32":
                # A forward that returns a scalar returns its loss.
                results.append((value, "loss", "loss"))
                continue
            results.append((value, "output", "output" if len(outputs) == 1
                            else "output%d" % len(results)))
        for node, target in self.captured.mutations.items():
            if target in self.counters:
                continue
            value = self._output(node, "buffer '%s'" % target)
            results.append((value, "buffer", target))
        # The seeds are arguments, after the module's inputs.
        arguments = [a for a in self.arguments if a[1] == "input"]
        arguments += [a for a in self.arguments if a[1] != "input"]
        text = function_text(function_name, arguments, results,
                             self.emitter.lines)
        return text

    def _describe(self, node):
        return describe(node, self.captured.model)

    def _output(self, node, what):
        value = self.env.get(node)
        if not isinstance(value, Value):
            import torch

            if isinstance(value, torch.Tensor):
                self.emitter.location = self._describe(node)
                return self.context.tensor(value)
            raise ImportError_("%s is not a tensor (%r)" % (what, value))
        return value

    def _arguments(self):
        seen = {}
        inputs = iter(self.input_names or [])
        for p in self.captured.placeholders:
            node = p.node
            if p.kind == "constant":
                self.env[node] = p.value
                continue
            if p.kind == "input":
                val = node.meta["val"]
                dtype = element_type(val.dtype, "input '%s'" % node.name)
                value = Value("%" + _ssa(node.name), val.shape, dtype)
                self.env[node] = value
                self.arguments.append((value, "input",
                                       next(inputs, node.name)))
                continue
            if not node.users and p.kind == "parameter":
                continue  # unused (a tied weight read under its other name)
            key = id(p.value)
            if key in seen:  # the same tensor under two names
                self.env[node] = seen[key]
                continue
            dtype = element_type(p.value.dtype, "%s '%s'" % (p.kind,
                                                             p.target))
            value = Value("%" + _ssa(node.name), p.value.shape, dtype)
            seen[key] = value
            self.env[node] = value
            if dtype != "f32":
                if p.target in self.captured.mutations.values():
                    self._integer_buffer(p, value)
                else:
                    # amp computes with floats only: an integer buffer the
                    # forward reads (position or token type ids) is a
                    # constant of the step, which the trainer refuses to
                    # load another value into.
                    self.env[node] = p.value
                    self.integer_constants[p.target] = p.value
                continue
            role = "parameter" if p.trainable else "buffer"
            self.arguments.append((value, role, p.target))
            self.initial[p.target] = _numpy(p.value)

    def _integer_buffer(self, placeholder, value):
        """An integer buffer that the forward updates: batch norm's
        num_batches_tracked, which it only counts up, is counted by the
        trainer (reading it is not supported); any other update is an
        error. (Integer buffers the forward only reads, such as position
        ids, are buffer arguments like float ones.)"""
        target = placeholder.target
        for node, mutated in self.captured.mutations.items():
            if mutated != target:
                continue
            if op_name(node.target) == "aten.add.Tensor" and \
                    node.args[0] is placeholder.node and \
                    isinstance(node.args[1], int):
                self.counters[target] = node.args[1]
                self.env[placeholder.node] = _Unreadable(target)
                return
            raise ImportError_("integer buffer '%s' is updated by %s; amp "
                               "updates float state only" % (
                                   target, self._describe(node)))

    def _needed_nodes(self):
        """The nodes the outputs and float buffer updates depend on."""
        roots = list(self.captured.user_outputs) + [
            n for n, t in self.captured.mutations.items()
            if t not in self.counters]
        needed, stack = set(), list(roots)
        import torch.fx

        while stack:
            node = stack.pop()
            if not isinstance(node, torch.fx.Node) or node in needed:
                continue
            needed.add(node)
            for arg in node.all_input_nodes:
                stack.append(arg)
        return needed

    def _call(self, node):
        name = op_name(node.target)
        args = _resolve(node.args, self.env)
        kwargs = _resolve(node.kwargs, self.env)
        self.context.node = node
        where = self._describe(node)
        self.emitter.location = where
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, _Unreadable):
                raise ImportError_(
                    "%s reads integer buffer '%s'; amp keeps it as a counter "
                    "only (for batch norm: give momentum a value)" %
                    (where, a.target))
        if name == "getitem":
            self.env[node] = args[0][args[1]]
            return
        if not _has_value(args) and not _has_value(kwargs) and \
                not any(word in name for word in _RANDOM):
            # Depends on no argument: computed now (masks, position ids).
            try:
                self.env[node] = node.target(*args, **kwargs)
            except Exception as error:
                raise ImportError_("%s: cannot be evaluated at import time: "
                                   "%s" % (where, error)) from None
            return
        handler = HANDLERS.get(name)
        if handler is None:
            raise ImportError_(
                "%s: amp has no import for this op (docs/PyTorchImport.md "
                "lists those it has: write this computation with them, or "
                "do it outside the compiled module)" % where)
        try:
            self.env[node] = handler(self.context, *args, **kwargs)
        except ImportError_ as error:
            raise ImportError_("%s: %s" % (where, error)) from None
        # Random ops' seeds (ctx.new_seed) are inputs of the step.
        for seed in self.context.seeds[len(self.dropout_seeds):]:
            self.dropout_seeds.append(seed)
            self.arguments.append((seed, "input", seed.name[1:]))


class _Unreadable:
    """An integer buffer the trainer counts (see _integer_buffer)."""

    def __init__(self, target):
        self.target = target


def _ssa(name):
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name)


def import_program(captured, input_names, function_name="forward"):
    """The forward model of `captured` (capture.Captured) as amp MLIR text
    with its initial values; raises ImportError_ naming the node."""
    importer = _Importer(captured, input_names)
    text = importer.run(function_name)
    non_persistent = [p.target for p in captured.placeholders
                      if p.kind == "buffer" and not p.persistent]
    return Imported(text, importer.initial, importer.counters,
                    non_persistent,
                    [v.name[1:] for v in importer.dropout_seeds],
                    importer.integer_constants)

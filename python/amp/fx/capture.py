"""Captures a torch.nn.Module with torch.export (PyTorch 2.x).

The ExportedProgram's graph signature is the truth about every tensor the
forward reads: trainable parameters (requires_grad), frozen parameters,
buffers (and which ones the forward mutates), lifted constants and user
inputs. The program is decomposed to core ATen, except for the ops kept
whole below because amp has an op for them.
"""
import warnings

from .errors import ImportError_

# Ops kept whole: amp has one op for each, with its own gradient and
# precision category (a decomposition would lose both).
_PRESERVED = ("linear.default", "silu.default", "rms_norm.default",
              "dropout.default", "hardswish.default", "hardsigmoid.default",
              "softplus.default", "mish.default",
              "scaled_dot_product_attention.default")


class Placeholder:
    """One input of the exported graph."""

    def __init__(self, node, kind, target, value, trainable, persistent):
        self.node = node
        self.kind = kind            # "parameter", "buffer", "constant", "input"
        self.target = target        # state_dict key (None for user inputs)
        self.value = value          # its tensor (None for user inputs)
        self.trainable = trainable
        self.persistent = persistent


class Captured:
    """What the importer needs of an ExportedProgram."""

    def __init__(self, model, graph, placeholders, mutations, user_outputs):
        self.model = model
        self.graph = graph
        self.placeholders = placeholders
        self.mutations = mutations      # output node -> buffer name
        self.user_outputs = user_outputs


def _decomposition_table(torch):
    default = getattr(torch.export, "default_decompositions", None)
    if default is None:
        return None  # older torch: the default core ATen set
    table = default()
    for name in _PRESERVED:
        packet, overload = name.split(".")
        op = getattr(getattr(torch.ops.aten, packet, None), overload, None)
        if op is not None and op in table:
            del table[op]
    return table


def export(model, example_inputs):
    """model's ExportedProgram in core ATen (with _PRESERVED kept). Has no
    effect on the module (torch.export traces with fake tensors) or on
    torch's random number generator."""
    import torch

    rng = torch.get_rng_state()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                program = torch.export.export(model, tuple(example_inputs),
                                              strict=False)
            except TypeError:  # no `strict` keyword (torch 2.0)
                program = torch.export.export(model, tuple(example_inputs))
            table = _decomposition_table(torch)
            return program.run_decompositions(table) if table is not None \
                else program.run_decompositions()
    finally:
        torch.set_rng_state(rng)


def _kind_name(kind):
    return str(kind).split(".")[-1].lower()


def capture(model, example_inputs):
    """The module's exported graph and the role of each of its inputs."""
    program = export(model, example_inputs)
    signature = program.graph_signature
    constants = getattr(program, "constants", {}) or {}
    state = program.state_dict
    placeholders_by_name = {n.name: n for n in program.graph.nodes
                            if n.op == "placeholder"}
    placeholders = []
    for spec in signature.input_specs:
        node = placeholders_by_name[spec.arg.name]
        kind = _kind_name(spec.kind)
        target = spec.target
        persistent = bool(getattr(spec, "persistent", True)) \
            if kind == "buffer" else True
        if kind == "parameter":
            value = state[target]
            placeholders.append(Placeholder(node, "parameter", target, value,
                                            bool(value.requires_grad), True))
        elif kind == "buffer":
            value = state[target] if target in state else constants[target]
            placeholders.append(Placeholder(node, "buffer", target, value,
                                            False, persistent))
        elif kind in ("constant_tensor", "custom_obj"):
            if target not in constants:
                raise ImportError_("the exported program's constant %r has "
                                   "no value" % target)
            placeholders.append(Placeholder(node, "constant", target,
                                            constants[target], False, False))
        elif kind == "user_input":
            placeholders.append(Placeholder(node, "input", None, None, False,
                                            True))
        else:
            raise ImportError_("the exported program has an input of kind "
                               "%s (%s), which amp does not train" %
                               (kind, spec.arg.name))
    output_node = next(n for n in program.graph.nodes if n.op == "output")
    outputs = output_node.args[0]
    mutations, user_outputs = {}, []
    for spec, node in zip(signature.output_specs, outputs):
        kind = _kind_name(spec.kind)
        if kind == "buffer_mutation":
            mutations[node] = spec.target
        elif kind == "user_output":
            user_outputs.append(node)
        else:
            raise ImportError_("the module's forward %s (%s); amp compiles "
                               "forwards that return tensors and update only "
                               "buffers" % (
                                   "mutates its input" if kind ==
                                   "user_input_mutation" else
                                   "has an output of kind " + kind,
                                   spec.target or node))
    return Captured(model, program.graph, placeholders, mutations,
                    user_outputs)

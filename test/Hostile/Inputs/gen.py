#!/usr/bin/env python3
"""Writes the large or binary hostile inputs of test/Hostile.

    gen.py deep-mlir KIND DEPTH OUT   KIND: bracket ([), paren ((), tuple
    gen.py deep-json DEPTH OUT        a JSON policy with nested arrays
    gen.py deep-yaml DEPTH OUT        a YAML policy with nested flow sequences
    gen.py deep-yaml-block DEPTH OUT  ... with nested block sequences
    gen.py deep-onnx DEPTH OUT        an ONNX model with nested subgraphs
    gen.py long-policy ENTRIES OUT    a YAML policy whose allow list adds
                                      and removes ENTRIES op kinds in all
    gen.py npy OUT SHAPE DTYPE [FILL] a .npy file (FILL: a number, nan, inf,
                                      -inf; default a seeded normal sample)
    gen.py npy-header OUT HEADER      a .npy file with a raw (corrupt) header
    gen.py npy-version OUT MAJOR      a .npy file of an unknown format version
    gen.py ckpt-fill IN OUT NAME FILL a copy of an amp checkpoint with tensor
                                      NAME filled with FILL (nan, inf, ...)
    gen.py ckpt-retype IN OUT NAME DTYPE|SHAPE
                                      ... with NAME of another dtype or shape
    gen.py onnx-mlp OUT               a small MLP (Gemm, Relu, Gemm,
                                      LayerNormalization) with initializers
    gen.py onnx-raw OUT short|long    the MLP with a raw_data too short/long
    gen.py onnx-external DIR missing|range|symlink|ok
                                      the MLP with a weight in external data

Everything is deterministic.
"""

import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "amp-compile", "Inputs"))


def deep_mlir(kind, depth, out):
    if kind == "bracket":
        value = "[" * depth + "1" + "]" * depth
    elif kind == "paren":
        value = "affine_map<(d0) -> (" + "(" * depth + "d0" + ")" * depth + ")>"
    elif kind == "tuple":
        value = "tuple<" * depth + "i32" + ">" * depth
    else:
        raise SystemExit("unknown kind " + kind)
    with open(out, "w") as f:
        f.write("func.func private @deep() attributes {deep = %s}\n" % value)


def deep_json(depth, out):
    with open(out, "w") as f:
        f.write('{"precision": "fp16", "deny": {"add": %s}}\n' %
                ("[" * depth + "]" * depth))


def deep_yaml(depth, out):
    with open(out, "w") as f:
        f.write("precision: fp16\ndeny:\n  add: %s\n" %
                ("[" * depth + "]" * depth))


def deep_yaml_block(depth, out):
    with open(out, "w") as f:
        f.write("precision: fp16\ndeny:\n  add:\n    " + "- " * depth +
                "amp.gelu\n")


def long_policy(entries, out):
    # One entry per line, as a long generated policy would be written;
    # the remove list makes the add/remove conflict check meet every pair.
    kinds = ["amp.matmul", "amp.linear"]
    with open(out, "w") as f:
        f.write("allow:\n  add:\n")
        for i in range(entries // 2):
            f.write("    - %s\n" % kinds[i % 2])
        f.write("  remove:\n")
        for i in range(entries - entries // 2):
            f.write("    - amp.conv2d\n")


def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number, payload):
    """A length-delimited protobuf field."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def deep_onnx(depth, out):
    # GraphProto.node (1) -> NodeProto.attribute (5) -> AttributeProto.g (6)
    # -> GraphProto ...: an If node whose then_branch nests `depth` deep.
    graph = field(2, b"inner")
    for _ in range(depth):
        attribute = field(1, b"then_branch") + varint(20 << 3) + varint(5) + \
            field(6, graph)
        node = field(4, b"If") + field(5, attribute)
        graph = field(1, node)
    model = varint(1 << 3) + varint(8) + field(7, graph) + \
        field(8, varint(2 << 3) + varint(13))
    with open(out, "wb") as f:
        f.write(model)


def fill_array(shape, dtype, fill):
    import numpy as np
    if fill is None:
        rng = np.random.default_rng(7)
        if np.issubdtype(np.dtype(dtype), np.integer):
            return rng.integers(0, 2, size=shape).astype(dtype)
        return rng.standard_normal(shape).astype(dtype)
    return np.full(shape, float(fill)).astype(dtype)


def parse_shape(text):
    return tuple(int(d) for d in text.split("x")) if text else ()


def npy(out, shape, dtype, fill=None):
    import numpy as np
    np.save(out, fill_array(parse_shape(shape), dtype, fill))
    if not out.endswith(".npy"):
        os.rename(out + ".npy", out)


def npy_header(out, header):
    """A version 1.0 .npy with `header` (padded) and 128 bytes of data."""
    raw = header.encode("latin-1")
    raw += b" " * ((64 - (10 + len(raw) + 1) % 64) % 64) + b"\n"
    with open(out, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(raw)) + raw +
                bytes(128))


def npy_version(out, major):
    header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (8, 4), }"
    header += b" " * ((64 - (12 + len(header) + 1) % 64) % 64) + b"\n"
    with open(out, "wb") as f:
        f.write(b"\x93NUMPY" + bytes([int(major), 0]) +
                struct.pack("<I", len(header)) + header + bytes(128))


def ckpt_fill(path_in, out, name, fill):
    import numpy as np
    import amp_checkpoint
    tensors = amp_checkpoint.read(path_in)
    tensors[name] = np.full_like(tensors[name], float(fill))
    amp_checkpoint.write(out, list(tensors.items()))


def ckpt_retype(path_in, out, name, change):
    import numpy as np
    import amp_checkpoint
    tensors = amp_checkpoint.read(path_in)
    old = tensors[name]
    if change[0].isdigit():
        tensors[name] = np.zeros(parse_shape(change), old.dtype)
    else:
        tensors[name] = old.astype(change)
    amp_checkpoint.write(out, list(tensors.items()))


def onnx_mlp():
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(3)

    def init(name, *shape):
        return numpy_helper.from_array(
            rng.standard_normal(shape).astype(np.float32) / 8, name)

    nodes = [
        helper.make_node("Gemm", ["x", "fc1.weight", "fc1.bias"], ["h"],
                         name="fc1", transB=1),
        helper.make_node("Relu", ["h"], ["r"], name="relu"),
        helper.make_node("Gemm", ["r", "fc2.weight", "fc2.bias"], ["z"],
                         name="fc2", transB=1),
        helper.make_node("LayerNormalization", ["z", "ln.weight", "ln.bias"],
                         ["y"], name="ln", axis=-1),
    ]
    inits = [init("fc1.weight", 32, 16), init("fc1.bias", 32),
             init("fc2.weight", 8, 32), init("fc2.bias", 8),
             init("ln.weight", 8), init("ln.bias", 8)]
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                     [4, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])],
        initializer=inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def save_model(model, out):
    with open(out, "wb") as f:
        f.write(model.SerializeToString())


def onnx_raw(out, how):
    model = onnx_mlp()
    weight = model.graph.initializer[0]
    raw = weight.raw_data
    weight.raw_data = raw[:len(raw) // 2] if how == "short" else raw + raw
    save_model(model, out)


def onnx_external(directory, how):
    """mlp.onnx with fc1.weight in weights.bin (next to it, or elsewhere)."""
    from onnx import TensorProto
    os.makedirs(directory, exist_ok=True)
    model = onnx_mlp()
    weight = model.graph.initializer[0]
    raw = weight.raw_data
    weight.ClearField("raw_data")
    weight.data_location = TensorProto.EXTERNAL
    entries = {"location": "weights.bin", "offset": "0",
               "length": str(len(raw))}
    if how == "range":
        entries["offset"] = str(len(raw) * 4)
    for key, value in entries.items():
        entry = weight.external_data.add()
        entry.key, entry.value = key, value
    bin_path = os.path.join(directory, "weights.bin")
    if how in ("ok", "range"):
        with open(bin_path, "wb") as f:
            f.write(raw)
    elif how == "symlink":
        # The data lies outside the model's folder, reached through a link
        # inside it: refused (docs/ONNX.md).
        outside = os.path.join(os.path.dirname(os.path.abspath(directory)),
                               "outside-weights.bin")
        with open(outside, "wb") as f:
            f.write(raw)
        os.symlink(outside, bin_path)
    save_model(model, os.path.join(directory, "mlp.onnx"))


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "deep-mlir":
        deep_mlir(args[0], int(args[1]), args[2])
    elif command == "deep-json":
        deep_json(int(args[0]), args[1])
    elif command == "deep-yaml":
        deep_yaml(int(args[0]), args[1])
    elif command == "deep-yaml-block":
        deep_yaml_block(int(args[0]), args[1])
    elif command == "long-policy":
        long_policy(int(args[0]), args[1])
    elif command == "deep-onnx":
        deep_onnx(int(args[0]), args[1])
    elif command == "npy":
        npy(*args)
    elif command == "npy-header":
        npy_header(*args)
    elif command == "npy-version":
        npy_version(*args)
    elif command == "ckpt-fill":
        ckpt_fill(*args)
    elif command == "ckpt-retype":
        ckpt_retype(*args)
    elif command == "onnx-mlp":
        save_model(onnx_mlp(), args[0])
    elif command == "onnx-raw":
        onnx_raw(*args)
    elif command == "onnx-external":
        onnx_external(*args)
    else:
        raise SystemExit("unknown command " + command)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes malformed and unsupported ONNX files for the importer's error tests.

    onnx_bad.py DIR

Every file is deterministic. Valid-but-unsupported models are built with
onnx.helper; corrupt ones are cut or random bytes. external_ok.onnx keeps
its weight in external_ok.bin (a supported model, the positive control for
the external-data errors).
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def model(nodes, inputs, outputs, inits=(), opset=13, domains=()):
    graph = helper.make_graph(nodes, "bad", inputs, outputs,
                              initializer=list(inits))
    imports = [helper.make_opsetid("", opset)] if opset else []
    imports += [helper.make_opsetid(d, 1) for d in domains]
    m = helper.make_model(graph, opset_imports=imports)
    m.ir_version = 8
    return m


def vi(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


def linear_model():
    w = numpy_helper.from_array(
        np.arange(64 * 32, dtype=np.float32).reshape(32, 64) / 1000, "w")
    return model([helper.make_node("Gemm", ["x", "w"], ["y"], transB=1)],
                 [vi("x", [4, 64])], [vi("y", [4, 32])], [w])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)

    def save(name, m):
        with open(os.path.join(out, name), "wb") as f:
            f.write(m if isinstance(m, bytes) else m.SerializeToString())

    good = linear_model().SerializeToString()
    save("truncated.onnx", good[:len(good) * 2 // 3])
    save("random.onnx", np.random.default_rng(7).integers(
        0, 256, 4096, dtype=np.uint8).tobytes())
    save("empty.onnx", b"")
    relu = [helper.make_node("Relu", ["x"], ["y"])]
    save("unsupported_op.onnx", model(
        [helper.make_node("TopK", ["x", "k"], ["y", "i"], name="encoder/topk")],
        [vi("x", [1, 2, 3]), vi("k", [1], I64)], [vi("y", None)]))
    save("lstm.onnx", model(
        [helper.make_node("LSTM", ["x", "w", "r"], ["y"], name="encoder/lstm",
                          hidden_size=4)],
        [vi("x", [1, 2, 3]), vi("w", [1, 16, 3]), vi("r", [1, 16, 4])],
        [vi("y", None)]))
    save("custom_domain.onnx", model(
        [helper.make_node("FusedGemm", ["x"], ["y"], domain="com.microsoft",
                          name="fused")],
        [vi("x", [2, 2])], [vi("y", None)], domains=["com.microsoft"]))
    save("opset12.onnx", model(relu, [vi("x", [2])], [vi("y", [2])],
                               opset=12))
    save("opset22.onnx", model(relu, [vi("x", [2])], [vi("y", [2])],
                               opset=22))
    save("no_default_opset.onnx", model(relu, [vi("x", [2])], [vi("y", [2])],
                                        opset=0, domains=["com.microsoft"]))
    save("dynamic_batch.onnx", model(relu, [vi("x", ["batch", 3])],
                                     [vi("y", ["batch", 3])]))
    save("no_shape.onnx", model(relu, [helper.make_tensor_value_info(
        "x", F, None)], [vi("y", None)]))
    save("double_input.onnx", model(relu, [vi("x", [2], TensorProto.DOUBLE)],
                                    [vi("y", None)]))

    # External data: a valid model, then a missing file, a path escaping the
    # model's directory and a length beyond the end of the file.
    weight = np.arange(6, dtype=np.float32).reshape(2, 3)
    with open(os.path.join(out, "external_ok.bin"), "wb") as f:
        f.write(weight.tobytes())

    def external(name, location, length=None):
        t = TensorProto()
        t.name, t.data_type = "w", F
        t.dims.extend([2, 3])
        t.data_location = TensorProto.EXTERNAL
        for key, value in (("location", location), ("offset", "0"),
                           ("length", str(length or weight.nbytes))):
            entry = t.external_data.add()
            entry.key, entry.value = key, value
        save(name, model([helper.make_node("Add", ["x", "w"], ["y"])],
                         [vi("x", [2, 3])], [vi("y", [2, 3])], [t]))
    external("external_ok.onnx", "external_ok.bin")
    external("external_missing.onnx", "missing_weights.bin")
    external("external_escape.onnx", "../external_ok.bin")
    external("external_short.onnx", "external_ok.bin", length=4096)

    raw = numpy_helper.from_array(np.zeros(6, np.float32), "w")
    raw.raw_data = raw.raw_data[:10]
    save("raw_size_mismatch.onnx", model(
        [helper.make_node("Add", ["x", "w"], ["y"])], [vi("x", [6])],
        [vi("y", [6])], [raw]))
    save("runtime_shape.onnx", model(
        [helper.make_node("Reshape", ["x", "s"], ["y"], name="view")],
        [vi("x", [2, 3]), vi("s", [2], I64)], [vi("y", None)]))
    save("runtime_int_add.onnx", model(
        [helper.make_node("Add", ["a", "b"], ["y"], name="count")],
        [vi("a", [2], I64), vi("b", [2], I64)], [vi("y", None, I64)]))
    save("broadcast_mismatch.onnx", model(
        [helper.make_node("Add", ["x", "z"], ["y"], name="residual")],
        [vi("x", [2, 3]), vi("z", [4])], [vi("y", None)]))
    save("conv1d.onnx", model(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="conv1d")],
        [vi("x", [1, 2, 8]), vi("w", [3, 2, 3])], [vi("y", None)]))
    save("not_sorted.onnx", model(
        [helper.make_node("Relu", ["t"], ["y"], name="late"),
         helper.make_node("Neg", ["x"], ["t"], name="early")],
        [vi("x", [2])], [vi("y", [2])]))
    save("output_shape_mismatch.onnx", model(
        relu, [vi("x", [2, 3])], [vi("y", [2, 2])]))
    save("bad_attribute.onnx", model(
        [helper.make_node("Softmax", ["x"], ["y"], name="probs", axis=1.5)],
        [vi("x", [2, 3])], [vi("y", None)]))
    then = helper.make_graph([helper.make_node("Identity", ["x"], ["t"])],
                             "then", [], [vi("t", [2])])
    save("subgraph.onnx", model(
        [helper.make_node("If", ["c"], ["y"], name="branch",
                          then_branch=then, else_branch=then)],
        [vi("c", [], TensorProto.BOOL), vi("x", [2])], [vi("y", None)]))
    save("fold_too_large.onnx", model(
        [helper.make_node("Constant", [], ["s"], value=numpy_helper.from_array(
            np.array([1 << 20, 1 << 20], np.int64), "s")),
         helper.make_node("ConstantOfShape", ["s"], ["y"], name="zeros")],
        [], [vi("y", None)]))
    save("gather_out_of_range.onnx", model(
        [helper.make_node("Constant", [], ["i"], value=numpy_helper.from_array(
            np.array([0, 5], np.int64), "i")),
         helper.make_node("Gather", ["x", "i"], ["y"], name="pick")],
        [vi("x", [4, 2])], [vi("y", None)]))
    save("duplicate_output.onnx", model(
        [helper.make_node("Relu", ["x"], ["y"], name="first"),
         helper.make_node("Neg", ["x"], ["y"], name="second")],
        [vi("x", [2])], [vi("y", None)]))
    save("missing_input.onnx", model(
        [helper.make_node("Conv", ["x"], ["y"], name="conv")],
        [vi("x", [1, 1, 3, 3])], [vi("y", None)]))
    save("unused_saved_var.onnx", model(
        [helper.make_node("BatchNormalization", ["x", "g", "b", "m", "v"],
                          ["y", "m1", "v1", "sm", "sv"], name="bn"),
         helper.make_node("Identity", ["sv"], ["z"])],
        [vi("x", [2, 3])], [vi("y", None), vi("z", None)],
        [numpy_helper.from_array(np.ones(3, np.float32), n)
         for n in "gbmv"]))


if __name__ == "__main__":
    main()

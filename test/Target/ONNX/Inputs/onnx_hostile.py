#!/usr/bin/env python3
"""Writes hostile ONNX models for the importer's robustness tests.

    onnx_hostile.py DIR

Each model is malformed in one way a careless exporter or an attacker could
produce: initializers whose data disagrees with their shape (raw, typed or
external data), external data that is missing, out of range or reached
through a symbolic link leading out of the model's directory, wrong and
unknown data types, huge and negative dimensions, missing and duplicated
names, cyclic graphs, and attributes of the wrong type or out of range.
Also writes DIR/truncated/: a real model cut at every offset class.

replay.py runs amp-translate on each and requires a reported error (exit
1, the file named) or a successful import: never a signal or an internal
error. Every file is deterministic.
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnx_bad import F, I64, linear_model, model, vi

BOOL = TensorProto.BOOL


def external_tensor(name, location, shape=(2, 3), **fields):
    t = TensorProto()
    t.name, t.data_type = name, F
    t.dims.extend(shape)
    t.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location),) + tuple(fields.items()):
        entry = t.external_data.add()
        entry.key, entry.value = key, value
    return t


def add_model(init, shape=(2, 3)):
    """y = x + w with initializer `init` as w."""
    return model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                 [vi("x", list(shape))], [vi("y", list(shape))], [init])


def typed(name, dtype, dims, field, values):
    """A tensor with `values` in its typed field, whatever their count."""
    t = TensorProto()
    t.name, t.data_type = name, dtype
    t.dims.extend(dims)
    getattr(t, field).extend(values)
    return t


def raw(values, name="w", dtype=np.float32):
    return numpy_helper.from_array(np.asarray(values, dtype), name)


def initializer_cases(out):
    """Initializers whose contents disagree with their declaration."""
    cases = {}
    long = raw(np.zeros(6))
    long.raw_data = long.raw_data + b"\0" * 8
    cases["raw_long"] = add_model(long, (6,))
    short = raw(np.zeros(6))
    short.raw_data = short.raw_data[:10]
    cases["raw_short"] = add_model(short, (6,))
    empty = raw(np.zeros(6))
    empty.raw_data = b""
    cases["raw_empty"] = add_model(empty, (6,))
    cases["float_data_short"] = add_model(
        typed("w", F, [6], "float_data", [1.0, 2.0, 3.0]), (6,))
    cases["float_data_long"] = add_model(
        typed("w", F, [2], "float_data", [1.0, 2.0, 3.0, 4.0]), (2,))
    cases["float16_int32_data_short"] = add_model(
        typed("w", TensorProto.FLOAT16, [4], "int32_data", [1]), (4,))
    cases["int64_data_short"] = model(
        [helper.make_node("Reshape", ["x", "s"], ["y"], name="view")],
        [vi("x", [6])], [vi("y", None)],
        [typed("s", I64, [2], "int64_data", [6])])
    negative = raw(np.zeros(6))
    del negative.dims[:]
    negative.dims.extend([-2, -3])
    cases["init_negative_dims"] = add_model(negative, (6,))
    huge = raw(np.zeros(6))
    del huge.dims[:]
    huge.dims.extend([1 << 40, 1 << 40])
    cases["init_huge_dims"] = add_model(huge, (6,))
    overflow = raw(np.zeros(6))
    del overflow.dims[:]
    overflow.dims.extend([1 << 62, 4, 0])
    cases["init_dims_overflow_zero"] = add_model(overflow, (6,))
    deep = raw(np.zeros(1))
    del deep.dims[:]
    deep.dims.extend([1] * 100)
    cases["init_rank_100"] = add_model(deep, (1,))
    for dtype, label in ((TensorProto.STRING, "string"), (999, "unknown"),
                         (0, "undefined"), (TensorProto.DOUBLE, "double"),
                         (TensorProto.COMPLEX64, "complex")):
        t = raw(np.zeros(6))
        t.data_type = dtype
        cases["init_dtype_" + label] = add_model(t, (6,))
    unnamed = raw(np.zeros(6), name="")
    cases["init_no_name"] = model(
        [helper.make_node("Add", ["x", ""], ["y"])], [vi("x", [6])],
        [vi("y", [6])], [unnamed])
    cases["init_empty"] = model(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
        [vi("x", [3])], [vi("y", None)], [raw(np.zeros((0, 3)))])
    cases["init_duplicated"] = model(
        [helper.make_node("Add", ["x", "w"], ["y"])], [vi("x", [6])],
        [vi("y", [6])], [raw(np.zeros(6)), raw(np.ones(6))])
    # A shape input whose integer initializer is inconsistent.
    bad_shape = raw([2, 3], name="s", dtype=np.int64)
    bad_shape.raw_data = bad_shape.raw_data[:11]
    cases["int_init_raw_short"] = model(
        [helper.make_node("Reshape", ["x", "s"], ["y"], name="view")],
        [vi("x", [6])], [vi("y", None)], [bad_shape])
    # An initializer that is also a graph output, with bad data.
    cases["init_output_raw_short"] = model(
        [], [], [vi("w", [6])], [short])

    # External data.
    weight = np.arange(6, dtype=np.float32)
    with open(os.path.join(out, "weights.bin"), "wb") as f:
        f.write(weight.tobytes())
    outside = os.path.join(out, "outside")
    os.makedirs(outside, exist_ok=True)
    with open(os.path.join(outside, "secret.bin"), "wb") as f:
        f.write(weight.tobytes())
    model_dir = os.path.join(out, "model_dir")
    os.makedirs(os.path.join(model_dir, "sub"), exist_ok=True)
    with open(os.path.join(model_dir, "sub", "weights.bin"), "wb") as f:
        f.write(weight.tobytes())

    def link(name, target):
        path = os.path.join(model_dir, name)
        if os.path.lexists(path):
            os.remove(path)
        os.symlink(target, path)
    # Links leading out of the model's directory, directly or through a
    # linked directory; and links that stay inside (allowed).
    link("escape.bin", os.path.join(outside, "secret.bin"))
    link("escape_relative.bin", "../outside/secret.bin")
    link("escape_dir", outside)
    link("inside.bin", "sub/weights.bin")
    link("inside_dir", "sub")
    for name, location in (("external_link_escape", "escape.bin"),
                           ("external_link_escape_relative",
                            "escape_relative.bin"),
                           ("external_link_dir_escape",
                            "escape_dir/secret.bin"),
                           ("external_link_inside", "inside.bin"),
                           ("external_link_dir_inside",
                            "inside_dir/weights.bin")):
        with open(os.path.join(model_dir, name + ".onnx"), "wb") as f:
            f.write(add_model(external_tensor("w", location)).
                    SerializeToString())
    cases["external_offset_huge"] = add_model(
        external_tensor("w", "weights.bin", offset=str(1 << 40)))
    cases["external_offset_beyond"] = add_model(
        external_tensor("w", "weights.bin", offset="20", length="24"))
    cases["external_length_long"] = add_model(
        external_tensor("w", "weights.bin", length="16"))
    cases["external_length_overflow"] = add_model(
        external_tensor("w", "weights.bin", offset="8",
                        length=str((1 << 64) - 1)))
    cases["external_length_text"] = add_model(
        external_tensor("w", "weights.bin", length="-1"))
    cases["external_no_location"] = add_model(external_tensor("w", ""))
    cases["external_directory"] = add_model(
        external_tensor("w", "model_dir"))
    cases["external_absolute"] = add_model(
        external_tensor("w", os.path.join(outside, "secret.bin")))
    cases["external_missing"] = add_model(
        external_tensor("w", "no_such_weights.bin"))
    # Parameters of 4 TiB each, more than any machine's memory (their data
    # is never read: the size is refused first).
    huge = [1 << 20, 1 << 20]
    cases["external_beyond_memory"] = model(
        [helper.make_node("Add", ["a", "b"], ["y"], name="add")], [],
        [vi("y", huge)], [external_tensor("a", "huge.bin", huge),
                          external_tensor("b", "huge.bin", huge)])
    return cases


def graph_cases():
    """Graphs that are not well formed."""
    cases = {}
    relu = lambda i, o, name=None: helper.make_node("Relu", [i], [o],
                                                    name=name)
    cases["cyclic"] = model([relu("b", "a", "first"), relu("a", "b", "second")],
                            [vi("x", [2])], [vi("b", [2])])
    cases["self_loop"] = model([relu("a", "a", "loop")], [vi("x", [2])],
                               [vi("a", [2])])
    cases["node_output_shadows_input"] = model(
        [relu("x", "x", "shadow")], [vi("x", [2])], [vi("x", [2])])
    cases["empty_output_name"] = model(
        [relu("x", "", "anonymous"), relu("x", "y")], [vi("x", [2])],
        [vi("y", [2])])
    cases["output_not_produced"] = model(
        [relu("x", "y")], [vi("x", [2])], [vi("z", [2])])
    cases["output_empty_name"] = model(
        [relu("x", "y")], [vi("x", [2])], [vi("", [2])])
    cases["input_duplicated"] = model(
        [relu("x", "y")], [vi("x", [2]), vi("x", [3])], [vi("y", [2])])
    cases["input_no_name"] = model(
        [relu("x", "y")], [vi("x", [2]), vi("", [3])], [vi("y", [2])])
    cases["input_huge_dims"] = model(
        [relu("x", "y")], [vi("x", [1 << 62, 1 << 62])], [vi("y", None)])
    cases["input_negative_dim"] = model(
        [relu("x", "y")], [vi("x", [-5, 2])], [vi("y", None)])
    cases["input_rank_100"] = model(
        [relu("x", "y")], [vi("x", [1] * 100)], [vi("y", None)])
    cases["input_zero_dim"] = model(
        [relu("x", "y")], [vi("x", [0, 3])], [vi("y", None)])
    cases["input_dtype_unknown"] = model(
        [relu("x", "y")], [vi("x", [2], 999)], [vi("y", None)])
    cases["input_not_tensor"] = model(
        [relu("x", "y")],
        [helper.make_value_info("x", helper.make_sequence_type_proto(
            helper.make_tensor_type_proto(F, [2])))], [vi("y", None)])
    cases["output_dtype_mismatch"] = model(
        [relu("x", "y")], [vi("x", [2])], [vi("y", [2], I64)])
    cases["too_many_inputs"] = model(
        [helper.make_node("Relu", ["x", "x", "x"], ["y"], name="r")],
        [vi("x", [2])], [vi("y", None)])
    cases["missing_required_input"] = model(
        [helper.make_node("Add", ["x"], ["y"], name="a")],
        [vi("x", [2])], [vi("y", None)])
    cases["empty_required_input"] = model(
        [helper.make_node("Add", ["x", ""], ["y"], name="a")],
        [vi("x", [2])], [vi("y", None)])
    cases["output_twice"] = model(
        [relu("x", "y")], [vi("x", [2])], [vi("y", [2]), vi("y", [2])])
    cases["input_initializer_mismatch"] = model(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        [vi("x", [6]), vi("w", [3])], [vi("y", [6])], [raw(np.zeros(6))])
    cases["dropout_seed_clash"] = model(
        [helper.make_node("Dropout", ["x", "r", "t"], ["y"], name="d")],
        [vi("x", [4]), vi("d.seed", [], I64)], [vi("y", [4])],
        [raw(0.5, name="r"), raw(True, name="t", dtype=np.bool_)])
    cases["no_nodes_no_outputs"] = model([], [vi("x", [2])], [])
    cases["no_graph"] = helper.make_model(
        helper.make_graph([], "g", [], []),
        opset_imports=[helper.make_opsetid("", 13)])
    cases["no_graph"].ClearField("graph")
    return cases


def attribute_cases():
    """Attributes of the wrong type, missing, or out of range."""
    cases = {}
    x4 = [vi("x", [1, 2, 4, 4])]

    def one(name, op, inputs, graph_inputs, inits=(), **attrs):
        cases[name] = model(
            [helper.make_node(op, inputs, ["y"], name=name, **attrs)],
            graph_inputs, [vi("y", None)], list(inits))

    def ints(name, values):
        return raw(values, name=name, dtype=np.int64)
    w = raw(np.ones((2, 2, 3, 3)), name="w")
    i64_min, i64_max = -(1 << 63), (1 << 63) - 1
    one("softmax_axis_min", "Softmax", ["x"], x4, axis=i64_min)
    one("softmax_axis_ints", "Softmax", ["x"], x4, axis=[1, 2])
    one("transpose_perm_short", "Transpose", ["x"], x4, perm=[0, 1])
    one("transpose_perm_repeated", "Transpose", ["x"], x4, perm=[0, 0, 1, 1])
    one("transpose_perm_huge", "Transpose", ["x"], x4,
        perm=[0, 1, 2, i64_max])
    one("concat_no_axis", "Concat", ["x", "x"], x4)
    one("concat_axis_huge", "Concat", ["x", "x"], x4, axis=i64_max)
    one("flatten_axis_huge", "Flatten", ["x"], x4, axis=i64_min)
    one("gather_axis_huge", "Gather", ["x", "i"], x4, [ints("i", [0])],
        axis=i64_max)
    one("gather_index_min", "Gather", ["x", "i"], x4, [ints("i", [i64_min])])
    one("conv_group_zero", "Conv", ["x", "w"], x4, [w], group=0)
    one("conv_group_negative", "Conv", ["x", "w"], x4, [w], group=-2)
    one("conv_stride_zero", "Conv", ["x", "w"], x4, [w], strides=[0, 0])
    one("conv_dilation_zero", "Conv", ["x", "w"], x4, [w], dilations=[0, 1])
    one("conv_pads_huge", "Conv", ["x", "w"], x4, [w],
        pads=[i64_max, 0, i64_max, 0])
    one("conv_pads_negative", "Conv", ["x", "w"], x4, [w],
        pads=[-100, 0, 0, 0])
    one("conv_kernel_mismatch", "Conv", ["x", "w"], x4, [w],
        kernel_shape=[5, 5])
    one("conv_auto_pad_bogus", "Conv", ["x", "w"], x4, [w], auto_pad="BOGUS")
    one("maxpool_kernel_huge", "MaxPool", ["x"], x4,
        kernel_shape=[i64_max, i64_max])
    one("maxpool_kernel_zero", "MaxPool", ["x"], x4, kernel_shape=[0, 0])
    one("maxpool_no_kernel", "MaxPool", ["x"], x4)
    one("avgpool_strides_huge", "AveragePool", ["x"], x4,
        kernel_shape=[2, 2], strides=[i64_max, i64_max], ceil_mode=1)
    one("avgpool_kernel_rank1", "AveragePool", ["x"], x4, kernel_shape=[2])
    one("reshape_two_minus_one", "Reshape", ["x", "s"], x4,
        [ints("s", [-1, -1])])
    one("reshape_wrong_count", "Reshape", ["x", "s"], x4, [ints("s", [7, 5])])
    one("reshape_huge", "Reshape", ["x", "s"], x4,
        [ints("s", [i64_max, i64_max])])
    one("reshape_negative", "Reshape", ["x", "s"], x4, [ints("s", [-4, 8])])
    one("reshape_float_shape", "Reshape", ["x", "s"], x4,
        [raw([2.0, 16.0], name="s")])
    one("expand_huge", "Expand", ["x", "s"], x4,
        [ints("s", [1 << 30, 1 << 30, 4, 4])])
    one("expand_negative", "Expand", ["x", "s"], x4, [ints("s", [-1, 2, 4, 4])])
    one("slice_step_zero", "Slice", ["x", "b", "e", "a", "t"], x4,
        [ints("b", [0]), ints("e", [2]), ints("a", [1]), ints("t", [0])])
    one("slice_axis_huge", "Slice", ["x", "b", "e", "a"], x4,
        [ints("b", [0]), ints("e", [2]), ints("a", [i64_max])])
    one("slice_bounds_extreme", "Slice", ["x", "b", "e", "a", "t"], x4,
        [ints("b", [i64_max]), ints("e", [i64_min]), ints("a", [2]),
         ints("t", [-1])])
    one("slice_to_empty", "Slice", ["x", "b", "e", "a"], x4,
        [ints("b", [3]), ints("e", [1]), ints("a", [2])])
    one("split_zero_parts", "Split", ["x", "s"], x4, [ints("s", [])], axis=1)
    one("split_negative_parts", "Split", ["x", "s"], x4, [ints("s", [3, -1])],
        axis=1)
    one("squeeze_not_one", "Squeeze", ["x", "a"], x4, [ints("a", [1])])
    one("unsqueeze_repeated", "Unsqueeze", ["x", "a"], x4, [ints("a", [0, 0])])
    one("unsqueeze_huge", "Unsqueeze", ["x", "a"], x4, [ints("a", [i64_max])])
    one("reduce_axes_huge", "ReduceMean", ["x"], x4, axes=[i64_min])
    one("reduce_axes_repeated", "ReduceMean", ["x"], x4, axes=[1, 1])
    one("cast_to_unknown", "Cast", ["x"], x4, to=999)
    one("cast_to_string", "Cast", ["x"], x4, to=TensorProto.STRING)
    one("dropout_ratio_two", "Dropout", ["x", "r", "t"], x4,
        [raw(2.0, name="r"), raw(True, name="t", dtype=np.bool_)])
    one("range_delta_zero", "Range", ["a", "b", "c"], [],
        [ints("a", 0), ints("b", 10), ints("c", 0)])
    one("range_huge", "Range", ["a", "b", "c"], [],
        [ints("a", i64_min), ints("b", i64_max), ints("c", 1)])
    one("constant_of_shape_negative", "ConstantOfShape", ["s"], [],
        [ints("s", [-3, 2])])
    one("pad_huge", "Pad", ["x", "p"], x4,
        [ints("p", [0, 0, 0, i64_max, 0, 0, 0, 0])])
    one("pad_mode_bogus", "Pad", ["x", "p"], x4, [ints("p", [0] * 8)],
        mode="bogus")
    one("batchnorm_epsilon_negative", "BatchNormalization",
        ["x", "g", "b", "m", "v"], x4,
        [raw(np.ones(2), name=n) for n in "gbmv"], epsilon=-1.0)
    one("layernorm_axis_huge", "LayerNormalization", ["x", "g"], x4,
        [raw(np.ones(4), name="g")], axis=i64_max)
    cases["layernorm_axis_huge"].opset_import[0].version = 17
    one("clip_min_above_max", "Clip", ["x", "lo", "hi"], x4,
        [raw(1.0, name="lo"), raw(-1.0, name="hi")])
    one("where_bad_condition", "Where", ["c", "x", "x"],
        x4 + [vi("c", [3], BOOL)])
    one("matmul_rank0", "MatMul", ["x", "s"], x4, [raw(1.0, name="s")])
    one("gemm_rank3", "Gemm", ["x", "x"], x4)
    # Each fold is small, but together they hold 20 times as much: with
    # --max-folded-elements=1000 the total passes its limit (16 times that).
    chain = [helper.make_node("ConstantOfShape", ["s"], ["c0"]),
             helper.make_node("Constant", [], ["s"], value=raw(
                 [1000], name="s", dtype=np.int64))][::-1]
    chain += [helper.make_node("Add", ["c%d" % k, "c%d" % k], ["c%d" % (k + 1)],
                               name="double%d" % k) for k in range(20)]
    cases["fold_chain"] = model(chain, [], [vi("c20", [1000])])
    cases["constant_no_value"] = model(
        [helper.make_node("Constant", [], ["y"], name="c")], [],
        [vi("y", None)])
    cases["constant_two_values"] = model(
        [helper.make_node("Constant", [], ["y"], name="c", value_float=1.0,
                          value_int=2)], [], [vi("y", None)])
    bad_value = helper.make_node("Constant", [], ["y"], name="c",
                                 value=raw(np.zeros(4)))
    bad_value.attribute[0].t.raw_data = b"\0" * 3
    cases["constant_raw_short"] = model([bad_value], [], [vi("y", None)])
    return cases


def truncations(out):
    """A real model (an initializer and a Gemm) cut at every offset."""
    good = linear_model().SerializeToString()
    folder = os.path.join(out, "truncated")
    os.makedirs(folder, exist_ok=True)
    step = max(1, len(good) // 48)
    for cut in sorted(set(range(0, 16)) | set(range(0, len(good), step))):
        with open(os.path.join(folder, "cut%05d.onnx" % cut), "wb") as f:
            f.write(good[:cut])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    cases = {}
    cases.update(initializer_cases(out))
    cases.update(graph_cases())
    cases.update(attribute_cases())
    for name, m in sorted(cases.items()):
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(m.SerializeToString())
    truncations(out)


if __name__ == "__main__":
    main()

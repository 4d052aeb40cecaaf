"""Writes fold-gather.onnx to the directory given: Gathers over tensors known
at import time (Constant nodes), which the importer folds through amp.gather's
folder, next to a Gather of a graph input, which stays an amp.gather."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def const(name, array):
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(array, name))


nodes = [
    const("table", np.array([[1.5, 2.5], [3.5, 4.5], [5.5, 6.5]], np.float32)),
    const("rows", np.array([[2, -3], [1, 2]], np.int64)),
    const("col", np.array([1], np.int32)),
    const("dims", np.array([6, 1, 99], np.int64)),
    const("first_two", np.array([0, 1], np.int64)),
    const("flags", np.array([True, False, True])),
    const("last", np.array(-1, np.int64)),
    # FLOAT data, 2-d indices with a negative one, axis 0.
    helper.make_node("Gather", ["table", "rows"], ["picked"]),
    # INT32 indices along the last axis.
    helper.make_node("Gather", ["table", "col"], ["column"], axis=-1),
    # Shape arithmetic: the folded INT64 result is Reshape's shape.
    helper.make_node("Gather", ["dims", "first_two"], ["shape"]),
    helper.make_node("Reshape", ["x", "shape"], ["reshaped"]),
    # BOOL data and a 0-d index: a 0-d result.
    helper.make_node("Gather", ["flags", "last"], ["flag"]),
    # Data computed at run time: an amp.gather with constant indices.
    helper.make_node("Gather", ["x", "rows"], ["runtime"]),
]
graph = helper.make_graph(
    nodes, "fold_gather",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 2])],
    [helper.make_tensor_value_info("picked", TensorProto.FLOAT, [2, 2, 2]),
     helper.make_tensor_value_info("column", TensorProto.FLOAT, [3, 1]),
     helper.make_tensor_value_info("reshaped", TensorProto.FLOAT, [6, 1]),
     helper.make_tensor_value_info("flag", TensorProto.BOOL, []),
     helper.make_tensor_value_info("runtime", TensorProto.FLOAT, [2, 2, 2])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
os.makedirs(sys.argv[1], exist_ok=True)
onnx.save(model, os.path.join(sys.argv[1], "fold-gather.onnx"))

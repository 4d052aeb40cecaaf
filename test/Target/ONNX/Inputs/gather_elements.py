#!/usr/bin/env python3
"""torch.gather as PyTorch exports it (ONNX GatherElements), imported with
amp-translate and run on amp's CPU backend against PyTorch's forward.

    gather_elements.py --opset N --dir DIR
    gather_elements.py --hand-built --dir DIR

The model gathers along the last axis with run-time indices (an input) and
along axis 0 with known indices (a buffer, shorter than the data off the
axis; PyTorch's export may fold it into a constant), and scales the first
by a parameter. Writes DIR/gather.onnx, DIR/gather.mlir and DIR/gather.ckpt
and prints, each as PASS or FAIL: the ONNX graph holds two GatherElements
nodes, and each output of the imported forward matches PyTorch's. Ends with
`ALL N CHECKS PASS` or exits non-zero.

With --hand-built: graphs PyTorch does not write. DIR/negative.onnx
(known negative indices, counted from the end) is run against NumPy's
take_along_axis; DIR/rank.onnx, DIR/longer.onnx, DIR/range.onnx and
DIR/float.onnx are written for the test to check amp-translate's errors
(indices of another rank, longer than the data off the axis, a known index
out of range, float indices).
"""

import argparse
import os
import sys
import warnings

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper
import torch.nn as nn

import onnx_harness as H

warnings.filterwarnings("ignore")


class Gathers(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(4, 3))
        self.register_buffer("rows", torch.tensor(
            [[3, 0, 1, 2, 0, 3], [1, 1, 0, 2, 3, 0]]))

    def forward(self, x, idx):
        picked = torch.gather(x, -1, idx) * self.scale
        mixed = torch.gather(x, 0, self.rows)
        return picked, mixed


def graph(path, data_shape, indices, axis, index_type=TensorProto.INT64):
    """A GatherElements of input `x` along `axis` with known `indices`."""
    array = np.asarray(indices)
    init = numpy_helper.from_array(
        array.astype(np.float32 if index_type == TensorProto.FLOAT
                     else np.int64), "idx")
    node = helper.make_node("GatherElements", ["x", "idx"], ["y"], axis=axis)
    g = helper.make_graph(
        [node], "gather",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, data_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, array.shape)],
        [init])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
              path)


def hand_built(directory):
    path = os.path.join(directory, "negative.onnx")
    indices = np.array([[-1, 0, -3], [2, -2, -2]])
    graph(path, [2, 3], indices, axis=1)
    mlir_path = os.path.join(directory, "negative.mlir")
    H.import_model(path, mlir_path)
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    got = H.run_forward(mlir_path, {"x": x}, directory)
    expected = np.take_along_axis(x, indices % 3, axis=1)
    ok = H.compare("negative indices", got["y"], expected)
    graph(os.path.join(directory, "rank.onnx"), [2, 3], [0, 1], axis=0)
    graph(os.path.join(directory, "longer.onnx"), [2, 3], [[0], [1], [0]],
          axis=1)
    graph(os.path.join(directory, "range.onnx"), [2, 3], [[0, 3]], axis=1)
    graph(os.path.join(directory, "float.onnx"), [2, 3], [[0, 1]], axis=1,
          index_type=TensorProto.FLOAT)
    if not ok:
        sys.exit(1)
    print("ALL 1 CHECKS PASS")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--opset", type=int)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--hand-built", action="store_true")
    args = parser.parse_args()
    if args.hand_built:
        return hand_built(args.dir)

    torch.manual_seed(0)
    model = Gathers()
    x = torch.randn(4, 10)
    # Repeated indices, both ends of the axis.
    idx = torch.tensor([[0, 9, 9], [5, 5, 1], [2, 0, 7], [8, 3, 3]])
    onnx_path = os.path.join(args.dir, "gather.onnx")
    mlir_path = os.path.join(args.dir, "gather.mlir")
    with torch.no_grad():
        torch.onnx.export(model, (x, idx), onnx_path,
                          opset_version=args.opset,
                          input_names=["x", "idx"],
                          output_names=["picked", "mixed"])
    nodes = [n.op_type for n in onnx.load(onnx_path).graph.node]
    count = nodes.count("GatherElements")
    ok = count == 2
    print(("PASS" if ok else "FAIL") + f" {count} GatherElements nodes")
    checks = 1

    H.import_model(onnx_path, mlir_path)
    state = H.read_checkpoint(os.path.join(args.dir, "gather.ckpt"))
    feeds = dict(state)
    feeds["x"] = x.numpy()
    feeds["idx"] = idx.numpy()
    got = H.run_forward(mlir_path, feeds, args.dir)
    with torch.no_grad():
        expected = model(x, idx)
    for name, value in zip(["picked", "mixed"], expected):
        checks += 1
        ok &= H.compare(f"output '{name}'", got[name], value.numpy())
    if not ok:
        sys.exit(1)
    print(f"ALL {checks} CHECKS PASS")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Runs a forward model through --amp-autodiff on the CPU and compares the
printed tensors with PyTorch.

    autodiff_harness.py TEST.mlir --autodiff OPTIONS [--model MODEL.mlir]
        [--reference REF.py] [--opt AMP_OPT] [--runner MLIR_RUNNER]
        [--passes PASS[,PASS...]] --shared-libs LIB[,LIB...]

The same protocol as compare_with_torch.py (whose constant parsing, printout
parsing and comparison this reuses; see its docstring for the reference
module's interface and the tolerance keys), with one difference: TEST.mlir
holds forward models (`amp.graph = #amp.graph<forward>`) and a `@main` that
calls the functions `--amp-autodiff=OPTIONS` generates from them (declared
in TEST.mlir, so it parses; the pass replaces each declaration by its
definition). The pipeline is

    amp-opt TEST.mlir --amp-autodiff=OPTIONS --amp-cpu-pipeline | mlir-runner

With --model, MODEL.mlir (a forward model, such as one of the bundled
examples) is prepended to TEST.mlir before the pipeline runs, so a test
can train an example as it is; constants are still read from TEST.mlir
only. --passes adds amp-opt pass options between the two (a lowering
chosen by hand, such as --convert-amp-attention-to-runtime=decompose=true).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_with_torch as harness  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    harness.add_arguments(parser)
    parser.add_argument("--autodiff", required=True,
                        help="options of --amp-autodiff")
    parser.add_argument("--model", help="forward model prepended to the test")
    parser.add_argument("--passes", default="",
                        help="amp-opt options run before --amp-cpu-pipeline")
    args = parser.parse_args()

    with open(args.test) as f:
        text = f.read()
    consts = harness.parse_constants(text)
    if args.model:
        with open(args.model) as f:
            text = f.read() + "\n" + text
    passes = [p for p in args.passes.split(",") if p]
    harness.check(args, consts, text,
                  [f"--amp-autodiff={args.autodiff}"] + passes +
                  ["--amp-cpu-pipeline"],
                  "amp-opt --amp-autodiff %s--amp-cpu-pipeline"
                  % "".join(p + " " for p in passes))


if __name__ == "__main__":
    main()

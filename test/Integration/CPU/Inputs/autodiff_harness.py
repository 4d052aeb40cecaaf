#!/usr/bin/env python3
"""Runs a forward model through --amp-autodiff on the CPU and compares the
printed tensors with PyTorch.

    autodiff_harness.py TEST.mlir --autodiff OPTIONS [--model MODEL.mlir]
        [--reference REF.py] [--opt AMP_OPT] [--runner MLIR_RUNNER]
        --shared-libs LIB[,LIB...]

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
only.
"""

import argparse
import importlib.util
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_with_torch as harness  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("test")
    parser.add_argument("--autodiff", required=True,
                        help="options of --amp-autodiff")
    parser.add_argument("--model", help="forward model prepended to the test")
    parser.add_argument("--reference")
    parser.add_argument("--opt")
    parser.add_argument("--runner")
    parser.add_argument("--shared-libs",
                        default=os.environ.get("MLIR_SHARED_LIBS"))
    args = parser.parse_args()

    test = os.path.abspath(args.test)
    stem = os.path.splitext(os.path.basename(test))[0]
    reference_path = args.reference or os.path.join(
        os.path.dirname(test), "Inputs", stem + ".py")
    if not args.shared_libs:
        harness.fail("no --shared-libs (the runner utils providing "
                     "printMemrefF32)", 2)

    with open(test) as f:
        text = f.read()
    consts = harness.parse_constants(text)
    if args.model:
        with open(args.model) as f:
            text = f.read() + "\n" + text
    spec = importlib.util.spec_from_file_location(f"reference_{stem}",
                                                  reference_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    references = list(module.reference(consts))

    opt = harness.find_tool(args.opt, "AMP_OPT", "amp-opt")
    runner = harness.find_tool(args.runner, "MLIR_RUNNER", "mlir-runner")
    lowered = harness.run(
        [opt, "-", f"--amp-autodiff={args.autodiff}", "--amp-cpu-pipeline"],
        text, "amp-opt --amp-autodiff --amp-cpu-pipeline")
    printed = harness.run([runner, "-e", "main", "-entry-point-result=void",
                           f"-shared-libs={args.shared_libs}"], lowered,
                          "mlir-runner")
    tensors = harness.parse_printout(printed)
    if len(tensors) != len(references):
        harness.fail(f"the test printed {len(tensors)} tensors but the "
                     f"reference has {len(references)}")
    passed = 0
    for index, (got, (label, expected, tolerance)) in enumerate(
            zip(tensors, references)):
        passed += harness.compare(index, label, got, expected, tolerance)
    if passed != len(references):
        harness.fail(f"{len(references) - passed} of {len(references)} "
                     "tensors out of tolerance")
    print(f"ALL {passed} TENSORS PASS")


if __name__ == "__main__":
    main()

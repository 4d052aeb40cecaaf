//===- Passes.td - amp code generation of both targets -----*- tablegen -*-===//
//
// Passes both amp-cpu-pipeline and amp-gpu-pipeline run (lib/Codegen/Common).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CODEGEN_COMMON_PASSES_TD
#define AMP_CODEGEN_COMMON_PASSES_TD

include "mlir/Pass/PassBase.td"

def FuseElementwisePass
    : Pass<"amp-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Fuse elementwise linalg ops on tensors, leaving contractions "
                "alone";
  let description = [{
    The patterns of `linalg-fuse-elementwise-ops` (elementwise fusion of a
    producer with a single use, reshapes propagated by expansion, constant
    folding of linalg ops, and the canonicalizations those rely on) with one
    restriction: nothing is fused into or out of a contraction, nor a
    reshape propagated through one. Matrix products thus keep the plain
    `out + ext(a) * ext(b)` form that `amp-contractions-to-gemm-calls`
    (cuBLASLt) and `amp-cpu-contractions-to-blas` (OpenBLAS) turn into
    library calls; a cast of a weight fused into its GEMM would otherwise
    make a loop nest of it. An elementwise chain becomes one
    `linalg.generic`, so one kernel (one launch on the GPU, one pass over
    memory on the CPU). Each op still rounds to its own result type, so
    the arithmetic is the same as without fusion.

    First, a reduction that repeats an earlier one of its block (same
    inputs, maps, iterators and body, inits filled with the same constant)
    is replaced by it, before either is fused: `amp.cross_entropy` and
    `amp.cross_entropy_grad` both reduce the logits' rows to a max and a
    sum of exponentials, and fused twice those made GPT-2's LM-head kernel
    read 1.6 GB of logits six times (3.1 ms on an H200).

    With `fuse-into-reductions=false` (the CPU pipeline) elementwise values
    are not fused into ops with reduction loops either: the CPU turns a
    convolution, which is not a contraction, into im2col and OpenBLAS calls
    only when its operands are tensors of their own. With
    `propagate-reshapes=false` (the CPU pipeline) reshapes stay where they
    are: an optimizer update moved through a gradient's reshape would
    compute a parameter in another shape than its buffer's and could no
    longer write it in place (amp-state-updates-in-place).
  }];
  let options = [
    Option<"fuseIntoReductions", "fuse-into-reductions", "bool",
           /*default=*/"true",
           "Also fuse elementwise producers into ops with reduction loops">,
    Option<"propagateReshapes", "propagate-reshapes", "bool",
           /*default=*/"true",
           "Move reshapes through elementwise ops (fold by expansion) so "
           "that more of them fuse">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ExpandFloat8Pass : Pass<"amp-expand-float8"> {
  let summary = "Expand conversions to and from f8E4M3FN and f8E5M2 into "
                "integer code";
  let description = [{
    `arith.truncf` from f16, bf16, f32 or f64 to `f8E4M3FN` or `f8E5M2`,
    and `arith.extf` from those to f16, bf16, f32 or f64, on scalars and
    vectors, become integer bit operations (bitcasts, shifts, selects),
    bit-exact with APFloat, the semantics of the ops: round to nearest even
    including subnormals; past the largest finite value (448, 57344) NaN
    for e4m3fn, which has no infinity, and infinity for e5m2; NaN to a
    quiet NaN of the same sign. Other arith ops on f8 values (a comparison,
    a maximum) first run in f32 between conversions (upstream's
    `arith-emulate-unsupported-floats` patterns). LLVM has no f8 types: the
    LLVM type converter maps them to i8, which lowers loads, stores,
    constants and selects of f8 but not conversions.

    Runs after bufferization and the lowering of linalg to loops (or GPU
    kernels), before `convert-arith-to-llvm` and the NVVM conversion of
    kernels; a conversion still on tensors is an error.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
  ];
}

#endif // AMP_CODEGEN_COMMON_PASSES_TD

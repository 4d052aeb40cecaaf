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

#endif // AMP_CODEGEN_COMMON_PASSES_TD

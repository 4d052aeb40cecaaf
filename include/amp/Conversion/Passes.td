//===- Passes.td - amp conversion passes -------------------*- tablegen -*-===//

#ifndef AMP_CONVERSION_PASSES_TD
#define AMP_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertAMPToLinalgPass : Pass<"convert-amp-to-linalg"> {
  let summary = "Lower amp ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Rewrites amp ops into linalg structured ops on tensors, with scalar
    bodies in arith and math. Contractions and reductions accumulate in f32
    whatever their input element type, and transcendental functions of
    f16/bf16 values are computed in f32 and rounded once, so the reference
    backend gives the numerics of a fused GPU kernel on any host.
    An amp op without a lowering makes the pass fail with an error naming
    the op.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // AMP_CONVERSION_PASSES_TD

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

def ContractionsToGemmCallsPass
    : Pass<"amp-contractions-to-gemm-calls", "::mlir::ModuleOp"> {
  let summary = "Replace matrix-product linalg ops on device buffers with "
                "calls to the runtime's amp_gpu_gemm (cuBLASLt)";
  let description = [{
    Runs on bufferized IR. A linalg op (generic, matmul, batch_matmul, ...)
    is a matrix product when its iterators are parallel batch dimensions,
    one parallel M, one parallel N and one reduction K dimension; when the
    output is indexed (batch..., M, N), the left operand (batch..., M, K) or
    (batch..., K, M) (transposed), the right one (batch..., K, N) or
    (batch..., N, K) (transposed), either operand possibly without the batch
    dimensions (broadcast); and when its body is
    `out + ext(a) * ext(b)` with f32, f16 or bf16 operands of one type and
    an f32 (or the operands') accumulator. Every operand must be a memref
    with a static shape and the identity layout. Such an op becomes a call

      func.call @amp_gpu_gemm(a_dtype, c_dtype, batch, m, n, k, trans_a,
                              trans_b, a, stride_a, b, stride_b, c,
                              alpha, beta, allow_tf32)

    (include/amp/Runtime/CUDAKernels.h; dtypes are amp_dtype values) with
    alpha = 1. When the output buffer was just filled with zero (a
    linalg.fill of 0 with nothing in between touching the buffer), the fill
    is dropped and beta = 0; otherwise beta = 1 (accumulate). The pointers
    are the buffers' aligned pointers, as `!llvm.ptr`, so the call is the
    same whatever the host calling convention. Anything else is left alone.
  }];
  let options = [
    Option<"allowTF32", "allow-tf32", "bool", /*default=*/"false",
           "Let f32 GEMMs use TF32 tensor cores">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

#endif // AMP_CONVERSION_PASSES_TD

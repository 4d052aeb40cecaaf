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
    Shapes must be static. The pass checks that once, before rewriting
    anything: the first amp op with a dynamic dimension makes it fail with
    one error naming the op, the operand or result and the dimension. The
    lowering patterns (OpConversionPatterns, one dialect conversion with amp
    illegal) rely on it. An amp op without a lowering makes the pass fail
    with an error naming the op.

    The training-graph contract (`amp.role`, `amp.name`, `amp.graph`) ends
    here. With `state-updates`, its pairing of state results with their
    arguments stays as `amp.state_updates`, for
    amp-state-update-destinations and amp-state-updates-in-place (the
    model-ABI pipelines, whose callers know which state is updated in
    place).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
  let options = [
    Option<"stateUpdates", "state-updates", "bool", /*default=*/"false",
           "Keep the state pairing as amp.state_updates">,
  ];
}

def ConvertAMPAttentionToRuntimePass
    : Pass<"convert-amp-attention-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Lower amp.attention and amp.attention_grad to the runtime's "
                "fused attention";
  let description = [{
    Runs before convert-amp-to-linalg, on tensors. Each amp.attention and
    amp.attention_grad becomes one call of the runtime's fused attention
    (include/amp/Runtime/Attention.h), which never holds a
    batch x heads x seq x seq buffer:

      CPU:  amp_cpu_attention_fwd / amp_cpu_attention_bwd (a flash-style
            kernel on the runtime's threads, lib/Runtime/CPUAttention.cpp)
      GPU:  amp_gpu_attention_fwd / amp_gpu_attention_bwd (cuDNN's fused
            attention, lib/Runtime/CUDAAttention.cpp), the stream operand
            null until amp-gemm-calls-on-stream

    On the GPU, an op whose configuration cuDNN refuses for the sm_90
    target and the toolkit's cuDNN (include/amp/Runtime/
    CudnnAttentionRules.h: f32 operands, head dimensions, dropout, ...)
    becomes unfused amp ops instead (the scores materialized, as PyTorch's
    math path); a boolean keep mask reaches cuDNN as an additive 0 / -inf
    mask. With `decompose`, every op is unfused (the reference the fused
    kernels are tested against).

    Inputs are read through read-only `bufferization.to_buffer`; each
    result is a fresh buffer the call writes, returned by
    `bufferization.to_tensor`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect",
  ];
  let options = [
    Option<"gpu", "gpu", "bool", /*default=*/"false",
           "Call cuDNN's fused attention (GPU device pointers, a stream "
           "operand); otherwise the CPU kernel">,
    Option<"decompose", "decompose", "bool", /*default=*/"false",
           "Lower every attention op to unfused amp ops">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark for each op left unfused on the GPU, saying why">,
  ];
}

def ConvertAMPFp8ToRuntimePass
    : Pass<"convert-amp-fp8-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Lower amp.fp8_matmul to cuBLASLt's FP8 GEMM (GPU)";
  let description = [{
    Runs on the GPU before convert-amp-to-linalg, on tensors. Each
    amp.fp8_matmul that cuBLASLt runs on the sm_90 target
    (include/amp/Runtime/CublasLtFp8Rules.h) becomes one call of
    amp_gpu_gemm_fp8 (include/amp/Runtime/CUDAKernels.h), the stream operand
    null until amp-gemm-calls-on-stream. cuBLASLt takes only the TN layout
    (rule F4): in amp's row-major terms both operands stored with k
    contiguous, lhs as m x k and rhs as n x k. An lhs with `transpose_lhs`
    (stored k x m) or an rhs without `transpose_rhs` (stored k x n) is first
    copied transposed (a linalg.generic of one-byte elements); a linear
    layer's forward (`transpose_rhs`) needs no copy. The scale inverses are
    passed as device pointers (cuBLASLt's A/B_SCALE_POINTER), a bf16 bias
    beside a bf16 result as cuBLASLt's BIAS epilogue, and
    `fast_accumulation` as CUBLASLT_MATMUL_DESC_FAST_ACCUM. cuBLASLt's FP8
    GEMMs take no f32 bias: beside an f32 result it is added after the call
    by an elementwise linalg.generic (the same single rounding to f32).

    An op cuBLASLt refuses (k or n not a multiple of 16, dynamic shapes) is
    left for convert-amp-to-linalg; with `remarks`, a remark says why.

    Inputs are read through read-only `bufferization.to_buffer`; the result
    is a fresh buffer the call writes, returned by `bufferization.to_tensor`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect",
  ];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark for each amp.fp8_matmul left for the linalg "
           "lowering, saying why">,
  ];
}

def ConvertAMPCollectivesToRuntimePass
    : Pass<"convert-amp-collectives-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Lower the data-parallel collectives to calls into the "
                "model runtime (MPI on the CPU)";
  let description = [{
    Runs before convert-amp-to-linalg, on tensors. Each bucket becomes
    calls into the data-parallel runtime (include/amp/Runtime/DataParallel.h,
    lib/Runtime/DataParallel.cpp), which reduce in f32 with non-blocking MPI
    collectives:

      amp.all_reduce_start -> %h = amp_dp_bucket_begin(elements, kind, active)
                              amp_dp_bucket_pack(%h, offset, ptr, n, dtype)...
                              amp_dp_bucket_start(%h)
      amp.all_reduce_wait  -> amp_dp_bucket_wait(%h)
                              amp_dp_bucket_unpack(%h, offset, ptr, n, dtype)...
      amp.all_reduce_any   -> amp_dp_any(flag, active)

    An input is read through `bufferization.to_buffer` (read only) during
    the pack call; each result is a fresh buffer the unpack call writes,
    returned as a tensor by `bufferization.to_tensor`, so no buffer is
    shared with the runtime across calls.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ConvertAMPCollectivesToNCCLPass
    : Pass<"convert-amp-collectives-to-nccl", "::mlir::ModuleOp"> {
  let summary = "Lower the data-parallel collectives to NCCL calls on the "
                "GPU step's stream";
  let description = [{
    The GPU pipeline's counterpart of convert-amp-collectives-to-runtime
    (docs/DataParallel.md, "The NCCL lowering"). Runs first, on tensors.
    Each bucket becomes one NCCL group of out-of-place all-reduces, queued
    on the step's stream where the bucket starts (the runtime's calls are
    amp_gpu_dp_*, include/amp/Runtime/DataParallel.h). As on the CPU the
    reduction is in f32: an f16 or bf16 gradient is widened by a kernel
    before its all-reduce and rounded once after it.

      amp.all_reduce_start -> amp_gpu_dp_group_begin(stream)
                              amp_gpu_dp_all_reduce(in, out, n, dtype, op,
                                                    stream)   per tensor
                              amp_gpu_dp_group_end(stream)
      amp.all_reduce_wait  -> each `out` as a tensor

    An input is read through `bufferization.to_buffer` (read only); each
    output is a fresh buffer allocated at the start, returned at the wait by
    `bufferization.to_tensor`. Nothing is read on the host: with an `active`
    operand (gradient accumulation) the bucket is reduced every micro-step
    and the result chosen on the device (`active ? reduced : input`), and
    `amp.all_reduce_any` becomes an f32 all-reduce with max of its flag
    (0 or 1) compared with 0. Every call takes a null stream here, the
    runtime's; amp-gemm-calls-on-stream later gives it the step's token.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // AMP_CONVERSION_PASSES_TD

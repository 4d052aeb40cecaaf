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

def GPUParallelReductionsPass
    : Pass<"amp-gpu-parallel-reductions", "::mlir::func::FuncOp"> {
  let summary = "Turn row and full reductions on device buffers into "
                "gpu.launch ops that reduce in parallel (gpu.all_reduce)";
  let description = [{
    Runs on bufferized IR, before the loop mapping of the GPU pipeline. A
    linalg.generic with static memref operands whose loops are parallel
    dimensions followed by reduction dimensions, whose inputs are read
    without transposition (row-major, the reduced dimensions innermost) and
    whose body yields `combiner(out, f(ins))` for every output (f not
    reading the outputs; `select(c, combiner(out, x), out)` counts as
    `combiner(out, select(c, x, identity))`), with a combiner that
    gpu.all_reduce has (addf/addi, mulf/muli, max/min of every kind,
    andi/ori/xori) on f32, i32 or i1, becomes:

    - with parallel dimensions (a row reduction: softmax, LayerNorm,
      cross-entropy rows), one block per output element; each of up to
      `block-size` threads accumulates a strided slice of the row, the
      block combines with gpu.all_reduce and thread 0 combines the result
      with the output's initial value. Rows shorter than `min-row-length`
      are left alone (one thread per row is enough for them);
    - without parallel dimensions (a full reduction: mean loss, gradient
      norm, overflow check), a grid of up to `max-blocks` blocks reducing
      grid-strided slices into a temporary buffer of partials, then one
      block reducing the partials into the output (deterministic: no
      atomics). Small reductions use one block.

    Everything else (column reductions, transposed reads, other combiners
    or accumulator types, dynamic shapes) is left alone for the loop
    mapping.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block (at most; fewer for short rows)">,
    Option<"maxBlocks", "max-blocks", "int64_t", /*default=*/"1024",
           "Blocks of the first stage of a full reduction (at most)">,
    Option<"elementsPerThread", "elements-per-thread", "int64_t",
           /*default=*/"8",
           "Elements per thread below which a full reduction uses fewer "
           "blocks">,
    Option<"minRowLength", "min-row-length", "int64_t", /*default=*/"32",
           "Shorter rows are left to the one-thread-per-row lowering">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

#endif // AMP_CONVERSION_PASSES_TD

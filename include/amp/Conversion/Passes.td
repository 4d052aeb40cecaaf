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
    "::mlir::tensor::TensorDialect",
  ];
  let options = [
    Option<"stateUpdates", "state-updates", "bool", /*default=*/"false",
           "Keep the state pairing as amp.state_updates">,
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

    Epilogues (docs/GPU.md): when the fresh, zeroed f32 product's only
    reader is the next memory-touching op and computes `[truncf](C +
    bias[n])`, the call is `amp_gpu_gemm_epilogue(..., allow_tf32, 1, bias,
    stream)` writing that op's output in its type, and the op goes; when
    its only reader uses it only through `truncf` to the operands' type,
    the product is written in that type; when the next op is the zeroed sum
    over K of A into an f32 vector of m (a bias gradient), the call is
    `amp_gpu_gemm_epilogue(..., 2, grad, stream)` and the sum goes.
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

def GemmCallsOnStreamPass
    : Pass<"amp-gemm-calls-on-stream", "::mlir::func::FuncOp"> {
  let summary = "Run amp_gpu_gemm on the stream of the step's kernels "
                "instead of making the host wait before it";
  let description = [{
    Runs after gpu-async-region, which treats every call as a host side
    effect: it makes the host wait for the stream before the call
    (`gpu.wait [%t]`) and starts a new stream after it (`gpu.wait async`).
    An amp_gpu_gemm call only queues work on the stream it is given (its
    last operand, null before this pass: the runtime's stream), so the wait
    is not needed: the call takes the stream of the token the wait waited
    for (`builtin.unrealized_conversion_cast` of the token to `!llvm.ptr`,
    which gpu-to-llvm makes the token's stream), the wait is removed, and
    the work after the call continues on the same token instead of a new
    stream. The GEMM is thus ordered on the stream between the kernels
    before and after it, and the host waits only where something else needs
    it (the end of the step). Consecutive GEMM calls share the token. When
    the call is followed by anything but a new stream (another host side
    effect, the end of a region), the wait is kept, after the call.
    The data-parallel calls of convert-amp-collectives-to-nccl
    (amp_gpu_dp_*) take the stream the same way and chain with GEMM calls
    and each other: an NCCL group stays on one stream.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
  ];
}

def CPUContractionsToBLASPass
    : Pass<"amp-cpu-contractions-to-blas", "::mlir::ModuleOp"> {
  let summary = "Replace f32 matrix products and convolutions on host "
                "buffers with calls to the BLAS's sgemm (amp_cpu_sgemm)";
  let description = [{
    The CPU counterpart of amp-contractions-to-gemm-calls, with the same
    matcher (include/amp/Conversion/GemmMatch.h): on bufferized IR, a
    linalg op that is a (batched, possibly transposed) matrix product of
    static, identity-layout f32 memrefs accumulating in f32 becomes

      func.call @amp_cpu_sgemm(101 /*row-major*/, trans_a, trans_b, m, n, k,
                               alpha, a, lda, b, ldb, beta, c, ldc)

    (111: not transposed, 112: transposed; the leading dimensions are
    those of the dense row-major operands), one call per batch in an
    scf.for when the product is batched. alpha = 1; beta = 0 when the
    output was just filled with zero (the fill is dropped), 1 otherwise.
    The pointers are `!llvm.ptr`, so the call is the same whatever the
    calling convention. amp_cpu_sgemm (include/amp/Runtime/CPUGemm.h) takes
    cblas_sgemm's arguments and runs the product as single-threaded
    cblas_sgemm calls on panels of C fixed by its shape, over the model
    runtime's threads, so results do not depend on the thread count.

    Then any other f32 multiply-accumulate op whose operands are read
    through linear affine maps (convolutions and their input and weight
    gradients) becomes one call per index of its outer loops: the
    output's trailing loops that only one input reads are N, the ones
    before them that only the other reads are M, the reductions K, and
    outer loops the M-side input does not read join N. Operands that are
    not dense matrices at fixed strides are copied into dense buffers
    first (im2col), and an output that is not is computed in a buffer
    copied (or added) into it afterwards. Matrix products of f16/bf16
    operands accumulating in f32 widen each operand into an f32 buffer
    once (a linalg.generic, freed after the calls) and call sgemm on
    those (Debian's OpenBLAS has no sbgemm). 16-bit accumulation, 16-bit
    convolutions, dimensions beyond 32-bit BLAS integers and anything else
    are left alone (for the loops).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def CPUApproximateMathPass : Pass<"amp-cpu-approximate-math"> {
  let summary = "Replace f32 transcendental functions with polynomial "
                "approximations that loops can vectorize";
  let description = [{
    On the CPU, `math.erf`, `math.exp` and the like otherwise become calls
    to libm's scalar `erff`, `expf`: one call per element, and a call in a
    loop keeps LLVM's loop vectorizer from vectorizing it. GELU's forward
    and backward loops spent more time in `erff` and `expf` than in their
    own arithmetic. This pass rewrites the f32 ops named in `ops` (scalars
    and vectors) into MLIR's polynomial approximations (arith and math.fma
    only, upstream `populateMathPolynomialApproximationPatterns`), which
    LLVM then vectorizes like any other arithmetic. Every scalar or vector
    `math.fma` and `math.floor` (the approximations are made of them)
    becomes `llvm.intr.fma` / `llvm.intr.floor`, one instruction each, where
    convert-math-to-libm would call libm's `fmaf` / `floorf`. Other element
    types and tensors are left alone: f64 keeps libm, and the CPU lowering
    computes f16/bf16 math in f32 anyway.

    Upstream's exp flushes subnormal results to zero and its log is wrong
    on subnormal inputs; f32 exp and log are first rewritten to move those
    ranges by 2^64 into the normal one. With that, every default op stays
    within 2.2 units of 2^-23 |exact| (about 2 ulps) over the f32 range,
    infinities and NaN included (test/Conversion/ApproximateMath/
    accuracy.mlir; docs/Lowering.md has the table). Named non-default ops
    get upstream's approximation as it is (their subnormal ranges are not
    checked).
  }];
  let options = [
    ListOption<"ops", "ops", "std::string",
               "Math op mnemonics to approximate (default: erf, exp, log, "
               "tanh)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def CPUWideSumsPass : Pass<"amp-cpu-wide-sums", "::mlir::func::FuncOp"> {
  let summary = "Accumulate f32 sums of linalg ops on tensors in f64";
  let description = [{
    Runs on tensors, after convert-amp-to-linalg, in the CPU pipeline. A
    `linalg.generic` whose every output is an f32 sum (its body yields
    `out + term`, `out` used by that add alone) over reduction loops
    becomes the same generic on f64 accumulators (the initial value a fill
    of the same constant, or widened; each term widened), followed by one
    elementwise rounding of each accumulator to f32.

    Sums of products of two inputs that both vary along the reduction
    (matrix products, convolutions) are left alone: they become BLAS calls.

    The CPU lowering adds a sum's terms one after another, so an f32 sum
    of n terms may be off by about n ulps of the terms. The normalizations'
    backward sums cancel by construction (|sum g| / sum |g| is about 1e-3
    in a ResNet stem): in timm's ResNet-18-D the batch norms' bias
    gradients were 3 to 10 times further from float64 than PyTorch's, whose
    CPU batch norm accumulates in double for this reason; with f64 sums
    they are as close. Maxima and other reductions are left alone; the GPU
    pipeline sums in blocks instead.

    ```mlir
    %s = linalg.generic {... iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<4x8xf32>) outs(%zero : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.addf %out, %in : f32
      linalg.yield %0 : f32
    } -> tensor<4xf32>
    // becomes a sum into a tensor<4xf64> filled with 0.0 whose body adds
    // arith.extf %in, and a linalg.generic of arith.truncf to tensor<4xf32>.
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def CPUStridedCopiesToLoopsPass
    : Pass<"amp-cpu-strided-copies-to-loops", "::mlir::func::FuncOp"> {
  let summary = "Turn memref.copy ops from or into strided views into "
                "linalg.generic copies";
  let description = [{
    Runs on bufferized IR, before linalg-to-loops. A `memref.copy` whose
    source or target is not contiguous (with static shapes) becomes the
    equivalent `linalg.generic` (upstream `linalg::makeMemRefCopyOp`), so
    it is lowered to loops whose contiguous rows LLVM vectorizes.
    finalize-memref-to-llvm would otherwise make it a call to the runtime's
    generic `memrefCopy`, which copies one element per `memcpy` call: the
    copies of convolution inputs into the interior of their zero-padded
    buffers took a tenth of ResNet-18's step that way. Copies between
    contiguous buffers are left alone (they become one `llvm.memcpy`).
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
  ];
}

def CPUCollapseLoopsPass
    : Pass<"amp-cpu-collapse-loops", "::mlir::func::FuncOp"> {
  let summary = "Merge the trailing loops of elementwise linalg ops on "
                "buffers into one loop, so that loops vectorize";
  let description = [{
    Runs on bufferized IR, before linalg-to-loops. LLVM's loop vectorizer
    works on innermost loops only, and a loop of 3 or 9 iterations (the
    last dimensions of a 3x3 convolution weight, or of its transposition
    for the input gradient) is too short to vectorize: the SGD or Adam
    update of ResNet-18's weights ran one scalar element at a time. For a
    linalg op with only parallel loops, static identity-layout memrefs and
    no `linalg.index`, the longest run of trailing loops that every
    indexing map keeps contiguous (upstream `areDimSequencesPreserved`)
    becomes one loop (`populateCollapseDimensions`, with
    `memref.collapse_shape` of the operands): elementwise ops over whole
    buffers become 1-D, a bias broadcast `(d0, d1) -> (d1)` keeps its two
    loops, a transposition merges what follows the transposed dimensions.
    Results are unchanged (the same operations on the same elements).
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def CPUTileTransposesPass
    : Pass<"amp-cpu-tile-transposes", "::mlir::func::FuncOp"> {
  let summary = "Tile transpositions on buffers into square blocks, so "
                "that both sides are read and written a cache line at a "
                "time";
  let description = [{
    Runs on bufferized IR, after amp-cpu-parallel-kernels, before
    linalg-to-loops. A transposition is a `linalg.generic` with only
    parallel loops whose body yields its one input, whose output map is the
    identity and whose input map is another permutation, such as the
    weight `[Cout][Cin][9] -> [Cin][Cout][9]` that a convolution's input
    gradient multiplies by. As loops, LLVM vectorized it across the
    transposed dimension with AVX-512 gathers and scatters, and read the
    input a whole slice apart per element: ResNet-18's three 512x512x9
    transpositions took 7% of its CPU step. The loop dimension that is
    innermost in the output and the one that is innermost in the input
    (past their common contiguous suffix, the 9 above) are tiled by `tile`
    where they have more iterations (or a dynamic count; upstream linalg
    tiling, `scf.for` loops), every dimension before them by 1, so that a
    tile's input and output stay in the L1 cache. When the common suffix
    is one static, unit-strided dimension, each tile then becomes loops
    copying one row of it per iteration with `memref.copy` (an
    `llvm.memcpy` of a known size: a few vector moves); otherwise the tile
    stays a `linalg.generic`. The same elements are copied.
  }];
  let options = [
    Option<"tile", "tile", "int64_t", /*default=*/"32",
           "Iterations of each of the two transposed dimensions per tile">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def CPUParallelKernelsPass
    : Pass<"amp-cpu-parallel-kernels", "::mlir::ModuleOp"> {
  let summary = "Split a parallel dimension of large kernels "
                "into tasks for the runtime's threads";
  let description = [{
    Runs after amp-cpu-outline-kernels, before linalg-to-loops. A kernel
    (a private function whose body is one linalg op on buffers of static
    shape, and constants) whose outermost loop dimension of more than one
    iteration (leading dimensions of extent 1 are skipped) is parallel, or
    a reduction with a parallel dimension below it (column sums, a batch
    norm's per-channel sums over images: the first parallel dimension is
    split then, in tiles of 16 iterations at least), and whose iteration
    space has at least `min-work` points becomes

      @k(args)       -> call @k.range(args, 0, tasks)
      @k.range(args, %lo, %hi) {amp_parallel_tasks = tasks}
                     -> scf.for over tiles lo..hi of that dimension, each
                        tile the linalg op on subviews (linalg tiling)

    with tiles of about `task-work` points (the tile divides the extent
    when a divisor is close). amp-cpu-dispatch-parallel later turns the
    call into amp_cpu_parallel_for, which gives each thread a contiguous
    range of tiles. Each iteration of a parallel dimension writes its own
    elements and keeps its sums' order, so the results do not depend on
    the number of threads. A kernel whose output is also read through
    another map, or passed at some call as another operand too, is left
    alone (its iterations could read what others write).
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", /*default=*/"65536",
           "Smallest iteration space (points) worth splitting">,
    Option<"taskWork", "task-work", "int64_t", /*default=*/"16384",
           "Iteration-space points per tile">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def CPUDispatchParallelPass
    : Pass<"amp-cpu-dispatch-parallel", "::mlir::ModuleOp"> {
  let summary = "Run the calls of amp-cpu-parallel-kernels' range functions "
                "on the runtime's threads";
  let description = [{
    Runs on the LLVM dialect, after func-to-llvm. Each call of a function
    marked `amp_parallel_tasks` (its last two parameters the range of
    tasks) becomes

      %context = llvm.alloca N x i64      one slot per other argument
      llvm.store ...                       the arguments
      llvm.call @amp_cpu_parallel_for(@<f>.task, %context, %lo, %hi)

    where `@<f>.task(context, lo, hi)` loads the arguments back and calls
    the function on its range (include/amp/Runtime/ParallelFor.h). A call
    with an argument that does not fit a slot (wider than 64 bits) stays a
    plain call.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
  ];
}

def CPUOutlineKernelsPass
    : Pass<"amp-cpu-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "Move each loop nest of a function into its own function, "
                "one function per distinct nest";
  let description = [{
    Runs on bufferized IR, before linalg-to-loops: each top-level op of a
    function body that computes on buffers (a linalg op, or an op with
    regions such as scf.for, scf.if) and has no results becomes a call

      func.call @<caller>_kernel<N>(captured values...)

    to a private function whose body is the op. The values the op uses
    from outside become arguments; constants are cloned into the new
    function instead, so loop bounds stay constants there. Identical
    kernels (the same body and argument types, locations aside) share
    one function: a step that repeats a block of layers compiles each
    distinct loop nest once. The functions carry LLVM's `noinline`, so
    LLVM optimizes and generates code for many small functions (which it
    can do in parallel, see amp-compile) instead of one function of the
    size of the whole step, whose compile time grows faster than its size.

    Left in place: ops with results, ops that free memory (their buffers
    may not be freed through a bare pointer), ops capturing a memref
    without a static shape and strides (it has no bare pointer), and ops
    in functions that this pass created.
  }];
  let dependentDialects = [
    "::mlir::func::FuncDialect",
  ];
}

//===----------------------------------------------------------------------===//
// FuseElementwise: both pipelines (lib/Conversion/FuseElementwise)
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// LinalgToGPU: the steps of amp-gpu-pipeline (lib/Conversion/LinalgToGPU)
//===----------------------------------------------------------------------===//

def GPUConstantsToDevicePass
    : Pass<"amp-gpu-constants-to-device", "::mlir::ModuleOp"> {
  let summary = "Give every use of a bufferized constant a device buffer";
  let description = [{
    Runs on bufferized IR, before the buffer deallocation pipeline. Each
    `memref.get_global` outside a `gpu.module` whose global has the identity
    layout is replaced by a fresh `memref.alloc` (a device buffer once
    `amp-gpu-device-buffers` has run): a splat initial value is written by
    a `linalg.fill` (a kernel, no transfer), any other is copied from the
    host global with `memref.copy` (a host-to-device `gpu.memcpy` later).
    The deallocation pipeline frees the buffers.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def GPUPrepareLinalgPass
    : Pass<"amp-gpu-prepare-linalg", "::mlir::func::FuncOp"> {
  let summary = "Strided copies to linalg.copy, parallel loops outermost";
  let description = [{
    Prepares bufferized linalg for the mapping of parallel loops to GPU
    blocks and threads:

    - a `memref.copy` into or out of a strided view (the padding of a
      convolution's input, a slice) becomes a `linalg.copy`, so that a
      kernel does it; copies between dense buffers stay (they become
      `gpu.memcpy`);
    - a `linalg.generic` with a reduction loop before a parallel one (a sum
      over the rows: a bias gradient, a LayerNorm weight gradient) is
      interchanged to put every parallel loop first, in their order, then
      the reductions: the parallel loops become threads, each running the
      reduction sequentially, instead of a host loop of launches;
    - column sums over the same loops reading a common buffer (LayerNorm's
      weight and bias gradients) are merged into one generic; a long column
      sum with few columns is split into partial sums of row ranges (a
      parallel loop over range and column, each thread storing its sum
      into a [columns, ranges] buffer that needs no fill) and a row
      reduction of the partials (a gpu.launch with a block per column) from
      the output's zero-fill constant (the fill goes) or its value.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def GPUFreeEarlyPass : Pass<"amp-gpu-free-early", "::mlir::func::FuncOp"> {
  let summary = "Free each temporary right after its last use";
  let description = [{
    The deallocation pipeline frees a function's temporaries at the end of
    their block, so every temporary of a training step is held until the
    step ends and the step's peak device memory is the sum of them all.
    This pass moves each `memref.dealloc` of a `memref.alloc` in the same
    block to right after the last operation of that block using the buffer
    or anything derived from it (views, its aligned pointer and the values
    computed from it, such as the pointers a GEMM call takes; a use in a
    nested region counts as its ancestor in the block). A buffer with a use
    outside the block is left alone. Run after the GEMM calls exist and
    before the kernels are formed; the stream-ordered `gpu.dealloc` that
    gpu-async-region makes of it then frees the memory after the last
    kernel reading it.
  }];
}

def GPUCoalesceParallelLoopsPass
    : Pass<"amp-gpu-coalesce-parallel-loops", "::mlir::func::FuncOp"> {
  let summary = "Collapse each outermost scf.parallel into one dimension";
  let description = [{
    gpu-map-parallel-loops maps a loop's first dimension to blocks and
    threads in x, and the tiling before it splits that dimension into
    threads: for a loop over a row-major [rows, columns] buffer, the threads
    of a warp then read elements a row apart, 32 memory transactions where
    one would do. Measured on an H200 (docs/benchmarks.md), such kernels ran
    at 90-370 GB/s, 12-50 times slower than the model's bandwidth-bound
    time. This pass collapses every scf.parallel that is not nested in
    another (or in a gpu.launch) into a single dimension, the last one
    varying fastest, so consecutive threads take consecutive elements of
    the innermost dimension (coalesced), and the grid is one-dimensional
    (x holds up to 2^31 - 1 blocks, y and z only 65535). Each thread
    recovers its indices with a division and a remainder per dimension.
    A loop with reductions (init values) is left alone. Run after
    convert-linalg-to-parallel-loops and before the tiling.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def GPUBatchLoopsPass : Pass<"amp-gpu-batch-loops", "::mlir::func::FuncOp"> {
  let summary = "Independent consecutive parallel loops become one launch";
  let description = [{
    Every one-dimensional scf.parallel (from 0 by 1, no reductions, not
    nested in another or in a gpu.launch) becomes a launch of its own, and a
    launch costs microseconds even when it has little to do: the optimizer
    update of each parameter, the cast of each weight. This pass merges
    consecutive such loops of a block that do not depend on each other
    (neither writes a buffer the other reads or writes; distinct function
    arguments are distinct buffers) into one loop over the concatenation of
    their iteration spaces. Its body finds the loop an index falls in and
    runs that loop's body in an `scf.index_switch` case, with the index
    made relative to that loop: Apex's multi_tensor_apply, by the compiler.
    The merged loop stands where the last loop of the batch stood, so the
    ops between the loops must not touch the batch's buffers (a batch ends
    at one that does: a GEMM call, a launch, a host store); ops without
    memory effects and allocations stay where they are, and deallocations
    of the batch's buffers move after the merged loop. Run after
    amp-gpu-coalesce-parallel-loops (which makes the loops
    one-dimensional) and before the tiling.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def GPURegisterAccumulatorsPass
    : Pass<"amp-gpu-register-accumulators", "::mlir::func::FuncOp"> {
  let summary = "Carry a loop's load-update-store of one element in a "
                "register";
  let description = [{
    A reduction left to one thread per output (a column sum, a short row)
    becomes, in convert-linalg-to-parallel-loops, an scf.for that loads
    the output element, adds to it and stores it back every iteration.
    LLVM cannot keep it in a register inside a kernel, since it cannot tell
    the buffer read in the loop from the one written; each iteration then
    goes to memory (an H200 ran such a column sum six times slower than its
    bytes take). This pass rewrites each such element as an iter_arg: one
    load before the loop, one store after it. It applies where the loop's
    body only loads, stores and computes without memory effects; the
    element is loaded once and stored once in the body, load first, at the
    same indices defined outside the loop; and its buffer is a
    memref.alloc (through views) that no other access in the loop reaches.
    Run after convert-linalg-to-parallel-loops.
  }];
  let dependentDialects = [
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def GPUVectorizeElementwisePass
    : Pass<"amp-gpu-vectorize-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Elementwise parallel loops take 16 bytes per thread";
  let description = [{
    An elementwise kernel that loads and stores one element per thread
    keeps too few bytes in flight to reach the GPU's bandwidth: an H200 ran
    GELU over 16384x8192 bf16 at 0.6 TB/s of its 4.8. This pass makes each
    outermost scf.parallel of loads, stores and elementwise arith/math ops
    step its innermost dimension by W elements and access them with
    vector.load/vector.store: W = 16 bytes of the narrowest element the
    loop accesses along that dimension (8 for bf16, 4 for f32), at most
    `max-width`, halved until it divides the dimension's static extent.
    Loads that do not depend on the innermost index stay scalar and are
    broadcast; math ops (library calls) run lane by lane. A loop is left as
    it is where an access along the innermost dimension is not contiguous,
    or has a dynamic or unaligned offset or stride, where the innermost
    index feeds anything but the last index of an access, where a store does
    not depend on it, or where elements are not whole bytes (i1). Accesses
    carry their alignment (W elements; buffers are 256-byte aligned). Run
    after convert-linalg-to-parallel-loops, before
    amp-gpu-coalesce-parallel-loops.
  }];
  let options = [
    Option<"maxWidth", "max-width", "int64_t", /*default=*/"8",
           "Most elements per thread and access">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def GPUWrapHostCodePass
    : Pass<"amp-gpu-wrap-host-code", "::mlir::func::FuncOp"> {
  let summary = "Run host loops and memref loads/stores in single-thread "
                "kernels";
  let description = [{
    Runs after the parallel loops are mapped to blocks and threads. What is
    left on the host and touches memory (a loop: a reduction of a whole
    tensor to a scalar such as the mean loss, the global gradient norm or
    the overflow check; a `memref.load`/`store`: a 0-d update of the loss
    scale, its trackers or the optimizer step) is moved into a `gpu.launch`
    of one block of one thread. Consecutive such ops share one launch:
    memory-effect-free ops in between (views, index arithmetic) and
    `memref.alloc`s without operands are hoisted in front of it, and
    `memref.dealloc`s sunk behind it, unless they use a value computed in
    the launch. A launch, a call, a terminator, a dynamic allocation or an
    op with side effects on the host ends a group; so does a loop that
    contains a launch, a call, an allocation, a deallocation or a copy
    (its body is processed on its own). A group whose results are used on
    the host after it is left alone (`amp-gpu-check-mappable` reports it).

    Correct but slow: one thread reads a whole gradient for the norm or
    the overflow check.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
  ];
}

def GPUDeviceBuffersPass
    : Pass<"amp-gpu-device-buffers", "::mlir::func::FuncOp"> {
  let summary = "Allocate host-side buffers in device memory";
  let description = [{
    Outside GPU kernels, `memref.alloc` (without symbol operands) becomes
    `gpu.alloc` (device memory, not host-shared; `gpu-to-llvm` calls
    `mgpuMemAlloc`, which amp's runtime serves from a pool),
    `memref.dealloc` becomes `gpu.dealloc`, and a `memref.copy` between
    buffers with the identity layout becomes `gpu.memcpy`. All are
    synchronous; `gpu-async-region` chains them with the launches later.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def GPUCheckMappablePass
    : Pass<"amp-gpu-check-mappable", "::mlir::ModuleOp"> {
  let summary = "Reject host code that would touch device memory on the CPU";
  let description = [{
    The host code of the GPU pipeline only allocates device buffers,
    launches kernels, copies between buffers and calls the runtime. In the
    functions of the module, outside `gpu.launch` and `gpu.module`, a
    `memref.alloc`/`alloca`, an `scf.parallel`/`for`/`while` loop, a
    `memref.load`/`store`/`copy`, an `affine.load`/`store` or a linalg op
    is an error on that op, instead of a program that reads device pointers
    on the CPU. The IR is not changed.
  }];
}

def GPUCheckTargetPass
    : Pass<"amp-gpu-check-target", "::mlir::ModuleOp"> {
  let summary = "Check the GPU architecture and the CUDA toolkit the GPU "
                "pipeline was given";
  let description = [{
    Runs first in the GPU pipeline, so a bad target is an error before
    anything is lowered. `chip` must be an architecture LLVM's NVPTX
    backend knows (an unknown one only gets a warning from it, then PTX
    for a processor that does not exist or a crash). MLIR's
    `gpu-module-to-binary` only warns when the toolkit it is given lacks
    libdevice, and goes on with kernels that call unresolved `__nv_*`
    functions: `toolkit` must be a directory with
    `nvvm/libdevice/libdevice.10.bc`. An empty option is not checked (for
    `toolkit`, MLIR searches `CUDA_HOME`, `CUDA_ROOT`, `CUDA_PATH` and
    `PATH`). The IR is not changed.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "GPU architecture to check, e.g. sm_90">,
    Option<"toolkit", "toolkit", "std::string", /*default=*/"\"\"",
           "CUDA toolkit root to check">,
  ];
}

def GPUMergeKernelModulesPass
    : Pass<"amp-gpu-merge-kernel-modules", "::mlir::ModuleOp"> {
  let summary = "Merge the gpu.modules of one target into one module";
  let description = [{
    Kernel outlining makes a gpu.module per kernel, and gpu-module-to-binary
    compiles each on its own: for NVVM one LLVM code generation with
    libdevice linked, one ptxas and one fatbinary run per kernel (ResNet-18's
    step has about 400), for the emulated device one C++ compiler link per
    kernel. Merged, a step's kernels are compiled once. The gpu.modules with
    the same `targets` become one module named `name` (`name_1`, ... for
    further targets), placed where the first of them was; each module's only
    kernel (what kernel outlining makes) keeps the module's name, other
    definitions are prefixed with it (`<module>__<symbol>`), declarations are
    kept once, and gpu.launch_func ops are redirected. A global named
    `<companion-prefix><symbol>` follows that symbol's new name (the emulated
    device's kernel info globals). Two modules defining one symbol after
    renaming, or a launch of a kernel no module defines, are errors.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
  let options = [
    Option<"name", "name", "std::string", /*default=*/"\"amp_kernels\"",
           "name of the merged gpu.module">,
    Option<"companionPrefix", "companion-prefix", "std::string",
           /*default=*/"\"\"",
           "prefix of globals that are renamed with the symbol they follow">,
  ];
}

def GPUFuseRowsPass : Pass<"amp-gpu-fuse-rows", "::mlir::func::FuncOp"> {
  let summary = "Fuse chains of row-wise generics (softmax, log-softmax, "
                "cross-entropy rows, LayerNorm forward and backward) into one "
                "gpu.launch with a block per row";
  let description = [{
    Runs on bufferized IR, before amp-gpu-parallel-reductions. A chain is a
    sequence of linalg ops in one block over the same rows: `P` parallel
    (row) dimensions and a row of `R` dimensions (at least
    `min-row-length` elements), made of

    - fills of a per-row scalar buffer (shape `P`),
    - reductions over the row (parallel loops `P`, reduction loops `R`,
      outputs indexed by `P`) that amp-gpu-parallel-reductions would
      reduce with gpu.all_reduce,
    - per-row scalar generics (loops `P`, outputs indexed by `P`) and row
      generics (parallel loops `P` and `R`, outputs indexed by all of them)
      reading something an earlier stage of the chain wrote,

    with at least one reduction and two computing stages. The chain starts
    at a reduction (with the fills just before it); the ops between its
    stages are allocations, deallocations, ops without memory effects and
    ops that neither read what the later stages write nor write what they
    access (they then run after the chain). Every operand is a static
    memref read without transposition; a buffer the chain writes is only
    accessed by the chain through the same value and the identity map of
    its class (per-row scalar or row).

    The chain becomes one gpu.launch with one block per row and up to
    `block-size` threads. Stages run in order: a reduction is a strided
    per-thread accumulation and a gpu.all_reduce, a per-row scalar stage is
    computed by every thread, a row stage is a loop of the threads over
    the row storing its outputs. Per-row scalars stay in registers (the
    same in every thread); thread 0 stores those read after the chain, and
    the per-row buffers only the chain uses are removed. A row value is
    only ever read by the thread that wrote it (every stage gives element
    `j` of the row to thread `j mod block-size`), so no stage waits for
    another; a gpu.barrier only precedes the final stores when the chain
    also read the stored per-row buffers from memory.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block (at most; fewer for short rows)">,
    Option<"minRowLength", "min-row-length", "int64_t", /*default=*/"8",
           "Chains over shorter rows are left alone (a block of 32 threads "
           "still beats three launches from 8 elements on)">,
    Option<"maxUnrolledStrides", "max-unrolled-strides", "int64_t",
           /*default=*/"8",
           "A thread's strides over a row, when the block divides the row "
           "into at most this many, are straight-line code rather than a "
           "loop, so its loads issue together (0: always a loop)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
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
      atomics). Small reductions use one block. With
      `batch-full-reductions`, full reductions of one block with the same
      combiner and accumulator type (one output each) that do not depend
      on each other, with nothing between them writing their buffers or
      reading their outputs, share one such pair: in stage 1 every input
      has its own range of blocks (its own element function), the partials
      go to one buffer [inputs, blocks]; stage 2 loops over the inputs with
      one gpu.all_reduce per input and combines each total with that
      input's output, in order (the overflow check and the gradient norm of
      a training step: two launches instead of two per gradient). When all
      inputs together are small, one block reduces them in one launch.
      A full reduction of several blocks computes, in its first stage, the
      all-parallel generic after it over the same loops (a companion: the
      mse gradient with the mse loss), and then a column sum of that
      companion's output over the same loops (a bias gradient) when
      nothing between writes its inputs and each thread stays in one
      column: each thread stores its column's partial sum, a block per
      column sums them where the column sum stood, and a companion output
      nothing else reads is not written at all.

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
    Option<"batchFullReductions", "batch-full-reductions", "bool",
           /*default=*/"true",
           "Batch independent full reductions with the same combiner into "
           "one launch pair">,
    Option<"maxUnrolledStrides", "max-unrolled-strides", "int64_t",
           /*default=*/"8",
           "A thread's strides over a row, when the block divides the row "
           "into at most this many, are straight-line code rather than a "
           "loop, so its loads issue together (0: always a loop)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

#endif // AMP_CONVERSION_PASSES_TD

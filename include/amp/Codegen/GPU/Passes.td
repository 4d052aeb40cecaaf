//===- Passes.td - amp GPU code generation -----------------*- tablegen -*-===//
//
// The passes of amp-gpu-pipeline (lib/Pipelines/GPUPipeline.cpp) that turn
// linalg into kernels, GEMM calls and host code (lib/Codegen/GPU).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CODEGEN_GPU_PASSES_TD
#define AMP_CODEGEN_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

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

    With `gelu-epilogues`, GELU in its tanh form (amp.gelu approximate =
    tanh, the form cuBLASLt computes; the erf form is never fused) joins
    the call: an elementwise `out = [truncf] gelu([extf] x)` of the call's
    fresh output x makes the call `amp_gpu_gemm_aux(..., 4 or 5, bias, x,
    n, out, stream)` (GELU_AUX_BIAS or GELU_AUX: out = gelu, x kept as
    GELU's input), and an elementwise `out = [truncf](g * gelu'([extf]
    aux))` of the fresh f32 product g (through reshapes, g possibly
    rounded first) makes it `amp_gpu_gemm_aux(..., 6, null, aux, n, out,
    stream)` (DGELU); out and aux of the output's type, n a multiple of 8
    (cuBLASLt's aux leading dimension), batch 1, nothing in between
    writing what the call now reads earlier or touching what it writes.
    Off by default: with an f16/bf16 output cuBLASLt applies GELU to the
    unrounded sum and the derivative to the unrounded product, two
    roundings fewer than the unfused step (and the CPU backend) makes, and
    its kernels may evaluate tanh approximately.
  }];
  let options = [
    Option<"allowTF32", "allow-tf32", "bool", /*default=*/"false",
           "Let f32 GEMMs use TF32 tensor cores">,
    Option<"geluEpilogues", "gelu-epilogues", "bool", /*default=*/"false",
           "Fold tanh-GELU and its gradient into the GEMMs (cuBLASLt's "
           "GELU_AUX[_BIAS] and DGELU epilogues)">,
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

//===----------------------------------------------------------------------===//
// LinalgToGPU: the steps of amp-gpu-pipeline (lib/Codegen/GPU/LinalgToGPU)
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

#endif // AMP_CODEGEN_GPU_PASSES_TD

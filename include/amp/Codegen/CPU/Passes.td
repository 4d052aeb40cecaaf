//===- Passes.td - amp CPU code generation -----------------*- tablegen -*-===//
//
// The passes of amp-cpu-pipeline (lib/Pipelines/CPUPipeline.cpp) that shape
// the CPU code after the conversion to linalg: library GEMMs, loops that
// vectorize, parallel kernels and fast math (lib/Codegen/CPU).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CODEGEN_CPU_PASSES_TD
#define AMP_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def CPUConvolutionsToDNNLPass
    : Pass<"amp-cpu-convolutions-to-dnnl", "::mlir::ModuleOp"> {
  let summary = "Replace f32 convolutions and their gradients with calls to "
                "oneDNN's (amp_cpu_conv2d_*)";
  let description = [{
    Runs on tensors, before convert-amp-to-linalg, in the CPU pipeline
    (with `blas`, the option for library calls). Each `amp.conv2d`,
    `amp.conv2d_input_grad` and `amp.conv2d_weight_grad` whose operands and
    result are static f32 tensors becomes

      func.call @amp_cpu_conv2d_forward(n, c, h, w, o, kh, kw, oh, ow,
          stride_h, stride_w, pad_top, pad_left, pad_bottom, pad_right,
          dilation_h, dilation_w, groups, input, weight, bias, output)

    (`_backward_data(..., grad, weight, input_grad)`,
    `_backward_weights(..., grad, input, weight_grad)`; a null bias pointer
    when there is none): the operands read through read-only
    `bufferization.to_buffer`, the result a fresh `memref.alloc` the call
    writes, seen again as a tensor by `bufferization.to_tensor restrict
    writable`. Pointers are `!llvm.ptr`. The runtime
    (include/amp/Runtime/CPUConvolution.h) runs oneDNN's kernels in pieces
    fixed by the shape, so results do not depend on the thread count.
    Convolutions with f16/bf16 operands or results stay for
    convert-amp-to-linalg (loops).

    Weight gradients too with `weight-gradients=true` (off by default):
    the runtime sums each weight's gradient over blocks of images (about
    1024 products per element) added in a fixed pairwise tree, the same at
    any thread count. On AVX-512 that is closer to float64 than one oneDNN
    sum; on an AVX2 CPU (oneDNN's AVX2 kernels) the CNN example's 20-step
    AdamW run still drifts past its tolerance
    (gradients_train_example_cnn_adamw.mlir: conv1's weight at 1.9x), so
    by default weight gradients stay for the packed GEMMs.
  }];
  let options = [
    Option<"weightGradients", "weight-gradients", "bool",
           /*default=*/"false",
           "Also replace amp.conv2d_weight_grad (see above)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
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
    infinities and NaN included (test/Codegen/CPU/ApproximateMath/
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

#endif // AMP_CODEGEN_CPU_PASSES_TD

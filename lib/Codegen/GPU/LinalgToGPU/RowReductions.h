//===- RowReductions.h - block reductions of linalg generics -*- C++ -*-===//
//
// Internal to lib/Codegen/GPU/LinalgToGPU: the matching and emission of
// parallel reductions shared by amp-gpu-parallel-reductions
// (ReductionsToGPU.cpp) and amp-gpu-fuse-rows (FuseRows.cpp). A reduction
// generic on static memrefs (parallel loops, then reduction loops, every
// output `combiner(out, f(ins))`) is analyzed into a ReductionPlan; the
// ReductionEmitter emits its strided per-thread accumulation, the
// gpu.all_reduce over the block and the stores of the results.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_CODEGEN_GPU_LINALGTOGPU_ROWREDUCTIONS_H
#define AMP_LIB_CODEGEN_GPU_LINALGTOGPU_ROWREDUCTIONS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <map>
#include <optional>
#include <tuple>

namespace mlir::amp::gpu_lowering {

/// One reduced output of a generic: yield(i) = combiner(out_i, partial),
/// or select(mask, combiner(out_i, partial), out_i) (then the partial is
/// select(mask, partial, identity)).
struct ReducedOutput {
  Operation *combiner = nullptr;
  Operation *select = nullptr;
  BlockArgument outArg;
  Value partial;
  gpu::AllReduceOperation kind;
  Type type;
};

/// A reduction generic: `numParallel` leading parallel loops, then
/// reduction loops, every output reduced.
struct ReductionPlan {
  linalg::GenericOp op;
  SmallVector<int64_t> ranges;
  unsigned numParallel = 0;
  int64_t rows = 1, rowLength = 1;
  SmallVector<ReducedOutput> outputs;
  /// Body ops to clone per element (everything but combiners and masks).
  SmallVector<Operation *> elementOps;
};

/// Whether `v` is a memref with a static shape.
bool isStaticMemRef(Value v);

/// Loop dimensions and constants only; dimensions in increasing order (no
/// transposed read), so that reduced dimensions are the innermost ones.
bool isRowMajorAccess(AffineMap map);

/// Loop dimensions and constants only.
bool isDimsAndConstants(AffineMap map);

/// The plan of a reduction generic gpu.all_reduce can reduce, if `op` is
/// one; rows (with parallel loops) shorter than `minRowLength` are refused.
/// Inputs must be read row-major unless `requireRowMajor` is false (a
/// caller emitting its own loops, which coalesce along another dimension).
std::optional<ReductionPlan> analyzeReduction(linalg::GenericOp op,
                                              int64_t minRowLength,
                                              bool requireRowMajor = true);

/// Threads for a reduction of `n` elements: a power of two in [32, max].
int64_t threadsFor(int64_t n, int64_t maxThreads);

/// The element indices j = tid + k * threads of a row of `length` that
/// thread `tid` takes, as straight-line code, when `threads` divides
/// `length` into at most `maxStrides` strides; none otherwise.
std::optional<SmallVector<Value>>
unrolledThreadElements(OpBuilder &b, Location loc, Value tid, int64_t length,
                       int64_t threads, int64_t maxStrides);

/// Emits a ReductionPlan with an OpBuilder: index helpers, the strided
/// accumulation, the block reduction, the stores.
/// The row elements a thread holds in registers in a straight-line chain
/// (amp-gpu-fuse-rows): by buffer, indexing map and element index `j` (the
/// same Value for every stage), what it loaded or stored there. A later
/// stage reading the same element takes the register instead of memory, so
/// a chain reads each row from memory once.
class HeldRowElements {
public:
  Value lookup(Value buffer, AffineMap map, Value j) const {
    auto it = values.find(key(buffer, map, j));
    return it == values.end() ? Value() : it->second;
  }
  /// A value loaded from the element.
  void holdLoaded(Value buffer, AffineMap map, Value j, Value value) {
    values[key(buffer, map, j)] = value;
  }
  /// A value stored to the element: what was held of the buffer under
  /// other maps or elements may be stale, so it goes.
  void holdStored(Value buffer, AffineMap map, Value j, Value value);

private:
  using Key = std::tuple<const void *, const void *, const void *>;
  static Key key(Value buffer, AffineMap map, Value j) {
    return {buffer.getAsOpaquePointer(), map.getAsOpaquePointer(),
            j.getAsOpaquePointer()};
  }
  std::map<Key, Value> values;
};

/// A column sum computed in the first stage of a full reduction over the
/// same loops (amp-gpu-parallel-reductions): its plan (its loops reordered
/// columns first), the full reduction's loop of each of its loops, how many
/// of the innermost loops are columns, and one partials buffer per output,
/// [columns..., ranges] f32 with a range per column of the stage's threads
/// (each thread always reads the same column: its stride is a multiple of
/// the columns).
struct FusedColumnSum {
  ReductionPlan *plan = nullptr;
  SmallVector<unsigned> loops;
  unsigned numColumnLoops = 0;
  SmallVector<Value> partials;
};

class ReductionEmitter {
public:
  ReductionEmitter(ReductionPlan &plan, OpBuilder &b, Location loc)
      : plan(plan), b(b), loc(loc) {}

  /// Inputs found in this map (buffer -> value) are not loaded: the value,
  /// uniform over the row, is used instead (amp-gpu-fuse-rows keeps per-row
  /// scalars in registers).
  void setRowScalars(const llvm::DenseMap<Value, Value> *values) {
    rowScalars = values;
  }

  /// A thread's strides over a row, at most this many, are straight-line
  /// code (accumulateOverThreads); 0 keeps every loop.
  void setMaxUnrolledStrides(int64_t strides) { maxUnrolledStrides = strides; }

  /// A chain's thread elements (straight-line, computed once for all its
  /// stages) and the elements it holds: reductions take held inputs from
  /// registers and hold what they load.
  void setHeldElements(ArrayRef<Value> elements, HeldRowElements *held) {
    threadElements = elements;
    heldElements = held;
  }

  /// Per output, the value its reduction starts from instead of the
  /// output's loaded value (the constant of a zero fill that then goes), or
  /// null to load it.
  void setInitialValues(ArrayRef<Value> values) { initialValues = values; }

  Value index(int64_t v);
  /// Row-major indices of `linear` over `sizes`.
  SmallVector<Value> delinearize(Value linear, ArrayRef<int64_t> sizes);
  /// The results of `map` (loop dimensions and constants) at `loopIndices`.
  SmallVector<Value> apply(AffineMap map, ArrayRef<Value> loopIndices);
  Value combine(const ReducedOutput &out, Value acc, Value partial);
  Value identity(const ReducedOutput &out);
  /// The partial of every output at the loop indices (of row element `j`,
  /// when known, for held elements).
  SmallVector<Value> partials(ArrayRef<Value> loopIndices, Value j = {});
  /// for (j = start; j < end; j += step) accs = combine(accs, element(j)),
  /// and with `also`, the outputs of its plan after this one's (element
  /// gives values for both).
  SmallVector<Value>
  accumulate(Value start, int64_t end, Value step,
             function_ref<SmallVector<Value>(Value)> element,
             ReductionEmitter *also = nullptr);
  /// Stores the fused column sum's partial `sums` of the stage-1 thread
  /// `thread` at [its column..., its range].
  void storeColumnPartials(const FusedColumnSum &columnSum, Value thread,
                           ValueRange sums);
  /// The same over a thread's elements of a row, j = tid + k * threads:
  /// where `threads` divides `length` into at most the maximum unrolled
  /// strides (setMaxUnrolledStrides), straight-line code (the thread's loads issue together, which
  /// one element at a time in a loop did not: too few bytes in flight);
  /// otherwise the loop. The same elements in the same order either way.
  SmallVector<Value>
  accumulateOverThreads(Value tid, int64_t length, int64_t threads,
                        function_ref<SmallVector<Value>(Value)> element);
  /// gpu.all_reduce of every accumulator over the block (i1 widened).
  SmallVector<Value> blockReduce(ValueRange accs);
  /// Thread 0 runs `fn`.
  void onThreadZero(Value tid, function_ref<void()> fn);
  /// out[indices] = combiner(out[indices], total) for every output.
  void storeResults(ArrayRef<Value> parallelIndices, ValueRange totals);
  /// A gpu.launch of `grid` x `threads`; `fn(blockId, threadId)` fills it.
  void launch(int64_t grid, int64_t threads,
              function_ref<void(Value, Value)> fn);
  /// The parallel indices of the row of block `bid`.
  SmallVector<Value> rowIndices(Value bid);
  /// The accumulation of the row at `parallelIndices` by the threads of a
  /// block of `threads` and its gpu.all_reduce: the block's totals.
  SmallVector<Value> reduceRow(ArrayRef<Value> parallelIndices, Value tid,
                               int64_t threads);

  /// One block per row (per output element); a full reduction is one row.
  void emitRows(int64_t maxThreads);
  /// Two stages: `blocks` blocks reduce grid-strided slices into partials,
  /// one block reduces the partials into the outputs. A `companion` (an
  /// all-parallel generic over the same loop ranges, see
  /// amp-gpu-parallel-reductions) is computed in the first stage's loop at
  /// each element the reduction reads, and so is a `columnSum`'s partial
  /// sum, each thread storing its own into the column sum's partials.
  void emitFull(int64_t blocks, int64_t threads,
                linalg::GenericOp companion = nullptr,
                const FusedColumnSum *columnSum = nullptr);
  /// The body of the all-parallel generic `op` at `loopIndices`: its inputs
  /// loaded, its outputs stored; the values stored, by output.
  SmallVector<Value> emitElementwise(linalg::GenericOp op,
                                     ArrayRef<Value> loopIndices);

private:
  ArrayRef<int64_t> parallelRanges() {
    return ArrayRef(plan.ranges).take_front(plan.numParallel);
  }
  ArrayRef<int64_t> reductionRanges() {
    return ArrayRef(plan.ranges).drop_front(plan.numParallel);
  }

  ReductionPlan &plan;
  OpBuilder &b;
  Location loc;
  const llvm::DenseMap<Value, Value> *rowScalars = nullptr;
  int64_t maxUnrolledStrides = 8;
  ArrayRef<Value> threadElements;
  HeldRowElements *heldElements = nullptr;
  ArrayRef<Value> initialValues;
};

/// Whether several full reductions can share one batched launch pair: one
/// output each, no parallel loop, the same all_reduce kind and accumulator
/// type as `other` (when given).
bool isBatchableFull(const ReductionPlan &plan,
                     const ReductionPlan *other = nullptr);

/// Several full reductions (isBatchableFull with each other, independent:
/// no input written or read as an output by another) emitted together.
/// Stage 1: each input gets its own range of up to `maxBlocks` blocks of
/// `threads` threads (one per `perBlock` elements); a block finds its input
/// by comparing its id with the ranges, accumulates its grid-strided slice
/// of that input (the input's own element function) and writes one partial
/// to a 2-d buffer [inputs, blocks]. Stage 2: one block loops over the
/// inputs, reduces each one's partials with one gpu.all_reduce and thread 0
/// combines the total with that input's output, in the inputs' order (so
/// outputs shared by several inputs get the sequential result). When all
/// inputs together fit in `perBlock` elements, stage 2 reads the inputs
/// directly and stage 1 is not emitted.
void emitBatchedFull(MutableArrayRef<ReductionPlan> plans, OpBuilder &b,
                     Location loc, int64_t threads, int64_t perBlock,
                     int64_t maxBlocks);

/// The loops of `generic`, parallel ones first, then the reductions, each
/// group in order.
SmallVector<unsigned> parallelFirstOrder(linalg::GenericOp generic);

/// `generic` with its parallel loops first, in their order, then its
/// reductions (interchanged in place when they are not).
linalg::GenericOp interchangeParallelFirst(RewriterBase &rewriter,
                                           linalg::GenericOp generic);

/// Stage 2 of a column sum `sum` split into partials (one [outputs...,
/// ranges] f32 buffer per output), emitted where `sum` stands: for every
/// output, out[o] = out[o] + the sum of partials[o..., 0..n), a row
/// reduction with a block per output element and up to `maxThreads`
/// threads over its partials; an output filled with a constant only for
/// `sum` starts from the constant (the fill goes).
void sumPartialsInto(linalg::GenericOp sum, ArrayRef<Value> partials,
                     int64_t maxThreads);

} // namespace mlir::amp::gpu_lowering

#endif // AMP_LIB_CODEGEN_GPU_LINALGTOGPU_ROWREDUCTIONS_H

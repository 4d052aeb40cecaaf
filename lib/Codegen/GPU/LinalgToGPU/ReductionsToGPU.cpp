//===- ReductionsToGPU.cpp - parallel row and full reductions -------------===//
//
// The amp-gpu-parallel-reductions pass: on bufferized IR, reduction
// linalg.generic ops become gpu.launch ops that reduce in parallel. A row
// reduction (parallel loops, then reduction loops over the innermost memory
// dimensions) gets one block per output element: every thread accumulates a
// strided slice of the row, gpu.all_reduce combines the block, thread 0
// combines with the output's initial value. A full reduction (no parallel
// loop) runs in two stages: a grid of blocks reducing grid-strided slices
// into a buffer of partials, then one block reducing the partials.
// Deterministic (no atomics). Independent full reductions of a block with
// the same combiner and accumulator type (every gradient's overflow check,
// every gradient's sum of squares) are batched into one such launch pair
// (emitBatchedFull). What does not match is left alone for the loop mapping
// of the GPU pipeline (docs/GPU.md). The matching and the emission are
// shared with amp-gpu-fuse-rows (RowReductions.h).
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPUUtils.h"
#include "RowReductions.h"

#include "amp/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/Support/MathExtras.h"

#include <vector>

namespace mlir::amp {
#define GEN_PASS_DEF_GPUPARALLELREDUCTIONSPASS
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

using namespace mlir::amp::gpu_lowering;

namespace {
/// Full reductions of one block being batched: emitted together at the
/// last one, so every op between them must leave their buffers alone.
struct Batch {
  SmallVector<ReductionPlan, 2> plans;
  SmallVector<Value> inputs, outputs;
  /// The kernel parameters of the batch's launches: every input and output
  /// and one row of partials per reduction.
  int64_t parameterBytes = 0;

  void add(ReductionPlan plan) {
    parameterBytes += parameterBytesOf(plan);
    for (OpOperand *input : plan.op.getDpsInputOperands())
      inputs.push_back(input->get());
    llvm::append_range(outputs, plan.op.getDpsInits());
    plans.push_back(std::move(plan));
  }

  /// Whether the launches' parameters still fit with `plan` added (a
  /// GPT-2's 148 gradients would not in one batch).
  bool fits(const ReductionPlan &plan) const {
    return parameterBytes + parameterBytesOf(plan) <= kMaxParameterBytes;
  }

  static int64_t parameterBytesOf(const ReductionPlan &plan) {
    int64_t bytes = 8 * (3 + 2); // its partials, a row of a rank-2 buffer
    for (Value operand : plan.op->getOperands())
      bytes += mlir::amp::gpu_lowering::parameterBytes(operand);
    return bytes;
  }

  /// Whether `plan` depends on the batch or the batch on it: it reads an
  /// output of the batch or writes one of its inputs. Outputs may be
  /// shared: the last stage combines them in order.
  bool conflicts(const ReductionPlan &plan) const {
    linalg::GenericOp op = plan.op;
    for (OpOperand *input : op.getDpsInputOperands())
      if (mayAliasAny(input->get(), outputs))
        return true;
    return llvm::any_of(op.getDpsInits(),
                        [&](Value out) { return mayAliasAny(out, inputs); });
  }

  /// Whether moving the batch past `op` may change what either sees: `op`
  /// writes a buffer of the batch or reads an output.
  bool touchedBy(Operation *op) const {
    SmallVector<Value> touched, written;
    if (!collectEffects(op, touched, written))
      return true;
    return llvm::any_of(touched,
                        [&](Value v) { return mayAliasAny(v, outputs); }) ||
           llvm::any_of(written,
                        [&](Value v) { return mayAliasAny(v, inputs); });
  }
};

/// Whether `op` is all-parallel over the loop ranges `ranges`, each
/// operand a memref indexed by loop dimensions and constants, each output
/// a fresh buffer written at the loop indices and not read.
bool isElementwiseOver(linalg::GenericOp op, ArrayRef<int64_t> ranges) {
  if (!op.hasPureBufferSemantics() || op.getNumReductionLoops() != 0 ||
      !llvm::equal(op.getStaticLoopRanges(), ranges))
    return false;
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!init.get().getDefiningOp<memref::AllocOp>() ||
        !op.getMatchingIndexingMap(&init).isIdentity() ||
        op.payloadUsesValueFromOperand(&init))
      return false;
  return llvm::all_of(op->getOpOperands(), [&](OpOperand &operand) {
    return isa<MemRefType>(operand.get().getType()) &&
           llvm::all_of(op.getMatchingIndexingMap(&operand).getResults(),
                        llvm::IsaPred<AffineDimExpr, AffineConstantExpr>);
  });
}

/// Whether `map` takes loop dimensions out of order (a transposed read).
bool readsTransposed(AffineMap map) {
  int64_t last = -1;
  for (AffineExpr result : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(result);
    if (!dim)
      continue;
    if (int64_t(dim.getPosition()) < last)
      return true;
    last = dim.getPosition();
  }
  return false;
}

/// Whether the body of `generic` can be computed an element at a time where
/// `at` stands, in a launch emitted there: no memory effects (a load in the
/// body reads a buffer that the checks on the generic's operands do not
/// see), no nested regions (only the body's own linalg.index ops are given
/// the loop indices), and every value it takes from above defined before
/// `at`.
bool bodyRunsAt(linalg::GenericOp generic, Operation *at,
                DominanceInfo &dominance) {
  for (Operation &inner : generic.getBlock()->without_terminator())
    if (inner.getNumRegions() != 0 || !isMemoryEffectFree(&inner))
      return false;
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(generic.getRegion(), above);
  return llvm::all_of(above, [&](Value value) {
    return dominance.properlyDominates(value, at);
  });
}

/// The first all-parallel generic after the full reduction `plan` in its
/// block, over the same loops, that can run in the reduction's element loop
/// instead of reading the same inputs again in its own launch (mse's
/// gradient after the loss): it reads no operand transposed (the
/// reduction's threads stride over the loops in order, so a transposed read
/// would not be coalesced; a transposed copy is left for its tiled launch,
/// amp-gpu-prepare-linalg), its body runs where the reduction stands, its
/// inputs are defined there (an FP8 quantization's scale is a view taken
/// after the amax reduction before it), it reads nothing the reduction or
/// an op in between writes, and nothing in between touches its outputs.
linalg::GenericOp findCompanion(const ReductionPlan &plan) {
  linalg::GenericOp reduction = plan.op;
  DominanceInfo dominance(reduction->getParentOp());
  SmallVector<Value> written(reduction.getDpsInits());
  SmallVector<Value> touched(reduction->getOperands());
  for (Operation *op = reduction->getNextNode(); op; op = op->getNextNode()) {
    if (isa<memref::AllocOp>(op))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (generic && isElementwiseOver(generic, plan.ranges) &&
        llvm::none_of(generic.getIndexingMapsArray(), readsTransposed) &&
        bodyRunsAt(generic, reduction, dominance) &&
        llvm::all_of(generic.getDpsInputs(),
                     [&](Value in) {
                       return dominance.properlyDominates(in, reduction);
                     }) &&
        llvm::none_of(
            generic.getDpsInputs(),
            [&](Value in) { return mayAliasAnyInStep(in, written); }) &&
        llvm::none_of(generic.getDpsInits(), [&](Value out) {
          return mayAliasAnyInStep(out, touched);
        }))
      return generic;
    if (!collectEffects(op, touched, written))
      return nullptr;
  }
  return nullptr;
}

/// The parallel (column) loops of `sum` if it sums over the leading loops
/// of `ranges` (the rows) into outputs indexed by the trailing ones (the
/// columns), f32 sums `out + f(ins)` only, every operand static; none
/// otherwise.
std::optional<unsigned> columnLoops(linalg::GenericOp sum,
                                    ArrayRef<int64_t> ranges) {
  if (!sum.hasPureBufferSemantics() || sum.getNumDpsInits() == 0 ||
      !llvm::equal(sum.getStaticLoopRanges(), ranges) ||
      !llvm::all_of(sum->getOperands(), isStaticMemRef))
    return std::nullopt;
  auto iterators = sum.getIteratorTypesArray();
  unsigned rows = 0;
  while (rows < iterators.size() &&
         iterators[rows] == utils::IteratorType::reduction)
    ++rows;
  unsigned columns = iterators.size() - rows;
  if (rows == 0 || columns == 0 ||
      llvm::any_of(ArrayRef(iterators).drop_front(rows), [](auto type) {
        return type != utils::IteratorType::parallel;
      }))
    return std::nullopt;
  for (OpOperand &init : sum.getDpsInitsMutable()) {
    AffineMap map = sum.getMatchingIndexingMap(&init);
    if (map.getNumResults() != columns ||
        !cast<MemRefType>(init.get().getType()).getLayout().isIdentity() ||
        !cast<MemRefType>(init.get().getType()).getElementType().isF32())
      return std::nullopt;
    for (auto [i, expr] : llvm::enumerate(map.getResults()))
      if (expr != getAffineDimExpr(rows + i, sum.getContext()))
        return std::nullopt;
  }
  return columns;
}

/// The first column sum after the full reduction `plan` in its block, over
/// the same loops, that reads an output of `companion` and can be summed in
/// the reduction's first stage (whose threads step by `stride` elements:
/// a multiple of the columns, so each thread stays in one column): nothing
/// between writes its inputs (besides `companion`, which that stage runs).
/// Its plan, columns first, goes to `fused`.
linalg::GenericOp findColumnSum(const ReductionPlan &plan,
                                linalg::GenericOp companion, int64_t stride,
                                std::optional<ReductionPlan> &fusedPlan,
                                FusedColumnSum &fused) {
  SmallVector<Value> touched, written;
  linalg::GenericOp reduction = plan.op;
  // Its inputs must exist where the first stage runs.
  DominanceInfo dominance(reduction->getParentOp());
  SmallVector<Value> reduced(reduction.getDpsInits());
  for (Operation *op = reduction->getNextNode(); op; op = op->getNextNode()) {
    if (op == companion.getOperation())
      continue;
    auto sum = dyn_cast<linalg::GenericOp>(op);
    std::optional<unsigned> columns =
        sum ? columnLoops(sum, plan.ranges) : std::nullopt;
    // It reads a companion output, each at the element the stage computes
    // (the companion's outputs are indexed by the loops in order).
    auto readsCompanion = [&](OpOperand *in) {
      return llvm::is_contained(companion.getDpsInits(), in->get());
    };
    if (columns && llvm::any_of(sum.getDpsInputOperands(), readsCompanion) &&
        llvm::all_of(sum.getDpsInputOperands(),
                     [&](OpOperand *in) {
                       return !readsCompanion(in) ||
                              sum.getMatchingIndexingMap(in).isIdentity();
                     }) &&
        llvm::none_of(sum.getDpsInputs(),
                      [&](Value in) {
                        return mayAliasAnyInStep(in, written) ||
                               mayAliasAnyInStep(in, reduced) ||
                               !dominance.properlyDominates(in, reduction);
                      }) &&
        bodyRunsAt(sum, reduction, dominance)) {
      int64_t columnCount = 1;
      for (int64_t range : ArrayRef(plan.ranges).take_back(*columns))
        columnCount *= range;
      if (stride % columnCount != 0)
        return nullptr;
      // Columns first, then the rows: a row reduction's loop order.
      SmallVector<unsigned> order = parallelFirstOrder(sum);
      IRRewriter rewriter(sum->getContext());
      linalg::GenericOp reordered = interchangeParallelFirst(rewriter, sum);
      fusedPlan = analyzeReduction(reordered, /*minRowLength=*/1,
                                   /*requireRowMajor=*/false);
      if (!fusedPlan ||
          llvm::any_of(fusedPlan->outputs, [](const ReducedOutput &out) {
            return out.kind != gpu::AllReduceOperation::ADD;
          }))
        return nullptr;
      fused.plan = &*fusedPlan;
      fused.loops = order;
      fused.numColumnLoops = *columns;
      return reordered;
    }
    if (!collectEffects(op, touched, written))
      return nullptr;
  }
  return nullptr;
}

/// Erases the companion and, of its outputs that nothing reads any more (a
/// fused column sum was their only reader), the stores, frees and buffers.
void eraseCompanion(linalg::GenericOp companion) {
  SmallVector<memref::AllocOp> unread;
  for (Value out : companion.getDpsInits()) {
    auto alloc = out.getDefiningOp<memref::AllocOp>();
    if (alloc && llvm::all_of(out.getUsers(), [&](Operation *user) {
          return user == companion.getOperation() ||
                 isa<memref::StoreOp, memref::DeallocOp>(user);
        }))
      unread.push_back(alloc);
  }
  companion->erase();
  for (memref::AllocOp alloc : unread) {
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      user->erase();
    alloc->erase();
  }
}

struct GPUParallelReductionsPass
    : public amp::impl::GPUParallelReductionsPassBase<
          GPUParallelReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (blockSize < 32 || maxBlocks < 1 || elementsPerThread < 1 ||
        maxUnrolledStrides < 0) {
      getOperation().emitError()
          << "amp-gpu-parallel-reductions: block-size must be at least 32, "
             "max-blocks and elements-per-thread at least 1, "
             "max-unrolled-strides at least 0";
      return signalPassFailure();
    }
    if (batchFullReductions)
      batchFull();
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) {
      if (!op->getParentOfType<gpu::LaunchOp>())
        generics.push_back(op);
    });
    llvm::SmallPtrSet<Operation *, 4> absorbed;
    for (linalg::GenericOp op : generics) {
      if (absorbed.contains(op))
        continue;
      std::optional<ReductionPlan> plan = analyzeReduction(op, minRowLength);
      if (!plan)
        continue;
      OpBuilder b(op);
      ReductionEmitter emitter(*plan, b, op.getLoc());
      emitter.setMaxUnrolledStrides(maxUnrolledStrides);
      // Outputs filled with a constant just for this reduction start from
      // it: the fill (a launch) goes.
      SmallVector<Value> initialValues;
      for (Value out : op.getDpsInits())
        initialValues.push_back(takeFillConstant(out, op));
      emitter.setInitialValues(initialValues);
      int64_t perBlock = blockSize * elementsPerThread;
      int64_t blocks = std::min<int64_t>(
          llvm::divideCeil(plan->rowLength, perBlock), maxBlocks);
      if (plan->numParallel > 0 || blocks <= 1) {
        emitter.emitRows(blockSize);
        op->erase();
        continue;
      }
      linalg::GenericOp companion = findCompanion(*plan);
      if (companion) {
        // Its outputs must exist before the launch that now writes them.
        for (Value out : companion.getDpsInits())
          if (out.getDefiningOp()->getBlock() == op->getBlock() &&
              op->isBeforeInBlock(out.getDefiningOp()))
            out.getDefiningOp()->moveBefore(op);
        absorbed.insert(companion);
      }
      std::optional<ReductionPlan> columnPlan;
      FusedColumnSum fused;
      linalg::GenericOp columnSum =
          companion ? findColumnSum(*plan, companion, blocks * blockSize,
                                    columnPlan, fused)
                    : nullptr;
      if (columnSum)
        fused.partials = allocateColumnPartials(b, op.getLoc(), columnSum,
                                                fused, blocks * blockSize);
      emitter.emitFull(blocks, blockSize, companion,
                       columnSum ? &fused : nullptr);
      op->erase();
      if (columnSum) {
        sumColumnPartials(columnSum, fused.partials);
        absorbed.insert(columnSum);
        columnSum->erase();
      }
      if (companion)
        eraseCompanion(companion);
    }
  }

  /// One [columns..., ranges] f32 buffer per output of the fused column sum,
  /// a range per column of the stage's `threads`.
  static SmallVector<Value> allocateColumnPartials(OpBuilder &b, Location loc,
                                                   linalg::GenericOp sum,
                                                   const FusedColumnSum &fused,
                                                   int64_t threads) {
    auto outType = cast<MemRefType>(sum.getDpsInits().front().getType());
    SmallVector<int64_t> shape(outType.getShape());
    shape.push_back(threads / outType.getNumElements());
    SmallVector<Value> partials;
    for (unsigned i = 0, e = sum.getNumDpsInits(); i < e; ++i)
      partials.push_back(memref::AllocOp::create(
          b, loc, MemRefType::get(shape, b.getF32Type())));
    return partials;
  }

  /// Stage 2 of the fused column sum, where it stood: its outputs plus the
  /// sums of their partials (from a zero fill's constant, which goes).
  void sumColumnPartials(linalg::GenericOp sum, ArrayRef<Value> partials) {
    sumPartialsInto(sum, partials, blockSize);
    OpBuilder b(sum);
    for (Value buffer : partials)
      memref::DeallocOp::create(b, sum.getLoc(), buffer);
  }

  /// Batches of two or more full reductions become one launch pair each.
  void batchFull() {
    std::vector<Batch> done;
    getOperation().walk([&](Block *block) {
      if (block->getParentOp()->getParentOfType<gpu::LaunchOp>() ||
          isa<gpu::LaunchOp>(block->getParentOp()))
        return;
      std::vector<Batch> open;
      auto close = [&](Batch &batch) {
        if (batch.plans.size() > 1)
          done.push_back(std::move(batch));
        batch = Batch();
      };
      for (Operation &op : *block) {
        std::optional<ReductionPlan> plan;
        if (auto generic = dyn_cast<linalg::GenericOp>(&op)) {
          plan = analyzeReduction(generic, minRowLength);
          if (plan && !isBatchableFull(*plan))
            plan.reset();
        }
        Batch *same = nullptr;
        for (Batch &batch : open) {
          if (batch.plans.empty())
            continue;
          if (plan && isBatchableFull(*plan, &batch.plans.front())) {
            same = &batch;
            continue;
          }
          if (batch.touchedBy(&op))
            close(batch);
        }
        if (!plan)
          continue;
        if (same && (same->conflicts(*plan) || !same->fits(*plan)))
          close(*same);
        if (!same) {
          open.emplace_back();
          same = &open.back();
        }
        same->add(std::move(*plan));
      }
      for (Batch &batch : open)
        close(batch);
    });
    int64_t perBlock = blockSize * elementsPerThread;
    for (Batch &batch : done) {
      Operation *last = batch.plans.back().op;
      OpBuilder b(last);
      emitBatchedFull(batch.plans, b, last->getLoc(), blockSize, perBlock,
                      maxBlocks);
      for (ReductionPlan &plan : batch.plans)
        plan.op->erase();
    }
  }
};
} // namespace

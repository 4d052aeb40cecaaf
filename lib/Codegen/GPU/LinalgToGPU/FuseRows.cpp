//===- FuseRows.cpp - chains of row-wise generics into one launch ---------===//
//
// The amp-gpu-fuse-rows pass: on bufferized IR, a chain of linalg ops over
// the same rows (softmax: row max, exp-sum, divide; LayerNorm: mean,
// variance, normalize; their backward) becomes one gpu.launch with one
// block per row instead of a launch per op. Reductions are the block
// reductions of amp-gpu-parallel-reductions (RowReductions.h); the per-row
// scalars they produce stay in registers for the later stages; elementwise
// stages over the row are strided loops of the block's threads. See the
// pass description in include/amp/Codegen/GPU/Passes.td and docs/GPU.md.
//
// Why no stage waits for another: every stage gives element j of the row
// to thread j mod blockDim (the reduction loops and the row loops stride
// alike), and a buffer the chain writes is only accessed by it with the
// identity map of its class, so a row value is read by the thread that
// wrote it, and per-row scalars are registers every thread holds. The
// gpu.all_reduce ops synchronize internally (each has its own shared
// buffer) and are reached by every thread: all loops have uniform bodies
// without barriers.
//
//===----------------------------------------------------------------------===//

#include "RowReductions.h"

#include "amp/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::amp {
#define GEN_PASS_DEF_GPUFUSEROWSPASS
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp::gpu_lowering;

namespace {
enum class StageKind { Fill, Reduction, Scalar, Row };

/// How a stage indexes a buffer: per-row scalar (shape P, indexed by the
/// parallel loops), row (shape P x R, identity map) or anything else.
enum class AccessClass { Scalar, Row, Other };

struct Access {
  Value root;
  Value value;
  AccessClass cls;
  bool write;
  /// Whether the stage reads the buffer's elements (an init a reduction
  /// starts from, an output the body reads).
  bool read;
};

struct Stage {
  Operation *op;
  StageKind kind;
  std::optional<ReductionPlan> plan;
  SmallVector<Access> accesses;
};

/// The memory `v` views: through view-like ops to an allocation or a
/// function argument (distinct arguments are distinct buffers).
Value rootOf(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// The rows of a chain: parallel dimensions P, then the row R.
struct RowSpace {
  SmallVector<int64_t> parallel, row;
  int64_t rowLength = 1;

  unsigned numParallel() const { return parallel.size(); }
  SmallVector<int64_t> all() const {
    SmallVector<int64_t> ranges(parallel);
    llvm::append_range(ranges, row);
    return ranges;
  }
};

/// Whether `map` yields exactly the loop dimensions 0 .. n-1.
bool isLeadingIdentity(AffineMap map, unsigned n) {
  if (map.getNumResults() != n)
    return false;
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim || dim.getPosition() != i)
      return false;
  }
  return true;
}

AccessClass classify(Value buffer, AffineMap map, const RowSpace &space) {
  ArrayRef<int64_t> shape = cast<MemRefType>(buffer.getType()).getShape();
  if (shape == ArrayRef(space.parallel) &&
      isLeadingIdentity(map, space.numParallel()))
    return AccessClass::Scalar;
  if (shape == ArrayRef(space.all()) &&
      isLeadingIdentity(map, space.all().size()))
    return AccessClass::Row;
  return AccessClass::Other;
}

/// A body that can be cloned per element: no regions, no memory effects.
bool isClonableBody(linalg::GenericOp op) {
  for (Operation &inner : op.getBlock()->without_terminator())
    if (inner.getNumRegions() != 0 || !isMemoryEffectFree(&inner))
      return false;
  return true;
}

/// `op` as a stage of a chain over `space`, if it is one.
std::optional<Stage> analyzeStage(Operation *op, const RowSpace &space,
                                  int64_t minRowLength) {
  Stage stage;
  stage.op = op;
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    if (!fill.hasPureBufferSemantics())
      return std::nullopt;
    Value buffer = fill.getDpsInitOperand(0)->get();
    auto type = dyn_cast<MemRefType>(buffer.getType());
    if (!type || type.getShape() != ArrayRef(space.parallel) ||
        fill.getDpsInputOperand(0)->get().getType() != type.getElementType())
      return std::nullopt;
    stage.kind = StageKind::Fill;
    stage.accesses.push_back({rootOf(buffer), buffer, AccessClass::Scalar,
                              /*write=*/true,
                              /*read=*/false});
    return stage;
  }
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || !generic.hasPureBufferSemantics())
    return std::nullopt;
  for (Value operand : op->getOperands())
    if (!isStaticMemRef(operand))
      return std::nullopt;
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  auto iterators = generic.getIteratorTypesArray();
  bool allParallel = llvm::all_of(iterators, [](utils::IteratorType t) {
    return t == utils::IteratorType::parallel;
  });
  AccessClass outClass;
  if (ranges == space.all() && allParallel) {
    stage.kind = StageKind::Row;
    outClass = AccessClass::Row;
  } else if (ranges == space.parallel && allParallel) {
    stage.kind = StageKind::Scalar;
    outClass = AccessClass::Scalar;
  } else if (ranges == space.all()) {
    stage.plan = analyzeReduction(generic, minRowLength);
    if (!stage.plan || stage.plan->numParallel != space.numParallel())
      return std::nullopt;
    stage.kind = StageKind::Reduction;
    outClass = AccessClass::Scalar;
  } else {
    return std::nullopt;
  }
  if (stage.kind != StageKind::Reduction && !isClonableBody(generic))
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(&operand);
    if (!isRowMajorAccess(map))
      return std::nullopt;
    bool write = generic.isDpsInit(&operand);
    AccessClass cls = classify(operand.get(), map, space);
    if (write && cls != outClass)
      return std::nullopt;
    bool read = stage.kind == StageKind::Reduction ||
                !generic.getMatchingBlockArgument(&operand).use_empty();
    stage.accesses.push_back(
        {rootOf(operand.get()), operand.get(), cls, write, read});
  }
  return stage;
}

/// Whether a buffer written by the chain is accessed by it through one value
/// and one identity map (so that each element is read by the thread that
/// wrote it, or lives in a register).
bool accessesConform(ArrayRef<Stage> stages, const Stage &next) {
  SmallVector<Access> all;
  for (const Stage &stage : stages)
    llvm::append_range(all, stage.accesses);
  llvm::append_range(all, next.accesses);
  for (const Access &written : all) {
    if (!written.write)
      continue;
    for (const Access &other : all)
      if (other.root == written.root &&
          (other.value != written.value || other.cls != written.cls ||
           other.cls == AccessClass::Other))
        return false;
  }
  return true;
}

bool writesRoot(ArrayRef<Stage> stages, Value root) {
  return llvm::any_of(stages, [&](const Stage &stage) {
    return llvm::any_of(stage.accesses, [&](const Access &access) {
      return access.write && access.root == root;
    });
  });
}

/// An op between stages that the later stages move in front of.
struct Skipped {
  Operation *op;
  SmallVector<MemoryEffects::EffectInstance> effects;
};

/// Whether running `stage` before `skipped` changes what either does.
bool conflicts(const Skipped &skipped, const Stage &stage) {
  for (const MemoryEffects::EffectInstance &effect : skipped.effects) {
    Value root = rootOf(effect.getValue());
    bool read = isa<MemoryEffects::Read>(effect.getEffect());
    for (const Access &access : stage.accesses)
      if (access.root == root && (!read || access.write))
        return true;
  }
  return false;
}

bool isAllocation(Operation *op) {
  return isa<memref::AllocOp, memref::AllocaOp>(op);
}

/// Collects the ops after `insertionPoint` that define `value` (and their
/// operands) and must move in front of it; false if one cannot move (it
/// touches memory).
bool collectHoists(Value value, Operation *insertionPoint,
                   llvm::SetVector<Operation *> &hoists) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != insertionPoint->getBlock() ||
      def->isBeforeInBlock(insertionPoint) || hoists.contains(def))
    return true;
  if (!isAllocation(def) &&
      (def->getNumRegions() != 0 || !isMemoryEffectFree(def)))
    return false;
  for (Value operand : def->getOperands())
    if (!collectHoists(operand, insertionPoint, hoists))
      return false;
  hoists.insert(def);
  return true;
}

struct Chain {
  RowSpace space;
  std::vector<Stage> stages;
  llvm::SetVector<Operation *> hoists;
};

/// The chain that starts at the reduction `first` (with the fills of its
/// outputs just before it), if it has at least one reduction and two
/// computing stages.
std::optional<Chain> buildChain(linalg::GenericOp first,
                                const ReductionPlan &plan,
                                int64_t minRowLength) {
  Chain chain;
  chain.space.parallel.assign(plan.ranges.begin(),
                              plan.ranges.begin() + plan.numParallel);
  chain.space.row.assign(plan.ranges.begin() + plan.numParallel,
                         plan.ranges.end());
  chain.space.rowLength = plan.rowLength;
  const RowSpace &space = chain.space;

  // The fills of the first reduction's outputs, before it.
  std::vector<Stage> fills;
  for (Operation *prev = first->getPrevNode(); prev;
       prev = prev->getPrevNode()) {
    if (isAllocation(prev))
      continue;
    auto fill = dyn_cast<linalg::FillOp>(prev);
    if (!fill || !llvm::is_contained(first.getDpsInits(),
                                     fill.getDpsInitOperand(0)->get()))
      break;
    std::optional<Stage> stage = analyzeStage(prev, space, minRowLength);
    if (!stage)
      break;
    fills.insert(fills.begin(), std::move(*stage));
  }
  chain.stages = std::move(fills);
  std::optional<Stage> head = analyzeStage(first, space, minRowLength);
  if (!head || !accessesConform(chain.stages, *head))
    return std::nullopt;
  chain.stages.push_back(std::move(*head));
  Operation *insertionPoint = chain.stages.front().op;
  auto hoistOperands = [&](Operation *op) {
    llvm::SetVector<Operation *> hoists = chain.hoists;
    if (!llvm::all_of(op->getOperands(), [&](Value operand) {
          return collectHoists(operand, insertionPoint, hoists);
        }))
      return false;
    chain.hoists = std::move(hoists);
    return true;
  };
  for (const Stage &stage : chain.stages)
    if (!hoistOperands(stage.op))
      return std::nullopt;

  SmallVector<Skipped, 8> skipped;
  for (Operation *op = first->getNextNode();
       op && !op->hasTrait<OpTrait::IsTerminator>(); op = op->getNextNode()) {
    std::optional<Stage> stage = analyzeStage(op, space, minRowLength);
    // Elementwise stages join when they read what the chain wrote;
    // independent ones are ops to skip like any other.
    if (stage &&
        (stage->kind == StageKind::Scalar || stage->kind == StageKind::Row)) {
      bool dependent = llvm::any_of(stage->accesses, [&](const Access &a) {
        return !a.write && writesRoot(chain.stages, a.root);
      });
      if (!dependent)
        stage.reset();
    }
    if (stage) {
      if (!accessesConform(chain.stages, *stage) ||
          llvm::any_of(skipped,
                       [&](const Skipped &s) { return conflicts(s, *stage); }))
        break;
      if (!hoistOperands(op))
        break;
      chain.stages.push_back(std::move(*stage));
      continue;
    }
    if (isAllocation(op) ||
        (op->getNumRegions() == 0 && isMemoryEffectFree(op))) {
      skipped.push_back({op, {}});
      continue;
    }
    std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
        getEffectsRecursively(op);
    if (!effects || llvm::any_of(*effects, [](const auto &effect) {
          return !effect.getValue();
        }))
      break;
    skipped.push_back({op, std::move(*effects)});
  }

  // Trailing fills stay where they are.
  while (chain.stages.back().kind == StageKind::Fill)
    chain.stages.pop_back();
  unsigned reductions = 0, computing = 0;
  for (const Stage &stage : chain.stages) {
    reductions += stage.kind == StageKind::Reduction;
    computing += stage.kind != StageKind::Fill;
  }
  if (reductions == 0 || computing < 2)
    return std::nullopt;
  return chain;
}

/// Clones the body of `op` at `loopIndices`; `operandValue` gives the
/// element of each operand the body reads. Returns the yielded values.
SmallVector<Value> cloneBody(OpBuilder &b, linalg::GenericOp op,
                             ArrayRef<Value> loopIndices,
                             function_ref<Value(OpOperand &)> operandValue) {
  Block *body = op.getBlock();
  IRMapping map;
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = body->getArgument(operand.getOperandNumber());
    if (!arg.use_empty())
      map.map(arg, operandValue(operand));
  }
  for (Operation &inner : body->without_terminator()) {
    if (auto indexOp = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(indexOp.getResult(), loopIndices[indexOp.getDim()]);
      continue;
    }
    b.clone(inner, map);
  }
  SmallVector<Value> results;
  for (Value yielded : body->getTerminator()->getOperands())
    results.push_back(map.lookupOrDefault(yielded));
  return results;
}

/// Whether `buffer` is an allocation only the chain's stages use (and
/// deallocations): it disappears with the chain.
bool isChainInternal(Value buffer,
                     const llvm::DenseSet<Operation *> &stageOps) {
  if (!buffer.getDefiningOp<memref::AllocOp>())
    return false;
  return llvm::all_of(buffer.getUsers(), [&](Operation *user) {
    return stageOps.contains(user) || isa<memref::DeallocOp>(user);
  });
}

/// Emits the chain as one launch in front of its first stage and erases
/// its stages and internal per-row buffers. Returns the launch.
Operation *emitChain(Chain &chain, int64_t blockSize,
                     int64_t maxUnrolledStrides) {
  const RowSpace &space = chain.space;
  Operation *insertionPoint = chain.stages.front().op;
  for (Operation *op : chain.hoists)
    op->moveBefore(insertionPoint);

  llvm::DenseSet<Operation *> stageOps;
  for (const Stage &stage : chain.stages)
    stageOps.insert(stage.op);

  // Per-row buffers the chain writes, in order; those used after it are
  // stored by thread 0. The stores wait for the other threads (a barrier)
  // if the chain read such a buffer from memory before writing it.
  llvm::SetVector<Value> scalarsWritten, readFromMemory;
  for (const Stage &stage : chain.stages) {
    for (const Access &access : stage.accesses) {
      if (access.cls != AccessClass::Scalar)
        continue;
      if (access.read && !scalarsWritten.contains(access.value))
        readFromMemory.insert(access.value);
    }
    for (const Access &access : stage.accesses)
      if (access.write && access.cls == AccessClass::Scalar)
        scalarsWritten.insert(access.value);
  }
  SmallVector<Value> liveOut, internal;
  for (Value buffer : scalarsWritten)
    (isChainInternal(buffer, stageOps) ? internal : liveOut).push_back(buffer);
  bool needsBarrier = llvm::any_of(
      liveOut, [&](Value buffer) { return readFromMemory.contains(buffer); });

  OpBuilder b(insertionPoint);
  Location loc = insertionPoint->getLoc();
  ReductionPlan &basePlan = *llvm::find_if(chain.stages, [](const Stage &s) {
                               return s.kind == StageKind::Reduction;
                             })->plan;
  ReductionEmitter base(basePlan, b, loc);
  int64_t threads = threadsFor(space.rowLength, blockSize);
  base.launch(basePlan.rows, threads, [&](Value bid, Value tid) {
    SmallVector<Value> rowIndices = base.rowIndices(bid);
    llvm::DenseMap<Value, Value> registers;
    // Straight-line strides: each row element a thread loads or stores is
    // held in a register for the later stages (the row is read once).
    std::optional<SmallVector<Value>> strides = unrolledThreadElements(
        b, loc, tid, space.rowLength, threads, maxUnrolledStrides);
    HeldRowElements held;
    auto element = [&](linalg::GenericOp op, OpOperand &operand,
                       ArrayRef<Value> loopIndices, Value j = {}) -> Value {
      if (Value value = registers.lookup(operand.get()))
        return value;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      if (j)
        if (Value value = held.lookup(operand.get(), map, j))
          return value;
      Value value = memref::LoadOp::create(b, loc, operand.get(),
                                           base.apply(map, loopIndices));
      if (j)
        held.holdLoaded(operand.get(), map, j, value);
      return value;
    };
    for (Stage &stage : chain.stages) {
      switch (stage.kind) {
      case StageKind::Fill: {
        auto fill = cast<linalg::FillOp>(stage.op);
        registers[fill.getDpsInitOperand(0)->get()] =
            fill.getDpsInputOperand(0)->get();
        break;
      }
      case StageKind::Reduction: {
        ReductionEmitter emitter(*stage.plan, b, loc);
        emitter.setRowScalars(&registers);
        emitter.setMaxUnrolledStrides(maxUnrolledStrides);
        if (strides)
          emitter.setHeldElements(*strides, &held);
        SmallVector<Value> totals = emitter.reduceRow(rowIndices, tid, threads);
        linalg::GenericOp op = stage.plan->op;
        for (auto [out, init, total] : llvm::zip_equal(
                 stage.plan->outputs, op.getDpsInitsMutable(), totals)) {
          Value old = element(op, init, rowIndices);
          registers[init.get()] = emitter.combine(out, old, total);
        }
        break;
      }
      case StageKind::Scalar: {
        auto op = cast<linalg::GenericOp>(stage.op);
        SmallVector<Value> values =
            cloneBody(b, op, rowIndices, [&](OpOperand &operand) {
              return element(op, operand, rowIndices);
            });
        for (auto [init, value] : llvm::zip_equal(op.getDpsInits(), values))
          registers[init] = value;
        break;
      }
      case StageKind::Row: {
        auto op = cast<linalg::GenericOp>(stage.op);
        // `held`: whether j is one of the chain's straight-line elements.
        auto rowElement = [&](Value j, bool holds) {
          SmallVector<Value> indices(rowIndices);
          llvm::append_range(indices, base.delinearize(j, space.row));
          Value key = holds ? j : Value();
          SmallVector<Value> values =
              cloneBody(b, op, indices, [&](OpOperand &operand) {
                return element(op, operand, indices, key);
              });
          for (auto [init, value] :
               llvm::zip_equal(op.getDpsInitsMutable(), values)) {
            AffineMap map = op.getMatchingIndexingMap(&init);
            memref::StoreOp::create(b, loc, value, init.get(),
                                    base.apply(map, indices));
            if (holds)
              held.holdStored(init.get(), map, j, value);
          }
        };
        // A thread's few elements as straight-line code (their loads issue
        // together), else a loop over them.
        if (strides) {
          for (Value j : *strides)
            rowElement(j, /*holds=*/true);
          break;
        }
        auto loop = scf::ForOp::create(b, loc, tid, base.index(space.rowLength),
                                       base.index(threads));
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(loop.getBody()->getTerminator());
        rowElement(loop.getInductionVar(), /*holds=*/false);
        break;
      }
      }
    }
    if (liveOut.empty())
      return;
    if (needsBarrier)
      gpu::BarrierOp::create(b, loc);
    base.onThreadZero(tid, [&] {
      for (Value buffer : liveOut)
        memref::StoreOp::create(b, loc, registers.lookup(buffer), buffer,
                                rowIndices);
    });
  });

  Operation *launch = insertionPoint->getPrevNode();
  for (const Stage &stage : chain.stages)
    stage.op->erase();
  for (Value buffer : internal) {
    for (Operation *user : llvm::make_early_inc_range(buffer.getUsers()))
      user->erase();
    buffer.getDefiningOp()->erase();
  }
  return launch;
}

struct GPUFuseRowsPass
    : public amp::impl::GPUFuseRowsPassBase<GPUFuseRowsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (blockSize < 32 || maxUnrolledStrides < 0) {
      getOperation().emitError()
          << "amp-gpu-fuse-rows: block-size must be at least 32, "
             "max-unrolled-strides at least 0";
      return signalPassFailure();
    }
    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *block) {
      // Blocks of the host code: not kernels, not linalg bodies.
      for (Operation *parent = block->getParentOp(); parent != getOperation();
           parent = parent->getParentOp())
        if (isa<gpu::LaunchOp, linalg::LinalgOp>(parent))
          return;
      blocks.push_back(block);
    });
    for (Block *block : blocks) {
      for (Operation *op = &block->front(); op; op = op->getNextNode()) {
        auto generic = dyn_cast<linalg::GenericOp>(op);
        if (!generic)
          continue;
        std::optional<ReductionPlan> plan =
            analyzeReduction(generic, minRowLength);
        if (!plan || plan->numParallel == 0)
          continue;
        std::optional<Chain> chain = buildChain(generic, *plan, minRowLength);
        if (!chain)
          continue;
        // Scanning goes on after the launch.
        op = emitChain(*chain, blockSize, maxUnrolledStrides);
      }
    }
  }
};
} // namespace

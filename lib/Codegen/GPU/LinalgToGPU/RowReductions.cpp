//===- RowReductions.cpp - block reductions of linalg generics ------------===//
//
// The reduction matching and emission shared by amp-gpu-parallel-reductions
// and amp-gpu-fuse-rows (RowReductions.h).
//
//===----------------------------------------------------------------------===//

#include "RowReductions.h"

#include "LinalgToGPUUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <algorithm>

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace mlir::amp::gpu_lowering {

namespace {
/// The all_reduce kind of a combiner op on `type`, if gpu.all_reduce has it
/// and its NVVM lowering handles the type (32-bit values; i1 is widened).
std::optional<gpu::AllReduceOperation> combinerKind(Operation *op, Type type) {
  using K = gpu::AllReduceOperation;
  if (type.isF32()) {
    return llvm::TypeSwitch<Operation *, std::optional<K>>(op)
        .Case<arith::AddFOp>([](auto) { return K::ADD; })
        .Case<arith::MulFOp>([](auto) { return K::MUL; })
        .Case<arith::MaxNumFOp>([](auto) { return K::MAXNUMF; })
        .Case<arith::MinNumFOp>([](auto) { return K::MINNUMF; })
        .Case<arith::MaximumFOp>([](auto) { return K::MAXIMUMF; })
        .Case<arith::MinimumFOp>([](auto) { return K::MINIMUMF; })
        .Default([](Operation *) { return std::nullopt; });
  }
  if (type.isInteger(1)) {
    // On i1, addi is xor; andi/ori/xori are reduced on the widened values.
    return llvm::TypeSwitch<Operation *, std::optional<K>>(op)
        .Case<arith::AndIOp>([](auto) { return K::AND; })
        .Case<arith::OrIOp>([](auto) { return K::OR; })
        .Case<arith::XOrIOp, arith::AddIOp>([](auto) { return K::XOR; })
        .Default([](Operation *) { return std::nullopt; });
  }
  if (type.isInteger(32)) {
    return llvm::TypeSwitch<Operation *, std::optional<K>>(op)
        .Case<arith::AddIOp>([](auto) { return K::ADD; })
        .Case<arith::MulIOp>([](auto) { return K::MUL; })
        .Case<arith::MaxSIOp>([](auto) { return K::MAXSI; })
        .Case<arith::MinSIOp>([](auto) { return K::MINSI; })
        .Case<arith::MaxUIOp>([](auto) { return K::MAXUI; })
        .Case<arith::MinUIOp>([](auto) { return K::MINUI; })
        .Case<arith::AndIOp>([](auto) { return K::AND; })
        .Case<arith::OrIOp>([](auto) { return K::OR; })
        .Case<arith::XOrIOp>([](auto) { return K::XOR; })
        .Default([](Operation *) { return std::nullopt; });
  }
  return std::nullopt;
}

/// The identity of a combiner: what threads without elements contribute.
TypedAttr identityAttr(gpu::AllReduceOperation kind, Type type) {
  using K = gpu::AllReduceOperation;
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = floatType.getFloatSemantics();
    switch (kind) {
    case K::ADD: // -0 + x == x for every x, including -0.
      return FloatAttr::get(type, llvm::APFloat::getZero(sem, true));
    case K::MUL:
      return FloatAttr::get(type, 1.0);
    case K::MAXNUMF:
    case K::MAXIMUMF:
      return FloatAttr::get(type, llvm::APFloat::getInf(sem, true));
    default: // MINNUMF, MINIMUMF
      return FloatAttr::get(type, llvm::APFloat::getInf(sem, false));
    }
  }
  unsigned width = type.getIntOrFloatBitWidth();
  llvm::APInt value;
  switch (kind) {
  case K::MUL:
    value = llvm::APInt(width, 1);
    break;
  case K::MAXSI:
    value = llvm::APInt::getSignedMinValue(width);
    break;
  case K::MINSI:
    value = llvm::APInt::getSignedMaxValue(width);
    break;
  case K::MINUI:
  case K::AND:
    value = llvm::APInt::getAllOnes(width);
    break;
  default: // ADD, MAXUI, OR, XOR
    value = llvm::APInt::getZero(width);
  }
  return IntegerAttr::get(type, value);
}

} // namespace

bool isStaticMemRef(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.hasStaticShape();
}

bool isDimsAndConstants(AffineMap map) {
  return llvm::all_of(map.getResults(), [](AffineExpr expr) {
    return isa<AffineConstantExpr, AffineDimExpr>(expr);
  });
}

/// Loop dimensions and constants only; dimensions in increasing order (no
/// transposed read), so that reduced dimensions are the innermost ones.
bool isRowMajorAccess(AffineMap map) {
  int64_t last = -1;
  for (AffineExpr expr : map.getResults()) {
    if (isa<AffineConstantExpr>(expr))
      continue;
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim || static_cast<int64_t>(dim.getPosition()) <= last)
      return false;
    last = dim.getPosition();
  }
  return true;
}

std::optional<ReductionPlan> analyzeReduction(linalg::GenericOp op,
                                              int64_t minRowLength,
                                              bool requireRowMajor) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() == 0)
    return std::nullopt;
  for (Value operand : op->getOperands())
    if (!isStaticMemRef(operand))
      return std::nullopt;
  ReductionPlan plan;
  plan.op = op;
  plan.ranges = op.getStaticLoopRanges();
  auto iterators = op.getIteratorTypesArray();
  unsigned numLoops = iterators.size();
  while (plan.numParallel < numLoops &&
         iterators[plan.numParallel] == utils::IteratorType::parallel)
    ++plan.numParallel;
  if (plan.numParallel == numLoops)
    return std::nullopt;
  for (unsigned i = plan.numParallel; i < numLoops; ++i)
    if (iterators[i] != utils::IteratorType::reduction)
      return std::nullopt;
  for (auto [i, range] : llvm::enumerate(plan.ranges)) {
    if (ShapedType::isDynamic(range) || range <= 0)
      return std::nullopt;
    (i < plan.numParallel ? plan.rows : plan.rowLength) *= range;
  }
  if (plan.numParallel > 0 && plan.rowLength < minRowLength)
    return std::nullopt;

  // Outputs are indexed by exactly the parallel loops; inputs row-major and
  // distinct from the outputs.
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    if (!map.isProjectedPermutation() ||
        map.getNumResults() != plan.numParallel)
      return std::nullopt;
    for (AffineExpr expr : map.getResults())
      if (cast<AffineDimExpr>(expr).getPosition() >= plan.numParallel)
        return std::nullopt;
  }
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (requireRowMajor ? !isRowMajorAccess(map) : !isDimsAndConstants(map))
      return std::nullopt;
    if (llvm::is_contained(op.getDpsInits(), input->get()))
      return std::nullopt;
  }

  // Each yielded value is combiner(out, partial), the partial independent
  // of the outputs.
  Block *body = op.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  SmallVector<BlockArgument> outArgs(
      body->getArguments().take_back(op.getNumDpsInits()));
  llvm::SmallPtrSet<Operation *, 8> reductionOps;
  for (auto [i, outArg] : llvm::enumerate(outArgs)) {
    ReducedOutput out;
    out.outArg = outArg;
    out.type = outArg.getType();
    Value yielded = yield.getOperand(i);
    Operation *def = yielded.getDefiningOp();
    if (!def || def->getBlock() != body || !def->hasOneUse())
      return std::nullopt;
    // select(mask, combiner(out, x), out): a masked accumulation.
    if (auto select = dyn_cast<arith::SelectOp>(def)) {
      Operation *inner = select.getTrueValue().getDefiningOp();
      if (select.getFalseValue() != outArg || !inner ||
          inner->getBlock() != body || !inner->hasOneUse())
        return std::nullopt;
      out.select = select;
      def = inner;
    }
    if (def->getNumOperands() != 2 || def->getNumResults() != 1 ||
        !isMemoryEffectFree(def))
      return std::nullopt;
    Value lhs = def->getOperand(0), rhs = def->getOperand(1);
    if (lhs == outArg && rhs != outArg)
      out.partial = rhs;
    else if (rhs == outArg && lhs != outArg)
      out.partial = lhs;
    else
      return std::nullopt;
    // The out argument is used by the combiner (and the select) only.
    for (OpOperand &use : outArg.getUses())
      if (use.getOwner() != def && use.getOwner() != out.select)
        return std::nullopt;
    std::optional<gpu::AllReduceOperation> kind = combinerKind(def, out.type);
    if (!kind)
      return std::nullopt;
    out.kind = *kind;
    out.combiner = def;
    reductionOps.insert(def);
    if (out.select)
      reductionOps.insert(out.select);
    plan.outputs.push_back(out);
  }
  for (Operation &inner : body->without_terminator()) {
    if (reductionOps.contains(&inner))
      continue;
    if (inner.getNumRegions() != 0 || !isMemoryEffectFree(&inner))
      return std::nullopt;
    for (Value operand : inner.getOperands()) {
      if (llvm::is_contained(outArgs, operand))
        return std::nullopt;
      if (reductionOps.contains(operand.getDefiningOp()))
        return std::nullopt;
    }
    plan.elementOps.push_back(&inner);
  }
  // A mask must not depend on the combiner's result either.
  for (ReducedOutput &out : plan.outputs)
    if (out.select &&
        reductionOps.contains(
            cast<arith::SelectOp>(out.select).getCondition().getDefiningOp()))
      return std::nullopt;
  return plan;
}

/// Threads for a reduction of `n` elements: a power of two in [32, max].
int64_t threadsFor(int64_t n, int64_t maxThreads) {
  int64_t threads = 32;
  while (threads < n && threads < maxThreads)
    threads *= 2;
  return std::min(threads, std::max<int64_t>(maxThreads, 1));
}

std::optional<SmallVector<Value>>
unrolledThreadElements(OpBuilder &b, Location loc, Value tid, int64_t length,
                       int64_t threads, int64_t maxStrides) {
  if (threads <= 0 || length % threads != 0 || length / threads > maxStrides)
    return std::nullopt;
  SmallVector<Value> elements;
  for (int64_t k = 0; k < length / threads; ++k) {
    Value offset = arith::ConstantIndexOp::create(b, loc, k * threads);
    elements.push_back(arith::AddIOp::create(b, loc, tid, offset));
  }
  return elements;
}

Value ReductionEmitter::index(int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

SmallVector<Value> ReductionEmitter::delinearize(Value linear,
                                                 ArrayRef<int64_t> sizes) {
  SmallVector<Value> result(sizes.size());
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    if (i == 0) {
      result[i] = linear;
      break;
    }
    Value size = index(sizes[i]);
    result[i] = arith::RemUIOp::create(b, loc, linear, size);
    linear = arith::DivUIOp::create(b, loc, linear, size);
  }
  return result;
}

SmallVector<Value> ReductionEmitter::apply(AffineMap map,
                                           ArrayRef<Value> loopIndices) {
  SmallVector<Value> result;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      result.push_back(loopIndices[dim.getPosition()]);
    else
      result.push_back(index(cast<AffineConstantExpr>(expr).getValue()));
  }
  return result;
}

Value ReductionEmitter::combine(const ReducedOutput &out, Value acc,
                                Value partial) {
  IRMapping map;
  map.map(out.outArg, acc);
  map.map(out.partial, partial);
  return b.clone(*out.combiner, map)->getResult(0);
}

Value ReductionEmitter::identity(const ReducedOutput &out) {
  return arith::ConstantOp::create(b, loc, identityAttr(out.kind, out.type));
}

void HeldRowElements::holdStored(Value buffer, AffineMap map, Value j,
                                  Value value) {
  const void *stale = buffer.getAsOpaquePointer();
  for (auto it = values.begin(); it != values.end();)
    it = std::get<0>(it->first) == stale ? values.erase(it) : std::next(it);
  values[key(buffer, map, j)] = value;
}

SmallVector<Value> ReductionEmitter::partials(ArrayRef<Value> loopIndices,
                                              Value j) {
  linalg::GenericOp op = plan.op;
  Block *body = op.getBlock();
  IRMapping map;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value value = rowScalars ? rowScalars->lookup(input->get()) : Value();
    AffineMap inputMap = op.getMatchingIndexingMap(input);
    bool holdable = heldElements && j;
    if (!value && holdable)
      value = heldElements->lookup(input->get(), inputMap, j);
    if (!value) {
      SmallVector<Value> indices = apply(inputMap, loopIndices);
      value = memref::LoadOp::create(b, loc, input->get(), indices);
      if (holdable)
        heldElements->holdLoaded(input->get(), inputMap, j, value);
    }
    map.map(body->getArgument(input->getOperandNumber()), value);
  }
  for (Operation *inner : plan.elementOps) {
    if (auto indexOp = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(indexOp.getResult(), loopIndices[indexOp.getDim()]);
      continue;
    }
    b.clone(*inner, map);
  }
  SmallVector<Value> result;
  for (const ReducedOutput &out : plan.outputs) {
    Value partial = map.lookupOrDefault(out.partial);
    if (out.select) {
      Value mask =
          map.lookupOrDefault(cast<arith::SelectOp>(out.select).getCondition());
      partial = arith::SelectOp::create(b, loc, mask, partial, identity(out));
    }
    result.push_back(partial);
  }
  return result;
}

SmallVector<Value>
ReductionEmitter::accumulate(Value start, int64_t end, Value step,
                             function_ref<SmallVector<Value>(Value)> element,
                             ReductionEmitter *also) {
  // This plan's outputs, then those of `also`, each with its emitter.
  SmallVector<std::pair<ReductionEmitter *, const ReducedOutput *>> outs;
  for (ReductionEmitter *emitter : {this, also})
    if (emitter)
      for (const ReducedOutput &out : emitter->plan.outputs)
        outs.push_back({emitter, &out});
  SmallVector<Value> inits;
  for (auto [emitter, out] : outs)
    inits.push_back(emitter->identity(*out));
  auto loop = scf::ForOp::create(b, loc, start, index(end), step, inits);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> values = element(loop.getInductionVar());
  SmallVector<Value> next;
  for (auto [out, acc, value] :
       llvm::zip_equal(outs, loop.getRegionIterArgs(), values))
    next.push_back(out.first->combine(*out.second, acc, value));
  scf::YieldOp::create(b, loc, next);
  return loop.getResults();
}

void ReductionEmitter::storeColumnPartials(const FusedColumnSum &columnSum,
                                           Value thread, ValueRange sums) {
  ArrayRef<int64_t> columnRanges =
      ArrayRef(plan.ranges).take_back(columnSum.numColumnLoops);
  int64_t columns = 1;
  for (int64_t range : columnRanges)
    columns *= range;
  // The thread's column (the same at every element it reads) and range.
  SmallVector<Value> indices = delinearize(
      arith::RemUIOp::create(b, loc, thread, index(columns)), columnRanges);
  indices.push_back(arith::DivUIOp::create(b, loc, thread, index(columns)));
  for (auto [buffer, sum] : llvm::zip_equal(columnSum.partials, sums))
    memref::StoreOp::create(b, loc, sum, buffer, indices);
}

SmallVector<Value> ReductionEmitter::accumulateOverThreads(
    Value tid, int64_t length, int64_t threads,
    function_ref<SmallVector<Value>(Value)> element) {
  std::optional<SmallVector<Value>> unrolled =
      threadElements.empty()
          ? unrolledThreadElements(b, loc, tid, length, threads,
                                   maxUnrolledStrides)
          : SmallVector<Value>(threadElements);
  if (!unrolled)
    return accumulate(tid, length, index(threads), element);
  SmallVector<Value> accs;
  for (const ReducedOutput &out : plan.outputs)
    accs.push_back(identity(out));
  for (Value j : *unrolled) {
    SmallVector<Value> values = element(j);
    for (auto [out, acc, value] : llvm::zip_equal(plan.outputs, accs, values))
      acc = combine(out, acc, value);
  }
  return accs;
}

SmallVector<Value> ReductionEmitter::blockReduce(ValueRange accs) {
  SmallVector<Value> result;
  for (auto [out, acc] : llvm::zip_equal(plan.outputs, accs)) {
    Value value = acc;
    if (out.type.isInteger(1))
      value = arith::ExtUIOp::create(b, loc, b.getI32Type(), value);
    Value reduced = gpu::AllReduceOp::create(
        b, loc, value,
        gpu::AllReduceOperationAttr::get(b.getContext(), out.kind),
        /*uniform=*/true);
    if (out.type.isInteger(1))
      reduced = arith::TruncIOp::create(b, loc, b.getI1Type(), reduced);
    result.push_back(reduced);
  }
  return result;
}

void ReductionEmitter::onThreadZero(Value tid, function_ref<void()> fn) {
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, index(0));
  auto ifOp = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  fn();
}

void ReductionEmitter::storeResults(ArrayRef<Value> parallelIndices,
                                    ValueRange totals) {
  linalg::GenericOp op = plan.op;
  for (auto [i, out, init, total] : llvm::enumerate(
           plan.outputs, op.getDpsInitsMutable(), totals)) {
    SmallVector<Value> indices =
        apply(op.getMatchingIndexingMap(&init), parallelIndices);
    Value old = i < initialValues.size() && initialValues[i]
                    ? initialValues[i]
                    : memref::LoadOp::create(b, loc, init.get(), indices);
    memref::StoreOp::create(b, loc, combine(out, old, total), init.get(),
                            indices);
  }
}

void ReductionEmitter::launch(int64_t grid, int64_t threads,
                              function_ref<void(Value, Value)> fn) {
  Value one = index(1);
  auto launchOp = gpu::LaunchOp::create(b, loc, index(grid), one, one,
                                        index(threads), one, one);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(&launchOp.getBody().front());
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPoint(launchOp.getBody().front().getTerminator());
  fn(launchOp.getBlockIds().x, launchOp.getThreadIds().x);
}

SmallVector<Value> ReductionEmitter::rowIndices(Value bid) {
  return plan.numParallel ? delinearize(bid, parallelRanges())
                          : SmallVector<Value>();
}

SmallVector<Value> ReductionEmitter::reduceRow(ArrayRef<Value> parallelIndices,
                                               Value tid, int64_t threads) {
  SmallVector<Value> accs =
      accumulateOverThreads(tid, plan.rowLength, threads, [&](Value j) {
        SmallVector<Value> indices(parallelIndices);
        llvm::append_range(indices, delinearize(j, reductionRanges()));
        return partials(indices, j);
      });
  return blockReduce(accs);
}

void ReductionEmitter::emitRows(int64_t maxThreads) {
  int64_t threads = threadsFor(plan.rowLength, maxThreads);
  launch(plan.rows, threads, [&](Value bid, Value tid) {
    SmallVector<Value> parallelIndices = rowIndices(bid);
    SmallVector<Value> totals = reduceRow(parallelIndices, tid, threads);
    onThreadZero(tid, [&] { storeResults(parallelIndices, totals); });
  });
}

SmallVector<Value>
ReductionEmitter::emitElementwise(linalg::GenericOp op,
                                  ArrayRef<Value> loopIndices) {
  Block *body = op.getBlock();
  IRMapping map;
  for (OpOperand *input : op.getDpsInputOperands()) {
    SmallVector<Value> indices =
        apply(op.getMatchingIndexingMap(input), loopIndices);
    map.map(body->getArgument(input->getOperandNumber()),
            memref::LoadOp::create(b, loc, input->get(), indices));
  }
  for (Operation &inner : body->without_terminator()) {
    if (auto indexOp = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(indexOp.getResult(), loopIndices[indexOp.getDim()]);
      continue;
    }
    b.clone(inner, map);
  }
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  SmallVector<Value> stored;
  for (auto [init, value] :
       llvm::zip_equal(op.getDpsInitsMutable(), yield.getValues())) {
    stored.push_back(map.lookupOrDefault(value));
    memref::StoreOp::create(
        b, loc, stored.back(), init.get(),
        apply(op.getMatchingIndexingMap(&init), loopIndices));
  }
  return stored;
}

void ReductionEmitter::emitFull(int64_t blocks, int64_t threads,
                                linalg::GenericOp companion,
                                const FusedColumnSum *columnSum) {
  SmallVector<Value> buffers;
  for (const ReducedOutput &out : plan.outputs)
    buffers.push_back(
        memref::AllocOp::create(b, loc, MemRefType::get({blocks}, out.type)));
  launch(blocks, threads, [&](Value bid, Value tid) {
    Value start = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, bid, index(threads)), tid);
    std::optional<ReductionEmitter> columns;
    if (columnSum)
      columns.emplace(*columnSum->plan, b, loc);
    SmallVector<Value> columnValues;
    SmallVector<Value> accs = accumulate(
        start, plan.rowLength, index(blocks * threads), [&](Value j) {
          SmallVector<Value> indices = delinearize(j, reductionRanges());
          SmallVector<Value> values = partials(indices);
          // After the reduction's loads, so that LLVM can reuse them (the
          // companion's stores would keep it from).
          SmallVector<Value> stored;
          if (companion)
            stored = emitElementwise(companion, indices);
          if (columns) {
            // The column sum reads the companion's outputs at this element
            // (findColumnSum): it takes the values, not memory, so that
            // nothing else need read them.
            llvm::DenseMap<Value, Value> computed;
            for (auto [out, value] :
                 llvm::zip_equal(companion.getDpsInits(), stored))
              computed[out] = value;
            columns->setRowScalars(&computed);
            SmallVector<Value> columnIndices;
            for (unsigned loop : columnSum->loops)
              columnIndices.push_back(indices[loop]);
            llvm::append_range(values, columns->partials(columnIndices));
          }
          return values;
        },
        columns ? &*columns : nullptr);
    if (columns) {
      storeColumnPartials(*columnSum, start,
                          ArrayRef(accs).drop_front(plan.outputs.size()));
      accs.truncate(plan.outputs.size());
    }
    SmallVector<Value> totals = blockReduce(accs);
    onThreadZero(tid, [&] {
      for (auto [buffer, total] : llvm::zip_equal(buffers, totals))
        memref::StoreOp::create(b, loc, total, buffer, ValueRange{bid});
    });
  });
  int64_t finalThreads = threadsFor(blocks, threads);
  launch(1, finalThreads, [&](Value, Value tid) {
    SmallVector<Value> accs =
        accumulate(tid, blocks, index(finalThreads), [&](Value j) {
          SmallVector<Value> values;
          for (Value buffer : buffers)
            values.push_back(
                memref::LoadOp::create(b, loc, buffer, ValueRange{j}));
          return values;
        });
    SmallVector<Value> totals = blockReduce(accs);
    onThreadZero(tid, [&] { storeResults({}, totals); });
  });
  for (Value buffer : buffers)
    memref::DeallocOp::create(b, loc, buffer);
}

bool isBatchableFull(const ReductionPlan &plan, const ReductionPlan *other) {
  if (plan.numParallel != 0 || plan.outputs.size() != 1)
    return false;
  if (!other)
    return true;
  const ReducedOutput &out = plan.outputs.front();
  const ReducedOutput &otherOut = other->outputs.front();
  return isBatchableFull(*other) && out.kind == otherOut.kind &&
         out.type == otherOut.type;
}

namespace {
/// scf.index_switch on `selector` over the cases [0, n): case i yields
/// `caseFn(i)`, the default (never taken) `defaults`.
SmallVector<Value>
indexSwitch(OpBuilder &b, Location loc, Value selector, unsigned n,
            ValueRange defaults,
            function_ref<SmallVector<Value>(unsigned)> caseFn) {
  auto switchOp =
      scf::IndexSwitchOp::create(b, loc, defaults.getTypes(), selector,
                                 llvm::to_vector(llvm::seq<int64_t>(0, n)), n);
  OpBuilder::InsertionGuard guard(b);
  for (unsigned i = 0; i < n; ++i) {
    b.setInsertionPointToStart(&switchOp.getCaseRegions()[i].emplaceBlock());
    scf::YieldOp::create(b, loc, caseFn(i));
  }
  b.setInsertionPointToStart(&switchOp.getDefaultRegion().emplaceBlock());
  scf::YieldOp::create(b, loc, defaults);
  return SmallVector<Value>(switchOp.getResults());
}
} // namespace

void emitBatchedFull(MutableArrayRef<ReductionPlan> plans, OpBuilder &b,
                     Location loc, int64_t threads, int64_t perBlock,
                     int64_t maxBlocks) {
  unsigned n = plans.size();
  SmallVector<ReductionEmitter> emitters;
  for (ReductionPlan &plan : plans)
    emitters.emplace_back(plan, b, loc);
  ReductionEmitter &first = emitters.front();
  const ReducedOutput &out = plans.front().outputs.front();
  // Blocks per input, the first block of each input, the longest input.
  SmallVector<int64_t> blocks, starts;
  int64_t grid = 0, total = 0, longest = 0, widest = 1;
  for (ReductionPlan &plan : plans) {
    int64_t count = std::clamp<int64_t>(
        llvm::divideCeil(plan.rowLength, perBlock), 1, maxBlocks);
    starts.push_back(grid);
    blocks.push_back(count);
    grid += count;
    total += plan.rowLength;
    longest = std::max(longest, plan.rowLength);
    widest = std::max(widest, count);
  }
  auto elements = [&](unsigned i) {
    return [&, i](Value j) {
      return emitters[i].partials(emitters[i].delinearize(j, plans[i].ranges));
    };
  };

  // One block: for every input i, in order, the threads accumulate
  // `accumulateInput(i)`, one gpu.all_reduce combines them (uniform: every
  // thread runs every iteration) and thread 0 combines the total with the
  // output of input i. The barrier after the all_reduce keeps a fast warp
  // from overwriting the all_reduce's workgroup buffer (reused by the next
  // iteration) before every thread has read this iteration's result.
  auto perInput = [&](Value tid, function_ref<Value(unsigned)> accumulate) {
    auto loop = scf::ForOp::create(b, loc, first.index(0), first.index(n),
                                   first.index(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value i = loop.getInductionVar();
    Value acc =
        indexSwitch(b, loc, i, n, {first.identity(out)}, [&](unsigned k) {
          return SmallVector<Value>{accumulate(k)};
        }).front();
    Value reduced = first.blockReduce(acc).front();
    gpu::BarrierOp::create(b, loc);
    first.onThreadZero(tid, [&] {
      indexSwitch(b, loc, i, n, {}, [&](unsigned k) {
        emitters[k].storeResults({}, reduced);
        return SmallVector<Value>();
      });
    });
  };

  if (total <= perBlock) {
    int64_t blockThreads = threadsFor(longest, threads);
    first.launch(1, blockThreads, [&](Value, Value tid) {
      perInput(tid, [&](unsigned k) {
        return emitters[k]
            .accumulate(tid, plans[k].rowLength, first.index(blockThreads),
                        elements(k))
            .front();
      });
    });
    return;
  }

  Value buffer = memref::AllocOp::create(
      b, loc, MemRefType::get({static_cast<int64_t>(n), widest}, out.type));
  first.launch(grid, threads, [&](Value bid, Value tid) {
    // The input of this block: how many later inputs start at or before it.
    Value one = first.index(1), zero = first.index(0);
    Value input = zero;
    for (unsigned k = 1; k < n; ++k) {
      Value past = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, bid,
                                         first.index(starts[k]));
      input = arith::AddIOp::create(
          b, loc, input, arith::SelectOp::create(b, loc, past, one, zero));
    }
    SmallVector<Value> accAndBlock = indexSwitch(
        b, loc, input, n, {first.identity(out), zero}, [&](unsigned k) {
          Value local =
              arith::SubIOp::create(b, loc, bid, first.index(starts[k]));
          Value start = arith::AddIOp::create(
              b, loc,
              arith::MulIOp::create(b, loc, local, first.index(threads)), tid);
          Value acc =
              emitters[k]
                  .accumulate(start, plans[k].rowLength,
                              first.index(blocks[k] * threads), elements(k))
                  .front();
          return SmallVector<Value>{acc, local};
        });
    Value reduced = first.blockReduce(accAndBlock[0]).front();
    first.onThreadZero(tid, [&] {
      memref::StoreOp::create(b, loc, reduced, buffer,
                              ValueRange{input, accAndBlock[1]});
    });
  });
  int64_t finalThreads = threadsFor(widest, threads);
  first.launch(1, finalThreads, [&](Value, Value tid) {
    perInput(tid, [&](unsigned k) {
      Value row = first.index(k);
      return emitters[k]
          .accumulate(tid, blocks[k], first.index(finalThreads),
                      [&](Value j) {
                        return SmallVector<Value>{memref::LoadOp::create(
                            b, loc, buffer, ValueRange{row, j})};
                      })
          .front();
    });
  });
  memref::DeallocOp::create(b, loc, buffer);
}

SmallVector<unsigned> parallelFirstOrder(linalg::GenericOp generic) {
  SmallVector<unsigned> parallel, reduction;
  for (auto [i, type] : llvm::enumerate(generic.getIteratorTypesArray()))
    (type == utils::IteratorType::parallel ? parallel : reduction).push_back(i);
  parallel.append(reduction);
  return parallel;
}

linalg::GenericOp interchangeParallelFirst(RewriterBase &rewriter,
                                           linalg::GenericOp generic) {
  SmallVector<unsigned> order = parallelFirstOrder(generic);
  if (llvm::is_sorted(order))
    return generic;
  rewriter.setInsertionPoint(generic);
  FailureOr<linalg::GenericOp> interchanged =
      linalg::interchangeGenericOp(rewriter, generic, order);
  return succeeded(interchanged) ? *interchanged : generic;
}

void sumPartialsInto(linalg::GenericOp sum, ArrayRef<Value> partials,
                     int64_t maxThreads) {
  SmallVector<Value> outs(sum.getDpsInits());
  SmallVector<Value> initialValues;
  for (Value out : outs)
    initialValues.push_back(takeFillConstant(out, sum));
  OpBuilder b(sum);
  Location loc = sum.getLoc();
  auto partialType = cast<MemRefType>(partials.front().getType());
  unsigned rank = partialType.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps(partials.size(),
                              AffineMap::getMultiDimIdentityMap(rank, ctx));
  maps.append(outs.size(),
              AffineMap::getMultiDimIdentityMap(rank, ctx).dropResult(rank - 1));
  SmallVector<utils::IteratorType> iterators(rank - 1,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  auto stage2 = linalg::GenericOp::create(
      b, loc, TypeRange{}, partials, outs, maps, iterators,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        SmallVector<Value> sums;
        for (unsigned i = 0, e = outs.size(); i < e; ++i)
          sums.push_back(arith::AddFOp::create(
              b, loc, args[partials.size() + i], args[i]));
        linalg::YieldOp::create(b, loc, sums);
      });
  std::optional<ReductionPlan> plan =
      analyzeReduction(stage2, /*minRowLength=*/1);
  assert(plan && "a sum of partials is a row reduction");
  OpBuilder before(stage2);
  ReductionEmitter emitter(*plan, before, loc);
  emitter.setInitialValues(initialValues);
  emitter.emitRows(maxThreads);
  stage2->erase();
}

} // namespace mlir::amp::gpu_lowering

//===- PrepareLinalg.cpp - bufferized linalg ready for the loop mapping ---===//
//
// The amp-gpu-prepare-linalg pass:
// - memref.copy into or out of a strided view (the padding of a
//   convolution's input, a slice) becomes linalg.copy, so that a kernel
//   does it; copies between dense buffers stay and become gpu.memcpy;
// - a linalg.generic whose reduction loops come before parallel ones (a sum
//   over the rows, e.g. a bias gradient) is interchanged to put the
//   parallel loops outermost: they become threads, and each thread runs the
//   reduction sequentially, instead of a host loop of launches;
// - a long sum over the rows with few columns (a bias or LayerNorm weight
//   gradient over 16384 tokens: 2048 threads cannot keep the memory busy,
//   docs/CostModel.md) is first split: partial sums of row ranges into a
//   temporary [ranges, columns] buffer, then a sum of the partials;
// - column sums over the same loops reading the same buffer (LayerNorm's
//   weight and bias gradients, both summing the output gradient) are first
//   merged into one generic, so that the gradient is read once.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"

#include "LinalgToGPUUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::amp {
#define GEN_PASS_DEF_GPUPREPARELINALGPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using mlir::amp::gpu_lowering::isDenseMemRef;

namespace {
/// Column reductions are split when they have fewer output elements than
/// this (threads of the one-thread-per-output kernel) ...
constexpr int64_t kSplitBelowOutputs = 65536;
/// ... and at least this many rows; the partials' kernel gets about
/// kSplitThreads threads and at least kMinRowsPerThread rows per thread.
constexpr int64_t kSplitMinRows = 4096;
constexpr int64_t kSplitThreads = 131072;
constexpr int64_t kMinRowsPerThread = 64;

/// Whether every output of `generic` (one at least) is an f32 sum
/// `out + f(ins)` over its reduction loops.
bool isColumnSum(linalg::GenericOp generic) {
  if (generic.getNumDpsInits() == 0 || generic.getNumReductionLoops() == 0 ||
      !generic.hasPureBufferSemantics())
    return false;
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  return llvm::all_of(generic.getDpsInitsMutable(), [&](OpOperand &init) {
    BlockArgument out = generic.getMatchingBlockArgument(&init);
    auto add = yield.getValues()[init.getOperandNumber() -
                                 generic.getNumDpsInputs()]
                   .getDefiningOp<arith::AddFOp>();
    return add && out.getType().isF32() && out.hasOneUse() &&
           (add.getLhs() == out || add.getRhs() == out);
  });
}

/// Whether the column sums `first` and `second` (later in the same block)
/// can be one generic: the same loops, every output indexed alike, neither
/// reading the other's outputs, and between them only allocations, ops
/// without memory effects and fills of `second`'s outputs (LayerNorm's
/// weight and bias gradients, both summing the output gradient).
bool canMergeSums(linalg::GenericOp first, linalg::GenericOp second) {
  if (first->getBlock() != second->getBlock() || !isColumnSum(first) ||
      !isColumnSum(second) ||
      first.getStaticLoopRanges() != second.getStaticLoopRanges() ||
      first.getIteratorTypesArray() != second.getIteratorTypesArray() ||
      llvm::none_of(first.getDpsInputs(), [&](Value in) {
        return llvm::is_contained(second.getDpsInputs(), in);
      }))
    return false;
  AffineMap outMap = first.getIndexingMapsArray().back();
  for (linalg::GenericOp op : {first, second})
    for (OpOperand &init : op.getDpsInitsMutable())
      if (op.getMatchingIndexingMap(&init) != outMap)
        return false;
  for (auto [a, b] : {std::pair(first, second), std::pair(second, first)})
    for (Value out : a.getDpsInits())
      if (llvm::is_contained(b->getOperands(), out))
        return false;
  for (Operation *op = first->getNextNode(); op != second;
       op = op->getNextNode()) {
    auto fill = dyn_cast<linalg::FillOp>(op);
    if (!isa<memref::AllocOp>(op) && !isMemoryEffectFree(op) &&
        !(fill && llvm::is_contained(second.getDpsInits(),
                                     fill.getOutputs().front())))
      return false;
  }
  return true;
}

/// One generic computing the sums of `first` and `second` at `second`:
/// inputs read by both (same buffer, same map) are passed once.
linalg::GenericOp mergeSums(IRRewriter &rewriter, linalg::GenericOp first,
                            linalg::GenericOp second) {
  SmallVector<Value> inputs, outputs;
  SmallVector<AffineMap> maps, outMaps;
  // Per op, the merged input of each of its inputs.
  SmallVector<SmallVector<unsigned>> positions(2);
  for (auto [op, position] : llvm::zip(std::array{first, second}, positions)) {
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      unsigned i = 0;
      while (i < inputs.size() && !(inputs[i] == input->get() && maps[i] == map))
        ++i;
      if (i == inputs.size()) {
        inputs.push_back(input->get());
        maps.push_back(map);
      }
      position.push_back(i);
    }
    for (OpOperand &init : op.getDpsInitsMutable()) {
      outputs.push_back(init.get());
      outMaps.push_back(op.getMatchingIndexingMap(&init));
    }
  }
  llvm::append_range(maps, outMaps);
  rewriter.setInsertionPoint(second);
  auto merged = linalg::GenericOp::create(
      rewriter, second.getLoc(), TypeRange{}, inputs, outputs, maps,
      first.getIteratorTypesArray(),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        SmallVector<Value> yielded;
        unsigned nextOut = inputs.size();
        for (auto [op, position] :
             llvm::zip(std::array{first, second}, positions)) {
          Block *body = op.getBody();
          IRMapping map;
          for (auto [i, p] : llvm::enumerate(position))
            map.map(body->getArgument(i), args[p]);
          for (unsigned i = op.getNumDpsInputs(); i < body->getNumArguments();
               ++i)
            map.map(body->getArgument(i), args[nextOut++]);
          for (Operation &inner : body->without_terminator())
            b.clone(inner, map);
          for (Value v : body->getTerminator()->getOperands())
            yielded.push_back(map.lookupOrDefault(v));
        }
        linalg::YieldOp::create(b, loc, yielded);
      });
  rewriter.eraseOp(first);
  rewriter.eraseOp(second);
  return merged;
}

/// Column sums that read the same rows are merged pairwise in program order.
void mergeColumnSums(IRRewriter &rewriter,
                     SmallVectorImpl<linalg::GenericOp> &generics) {
  SmallVector<linalg::GenericOp> result;
  for (linalg::GenericOp generic : generics) {
    if (!result.empty() && canMergeSums(result.back(), generic)) {
      result.back() = mergeSums(rewriter, result.back(), generic);
      continue;
    }
    result.push_back(generic);
  }
  generics.assign(result.begin(), result.end());
}

/// How many ranges to split the loop of `loopRows` of a sum of `rows` in
/// all (several reduction loops: batch and sequence) into `outputs`
/// elements: a power of two dividing `loopRows`, 1 for no split.
int64_t splitCount(int64_t loopRows, int64_t rows, int64_t outputs) {
  if (outputs >= kSplitBelowOutputs || rows < kSplitMinRows)
    return 1;
  int64_t ranges = 1;
  while (2 * ranges * outputs <= kSplitThreads &&
         loopRows % (2 * ranges) == 0 &&
         rows / (2 * ranges) >= kMinRowsPerThread)
    ranges *= 2;
  return ranges;
}

/// The constant the fresh buffer `out` was filled with, if that fill is its
/// only use before `reader` (the fill then goes: `reader` starts from the
/// constant instead), else null.
Value takeFillConstant(Value out, Operation *reader) {
  if (!out.getDefiningOp<memref::AllocOp>())
    return nullptr;
  linalg::FillOp fill;
  for (Operation *user : out.getUsers()) {
    if (user == reader || user->getBlock() != reader->getBlock() ||
        reader->isBeforeInBlock(user))
      continue;
    auto userFill = dyn_cast<linalg::FillOp>(user);
    if (!userFill || fill)
      return nullptr;
    fill = userFill;
  }
  if (!fill)
    return nullptr;
  Value constant = fill.getInputs().front();
  fill->erase();
  return constant;
}

/// Stage 2 of a split column sum at `generic`: a parallel loop over the
/// outputs, each summing its partials in a register from the output's
/// initial value (the constant of its zero fill, which goes, and one
/// launch with it; or its loaded value), in the order of the rows.
void sumPartials(IRRewriter &rewriter, Location loc, ArrayRef<Value> partials,
                 linalg::GenericOp generic) {
  SmallVector<Value> outs(generic.getDpsInits());
  SmallVector<Value> fillConstants;
  for (Value out : outs)
    fillConstants.push_back(takeFillConstant(out, generic));
  auto outType = cast<MemRefType>(outs.front().getType());
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t size : outType.getShape()) {
    lbs.push_back(index(0));
    ubs.push_back(index(size));
    steps.push_back(index(1));
  }
  Value split = index(cast<MemRefType>(partials.front().getType()).getDimSize(0));
  Value zero = index(0), one = index(1);
  scf::ParallelOp::create(
      rewriter, loc, lbs, ubs, steps,
      [&](OpBuilder &b, Location loc, ValueRange ivs) {
        SmallVector<Value> inits;
        for (auto [out, constant] : llvm::zip(outs, fillConstants))
          inits.push_back(constant ? constant
                                   : memref::LoadOp::create(b, loc, out, ivs));
        auto sum = scf::ForOp::create(
            b, loc, zero, split, one, inits,
            [&](OpBuilder &b, Location loc, Value s, ValueRange accs) {
              SmallVector<Value> indices{s};
              llvm::append_range(indices, ivs);
              SmallVector<Value> next;
              for (auto [buffer, acc] : llvm::zip(partials, accs))
                next.push_back(arith::AddFOp::create(
                    b, loc, acc,
                    memref::LoadOp::create(b, loc, buffer, indices)));
              scf::YieldOp::create(b, loc, next);
            });
        for (auto [out, total] : llvm::zip(outs, sum.getResults()))
          memref::StoreOp::create(b, loc, total, out, ivs);
      });
}

/// Splits a long column sum: `partials[s, out...] = sum over the rows of
/// range s`, then `out += sum over s of partials[s, out...]`; one partials
/// buffer per output when the generic computes several sums.
void splitColumnSum(IRRewriter &rewriter, linalg::GenericOp generic) {
  if (!isColumnSum(generic))
    return;
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return;
  // The longest reduction loop is split.
  SmallVector<unsigned> reductions;
  generic.getReductionDims(reductions);
  unsigned r = *llvm::max_element(reductions, [&](unsigned a, unsigned b) {
    return ranges[a] < ranges[b];
  });
  int64_t rows = 1;
  for (unsigned d : reductions)
    rows *= ranges[d];
  OpOperand *init = generic.getDpsInitOperand(0);
  auto outType = cast<MemRefType>(init->get().getType());
  if (!outType.hasStaticShape() || !outType.getLayout().isIdentity() ||
      llvm::any_of(generic.getDpsInits(),
                   [&](Value out) { return out.getType() != outType; }))
    return;
  int64_t split = splitCount(ranges[r], rows, outType.getNumElements());
  if (split == 1)
    return;
  int64_t rowsPerRange = ranges[r] / split;
  MLIRContext *ctx = generic.getContext();
  // Per input: the position of the row index and the expanded view's type
  // (none for inputs that do not use the rows).
  SmallVector<std::optional<std::pair<int64_t, MemRefType>>> expandedInputs;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    auto type = dyn_cast<MemRefType>(input->get().getType());
    std::optional<int64_t> position;
    for (auto [i, e] : llvm::enumerate(map.getResults())) {
      if (!e.isFunctionOfDim(r))
        continue;
      if (position || e != getAffineDimExpr(r, ctx) || !type)
        return; // rows indexed twice or not by a plain index
      position = i;
    }
    if (!position) {
      expandedInputs.push_back(std::nullopt);
      continue;
    }
    SmallVector<int64_t> shape(type.getShape());
    shape[*position] = rowsPerRange;
    shape.insert(shape.begin() + *position, split);
    SmallVector<ReassociationIndices> groups;
    for (int64_t i = 0, e = type.getRank(); i < e; ++i)
      groups.push_back(i == *position
                           ? ReassociationIndices{i, i + 1}
                           : ReassociationIndices{i + (i > *position)});
    FailureOr<MemRefType> expanded =
        memref::ExpandShapeOp::computeExpandedType(type, shape, groups);
    if (failed(expanded))
      return;
    expandedInputs.push_back(std::make_pair(*position, *expanded));
  }
  Location loc = generic.getLoc();
  rewriter.setInsertionPoint(generic);

  // partials: [split, out...] f32, zero, one per output.
  SmallVector<int64_t> partialShape{split};
  llvm::append_range(partialShape, outType.getShape());
  auto partialType = MemRefType::get(partialShape, rewriter.getF32Type());
  Value zero =
      arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0.0));
  SmallVector<Value> partials;
  for (unsigned i = 0, e = generic.getNumDpsInits(); i < e; ++i) {
    partials.push_back(memref::AllocOp::create(rewriter, loc, partialType));
    linalg::FillOp::create(rewriter, loc, zero, partials.back());
  }

  // Stage 1: loops (s, original loops) with the row loop r' of
  // rowsPerRange; each input indexed by the rows is viewed with its row
  // dimension expanded to [split, rowsPerRange] (s, r').
  unsigned numLoops = generic.getNumLoops();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (auto [input, expanded] :
       llvm::zip(generic.getDpsInputOperands(), expandedInputs)) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    SmallVector<AffineExpr> results;
    for (auto [i, e] : llvm::enumerate(map.getResults())) {
      if (expanded && int64_t(i) == expanded->first)
        results.push_back(getAffineDimExpr(0, ctx));
      results.push_back(e.shiftDims(numLoops, 1));
    }
    maps.push_back(AffineMap::get(numLoops + 1, 0, results, ctx));
    if (!expanded) {
      inputs.push_back(input->get());
      continue;
    }
    SmallVector<ReassociationIndices> groups;
    for (int64_t i = 0, e = map.getNumResults(); i < e; ++i)
      groups.push_back(i == expanded->first
                           ? ReassociationIndices{i, i + 1}
                           : ReassociationIndices{i + (i > expanded->first)});
    inputs.push_back(memref::ExpandShapeOp::create(
        rewriter, loc, expanded->second, input->get(), groups));
  }
  AffineMap outMap = generic.getMatchingIndexingMap(init);
  SmallVector<AffineExpr> partialResults{getAffineDimExpr(0, ctx)};
  for (AffineExpr e : outMap.getResults())
    partialResults.push_back(e.shiftDims(numLoops, 1));
  maps.append(partials.size(),
              AffineMap::get(numLoops + 1, 0, partialResults, ctx));
  SmallVector<utils::IteratorType> iterators{utils::IteratorType::parallel};
  llvm::append_range(iterators, generic.getIteratorTypesArray());
  auto stage1 = linalg::GenericOp::create(rewriter, loc, TypeRange{}, inputs,
                                          partials, maps, iterators);
  rewriter.inlineRegionBefore(generic.getRegion(), stage1.getRegion(),
                              stage1.getRegion().begin());

  // Stage 2: out = out + sum over s of partials[s, out...].
  sumPartials(rewriter, loc, partials, generic);
  for (Value buffer : partials)
    memref::DeallocOp::create(rewriter, loc, buffer);
  rewriter.eraseOp(generic);
}

struct GPUPrepareLinalgPass
    : amp::impl::GPUPrepareLinalgPassBase<GPUPrepareLinalgPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](Operation *op) {
      if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        if (!isDenseMemRef(copy.getSource()) ||
            !isDenseMemRef(copy.getTarget()))
          copies.push_back(copy);
      } else if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
        generics.push_back(generic);
      }
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy->erase();
    }
    IRRewriter rewriter(&getContext());
    mergeColumnSums(rewriter, generics);
    for (linalg::GenericOp generic : generics)
      splitColumnSum(rewriter, generic);
    generics.clear();
    getOperation().walk(
        [&](linalg::GenericOp generic) { generics.push_back(generic); });
    for (linalg::GenericOp generic : generics) {
      SmallVector<unsigned> parallel, reduction;
      for (auto [i, type] : llvm::enumerate(generic.getIteratorTypesArray()))
        (type == utils::IteratorType::parallel ? parallel : reduction)
            .push_back(i);
      if (parallel.empty() || reduction.empty() ||
          reduction.front() > parallel.back())
        continue;
      SmallVector<unsigned> order(parallel);
      order.append(reduction);
      rewriter.setInsertionPoint(generic);
      (void)linalg::interchangeGenericOp(rewriter, generic, order);
    }
  }
};
} // namespace

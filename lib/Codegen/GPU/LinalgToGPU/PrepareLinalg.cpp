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
//   temporary [columns, ranges] buffer (loops, one thread per range and
//   column), then a row reduction of the partials (a launch, a block per
//   column; RowReductions.h);
// - column sums over the same loops reading the same buffer (LayerNorm's
//   weight and bias gradients, both summing the output gradient) are first
//   merged into one generic, so that the gradient is read once;
// - a transposed copy of a dense 2-D buffer becomes a launch of tiles
//   through workgroup memory (TiledTransposes.cpp), so that both its reads
//   and its writes are coalesced.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/GPU/Passes.h"

#include "LinalgToGPUUtils.h"
#include "RowReductions.h"

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
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using mlir::amp::gpu_lowering::analyzeReduction;
using mlir::amp::gpu_lowering::interchangeParallelFirst;
using mlir::amp::gpu_lowering::isDenseMemRef;
using mlir::amp::gpu_lowering::ReductionEmitter;
using mlir::amp::gpu_lowering::ReductionPlan;
using mlir::amp::gpu_lowering::sumPartialsInto;

namespace {
/// Column reductions are split when they have fewer output elements than
/// this (threads of the one-thread-per-output kernel) ...
constexpr int64_t kSplitBelowOutputs = 65536;
/// ... and at least this many rows; the partials' kernel gets about
/// kSplitThreads threads (above the 135168 an H100 or H200 holds resident,
/// so that it can keep the memory busy) and at least kMinRowsPerThread rows
/// per thread.
constexpr int64_t kSplitMinRows = 4096;
constexpr int64_t kSplitThreads = 262144;
constexpr int64_t kMinRowsPerThread = 32;
/// At most this many threads per output sum its partials (stage 2).
constexpr int64_t kSumPartialsThreads = 256;

/// Whether every output of `generic` (one at least) is an f32 sum
/// `out + f(ins)` over its reduction loops.
bool isColumnSum(linalg::GenericOp generic) {
  if (generic.getNumDpsInits() == 0 || generic.getNumReductionLoops() == 0 ||
      !generic.hasPureBufferSemantics())
    return false;
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  return llvm::all_of(generic.getDpsInitsMutable(), [&](OpOperand &init) {
    BlockArgument out = generic.getMatchingBlockArgument(&init);
    auto add =
        yield.getValues()[init.getOperandNumber() - generic.getNumDpsInputs()]
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
        !(fill &&
          llvm::is_contained(second.getDpsInits(), fill.getOutputs().front())))
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
      while (i < inputs.size() &&
             !(inputs[i] == input->get() && maps[i] == map))
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

/// Stage 1 of a split column sum, `stage1` (its parallel loops first: the
/// range, then the outputs' loops), as loops: a parallel loop over them,
/// each thread summing its rows in registers from the combiner's identity
/// and storing its sums into the partials, which therefore need no fill (a
/// launch fewer). False, with nothing changed, when the body is not one
/// analyzeReduction takes.
bool emitPartialSums(IRRewriter &rewriter, linalg::GenericOp stage1) {
  std::optional<ReductionPlan> plan =
      analyzeReduction(stage1, /*minRowLength=*/1, /*requireRowMajor=*/false);
  if (!plan)
    return false;
  Location loc = stage1.getLoc();
  rewriter.setInsertionPoint(stage1);
  ArrayRef<int64_t> ranges(plan->ranges);
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t size : ranges.take_front(plan->numParallel)) {
    lbs.push_back(arith::ConstantIndexOp::create(rewriter, loc, 0));
    ubs.push_back(arith::ConstantIndexOp::create(rewriter, loc, size));
    steps.push_back(arith::ConstantIndexOp::create(rewriter, loc, 1));
  }
  scf::ParallelOp::create(
      rewriter, loc, lbs, ubs, steps,
      [&](OpBuilder &b, Location loc, ValueRange loopIvs) {
        SmallVector<Value> ivs(loopIvs);
        ReductionEmitter emitter(*plan, b, loc);
        SmallVector<Value> sums = emitter.accumulate(
            emitter.index(0), plan->rowLength, emitter.index(1), [&](Value j) {
              SmallVector<Value> indices(ivs);
              llvm::append_range(
                  indices,
                  emitter.delinearize(j, ranges.drop_front(plan->numParallel)));
              return emitter.partials(indices);
            });
        for (auto [init, sum] :
             llvm::zip_equal(stage1.getDpsInitsMutable(), sums))
          memref::StoreOp::create(
              b, loc, sum, init.get(),
              emitter.apply(stage1.getMatchingIndexingMap(&init), ivs));
      });
  rewriter.eraseOp(stage1);
  return true;
}

/// Splits a long column sum: `partials[out..., s] = sum over the rows of
/// range s`, then `out += sum over s of partials[out..., s]`; one partials
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

  // partials: [out..., split] f32, one per output (each output's ranges
  // contiguous: stage 2 reads them as rows).
  SmallVector<int64_t> partialShape(outType.getShape());
  partialShape.push_back(split);
  auto partialType = MemRefType::get(partialShape, rewriter.getF32Type());
  SmallVector<Value> partials;
  for (unsigned i = 0, e = generic.getNumDpsInits(); i < e; ++i)
    partials.push_back(memref::AllocOp::create(rewriter, loc, partialType));

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
  SmallVector<AffineExpr> partialResults;
  for (AffineExpr e : outMap.getResults())
    partialResults.push_back(e.shiftDims(numLoops, 1));
  partialResults.push_back(getAffineDimExpr(0, ctx));
  maps.append(partials.size(),
              AffineMap::get(numLoops + 1, 0, partialResults, ctx));
  SmallVector<utils::IteratorType> iterators{utils::IteratorType::parallel};
  llvm::append_range(iterators, generic.getIteratorTypesArray());
  auto stage1 = linalg::GenericOp::create(rewriter, loc, TypeRange{}, inputs,
                                          partials, maps, iterators);
  rewriter.inlineRegionBefore(generic.getRegion(), stage1.getRegion(),
                              stage1.getRegion().begin());
  stage1 = interchangeParallelFirst(rewriter, stage1);
  if (!emitPartialSums(rewriter, stage1)) {
    // Left to the loop mapping, accumulating into zeroed partials.
    rewriter.setInsertionPoint(stage1);
    Value zero =
        arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0.0));
    for (Value buffer : partials)
      linalg::FillOp::create(rewriter, loc, zero, buffer);
  }

  // Stage 2: out = out + sum over s of partials[out..., s].
  sumPartialsInto(generic, partials, kSumPartialsThreads);
  for (Value buffer : partials)
    memref::DeallocOp::create(rewriter, loc, buffer);
  rewriter.eraseOp(generic);
}

struct GPUPrepareLinalgPass
    : amp::impl::GPUPrepareLinalgPassBase<GPUPrepareLinalgPass> {
  void runOnOperation() override {
    mlir::amp::gpu_lowering::tileTransposes(getOperation());
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
    for (linalg::GenericOp generic : generics)
      interchangeParallelFirst(rewriter, generic);
  }
};
} // namespace

//===- VectorizeElementwise.cpp - 16-byte accesses in elementwise loops ---===//
//
// The amp-gpu-vectorize-elementwise pass: an elementwise parallel loop nest
// takes `width` consecutive elements of its innermost dimension per
// iteration, so each thread loads and stores 16 bytes at a time (as
// PyTorch's vectorized_elementwise_kernel does) instead of one element.
// With one bf16 element per thread, an H200 kept too few bytes in flight to
// approach its bandwidth: GELU over 16384x8192 moved 0.6 TB/s.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::amp {
#define GEN_PASS_DEF_GPUVECTORIZEELEMENTWISEPASS
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {
/// How a load or store of the loop body touches the innermost dimension.
enum class Access { Vector, Uniform, Unsupported };

/// Bytes of one element of `memref`, or 0 where elements are not whole
/// bytes (i1) or not numbers.
unsigned elementBytes(MemRefType memref) {
  Type element = memref.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 ||
      !llvm::isPowerOf2_32(element.getIntOrFloatBitWidth()))
    return 0;
  return element.getIntOrFloatBitWidth() / 8;
}

/// Vector: `inner` is the last index and no other; the memref's last stride
/// is 1 and every other stride and the offset are static multiples of
/// `width` (so that the aligned base stays aligned). Uniform: `inner` is
/// not an index.
Access classify(MemRefType memref, ValueRange indices, Value inner,
                int64_t width) {
  if (!elementBytes(memref))
    return Access::Unsupported;
  bool usesInner = llvm::is_contained(indices, inner);
  if (!usesInner)
    return Access::Uniform;
  if (indices.back() != inner ||
      llvm::count(indices, inner) != 1)
    return Access::Unsupported;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1 || ShapedType::isDynamic(offset) || offset % width)
    return Access::Unsupported;
  for (int64_t stride : ArrayRef(strides).drop_back())
    if (ShapedType::isDynamic(stride) || stride % width)
      return Access::Unsupported;
  return Access::Vector;
}

/// The elements per iteration for `loop`, or 0 where it is not an
/// elementwise loop nest this pass handles: loads, stores and elementwise
/// arith/math ops only; the innermost dimension from 0 by 1 to a static
/// bound; the innermost index used only as the last index of accesses;
/// stores vectorizable. 16 bytes of the narrowest vector access, at most
/// `maxWidth`, halved until it divides the bound.
int64_t chooseWidth(scf::ParallelOp loop, int64_t maxWidth) {
  if (loop.getNumReductions() != 0)
    return 0;
  unsigned last = loop.getNumLoops() - 1;
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[last]);
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound()[last]);
  std::optional<int64_t> step = getConstantIntValue(loop.getStep()[last]);
  if (lb != 0 || step != 1 || !ub)
    return 0;
  Value inner = loop.getInductionVars()[last];
  unsigned narrowest = 0;
  bool anyVector = false;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (op.getNumRegions() != 0)
      return 0;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      unsigned bytes = elementBytes(load.getMemRefType());
      if (!bytes)
        return 0;
      if (llvm::is_contained(load.getIndices(), inner)) {
        anyVector = true;
        narrowest = narrowest ? std::min(narrowest, bytes) : bytes;
      }
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      unsigned bytes = elementBytes(store.getMemRefType());
      if (!bytes || !llvm::is_contained(store.getIndices(), inner))
        return 0;
      anyVector = true;
      narrowest = narrowest ? std::min(narrowest, bytes) : bytes;
      continue;
    }
    if (!isa<arith::ArithDialect, math::MathDialect>(op.getDialect()) ||
        !OpTrait::hasElementwiseMappableTraits(&op) ||
        llvm::is_contained(op.getOperands(), inner))
      return 0;
  }
  if (!anyVector)
    return 0;
  // Powers of two only: the alignment claimed is the vector's bytes.
  int64_t width = llvm::bit_floor(
      static_cast<uint64_t>(std::min<int64_t>(maxWidth, 16 / narrowest)));
  while (width > 1 && *ub % width)
    width /= 2;
  if (width < 2)
    return 0;
  // Indices must not vary across a vector's lanes: each is the innermost
  // index (classified below), another loop index, defined outside the loop,
  // or computed in the body from those only (a gather's index read from
  // memory would become a vector of indices).
  auto uniformIndex = [&](Value index) {
    auto invariant = [&](Value v) {
      return v != inner && (llvm::is_contained(loop.getInductionVars(), v) ||
                            loop.isDefinedOutsideOfLoop(v));
    };
    if (index == inner || invariant(index))
      return true;
    Operation *def = index.getDefiningOp();
    return def && !isa<memref::LoadOp>(def) &&
           llvm::all_of(def->getOperands(), invariant);
  };
  for (Operation &op : loop.getBody()->without_terminator()) {
    ValueRange indices;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      indices = load.getIndices();
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      indices = store.getIndices();
    if (!llvm::all_of(indices, uniformIndex))
      return 0;
  }
  // Every access must take the chosen width.
  for (Operation &op : loop.getBody()->without_terminator()) {
    Access access = Access::Uniform;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      access = classify(load.getMemRefType(), load.getIndices(), inner, width);
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      access = classify(store.getMemRefType(), store.getIndices(), inner, width);
    if (access == Access::Unsupported)
      return 0;
  }
  return width;
}

/// Rewrites the body of `loop` to take `width` elements of the innermost
/// dimension per iteration.
class Vectorizer {
public:
  Vectorizer(RewriterBase &rewriter, scf::ParallelOp loop, int64_t width)
      : rewriter(rewriter), loop(loop), width(width),
        inner(loop.getInductionVars().back()) {}

  void run() {
    Block *body = loop.getBody();
    SmallVector<Operation *> ops = llvm::map_to_vector(
        body->without_terminator(), [](Operation &op) { return &op; });
    for (Operation *op : ops) {
      rewriter.setInsertionPoint(op);
      if (auto load = dyn_cast<memref::LoadOp>(op))
        rewriteLoad(load);
      else if (auto store = dyn_cast<memref::StoreOp>(op))
        rewriteStore(store);
      else
        rewriteCompute(op);
    }
    normalize();
  }

private:
  /// The innermost dimension counts vectors from 0 by 1 (the tiling after
  /// this pass computes wrong guards for other steps); its elements start
  /// at the counter times `width`.
  void normalize() {
    unsigned last = loop.getNumLoops() - 1;
    Location loc = loop.getLoc();
    int64_t extent = *getConstantIntValue(loop.getUpperBound()[last]);
    rewriter.setInsertionPoint(loop);
    Value vectors = arith::ConstantIndexOp::create(rewriter, loc, extent / width);
    rewriter.modifyOpInPlace(
        loop, [&] { loop.getUpperBoundMutable()[last].set(vectors); });
    Value widthValue = arith::ConstantIndexOp::create(rewriter, loc, width);
    rewriter.setInsertionPointToStart(loop.getBody());
    auto first = arith::MulIOp::create(rewriter, loc, inner, widthValue);
    rewriter.replaceAllUsesExcept(inner, first.getResult(), first);
  }

  VectorType vectorOf(Type scalar) { return VectorType::get({width}, scalar); }

  /// `value` as a vector: itself, or broadcast from a scalar.
  Value asVector(Value value) {
    if (isa<VectorType>(value.getType()))
      return value;
    return vector::BroadcastOp::create(rewriter, value.getLoc(),
                                       vectorOf(value.getType()), value);
  }

  /// The alignment of a vector access: the base of every buffer is aligned
  /// to at least 256 bytes (the device pool and allocator), and the checks
  /// of `classify` keep each vector's first element at a multiple of
  /// `width` elements.
  llvm::MaybeAlign alignment(MemRefType memref) {
    return llvm::Align(width * memref.getElementTypeBitWidth() / 8);
  }

  void rewriteLoad(memref::LoadOp load) {
    if (!llvm::is_contained(load.getIndices(), inner))
      return; // uniform: stays scalar, broadcast where it meets a vector
    auto vector = vector::LoadOp::create(
        rewriter, load.getLoc(), vectorOf(load.getType()), load.getMemRef(),
        load.getIndices(), /*nontemporal=*/false,
        alignment(load.getMemRefType()));
    rewriter.replaceOp(load, vector);
  }

  void rewriteStore(memref::StoreOp store) {
    vector::StoreOp::create(rewriter, store.getLoc(),
                            asVector(store.getValueToStore()),
                            store.getMemRef(), store.getIndices(),
                            /*nontemporal=*/false,
                            alignment(store.getMemRefType()));
    rewriter.eraseOp(store);
  }

  /// An elementwise op with a vector operand becomes the same op on
  /// vectors; a math op (a libdevice or libm call) is applied lane by lane,
  /// as the calls take scalars.
  void rewriteCompute(Operation *op) {
    if (llvm::none_of(op->getOperands(), [](Value v) {
          return isa<VectorType>(v.getType());
        }))
      return;
    if (isa<math::MathDialect>(op->getDialect()))
      return rewriteLaneByLane(op);
    SmallVector<Value> operands =
        llvm::map_to_vector(op->getOperands(), [&](Value v) {
          return v;
        });
    // arith.select keeps a scalar condition for vector values.
    for (unsigned i = 0; i < operands.size(); ++i)
      if (!(isa<arith::SelectOp>(op) && i == 0))
        operands[i] = asVector(operands[i]);
    SmallVector<Type> types = llvm::map_to_vector(
        op->getResultTypes(), [&](Type t) -> Type { return vectorOf(t); });
    OperationState state(op->getLoc(), op->getName(), operands, types,
                         op->getAttrs());
    Operation *vectorOp = rewriter.create(state);
    rewriter.replaceOp(op, vectorOp->getResults());
  }

  void rewriteLaneByLane(Operation *op) {
    Location loc = op->getLoc();
    SmallVector<SmallVector<Value>> lanes(op->getNumResults());
    for (int64_t lane = 0; lane < width; ++lane) {
      SmallVector<Value> operands =
          llvm::map_to_vector(op->getOperands(), [&](Value v) -> Value {
            if (!isa<VectorType>(v.getType()))
              return v;
            return vector::ExtractOp::create(rewriter, loc, v, lane);
          });
      OperationState state(loc, op->getName(), operands, op->getResultTypes(),
                           op->getAttrs());
      Operation *scalar = rewriter.create(state);
      for (auto [i, result] : llvm::enumerate(scalar->getResults()))
        lanes[i].push_back(result);
    }
    SmallVector<Value> results;
    for (auto [i, values] : llvm::enumerate(lanes))
      results.push_back(vector::FromElementsOp::create(
          rewriter, loc, vectorOf(op->getResult(i).getType()), values));
    rewriter.replaceOp(op, results);
  }

  RewriterBase &rewriter;
  scf::ParallelOp loop;
  int64_t width;
  Value inner;
};

/// A loop that gpu-map-parallel-loops maps to blocks and threads.
bool isOutermost(scf::ParallelOp loop) {
  return !loop->getParentOfType<scf::ParallelOp>() &&
         !loop->getParentOfType<gpu::LaunchOp>();
}

struct GPUVectorizeElementwisePass
    : amp::impl::GPUVectorizeElementwisePassBase<GPUVectorizeElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    if (maxWidth < 1) {
      getOperation().emitError("amp-gpu-vectorize-elementwise: max-width must "
                               "be at least 1, not ")
          << static_cast<int64_t>(maxWidth);
      return signalPassFailure();
    }
    SmallVector<scf::ParallelOp> loops;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (isOutermost(loop))
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : loops)
      if (int64_t width = chooseWidth(loop, maxWidth))
        Vectorizer(rewriter, loop, width).run();
  }
};
} // namespace

//===- PackedGemms.cpp - convolutions and other products as sgemm ---------===//
//
// planPackedGemm (SgemmCalls.h): a multiply-accumulate linalg op whose
// operands are read through linear affine maps (a convolution reads its
// padded input at oh * stride + kh * dilation) is a batch of matrix
// products once each operand is laid out as a matrix. An operand already
// laid out that way (a convolution's weight, a 1x1 convolution's input) is
// read in place; any other is copied into a dense [outer..., rows, cols]
// buffer first (im2col).
//
//===----------------------------------------------------------------------===//

#include "SgemmCalls.h"

#include "amp/Conversion/GemmMatch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::amp;

namespace {
/// `sum coef[d] * loop d + constant`: where an affine map puts the loops'
/// element in a row-major buffer.
struct LinearOffset {
  int64_t constant = 0;
  SmallVector<int64_t> coef;
};

/// Whether `expr` is a sum of loop dimensions times constants plus a
/// constant (no division, modulo or symbol).
bool isLinear(AffineExpr expr) {
  if (!expr.isPureAffine())
    return false;
  bool linear = true;
  expr.walk([&](AffineExpr e) {
    linear &= e.getKind() != AffineExprKind::FloorDiv &&
              e.getKind() != AffineExprKind::CeilDiv &&
              e.getKind() != AffineExprKind::Mod && !isa<AffineSymbolExpr>(e);
  });
  return linear;
}

std::optional<LinearOffset> offsetOf(AffineMap map, ArrayRef<int64_t> shape) {
  if (!llvm::all_of(map.getResults(), isLinear))
    return std::nullopt;
  MLIRContext *ctx = map.getContext();
  SmallVector<int64_t> strides = computeSuffixProduct(shape);
  // The offset with loop `dim` at 1 and every other loop at 0.
  auto offsetAt = [&](int64_t dim) -> std::optional<int64_t> {
    SmallVector<AffineExpr> point;
    for (unsigned d = 0, e = map.getNumDims(); d < e; ++d)
      point.push_back(getAffineConstantExpr(d == dim ? 1 : 0, ctx));
    int64_t total = 0;
    for (auto [expr, stride] : llvm::zip(map.getResults(), strides)) {
      auto value = dyn_cast<AffineConstantExpr>(expr.replaceDims(point));
      if (!value)
        return std::nullopt;
      total += value.getValue() * stride;
    }
    return total;
  };
  LinearOffset offset;
  std::optional<int64_t> origin = offsetAt(-1);
  if (!origin)
    return std::nullopt;
  offset.constant = *origin;
  for (unsigned d = 0, e = map.getNumDims(); d < e; ++d) {
    std::optional<int64_t> at = offsetAt(d);
    if (!at)
      return std::nullopt;
    offset.coef.push_back(*at - *origin);
  }
  return offset;
}

int64_t product(ArrayRef<int64_t> ranges, ArrayRef<unsigned> dims) {
  int64_t p = 1;
  for (unsigned d : dims)
    p *= ranges[d];
  return p;
}

/// Whether the loops `dims` step through memory as one row-major dimension
/// whose innermost step is `step` (loops of one iteration never step).
bool isFlat(const LinearOffset &offset, ArrayRef<int64_t> ranges,
            ArrayRef<unsigned> dims, int64_t step) {
  for (unsigned d : llvm::reverse(dims)) {
    if (ranges[d] != 1 && offset.coef[d] != step)
      return false;
    step *= ranges[d];
  }
  return true;
}

/// The rows x cols matrix an operand is in place (stored transposed or
/// not), its outer loops moving it by fixed strides; std::nullopt when it
/// is none (a window, a broadcast, a permutation sgemm cannot express).
std::optional<BlasMatrix>
inPlaceMatrix(Value buffer, const LinearOffset &offset,
              ArrayRef<int64_t> ranges, ArrayRef<unsigned> outer,
              ArrayRef<unsigned> rows, ArrayRef<unsigned> cols) {
  for (bool trans : {false, true}) {
    ArrayRef<unsigned> major = trans ? cols : rows, minor = trans ? rows : cols;
    int64_t minorSize = std::max<int64_t>(product(ranges, minor), 1);
    if (!isFlat(offset, ranges, minor, 1))
      continue;
    // The leading dimension: the step of the innermost major loop that
    // moves.
    int64_t ld = minorSize;
    for (unsigned d : llvm::reverse(major)) {
      if (ranges[d] != 1) {
        ld = offset.coef[d];
        break;
      }
    }
    if (ld < minorSize || !isFlat(offset, ranges, major, ld))
      continue;
    BlasMatrix matrix{buffer, offset.constant, ld, trans, {}};
    for (unsigned d : outer)
      matrix.outerStrides.push_back(offset.coef[d]);
    return matrix;
  }
  return std::nullopt;
}

/// `map` with the loops `dims` as its loops, in that order (any other loop,
/// which it must not read, at 0).
AffineMap overLoops(AffineMap map, ArrayRef<unsigned> dims) {
  MLIRContext *ctx = map.getContext();
  SmallVector<AffineExpr> loops(map.getNumDims(),
                                getAffineConstantExpr(0, ctx));
  for (auto [i, d] : llvm::enumerate(dims))
    loops[d] = getAffineDimExpr(i, ctx);
  return map.replaceDimsAndSymbols(loops, {}, dims.size(), 0);
}

/// A new dense f32 buffer indexed by the loops `dims`.
Value allocOver(OpBuilder &b, Location loc, ArrayRef<int64_t> ranges,
                ArrayRef<unsigned> dims) {
  SmallVector<int64_t> shape;
  for (unsigned d : dims)
    shape.push_back(ranges[d]);
  return memref::AllocOp::create(b, loc, MemRefType::get(shape, b.getF32Type()),
                                 b.getI64IntegerAttr(64));
}

/// to[toMap] = from[fromMap] (+ to[toMap] when `accumulate`) over parallel
/// loops.
void copy(OpBuilder &b, Location loc, Value from, AffineMap fromMap, Value to,
          AffineMap toMap, bool accumulate) {
  linalg::GenericOp::create(
      b, loc, ValueRange{from}, ValueRange{to}, {fromMap, toMap},
      SmallVector<utils::IteratorType>(fromMap.getNumDims(),
                                       utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value value = accumulate
                          ? arith::AddFOp::create(nb, l, args[1], args[0])
                          : args[0];
        linalg::YieldOp::create(nb, l, value);
      });
}

/// The dense matrix `buffer` (indexed by the loops `dims`: the outer loops
/// among them, then the rows and the columns) is for sgemm.
BlasMatrix denseMatrix(Value buffer, ArrayRef<int64_t> ranges,
                       ArrayRef<unsigned> dims, ArrayRef<unsigned> outer,
                       ArrayRef<unsigned> cols) {
  SmallVector<int64_t> shape;
  for (unsigned d : dims)
    shape.push_back(ranges[d]);
  SmallVector<int64_t> strides = computeSuffixProduct(shape);
  BlasMatrix matrix{
      buffer, 0, std::max<int64_t>(product(ranges, cols), 1), false, {}};
  for (unsigned d : outer) {
    auto *at = llvm::find(dims, d);
    matrix.outerStrides.push_back(
        at == dims.end() ? 0 : strides[at - dims.begin()]);
  }
  return matrix;
}

/// The loops of a dense [outer..., rows, cols] buffer, keeping only the
/// outer loops `map` reads.
SmallVector<unsigned> bufferLoops(AffineMap map, ArrayRef<unsigned> outer,
                                  ArrayRef<unsigned> rows,
                                  ArrayRef<unsigned> cols) {
  SmallVector<unsigned> dims;
  for (unsigned d : outer)
    if (map.isFunctionOfDim(d))
      dims.push_back(d);
  dims.append(rows.begin(), rows.end());
  dims.append(cols.begin(), cols.end());
  return dims;
}

/// The loops of a packed product: C[outer, m, n] += A[outer, m, k] *
/// B[outer, k, n], with A read through input `aInput`.
struct ProductLoops {
  SmallVector<unsigned> outer, m, n, k;
  unsigned aInput = 0;
};

/// Splits the loops by the output's dimensions: the trailing ones that only
/// one input reads are N (that input is B), the ones before them that only
/// the other reads are M, the leading rest are outer; the reductions are K.
std::optional<ProductLoops> splitLoops(linalg::LinalgOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap out = maps[2];
  unsigned numParallel = op.getNumParallelLoops();
  if (!out.isProjectedPermutation(/*allowZeroInResults=*/false) ||
      out.getNumResults() != numParallel)
    return std::nullopt;
  SmallVector<unsigned> dims;
  for (AffineExpr expr : out.getResults())
    dims.push_back(cast<AffineDimExpr>(expr).getPosition());
  // Which input alone reads loop `d` (-1: both or neither).
  auto onlyReader = [&](unsigned d) {
    bool first = maps[0].isFunctionOfDim(d),
         second = maps[1].isFunctionOfDim(d);
    return first == second ? -1 : (first ? 0 : 1);
  };
  size_t nStart = dims.size();
  int bInput = -1;
  while (nStart > 0) {
    int reader = onlyReader(dims[nStart - 1]);
    if (reader < 0 || (bInput >= 0 && reader != bInput))
      break;
    bInput = reader;
    --nStart;
  }
  if (bInput < 0)
    return std::nullopt;
  ProductLoops loops;
  loops.aInput = 1 - bInput;
  size_t mStart = nStart;
  while (mStart > 0 && onlyReader(dims[mStart - 1]) == int(loops.aInput))
    --mStart;
  if (mStart == nStart)
    return std::nullopt;
  loops.outer.assign(dims.begin(), dims.begin() + mStart);
  loops.m.assign(dims.begin() + mStart, dims.begin() + nStart);
  loops.n.assign(dims.begin() + nStart, dims.end());
  for (auto [d, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    if (iterator == utils::IteratorType::reduction)
      loops.k.push_back(d);
  if (loops.k.empty())
    return std::nullopt;
  // Outer loops that A does not read (a convolution's images) join N: one
  // bigger product instead of one per index, into a buffer put back in the
  // output's order after it.
  SmallVector<unsigned> outer, joined;
  for (unsigned d : loops.outer)
    (maps[loops.aInput].isFunctionOfDim(d) ? outer : joined).push_back(d);
  loops.outer = outer;
  loops.n.insert(loops.n.begin(), joined.begin(), joined.end());
  return loops;
}

bool isF32Buffer(Value value) {
  return isDenseBuffer(value) &&
         cast<MemRefType>(value.getType()).getElementType().isF32();
}
} // namespace

std::optional<SgemmPlan> mlir::amp::planPackedGemm(OpBuilder &builder,
                                                   linalg::LinalgOp op,
                                                   bool overwrite) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 ||
      !llvm::all_of(op->getOperands(), isF32Buffer) ||
      !isMultiplyAccumulateBody(op))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  std::optional<ProductLoops> loops = splitLoops(op);
  if (!loops)
    return std::nullopt;

  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<std::optional<LinearOffset>> offsets;
  for (OpOperand &operand : op->getOpOperands())
    offsets.push_back(
        offsetOf(maps[operand.getOperandNumber()],
                 cast<MemRefType>(operand.get().getType()).getShape()));
  if (!llvm::all_of(offsets, [](auto &o) { return o.has_value(); }))
    return std::nullopt;

  SgemmPlan plan;
  plan.m = product(ranges, loops->m);
  plan.n = product(ranges, loops->n);
  plan.k = product(ranges, loops->k);
  constexpr int64_t maxInt = std::numeric_limits<int32_t>::max();
  if (plan.m > maxInt || plan.n > maxInt || plan.k > maxInt)
    return std::nullopt;
  for (unsigned d : loops->outer)
    plan.outerSizes.push_back(ranges[d]);
  // Each operand in place, or copied into a dense buffer before `op` (the
  // inputs) or after it (the output, then freed).
  Location loc = op.getLoc();
  auto matrixOf = [&](unsigned operand, ArrayRef<unsigned> rows,
                      ArrayRef<unsigned> cols) -> std::optional<BlasMatrix> {
    return inPlaceMatrix(op->getOperand(operand), *offsets[operand], ranges,
                         loops->outer, rows, cols);
  };
  Value c = op.getDpsInitOperand(0)->get();
  plan.overwrite = overwrite;
  if (std::optional<BlasMatrix> inPlace = matrixOf(2, loops->m, loops->n);
      inPlace && !inPlace->trans) {
    plan.c = *inPlace;
  } else {
    SmallVector<unsigned> dims =
        bufferLoops(maps[2], loops->outer, loops->m, loops->n);
    OpBuilder after(op);
    after.setInsertionPointAfter(op);
    Value result = allocOver(builder, loc, ranges, dims);
    copy(after, loc, result, after.getMultiDimIdentityMap(dims.size()), c,
         overLoops(maps[2], dims), !overwrite);
    memref::DeallocOp::create(after, loc, result);
    plan.c = denseMatrix(result, ranges, dims, loops->outer, loops->n);
    plan.overwrite = true;
  }
  auto inputMatrix = [&](unsigned input, ArrayRef<unsigned> rows,
                         ArrayRef<unsigned> cols) {
    if (std::optional<BlasMatrix> inPlace = matrixOf(input, rows, cols))
      return *inPlace;
    SmallVector<unsigned> dims =
        bufferLoops(maps[input], loops->outer, rows, cols);
    Value packed = allocOver(builder, loc, ranges, dims);
    copy(builder, loc, op->getOperand(input), overLoops(maps[input], dims),
         packed, builder.getMultiDimIdentityMap(dims.size()),
         /*accumulate=*/false);
    plan.temporaries.push_back(packed);
    return denseMatrix(packed, ranges, dims, loops->outer, cols);
  };
  plan.a = inputMatrix(loops->aInput, loops->m, loops->k);
  plan.b = inputMatrix(1 - loops->aInput, loops->k, loops->n);
  return plan;
}

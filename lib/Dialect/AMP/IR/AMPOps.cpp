//===- AMPOps.cpp - amp dialect operations --------------------------------===//
//
// Verifiers compute the shape an op must produce and name the operand,
// attribute or dimension that disagrees. Folders cover the obvious algebra
// (identity casts, exact cast chains, reshape/transpose chains).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMPOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::amp;

//===----------------------------------------------------------------------===//
// Shape helpers
//===----------------------------------------------------------------------===//

namespace {
using Shape = SmallVector<int64_t>;

bool dimsMatch(int64_t a, int64_t b) {
  return a == b || ShapedType::isDynamic(a) || ShapedType::isDynamic(b);
}

bool shapesMatch(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  return a.size() == b.size() && llvm::all_of(llvm::zip(a, b), [](auto pair) {
           return dimsMatch(std::get<0>(pair), std::get<1>(pair));
         });
}

/// Prints a dimension as MLIR does in tensor types: 8 or ?.
std::string formatDim(int64_t dim) {
  return ShapedType::isDynamic(dim) ? "?" : std::to_string(dim);
}

/// Prints a shape as MLIR does in tensor types: 4x?x8, or "[] (0-d)".
std::string formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "[] (0-d)";
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(
      shape, os,
      [&](int64_t dim) {
        if (ShapedType::isDynamic(dim))
          os << '?';
        else
          os << dim;
      },
      "x");
  return text;
}

/// Emits "<what> has shape A but must have shape B" unless they match.
LogicalResult verifyShape(Operation *op, const Twine &what, ShapedType type,
                          ArrayRef<int64_t> expected) {
  if (shapesMatch(type.getShape(), expected))
    return success();
  return op->emitOpError() << what << " has shape "
                           << formatShape(type.getShape())
                           << " but must have shape " << formatShape(expected);
}

LogicalResult verifyRank(Operation *op, const Twine &what, ShapedType type,
                         int64_t rank) {
  if (type.getRank() == rank)
    return success();
  return op->emitOpError() << what << " must have rank " << rank << ", got "
                           << type.getRank();
}

LogicalResult verifyMinRank(Operation *op, const Twine &what, ShapedType type,
                            int64_t rank) {
  if (type.getRank() >= rank)
    return success();
  return op->emitOpError() << what << " must have rank at least " << rank
                           << ", got " << type.getRank();
}

/// `type`'s element type must be `expected` or, when `allowF32`, f32.
LogicalResult verifyElementType(Operation *op, const Twine &what,
                                ShapedType type, Type expected, bool allowF32) {
  Type actual = type.getElementType();
  if (actual == expected || (allowF32 && actual.isF32()))
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << what << " has element type " << actual
                            << " but must have " << expected;
  if (allowF32 && !expected.isF32())
    diag << " or f32";
  return diag;
}

LogicalResult verifySameType(Operation *op, const Twine &what, Value value,
                             Type expected) {
  if (value.getType() == expected)
    return success();
  return op->emitOpError() << what << " has type " << value.getType()
                           << " but must have " << expected;
}

/// Normalizes a possibly negative axis; fails when out of [-rank, rank).
FailureOr<int64_t> normalizeAxis(Operation *op, StringRef name, int64_t axis,
                                 int64_t rank) {
  if (axis < -rank || axis >= rank)
    return op->emitOpError()
           << name << " " << axis << " is out of range for rank " << rank;
  return axis < 0 ? axis + rank : axis;
}

LogicalResult verifyArraySize(Operation *op, StringRef name,
                              ArrayRef<int64_t> values, size_t size) {
  if (values.size() == size)
    return success();
  return op->emitOpError() << name << " must have " << size << " values, got "
                           << values.size();
}

LogicalResult verifyAllPositive(Operation *op, StringRef name,
                                ArrayRef<int64_t> values) {
  if (llvm::all_of(values, [](int64_t v) { return v > 0; }))
    return success();
  return op->emitOpError() << name << " values must be positive";
}

LogicalResult verifyAllNonNegative(Operation *op, StringRef name,
                                   ArrayRef<int64_t> values) {
  if (llvm::all_of(values, [](int64_t v) { return v >= 0; }))
    return success();
  return op->emitOpError() << name << " values must be non-negative";
}

/// Output size of a sliding window (convolution or pooling) along spatial
/// dimension `axis`; fails when the window does not fit or overflows.
FailureOr<int64_t> windowOutputDim(Operation *op, int axis, int64_t in,
                                   int64_t kernel, int64_t stride,
                                   int64_t padLow, int64_t padHigh,
                                   int64_t dilation) {
  if (ShapedType::isDynamic(in) || ShapedType::isDynamic(kernel))
    return ShapedType::kDynamic;
  if (kernel < 1)
    return op->emitOpError()
           << "kernel size " << kernel << " in spatial dimension " << axis
           << " is not positive";
  std::optional<int64_t> span = llvm::checkedMul(dilation, kernel - 1);
  if (span)
    span = llvm::checkedAdd(*span, int64_t(1));
  std::optional<int64_t> padded = llvm::checkedAdd(in, padLow);
  if (padded)
    padded = llvm::checkedAdd(*padded, padHigh);
  if (!span || !padded)
    return op->emitOpError() << "window arithmetic overflows in spatial "
                                "dimension "
                             << axis;
  if (*padded < *span)
    return op->emitOpError()
           << "window of size " << *span << " does not fit the padded input "
           << "of size " << *padded << " in spatial dimension " << axis;
  return (*padded - *span) / stride + 1;
}

/// Appends the spatial output shape of an NCHW window op to `out`; padding
/// is [top, left, bottom, right].
LogicalResult windowOutputHW(Operation *op, ArrayRef<int64_t> inputShape,
                             ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
                             ArrayRef<int64_t> padding,
                             ArrayRef<int64_t> dilation, Shape &out) {
  for (int i = 0; i < 2; ++i) {
    FailureOr<int64_t> size =
        windowOutputDim(op, i, inputShape[2 + i], kernel[i], stride[i],
                        padding[i], padding[2 + i], dilation[i]);
    if (failed(size))
      return failure();
    out.push_back(*size);
  }
  return success();
}

/// The number of elements of a static shape, or nullopt on overflow.
std::optional<int64_t> elementCount(ArrayRef<int64_t> shape) {
  std::optional<int64_t> count = 1;
  for (int64_t dim : shape)
    if (count)
      count = llvm::checkedMul(*count, dim);
  return count;
}

/// The reduced shape of `shape` over `axes` (already normalized).
Shape reducedShape(ArrayRef<int64_t> shape, ArrayRef<int64_t> axes,
                   bool keepDims) {
  Shape result;
  for (auto [dim, size] : llvm::enumerate(shape)) {
    if (!llvm::is_contained(axes, static_cast<int64_t>(dim)))
      result.push_back(size);
    else if (keepDims)
      result.push_back(1);
  }
  return result;
}

FailureOr<Shape> normalizeAxes(Operation *op, ArrayRef<int64_t> axes,
                               int64_t rank) {
  Shape normalized;
  for (int64_t axis : axes) {
    FailureOr<int64_t> n = normalizeAxis(op, "axis", axis, rank);
    if (failed(n))
      return failure();
    if (llvm::is_contained(normalized, *n))
      return op->emitOpError() << "axis " << axis << " is repeated";
    normalized.push_back(*n);
  }
  return normalized;
}

ShapedType shapedType(Value value) { return cast<ShapedType>(value.getType()); }

/// A result may be f32 next to low-precision operands exactly when the op
/// declares AMP_WidenableResults, which the precision passes read too.
bool widenableResults(Operation *op) {
  return op->hasTrait<amp::OpTrait::WidenableResults>();
}
} // namespace

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  ShapedType lhs = shapedType(getLhs()), rhs = shapedType(getRhs());
  if (failed(verifyMinRank(*this, "lhs", lhs, 2)) ||
      failed(verifyMinRank(*this, "rhs", rhs, 2)))
    return failure();
  ArrayRef<int64_t> l = lhs.getShape(), r = rhs.getShape();
  int64_t m = l[l.size() - 2], lk = l.back();
  if (getTransposeLhs())
    std::swap(m, lk);
  int64_t rk = r[r.size() - 2], n = r.back();
  if (getTransposeRhs())
    std::swap(rk, n);
  if (!dimsMatch(lk, rk))
    return emitOpError() << "contraction dimensions differ: lhs has " << lk
                         << ", rhs has " << rk;
  ArrayRef<int64_t> lhsBatch = l.drop_back(2), rhsBatch = r.drop_back(2);
  if (!lhsBatch.empty() && !rhsBatch.empty() &&
      !shapesMatch(lhsBatch, rhsBatch))
    return emitOpError() << "batch dimensions differ: lhs has "
                         << formatShape(lhsBatch) << ", rhs has "
                         << formatShape(rhsBatch);
  Shape expected(lhsBatch.empty() ? rhsBatch : lhsBatch);
  expected.append({m, n});
  ShapedType result = shapedType(getResult());
  if (failed(verifyShape(*this, "result", result, expected)))
    return failure();
  return verifyElementType(*this, "result", result, lhs.getElementType(),
                           widenableResults(*this));
}

LogicalResult LinearOp::verify() {
  ShapedType input = shapedType(getInput()), weight = shapedType(getWeight());
  if (failed(verifyMinRank(*this, "input", input, 1)) ||
      failed(verifyRank(*this, "weight", weight, 2)) ||
      failed(verifyElementType(*this, "weight", weight, input.getElementType(),
                               /*allowF32=*/false)))
    return failure();
  int64_t out = weight.getDimSize(0), in = weight.getDimSize(1);
  if (!dimsMatch(input.getShape().back(), in))
    return emitOpError() << "input features " << input.getShape().back()
                         << " do not match weight in_features " << in;
  if (Value bias = getBias()) {
    ShapedType biasType = shapedType(bias);
    if (failed(verifyShape(*this, "bias", biasType, {out})) ||
        failed(verifyElementType(*this, "bias", biasType,
                                 input.getElementType(),
                                 isF32CompatibleOperand(2))))
      return failure();
  }
  Shape expected(input.getShape().drop_back());
  expected.push_back(out);
  ShapedType result = shapedType(getResult());
  if (failed(verifyShape(*this, "result", result, expected)))
    return failure();
  return verifyElementType(*this, "result", result, input.getElementType(),
                           widenableResults(*this));
}

namespace {
struct Conv2DAttrs {
  ArrayRef<int64_t> stride, padding, dilation;
  int64_t groups;
};

template <typename OpTy> Conv2DAttrs getConvAttrs(OpTy op) {
  return {op.getStride(), op.getPadding(), op.getDilation(), op.getGroups()};
}

LogicalResult verifyConvAttrs(Operation *op, const Conv2DAttrs &attrs) {
  if (failed(verifyArraySize(op, "stride", attrs.stride, 2)) ||
      failed(verifyAllPositive(op, "stride", attrs.stride)) ||
      failed(verifyArraySize(op, "padding", attrs.padding, 4)) ||
      failed(verifyAllNonNegative(op, "padding", attrs.padding)) ||
      failed(verifyArraySize(op, "dilation", attrs.dilation, 2)) ||
      failed(verifyAllPositive(op, "dilation", attrs.dilation)))
    return failure();
  if (attrs.groups < 1)
    return op->emitOpError() << "groups must be positive, got " << attrs.groups;
  return success();
}

/// Checks the three tensors of a 2-d convolution against each other. Each
/// convolution op (forward, input gradient, weight gradient) computes one of
/// them from the other two; `names` says what each is called in that op.
LogicalResult verifyConv2D(Operation *op, const Conv2DAttrs &attrs,
                           ShapedType input, ShapedType weight,
                           ShapedType output, std::array<StringRef, 3> names) {
  if (failed(verifyConvAttrs(op, attrs)) ||
      failed(verifyRank(op, names[0], input, 4)) ||
      failed(verifyRank(op, names[1], weight, 4)) ||
      failed(verifyRank(op, names[2], output, 4)))
    return failure();
  int64_t channels = input.getDimSize(1), filters = weight.getDimSize(0);
  if (!ShapedType::isDynamic(channels) && channels % attrs.groups != 0)
    return op->emitOpError() << names[0] << " channels " << channels
                             << " are not divisible by groups " << attrs.groups;
  if (!ShapedType::isDynamic(filters) && filters % attrs.groups != 0)
    return op->emitOpError() << "output channels " << filters
                             << " are not divisible by groups " << attrs.groups;
  int64_t perGroup = ShapedType::isDynamic(channels) ? ShapedType::kDynamic
                                                     : channels / attrs.groups;
  if (!dimsMatch(weight.getDimSize(1), perGroup))
    return op->emitOpError()
           << names[1] << " has " << weight.getDimSize(1)
           << " input channels per group but the input has " << perGroup;
  Shape expected = {input.getDimSize(0), filters};
  if (failed(windowOutputHW(op, input.getShape(),
                            weight.getShape().drop_front(2), attrs.stride,
                            attrs.padding, attrs.dilation, expected)))
    return failure();
  return verifyShape(op, names[2], output, expected);
}
} // namespace

LogicalResult Conv2DOp::verify() {
  ShapedType input = shapedType(getInput()), weight = shapedType(getWeight());
  ShapedType result = shapedType(getResult());
  if (failed(verifyConv2D(*this, getConvAttrs(*this), input, weight, result,
                          {"input", "weight", "result"})) ||
      failed(verifyElementType(*this, "weight", weight, input.getElementType(),
                               /*allowF32=*/false)))
    return failure();
  if (Value bias = getBias()) {
    ShapedType biasType = shapedType(bias);
    if (failed(verifyShape(*this, "bias", biasType, {weight.getDimSize(0)})) ||
        failed(verifyElementType(*this, "bias", biasType,
                                 input.getElementType(),
                                 isF32CompatibleOperand(2))))
      return failure();
  }
  return verifyElementType(*this, "result", result, input.getElementType(),
                           widenableResults(*this));
}

namespace {
/// A convolution gradient takes `grad` and one forward operand (`operand`,
/// the weight or the input) and produces the other one (`result`). All share
/// grad's element type; the result may be f32.
LogicalResult verifyConv2DGrad(Operation *op, const Conv2DAttrs &attrs,
                               Value grad, Value operand, StringRef operandName,
                               Value result, bool resultIsInput) {
  ShapedType gradType = shapedType(grad), operandType = shapedType(operand);
  ShapedType resultType = shapedType(result);
  LogicalResult shapes =
      resultIsInput ? verifyConv2D(op, attrs, resultType, operandType, gradType,
                                   {"result", operandName, "grad"})
                    : verifyConv2D(op, attrs, operandType, resultType, gradType,
                                   {operandName, "result", "grad"});
  if (failed(shapes) || failed(verifyElementType(op, operandName, operandType,
                                                 gradType.getElementType(),
                                                 /*allowF32=*/false)))
    return failure();
  return verifyElementType(op, "result", resultType, gradType.getElementType(),
                           widenableResults(op));
}
} // namespace

LogicalResult Conv2DInputGradOp::verify() {
  return verifyConv2DGrad(*this, getConvAttrs(*this), getGrad(), getWeight(),
                          "weight", getResult(), /*resultIsInput=*/true);
}

LogicalResult Conv2DWeightGradOp::verify() {
  return verifyConv2DGrad(*this, getConvAttrs(*this), getGrad(), getInput(),
                          "input", getResult(), /*resultIsInput=*/false);
}

//===----------------------------------------------------------------------===//
// Reductions and softmax
//===----------------------------------------------------------------------===//

namespace {
template <typename OpTy> LogicalResult verifyReduction(OpTy op) {
  ShapedType input = shapedType(op.getInput());
  ShapedType result = shapedType(op.getResult());
  if (op.getAxes().empty())
    return op.emitOpError() << "needs at least one axis";
  FailureOr<Shape> axes = normalizeAxes(op, op.getAxes(), input.getRank());
  if (failed(axes))
    return failure();
  Shape expected = reducedShape(input.getShape(), *axes, op.getKeepDims());
  if (failed(verifyShape(op, "result", result, expected)))
    return failure();
  return verifyElementType(op, "result", result, input.getElementType(),
                           widenableResults(op));
}
} // namespace

LogicalResult ReduceSumOp::verify() { return verifyReduction(*this); }
LogicalResult ReduceMeanOp::verify() { return verifyReduction(*this); }
LogicalResult ReduceMaxOp::verify() { return verifyReduction(*this); }

namespace {
LogicalResult verifyAxisOf(Operation *op, int64_t axis, Value value) {
  return normalizeAxis(op, "axis", axis, shapedType(value).getRank());
}
} // namespace

LogicalResult SoftmaxOp::verify() {
  return verifyAxisOf(*this, getAxis(), getInput());
}
LogicalResult LogSoftmaxOp::verify() {
  return verifyAxisOf(*this, getAxis(), getInput());
}
LogicalResult SoftmaxGradOp::verify() {
  return verifyAxisOf(*this, getAxis(), getGrad());
}
LogicalResult LogSoftmaxGradOp::verify() {
  return verifyAxisOf(*this, getAxis(), getGrad());
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

namespace {
/// The operands both attention ops share and the attributes that constrain
/// them.
struct AttentionOperands {
  Value query, key, value, mask, seed;
  double scale, dropout;
};

/// Checks the shared operands; returns q's shape [B, Hq, Sq, D] with v's
/// Dv in place of D: the output's shape.
FailureOr<Shape> verifyAttentionOperands(Operation *op,
                                         const AttentionOperands &operands) {
  ShapedType q = shapedType(operands.query), k = shapedType(operands.key),
             v = shapedType(operands.value);
  if (failed(verifyRank(op, "query", q, 4)) ||
      failed(verifyRank(op, "key", k, 4)) ||
      failed(verifyRank(op, "value", v, 4)) ||
      failed(verifyElementType(op, "key", k, q.getElementType(), false)) ||
      failed(verifyElementType(op, "value", v, q.getElementType(), false)))
    return failure();
  ArrayRef<int64_t> qs = q.getShape(), ks = k.getShape(), vs = v.getShape();
  int64_t b = qs[0], hq = qs[1], sq = qs[2], hkv = ks[1], skv = ks[2];
  if (failed(verifyShape(op, "key", k, {b, hkv, skv, qs[3]})) ||
      failed(verifyShape(op, "value", v, {b, hkv, skv, vs[3]})))
    return failure();
  if (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hkv) &&
      (hkv == 0 || hq % hkv != 0))
    return op->emitOpError()
           << "query heads (" << hq << ") must be a multiple of key heads ("
           << hkv << ")";
  if (!std::isfinite(operands.scale))
    return op->emitOpError() << "scale must be finite";
  if (!(operands.dropout >= 0 && operands.dropout < 1))
    return op->emitOpError()
           << "dropout " << operands.dropout << " is out of range [0, 1)";
  if ((operands.dropout > 0) != static_cast<bool>(operands.seed))
    return op->emitOpError() << (operands.seed ? "seed given without dropout"
                                               : "dropout needs a seed");
  if (Value mask = operands.mask) {
    ShapedType m = shapedType(mask);
    if (failed(verifyRank(op, "mask", m, 4)))
      return failure();
    ArrayRef<int64_t> ms = m.getShape();
    Shape expected = {ms[0] == 1 ? 1 : b, ms[1] == 1 ? 1 : hq, sq, skv};
    if (failed(verifyShape(op, "mask", m, expected)))
      return failure();
    if (!m.getElementType().isInteger(1) &&
        failed(verifyElementType(op, "mask", m, q.getElementType(), true)))
      return failure();
  }
  return Shape{b, hq, sq, vs[3]};
}

/// The log-sum-exp statistics: f32 [B, Hq, Sq].
LogicalResult verifyAttentionLse(Operation *op, Value lse,
                                 ArrayRef<int64_t> output) {
  return verifyShape(op, "lse", shapedType(lse), output.drop_back());
}

template <typename OpTy> AttentionOperands attentionOperands(OpTy op) {
  return {op.getQuery(),
          op.getKey(),
          op.getValue(),
          op.getMask(),
          op.getSeed(),
          op.getScale().convertToDouble(),
          op.getDropout().convertToDouble()};
}
} // namespace

LogicalResult AttentionOp::verify() {
  FailureOr<Shape> output =
      verifyAttentionOperands(*this, attentionOperands(*this));
  if (failed(output))
    return failure();
  ShapedType result = shapedType(getOutput());
  if (failed(verifyShape(*this, "output", result, *output)) ||
      failed(verifyElementType(*this, "output", result,
                               getQuery().getType().getElementType(), false)))
    return failure();
  return verifyAttentionLse(*this, getLse(), *output);
}

LogicalResult AttentionGradOp::verify() {
  FailureOr<Shape> output =
      verifyAttentionOperands(*this, attentionOperands(*this));
  if (failed(output))
    return failure();
  ShapedType forward = shapedType(getOutput());
  Type element = getQuery().getType().getElementType();
  if (failed(verifyShape(*this, "output", forward, *output)) ||
      failed(verifyElementType(*this, "output", forward, element, false)) ||
      failed(verifySameType(*this, "grad", getGrad(), forward)) ||
      failed(verifyAttentionLse(*this, getLse(), *output)))
    return failure();
  Value operands[] = {getQuery(), getKey(), getValue()};
  StringRef names[] = {"query_grad", "key_grad", "value_grad"};
  for (auto [gradient, operand, name] :
       llvm::zip_equal(getResults(), operands, names))
    if (failed(verifySameType(*this, name, gradient, operand.getType())))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

namespace {
/// What a normalization normalizes over and what its statistics look like.
struct NormShapes {
  Shape affine;    // shape of weight and bias
  Shape statistic; // shape of each statistic
};

/// Affine parameters: the normalized shape; the input's element type or f32.
LogicalResult verifyAffine(Operation *op, StringRef name, Value value,
                           const NormShapes &shapes, Type inputElement) {
  ShapedType type = shapedType(value);
  if (failed(verifyShape(op, name, type, shapes.affine)))
    return failure();
  return verifyElementType(op, name, type, inputElement, /*allowF32=*/true);
}

/// Statistics are f32 by construction (see AMP_F32Tensor); check the shape.
LogicalResult verifyStatistic(Operation *op, StringRef name, Value value,
                              const NormShapes &shapes) {
  return verifyShape(op, name, shapedType(value), shapes.statistic);
}

FailureOr<NormShapes> layerNormShapes(Operation *op, Value input,
                                      int64_t axis) {
  ShapedType type = shapedType(input);
  if (failed(verifyMinRank(op, "input", type, 1)))
    return failure();
  FailureOr<int64_t> begin = normalizeAxis(op, "axis", axis, type.getRank());
  if (failed(begin))
    return failure();
  ArrayRef<int64_t> shape = type.getShape();
  return NormShapes{Shape(shape.drop_front(*begin)),
                    Shape(shape.take_front(*begin))};
}

FailureOr<NormShapes> groupNormShapes(Operation *op, Value input,
                                      int64_t numGroups) {
  ShapedType type = shapedType(input);
  if (failed(verifyMinRank(op, "input", type, 2)))
    return failure();
  if (numGroups < 1)
    return op->emitOpError()
           << "num_groups must be positive, got " << numGroups;
  int64_t channels = type.getDimSize(1);
  if (!ShapedType::isDynamic(channels) && channels % numGroups != 0)
    return op->emitOpError()
           << "channels " << channels << " are not divisible by num_groups "
           << numGroups;
  return NormShapes{{channels}, {type.getDimSize(0), numGroups}};
}

FailureOr<NormShapes> batchNormShapes(Operation *op, Value input) {
  ShapedType type = shapedType(input);
  if (failed(verifyMinRank(op, "input", type, 2)))
    return failure();
  return NormShapes{{type.getDimSize(1)}, {type.getDimSize(1)}};
}

LogicalResult verifyEpsilon(Operation *op, double epsilon) {
  if (epsilon >= 0 && std::isfinite(epsilon))
    return success();
  return op->emitOpError() << "epsilon must be non-negative and finite, got "
                           << epsilon;
}

using NamedStatistic = std::pair<Value, StringRef>;

/// The operands and results every forward normalization shares, in this
/// order: epsilon, `extra` (the op's own attribute checks), weight, bias
/// (null where the op has none), an output of the input's type and the
/// statistics.
LogicalResult verifyNormForward(Operation *op, FailureOr<NormShapes> shapes,
                                double epsilon, Value input, Value weight,
                                Value bias, Value output,
                                ArrayRef<NamedStatistic> statistics,
                                function_ref<LogicalResult()> extra = nullptr) {
  if (failed(shapes) || failed(verifyEpsilon(op, epsilon)) ||
      (extra && failed(extra())))
    return failure();
  Type element = shapedType(input).getElementType();
  if (failed(verifyAffine(op, "weight", weight, *shapes, element)) ||
      (bias && failed(verifyAffine(op, "bias", bias, *shapes, element))) ||
      failed(verifySameType(op, "output", output, input.getType())))
    return failure();
  for (auto [value, name] : statistics)
    if (failed(verifyStatistic(op, name, value, *shapes)))
      return failure();
  return success();
}

/// The operands and results every normalization gradient shares: `grad` and
/// `input_grad` have the input's type, the weight gradient the weight's, and
/// the statistics their forward shape.
LogicalResult verifyNormGrad(Operation *op, FailureOr<NormShapes> shapes,
                             Value grad, Value input, ValueRange statistics,
                             ArrayRef<StringRef> statisticNames, Value weight,
                             Value inputGrad, ValueRange affineGrads) {
  static constexpr StringRef affineGradNames[] = {"weight_grad", "bias_grad"};
  if (failed(shapes))
    return failure();
  Type inputType = input.getType();
  if (failed(verifySameType(op, "grad", grad, inputType)) ||
      failed(verifySameType(op, "input_grad", inputGrad, inputType)) ||
      failed(verifyAffine(op, "weight", weight, *shapes,
                          shapedType(input).getElementType())))
    return failure();
  for (auto [value, name] : llvm::zip(statistics, statisticNames))
    if (failed(verifyStatistic(op, name, value, *shapes)))
      return failure();
  for (auto [affineGrad, name] : llvm::zip(affineGrads, affineGradNames))
    if (failed(verifySameType(op, name, affineGrad, weight.getType())))
      return failure();
  return success();
}
} // namespace

LogicalResult LayerNormOp::verify() {
  return verifyNormForward(*this, layerNormShapes(*this, getInput(), getAxis()),
                           getEpsilon().convertToDouble(), getInput(),
                           getWeight(), getBias(), getOutput(),
                           {{getMean(), "mean"}, {getRstd(), "rstd"}});
}

LogicalResult LayerNormGradOp::verify() {
  return verifyNormGrad(*this, layerNormShapes(*this, getInput(), getAxis()),
                        getGrad(), getInput(), {getMean(), getRstd()},
                        {"mean", "rstd"}, getWeight(), getInputGrad(),
                        {getWeightGrad(), getBiasGrad()});
}

LogicalResult RmsNormOp::verify() {
  return verifyNormForward(*this, layerNormShapes(*this, getInput(), getAxis()),
                           getEpsilon().convertToDouble(), getInput(),
                           getWeight(), /*bias=*/Value(), getOutput(),
                           {{getRstd(), "rstd"}});
}

LogicalResult RmsNormGradOp::verify() {
  return verifyNormGrad(*this, layerNormShapes(*this, getInput(), getAxis()),
                        getGrad(), getInput(), {getRstd()}, {"rstd"},
                        getWeight(), getInputGrad(), {getWeightGrad()});
}

LogicalResult GroupNormOp::verify() {
  return verifyNormForward(
      *this, groupNormShapes(*this, getInput(), getNumGroups()),
      getEpsilon().convertToDouble(), getInput(), getWeight(), getBias(),
      getOutput(), {{getMean(), "mean"}, {getRstd(), "rstd"}});
}

LogicalResult GroupNormGradOp::verify() {
  return verifyNormGrad(
      *this, groupNormShapes(*this, getInput(), getNumGroups()), getGrad(),
      getInput(), {getMean(), getRstd()}, {"mean", "rstd"}, getWeight(),
      getInputGrad(), {getWeightGrad(), getBiasGrad()});
}

LogicalResult BatchNormOp::verify() {
  auto verifyMomentum = [&]() -> LogicalResult {
    double momentum = getMomentum().convertToDouble();
    if (!(momentum >= 0 && momentum <= 1))
      return emitOpError() << "momentum must be in [0, 1], got " << momentum;
    return success();
  };
  return verifyNormForward(*this, batchNormShapes(*this, getInput()),
                           getEpsilon().convertToDouble(), getInput(),
                           getWeight(), getBias(), getOutput(),
                           {{getRunningMean(), "running_mean"},
                            {getRunningVar(), "running_var"},
                            {getSavedMean(), "saved_mean"},
                            {getSavedRstd(), "saved_rstd"},
                            {getNewRunningMean(), "new_running_mean"},
                            {getNewRunningVar(), "new_running_var"}},
                           verifyMomentum);
}

LogicalResult BatchNormGradOp::verify() {
  return verifyNormGrad(*this, batchNormShapes(*this, getInput()), getGrad(),
                        getInput(), {getSavedMean(), getSavedRstd()},
                        {"saved_mean", "saved_rstd"}, getWeight(),
                        getInputGrad(), {getWeightGrad(), getBiasGrad()});
}

//===----------------------------------------------------------------------===//
// Precision answers of the normalizations
//===----------------------------------------------------------------------===//
//
// Statistics are the operands and results typed AMP_F32Tensor in ODS. The
// affine parameters (weight, bias) are what verifyAffine accepts as f32 next
// to a low-precision input, and the backward ops return their gradients in
// the parameters' type.

namespace {
bool isOneOf(unsigned index, std::initializer_list<unsigned> indices) {
  return llvm::is_contained(indices, index);
}

/// The operand `affine` when result `index` is one of `gradients`.
std::optional<unsigned> tiedIf(unsigned index,
                               std::initializer_list<unsigned> gradients,
                               unsigned affine) {
  if (isOneOf(index, gradients))
    return affine;
  return std::nullopt;
}
} // namespace

bool LayerNormOp::isStatisticOperand(unsigned) { return false; }
bool LayerNormOp::isStatisticResult(unsigned i) { return isOneOf(i, {1, 2}); }
bool LayerNormOp::isF32CompatibleOperand(unsigned i) {
  return isOneOf(i, {1, 2});
}
std::optional<unsigned> LayerNormOp::getTypeTiedOperand(unsigned) {
  return std::nullopt;
}
bool LayerNormGradOp::isStatisticOperand(unsigned i) {
  return isOneOf(i, {2, 3});
}
bool LayerNormGradOp::isStatisticResult(unsigned) { return false; }
bool LayerNormGradOp::isF32CompatibleOperand(unsigned i) { return i == 4; }
std::optional<unsigned> LayerNormGradOp::getTypeTiedOperand(unsigned i) {
  return tiedIf(i, {1, 2}, 4);
}
bool RmsNormOp::isStatisticOperand(unsigned) { return false; }
bool RmsNormOp::isStatisticResult(unsigned i) { return i == 1; }
bool RmsNormOp::isF32CompatibleOperand(unsigned i) { return i == 1; }
std::optional<unsigned> RmsNormOp::getTypeTiedOperand(unsigned) {
  return std::nullopt;
}
bool RmsNormGradOp::isStatisticOperand(unsigned i) { return i == 2; }
bool RmsNormGradOp::isStatisticResult(unsigned) { return false; }
bool RmsNormGradOp::isF32CompatibleOperand(unsigned i) { return i == 3; }
std::optional<unsigned> RmsNormGradOp::getTypeTiedOperand(unsigned i) {
  return tiedIf(i, {1}, 3);
}
bool GroupNormOp::isStatisticOperand(unsigned) { return false; }
bool GroupNormOp::isStatisticResult(unsigned i) { return isOneOf(i, {1, 2}); }
bool GroupNormOp::isF32CompatibleOperand(unsigned i) {
  return isOneOf(i, {1, 2});
}
std::optional<unsigned> GroupNormOp::getTypeTiedOperand(unsigned) {
  return std::nullopt;
}
bool GroupNormGradOp::isStatisticOperand(unsigned i) {
  return isOneOf(i, {2, 3});
}
bool GroupNormGradOp::isStatisticResult(unsigned) { return false; }
bool GroupNormGradOp::isF32CompatibleOperand(unsigned i) { return i == 4; }
std::optional<unsigned> GroupNormGradOp::getTypeTiedOperand(unsigned i) {
  return tiedIf(i, {1, 2}, 4);
}
bool BatchNormOp::isStatisticOperand(unsigned i) { return isOneOf(i, {3, 4}); }
bool BatchNormOp::isStatisticResult(unsigned i) {
  return isOneOf(i, {1, 2, 3, 4});
}
bool BatchNormOp::isF32CompatibleOperand(unsigned i) {
  return isOneOf(i, {1, 2});
}
std::optional<unsigned> BatchNormOp::getTypeTiedOperand(unsigned) {
  return std::nullopt;
}
bool BatchNormGradOp::isStatisticOperand(unsigned i) {
  return isOneOf(i, {2, 3});
}
bool BatchNormGradOp::isStatisticResult(unsigned) { return false; }
bool BatchNormGradOp::isF32CompatibleOperand(unsigned i) { return i == 4; }
std::optional<unsigned> BatchNormGradOp::getTypeTiedOperand(unsigned i) {
  return tiedIf(i, {1, 2}, 4);
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

namespace {
struct Pool2DAttrs {
  ArrayRef<int64_t> kernel, stride, padding;
};

template <typename OpTy> Pool2DAttrs getPoolAttrs(OpTy op) {
  return {op.getKernelSize(), op.getStride(), op.getPadding()};
}

/// Checks a pooling window and that `output` is what pooling `input` gives.
LogicalResult verifyPool2D(Operation *op, const Pool2DAttrs &attrs,
                           ShapedType input, ShapedType output,
                           std::array<StringRef, 2> names) {
  if (failed(verifyArraySize(op, "kernel_size", attrs.kernel, 2)) ||
      failed(verifyAllPositive(op, "kernel_size", attrs.kernel)) ||
      failed(verifyArraySize(op, "stride", attrs.stride, 2)) ||
      failed(verifyAllPositive(op, "stride", attrs.stride)) ||
      failed(verifyArraySize(op, "padding", attrs.padding, 4)) ||
      failed(verifyAllNonNegative(op, "padding", attrs.padding)))
    return failure();
  for (int i = 0; i < 4; ++i)
    if (attrs.padding[i] > attrs.kernel[i % 2] / 2)
      return op->emitOpError()
             << "padding " << attrs.padding[i]
             << " is more than half the kernel size " << attrs.kernel[i % 2];
  if (failed(verifyRank(op, names[0], input, 4)) ||
      failed(verifyRank(op, names[1], output, 4)))
    return failure();
  Shape expected = {input.getDimSize(0), input.getDimSize(1)};
  int64_t noDilation[] = {1, 1};
  if (failed(windowOutputHW(op, input.getShape(), attrs.kernel, attrs.stride,
                            attrs.padding, noDilation, expected)))
    return failure();
  return verifyShape(op, names[1], output, expected);
}
} // namespace

LogicalResult MaxPool2DOp::verify() {
  return verifyPool2D(*this, getPoolAttrs(*this), shapedType(getInput()),
                      shapedType(getResult()), {"input", "result"});
}

LogicalResult AvgPool2DOp::verify() {
  return verifyPool2D(*this, getPoolAttrs(*this), shapedType(getInput()),
                      shapedType(getResult()), {"input", "result"});
}

LogicalResult MaxPool2DGradOp::verify() {
  if (failed(
          verifySameType(*this, "result", getResult(), getInput().getType())))
    return failure();
  return verifyPool2D(*this, getPoolAttrs(*this), shapedType(getInput()),
                      shapedType(getGrad()), {"input", "grad"});
}

LogicalResult AvgPool2DGradOp::verify() {
  return verifyPool2D(*this, getPoolAttrs(*this), shapedType(getResult()),
                      shapedType(getGrad()), {"result", "grad"});
}

LogicalResult GlobalAvgPoolOp::verify() {
  ShapedType input = shapedType(getInput());
  if (failed(verifyMinRank(*this, "input", input, 3)))
    return failure();
  Shape expected(input.getShape().take_front(2));
  expected.append(input.getRank() - 2, 1);
  return verifyShape(*this, "result", shapedType(getResult()), expected);
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  ShapedType input = shapedType(getInput()), result = shapedType(getResult());
  if (!input.hasStaticShape() || !result.hasStaticShape())
    return success();
  std::optional<int64_t> in = elementCount(input.getShape());
  std::optional<int64_t> out = elementCount(result.getShape());
  if (!in || !out)
    return emitOpError() << "element count overflows int64";
  if (*in != *out)
    return emitOpError() << "input has " << *in << " elements but result has "
                         << *out;
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto producer = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(producer.getInput());
    return getResult();
  }
  auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  if (dense && cast<ShapedType>(getType()).hasStaticShape())
    return dense.reshape(cast<ShapedType>(getType()));
  return {};
}

namespace {
bool isPermutation(ArrayRef<int64_t> permutation) {
  SmallVector<bool> seen(permutation.size(), false);
  for (int64_t index : permutation) {
    if (index < 0 || index >= static_cast<int64_t>(permutation.size()) ||
        seen[index])
      return false;
    seen[index] = true;
  }
  return true;
}
} // namespace

LogicalResult TransposeOp::verify() {
  ShapedType input = shapedType(getInput());
  ArrayRef<int64_t> permutation = getPermutation();
  if (static_cast<int64_t>(permutation.size()) != input.getRank())
    return emitOpError() << "permutation has " << permutation.size()
                         << " entries but the input has rank "
                         << input.getRank();
  if (!isPermutation(permutation))
    return emitOpError() << "permutation is not a permutation of [0, "
                         << input.getRank() << ")";
  Shape expected;
  for (int64_t index : permutation)
    expected.push_back(input.getDimSize(index));
  return verifyShape(*this, "result", shapedType(getResult()), expected);
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> permutation = getPermutation();
  if (llvm::equal(permutation, llvm::seq<int64_t>(0, permutation.size())))
    return getInput();
  // transpose(transpose(x, p), q) is transpose(x, p o q).
  if (auto producer = getInput().getDefiningOp<TransposeOp>()) {
    ArrayRef<int64_t> inner = producer.getPermutation();
    Shape composed;
    for (int64_t index : permutation)
      composed.push_back(inner[index]);
    getInputMutable().assign(producer.getInput());
    setPermutation(composed);
    return getResult();
  }
  return {};
}

LogicalResult BroadcastOp::verify() {
  ArrayRef<int64_t> in = shapedType(getInput()).getShape();
  ArrayRef<int64_t> out = shapedType(getResult()).getShape();
  if (in.size() > out.size())
    return emitOpError() << "cannot broadcast rank " << in.size()
                         << " to the lower rank " << out.size();
  size_t offset = out.size() - in.size();
  for (auto [index, dim] : llvm::enumerate(in)) {
    int64_t target = out[offset + index];
    if (dim != 1 && !dimsMatch(dim, target))
      return emitOpError() << "input dimension " << index << " (" << dim
                           << ") is neither 1 nor the result's " << target;
  }
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto splat = dyn_cast_or_null<SplatElementsAttr>(adaptor.getInput());
  if (splat && cast<ShapedType>(getType()).hasStaticShape())
    return SplatElementsAttr::get(cast<ShapedType>(getType()),
                                  splat.getSplatValue<Attribute>());
  return {};
}

namespace {
/// Computes the shape of `input[starts:limits:strides]`.
FailureOr<Shape> sliceShape(Operation *op, ShapedType input,
                            ArrayRef<int64_t> starts, ArrayRef<int64_t> limits,
                            ArrayRef<int64_t> strides) {
  size_t rank = input.getRank();
  if (failed(verifyArraySize(op, "starts", starts, rank)) ||
      failed(verifyArraySize(op, "limits", limits, rank)) ||
      failed(verifyArraySize(op, "strides", strides, rank)) ||
      failed(verifyAllPositive(op, "strides", strides)))
    return failure();
  Shape shape;
  for (size_t i = 0; i < rank; ++i) {
    int64_t dim = input.getDimSize(i);
    if (starts[i] < 0 || starts[i] > limits[i] ||
        (!ShapedType::isDynamic(dim) && limits[i] > dim))
      return op->emitOpError()
             << "slice [" << starts[i] << ", " << limits[i] << ") of dimension "
             << i << " is outside [0, " << formatDim(dim) << "]";
    shape.push_back(llvm::divideCeil(limits[i] - starts[i], strides[i]));
  }
  return shape;
}
} // namespace

LogicalResult SliceOp::verify() {
  FailureOr<Shape> expected = sliceShape(
      *this, shapedType(getInput()), getStarts(), getLimits(), getStrides());
  if (failed(expected))
    return failure();
  return verifyShape(*this, "result", shapedType(getResult()), *expected);
}

LogicalResult SliceGradOp::verify() {
  FailureOr<Shape> expected = sliceShape(
      *this, shapedType(getResult()), getStarts(), getLimits(), getStrides());
  if (failed(expected))
    return failure();
  return verifyShape(*this, "grad", shapedType(getGrad()), *expected);
}

LogicalResult ConcatOp::verify() {
  ShapedType result = shapedType(getResult());
  FailureOr<int64_t> axis =
      normalizeAxis(*this, "axis", getAxis(), result.getRank());
  if (failed(axis))
    return failure();
  Shape expected(result.getShape());
  expected[*axis] = 0;
  for (auto [index, value] : llvm::enumerate(getInputs())) {
    ShapedType type = shapedType(value);
    if (type.getRank() != result.getRank())
      return emitOpError() << "input #" << index << " has rank "
                           << type.getRank() << " but the result has rank "
                           << result.getRank();
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (d != *axis && !dimsMatch(type.getDimSize(d), result.getDimSize(d)))
        return emitOpError() << "input #" << index << " has size "
                             << type.getDimSize(d) << " in dimension " << d
                             << " but the result has " << result.getDimSize(d);
    int64_t size = type.getDimSize(*axis);
    expected[*axis] =
        ShapedType::isDynamic(size) || ShapedType::isDynamic(expected[*axis])
            ? ShapedType::kDynamic
            : expected[*axis] + size;
  }
  return verifyShape(*this, "result", result, expected);
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs().front().getType() == getType())
    return getInputs().front();
  return {};
}

namespace {
/// Shape of gathering `indices` along `axis` of `input`.
FailureOr<Shape> gatherShape(Operation *op, ShapedType input,
                             ShapedType indices, int64_t axis) {
  FailureOr<int64_t> normalized =
      normalizeAxis(op, "axis", axis, input.getRank());
  if (failed(normalized))
    return failure();
  ArrayRef<int64_t> shape = input.getShape();
  Shape result(shape.take_front(*normalized));
  llvm::append_range(result, indices.getShape());
  llvm::append_range(result, shape.drop_front(*normalized + 1));
  return result;
}

/// `padding_idx` names a row of the table: only gathers along axis 0 have
/// rows, and an index outside the table would never match an entry.
LogicalResult verifyPaddingIndex(Operation *op, std::optional<int64_t> padding,
                                 int64_t axis, ShapedType table) {
  if (!padding)
    return success();
  if (axis != 0 && axis != -table.getRank())
    return op->emitOpError()
           << "padding_idx requires axis 0 (an embedding table), got axis "
           << axis;
  int64_t rows = table.getDimSize(0);
  if (*padding < 0 || (!ShapedType::isDynamic(rows) && *padding >= rows))
    return op->emitOpError()
           << "padding_idx " << *padding << " is not a row of the table (dim 0 "
           << "has size " << rows << ")";
  return success();
}
} // namespace

LogicalResult GatherOp::verify() {
  FailureOr<Shape> expected = gatherShape(*this, shapedType(getInput()),
                                          shapedType(getIndices()), getAxis());
  if (failed(expected) ||
      failed(
          verifyShape(*this, "result", shapedType(getResult()), *expected)) ||
      failed(verifyPaddingIndex(*this, getPaddingIdx(), getAxis(),
                                shapedType(getInput()))))
    return failure();
  return verifyElementType(*this, "result", shapedType(getResult()),
                           shapedType(getInput()).getElementType(),
                           /*allowF32=*/false);
}

LogicalResult GatherGradOp::verify() {
  FailureOr<Shape> expected = gatherShape(*this, shapedType(getResult()),
                                          shapedType(getIndices()), getAxis());
  if (failed(expected) ||
      failed(verifyShape(*this, "grad", shapedType(getGrad()), *expected)) ||
      failed(verifyPaddingIndex(*this, getPaddingIdx(), getAxis(),
                                shapedType(getResult()))))
    return failure();
  return verifyElementType(*this, "result", shapedType(getResult()),
                           shapedType(getGrad()).getElementType(),
                           widenableResults(*this));
}

namespace {
/// gather_elements' index relation: `indices` has the rank of the gathered
/// (`data`) tensor and, away from `axis`, no more elements than it.
LogicalResult verifyElementIndices(Operation *op, ShapedType data,
                                   StringRef dataName, ShapedType indices,
                                   int64_t axis) {
  if (failed(verifyRank(op, "indices", indices, data.getRank())))
    return failure();
  FailureOr<int64_t> normalized =
      normalizeAxis(op, "axis", axis, data.getRank());
  if (failed(normalized))
    return failure();
  for (int64_t d = 0; d < data.getRank(); ++d) {
    int64_t size = indices.getDimSize(d), limit = data.getDimSize(d);
    if (d != *normalized && !ShapedType::isDynamic(size) &&
        !ShapedType::isDynamic(limit) && size > limit)
      return op->emitOpError()
             << "indices have size " << size << " in dimension " << d
             << " but the " << dataName << " has " << limit
             << " (only the axis may be longer)";
  }
  return success();
}
} // namespace

LogicalResult GatherElementsOp::verify() {
  ShapedType input = shapedType(getInput()), indices = shapedType(getIndices());
  if (input.getRank() == 0)
    return emitOpError() << "input must have rank at least 1";
  if (failed(verifyElementIndices(*this, input, "input", indices, getAxis())) ||
      failed(verifyShape(*this, "result", shapedType(getResult()),
                         indices.getShape())))
    return failure();
  return verifyElementType(*this, "result", shapedType(getResult()),
                           input.getElementType(), /*allowF32=*/false);
}

LogicalResult ScatterAddElementsOp::verify() {
  ShapedType result = shapedType(getResult()),
             indices = shapedType(getIndices());
  if (result.getRank() == 0)
    return emitOpError() << "result must have rank at least 1";
  if (failed(
          verifyElementIndices(*this, result, "result", indices, getAxis())) ||
      failed(verifyShape(*this, "grad", shapedType(getGrad()),
                         indices.getShape())))
    return failure();
  return verifyElementType(*this, "result", result,
                           shapedType(getGrad()).getElementType(),
                           widenableResults(*this));
}

void CheckIndicesOp::build(OpBuilder &builder, OperationState &state,
                           Value indices, int64_t lower, int64_t upper) {
  build(builder, state, RankedTensorType::get({}, builder.getI1Type()),
        RankedTensorType::get({2}, builder.getI64Type()), indices,
        builder.getI64IntegerAttr(lower), builder.getI64IntegerAttr(upper));
}

LogicalResult CheckIndicesOp::verify() {
  if (getLower() >= getUpper())
    return emitOpError() << "needs lower < upper, got [" << getLower() << ", "
                         << getUpper() << ")";
  return verifyShape(*this, "range", shapedType(getRange()), {2});
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  if (getTrueValue() == getFalseValue())
    return getTrueValue();
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(adaptor.getCondition()))
    return splat.getSplatValue<bool>() ? getTrueValue() : getFalseValue();
  return {};
}

//===----------------------------------------------------------------------===//
// Dropout and losses
//===----------------------------------------------------------------------===//

namespace {
LogicalResult verifyProbability(Operation *op, APFloat probability) {
  double p = probability.convertToDouble();
  if (p >= 0 && p < 1) // false for NaN
    return success();
  return op->emitOpError() << "probability must be in [0, 1), got " << p;
}

LogicalResult verifyClassification(Operation *op, Value logits, Value labels) {
  ShapedType logitsType = shapedType(logits), labelsType = shapedType(labels);
  if (failed(verifyRank(op, "logits", logitsType, 2)))
    return failure();
  return verifyShape(op, "labels", labelsType, {logitsType.getDimSize(0)});
}
} // namespace

LogicalResult DropoutOp::verify() {
  return verifyProbability(*this, getProbability());
}
LogicalResult DropoutGradOp::verify() {
  return verifyProbability(*this, getProbability());
}
LogicalResult CrossEntropyOp::verify() {
  return verifyClassification(*this, getLogits(), getLabels());
}
LogicalResult CrossEntropyGradOp::verify() {
  return verifyClassification(*this, getLogits(), getLabels());
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

namespace {
/// A conversion that keeps every value: the identity or a widening to f32.
bool isExactConversion(Type from, Type to) {
  return from == to || (to.isF32() && isa<Float16Type, BFloat16Type>(from));
}

Type elementTypeOf(Value value) { return shapedType(value).getElementType(); }
} // namespace

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // cast(cast(x : A -> B) -> C) is cast(x : A -> C) when A -> B is exact.
  auto producer = getInput().getDefiningOp<CastOp>();
  if (!producer || !isExactConversion(elementTypeOf(producer.getInput()),
                                      elementTypeOf(producer.getResult())))
    return {};
  if (producer.getInput().getType() == getType())
    return producer.getInput();
  getInputMutable().assign(producer.getInput());
  return getResult();
}

//===----------------------------------------------------------------------===//
// FP8
//===----------------------------------------------------------------------===//

LogicalResult Fp8QuantizeOp::verify() {
  return verifyShape(*this, "result", shapedType(getResult()),
                     shapedType(getInput()).getShape());
}

LogicalResult Fp8MatmulOp::verify() {
  ShapedType lhs = shapedType(getLhs()), rhs = shapedType(getRhs());
  if (failed(verifyRank(*this, "lhs", lhs, 2)) ||
      failed(verifyRank(*this, "rhs", rhs, 2)))
    return failure();
  if (isa<Float8E5M2Type>(lhs.getElementType()) &&
      isa<Float8E5M2Type>(rhs.getElementType()))
    return emitOpError() << "cannot multiply two f8E5M2 operands (FP8 GEMMs "
                            "take e4m3 x e4m3, e4m3 x e5m2 or e5m2 x e4m3)";
  int64_t m = lhs.getDimSize(0), lk = lhs.getDimSize(1);
  if (getTransposeLhs())
    std::swap(m, lk);
  int64_t rk = rhs.getDimSize(0), n = rhs.getDimSize(1);
  if (getTransposeRhs())
    std::swap(rk, n);
  if (!dimsMatch(lk, rk))
    return emitOpError() << "contraction dimensions differ: lhs has " << lk
                         << ", rhs has " << rk;
  ShapedType result = shapedType(getResult());
  if (failed(verifyShape(*this, "result", result, {m, n})))
    return failure();
  if (Value bias = getBias()) {
    ShapedType biasType = shapedType(bias);
    if (failed(verifyShape(*this, "bias", biasType, {n})) ||
        failed(verifyElementType(*this, "bias", biasType,
                                 result.getElementType(),
                                 /*allowF32=*/false)))
      return failure();
  }
  return success();
}

double Fp8MatmulOp::estimateFlops() {
  ShapedType lhs = shapedType(getLhs());
  int64_t k = lhs.getDimSize(getTransposeLhs() ? 0 : 1);
  return 2.0 * double(amp::detail::getNumElements(getResult().getType())) *
         double(k);
}

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

namespace {
/// `results[i]` must have `inputs[i]`'s shape and its element type or f32.
LogicalResult verifyPerGradient(Operation *op, ValueRange inputs,
                                ValueRange results, StringRef resultName) {
  if (inputs.empty())
    return op->emitOpError() << "needs at least one gradient";
  if (inputs.size() != results.size())
    return op->emitOpError() << "has " << inputs.size() << " gradients but "
                             << results.size() << " " << resultName;
  for (auto [index, pair] : llvm::enumerate(llvm::zip(inputs, results))) {
    auto [input, result] = pair;
    ShapedType in = shapedType(input), out = shapedType(result);
    std::string what = (resultName + " #" + Twine(index)).str();
    if (failed(verifyShape(op, what, out, in.getShape())) ||
        failed(verifyElementType(op, what, out, in.getElementType(),
                                 /*allowF32=*/true)))
      return failure();
  }
  return success();
}
} // namespace

LogicalResult UnscaleGradsOp::verify() {
  return verifyPerGradient(*this, getGradients(), getUnscaled(), "unscaled");
}

LogicalResult UpdateScaleOp::verify() {
  double growth = getGrowthFactor().convertToDouble();
  double backoff = getBackoffFactor().convertToDouble();
  double minScale = getMinScale().convertToDouble();
  double maxScale = getMaxScale().convertToDouble();
  if (!(growth > 1) || std::isinf(growth))
    return emitOpError() << "growth_factor must be finite and greater than 1, "
                            "got "
                         << growth;
  if (!(backoff > 0 && backoff < 1))
    return emitOpError() << "backoff_factor must be in (0, 1), got " << backoff;
  if (getGrowthInterval() < 1)
    return emitOpError() << "growth_interval must be positive, got "
                         << getGrowthInterval();
  if (getHysteresis() < 1)
    return emitOpError() << "hysteresis must be positive, got "
                         << getHysteresis();
  if (!(minScale > 0) || !(minScale <= maxScale) || std::isinf(maxScale))
    return emitOpError() << "scale bounds must satisfy 0 < min_scale <= "
                            "max_scale < inf, got ["
                         << minScale << ", " << maxScale << "]";
  return success();
}

//===----------------------------------------------------------------------===//
// Optimizer
//===----------------------------------------------------------------------===//

void ClipGradNormOp::build(OpBuilder &builder, OperationState &state,
                           ValueRange gradients, double maxNorm) {
  build(builder, state, gradients.getTypes(),
        RankedTensorType::get({}, builder.getF32Type()), gradients,
        builder.getF64FloatAttr(maxNorm));
}

LogicalResult ClipGradNormOp::verify() {
  double maxNorm = getMaxNorm().convertToDouble();
  if (!(maxNorm > 0))
    return emitOpError() << "max_norm must be positive, got " << maxNorm;
  return verifyPerGradient(*this, getGradients(), getClipped(), "clipped");
}

namespace {
LogicalResult verifyNonNegative(Operation *op, StringRef name, APFloat value) {
  double v = value.convertToDouble();
  if (v >= 0 && std::isfinite(v))
    return success();
  return op->emitOpError() << name << " must be non-negative and finite, got "
                           << v;
}

/// The gradient of a parameter has its shape; its type may differ (f16).
LogicalResult verifyGradOf(Operation *op, Value grad, Value param) {
  return verifyShape(op, "grad", shapedType(grad),
                     shapedType(param).getShape());
}
} // namespace

LogicalResult SgdUpdateOp::verify() {
  double momentum = getMomentum().convertToDouble();
  double dampening = getDampening().convertToDouble();
  if (failed(verifyNonNegative(*this, "momentum", getMomentum())) ||
      failed(verifyNonNegative(*this, "weight_decay", getWeightDecay())))
    return failure();
  if (!(dampening >= 0 && dampening <= 1))
    return emitOpError() << "dampening must be in [0, 1], got " << dampening;
  if (getNesterov() && (momentum == 0 || dampening != 0))
    return emitOpError()
           << "nesterov requires a non-zero momentum and zero dampening";
  if (failed(verifyGradOf(*this, getGrad(), getParam())))
    return failure();
  bool hasBuffer = static_cast<bool>(getMomentumBuffer());
  if (hasBuffer != (momentum != 0))
    return emitOpError() << "momentum_buffer must be given exactly when "
                            "momentum is non-zero (momentum = "
                         << momentum << ")";
  if (hasBuffer != static_cast<bool>(getNewMomentumBuffer()))
    return emitOpError()
           << "returns a new momentum buffer exactly when it takes one";
  if (hasBuffer &&
      failed(verifySameType(*this, "momentum_buffer", getMomentumBuffer(),
                            getParam().getType())))
    return failure();
  if (failed(verifySameType(*this, "new_param", getNewParam(),
                            getParam().getType())))
    return failure();
  if (hasBuffer)
    return verifySameType(*this, "new_momentum_buffer", getNewMomentumBuffer(),
                          getParam().getType());
  return success();
}

// amp.sgd_update %p, %g [, momentum_buffer %m], lr %lr [, found_inf %f]
//     attr-dict : type(%p), type(%g)
ParseResult SgdUpdateOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand param, grad, buffer, lr, foundInf;
  bool hasBuffer = false, hasFoundInf = false;
  Type paramType, gradType;
  if (parser.parseOperand(param) || parser.parseComma() ||
      parser.parseOperand(grad) || parser.parseComma())
    return failure();
  if (succeeded(parser.parseOptionalKeyword("momentum_buffer"))) {
    hasBuffer = true;
    if (parser.parseOperand(buffer) || parser.parseComma())
      return failure();
  }
  if (parser.parseKeyword("lr") || parser.parseOperand(lr))
    return failure();
  if (succeeded(parser.parseOptionalComma())) {
    hasFoundInf = true;
    if (parser.parseKeyword("found_inf") || parser.parseOperand(foundInf))
      return failure();
  }
  if (parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(paramType) || parser.parseComma() ||
      parser.parseType(gradType))
    return failure();

  Builder &builder = parser.getBuilder();
  Type f32Scalar = RankedTensorType::get({}, builder.getF32Type());
  Type i1Scalar = RankedTensorType::get({}, builder.getI1Type());
  if (parser.resolveOperand(param, paramType, result.operands) ||
      parser.resolveOperand(grad, gradType, result.operands) ||
      (hasBuffer &&
       parser.resolveOperand(buffer, paramType, result.operands)) ||
      parser.resolveOperand(lr, f32Scalar, result.operands) ||
      (hasFoundInf &&
       parser.resolveOperand(foundInf, i1Scalar, result.operands)))
    return failure();
  result.getOrAddProperties<Properties>().operandSegmentSizes = {
      1, 1, hasBuffer ? 1 : 0, 1, hasFoundInf ? 1 : 0};
  result.addTypes(paramType);
  if (hasBuffer)
    result.addTypes(paramType);
  return success();
}

void SgdUpdateOp::print(OpAsmPrinter &p) {
  p << ' ' << getParam() << ", " << getGrad();
  if (Value buffer = getMomentumBuffer())
    p << ", momentum_buffer " << buffer;
  p << ", lr " << getLr();
  if (Value foundInf = getFoundInf())
    p << ", found_inf " << foundInf;
  // Like declarative formats, elide hyper-parameters at their default (0).
  SmallVector<StringRef> elided = {"operandSegmentSizes"};
  for (auto [name, value] :
       {std::pair(getMomentumAttrName(), getMomentum()),
        std::pair(getDampeningAttrName(), getDampening()),
        std::pair(getWeightDecayAttrName(), getWeightDecay())})
    if (value.isZero())
      elided.push_back(name);
  p.printOptionalAttrDict((*this)->getAttrs(), elided);
  p << " : " << getParam().getType() << ", " << getGrad().getType();
}

LogicalResult AdamWUpdateOp::verify() {
  double beta1 = getBeta1().convertToDouble();
  double beta2 = getBeta2().convertToDouble();
  if (!(beta1 >= 0 && beta1 < 1 && beta2 >= 0 && beta2 < 1))
    return emitOpError() << "betas must be in [0, 1), got (" << beta1 << ", "
                         << beta2 << ")";
  if (!(getEpsilon().convertToDouble() > 0) ||
      std::isinf(getEpsilon().convertToDouble()))
    return emitOpError() << "epsilon must be positive and finite, got "
                         << getEpsilon().convertToDouble();
  if (failed(verifyNonNegative(*this, "weight_decay", getWeightDecay())) ||
      failed(verifyGradOf(*this, getGrad(), getParam())))
    return failure();
  return verifyShape(*this, "exp_avg", shapedType(getExpAvg()),
                     shapedType(getParam()).getShape());
}

//===----------------------------------------------------------------------===//
// Precision answers of the other special ops
//===----------------------------------------------------------------------===//
//
// Everything not answered here comes from the op's traits (see
// AMPInterfaces.td). Each answer mirrors what the op's verifier accepts, so
// that an op retyped by the precision passes still verifies.

namespace {
double elements(Value value) {
  return static_cast<double>(amp::detail::getNumElements(value.getType()));
}

/// 2 * N * O * OH * OW * (C / groups) * KH * KW = 2 * |output| * |w| / O.
double convFlops(Value output, Value weight) {
  int64_t filters = shapedType(weight).getDimSize(0);
  if (filters <= 0)
    return 0;
  return 2.0 * elements(output) * elements(weight) / filters;
}

/// Ops computed in f32 from an exactly widened input: assigned f32, they
/// take a low-precision input without a cast of their own (the lowering
/// widens each element before any arithmetic).
OperandRole widensInputInF32(FloatType precision) {
  return precision.isF32() ? OperandRole::Flexible : OperandRole::Follows;
}

/// Losses' backward ops: the 0-d output gradient (operand 0) is f32.
OperandRole lossGradOperandRole(unsigned index) {
  return index == 0 ? OperandRole::F32 : OperandRole::Follows;
}
} // namespace

double MatmulOp::estimateFlops() {
  ShapedType lhs = shapedType(getLhs());
  int64_t k = getTransposeLhs() ? lhs.getDimSize(lhs.getRank() - 2)
                                : lhs.getDimSize(lhs.getRank() - 1);
  return 2.0 * elements(getResult()) * std::max<int64_t>(k, 1);
}

namespace {
/// Whether `index` is the operand of ODS operand group `group` (an
/// optional operand that is present).
bool isODSOperand(Operation *op, unsigned index,
                  std::pair<unsigned, unsigned> group) {
  return group.second == 1 && group.first == index;
}

/// The (query, key) pairs attention computes a score for, per batch and
/// head: all, or those with key <= query under `causal`.
double visiblePairs(Value query, Value key, bool causal) {
  double sq = shapedType(query).getDimSize(2);
  double skv = shapedType(key).getDimSize(2);
  if (!causal)
    return sq * skv;
  // Query i sees min(i + 1, skv) keys.
  double full = std::min(sq, skv);
  return full * (full + 1) / 2 + std::max(0.0, sq - skv) * skv;
}

/// 2 per multiply-add of the products: q k^T and p v forward; the backward
/// recomputes q k^T and forms dv, dp, dq and dk.
template <typename OpTy>
double attentionFlops(OpTy op, int64_t qkProducts, int64_t pvProducts) {
  ShapedType q = shapedType(op.getQuery());
  double batchHeads = q.getDimSize(0) * q.getDimSize(1);
  double d = q.getDimSize(3), dv = shapedType(op.getValue()).getDimSize(3);
  return 2.0 * batchHeads *
         visiblePairs(op.getQuery(), op.getKey(), op.getCausal()) *
         (qkProducts * d + pvProducts * dv);
}
} // namespace

// An additive mask is added to the f32 scores.
bool AttentionOp::isF32CompatibleOperand(unsigned i) {
  return isODSOperand(*this, i, getODSOperandIndexAndLength(3));
}
bool AttentionOp::isStatisticResult(unsigned i) { return i == 1; }
double AttentionOp::estimateFlops() { return attentionFlops(*this, 1, 1); }
// The mask gets no gradient: a float mask that depends on a parameter (a
// learned position bias) stays unfused (amp-raise-attention), and
// amp-autodiff refuses one written by hand.
bool AttentionOp::isDifferentiableOperand(unsigned i) { return i < 3; }

bool AttentionGradOp::isF32CompatibleOperand(unsigned i) {
  return isODSOperand(*this, i, getODSOperandIndexAndLength(6));
}
bool AttentionGradOp::isStatisticOperand(unsigned i) { return i == 5; }
double AttentionGradOp::estimateFlops() { return attentionFlops(*this, 3, 2); }

// Biases are added to the f32 accumulator.
bool LinearOp::isF32CompatibleOperand(unsigned i) { return i == 2; }
double LinearOp::estimateFlops() {
  int64_t in = shapedType(getWeight()).getDimSize(1);
  return 2.0 * elements(getResult()) * std::max<int64_t>(in, 1) +
         (getBias() ? elements(getResult()) : 0.0);
}

bool Conv2DOp::isF32CompatibleOperand(unsigned i) { return i == 2; }
double Conv2DOp::estimateFlops() { return convFlops(getResult(), getWeight()); }
double Conv2DInputGradOp::estimateFlops() {
  return convFlops(getGrad(), getWeight());
}
double Conv2DWeightGradOp::estimateFlops() {
  return convFlops(getGrad(), getResult());
}

OperandRole ReduceSumOp::getOperandPrecisionRole(unsigned,
                                                 FloatType precision) {
  return widensInputInF32(precision);
}
OperandRole ReduceMeanOp::getOperandPrecisionRole(unsigned,
                                                  FloatType precision) {
  return widensInputInF32(precision);
}

// The loss is an f32 scalar (AMP_F32Scalar) whatever the logits' type.
OperandRole CrossEntropyOp::getOperandPrecisionRole(unsigned,
                                                    FloatType precision) {
  return widensInputInF32(precision);
}
ResultRole CrossEntropyOp::getResultPrecisionRole(unsigned, unsigned &) {
  return ResultRole::F32;
}
OperandRole CrossEntropyGradOp::getOperandPrecisionRole(unsigned i, FloatType) {
  return lossGradOperandRole(i);
}
ResultRole MseLossOp::getResultPrecisionRole(unsigned, unsigned &) {
  return ResultRole::F32;
}
OperandRole MseLossGradOp::getOperandPrecisionRole(unsigned i, FloatType) {
  return lossGradOperandRole(i);
}

bool CastOp::isFlexibleOperand(unsigned) { return true; }
double CastOp::estimateFlops() { return 0; }

// The optimizers widen the gradient (operand 1) to f32 themselves.
bool SgdUpdateOp::isFlexibleOperand(unsigned i) { return i == 1; }
bool AdamWUpdateOp::isFlexibleOperand(unsigned i) { return i == 1; }

// Gradients are operands 1..n; only an f32 unscaled result stays valid
// whatever the gradient's type.
bool UnscaleGradsOp::isFlexibleOperand(unsigned i) {
  return i != 0 && shapedType(getUnscaled()[i - 1]).getElementType().isF32();
}

//===----------------------------------------------------------------------===//
// Data parallelism
//===----------------------------------------------------------------------===//

AllReduceWaitOp AllReduceStartOp::getWait() {
  if (!getHandle().hasOneUse())
    return {};
  return dyn_cast<AllReduceWaitOp>(*getHandle().getUsers().begin());
}

LogicalResult AllReduceStartOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one tensor to reduce";
  // One wait, in the same block: every rank must complete every all-reduce
  // it starts, whatever path it takes.
  AllReduceWaitOp wait = getWait();
  if (!wait)
    return emitOpError() << "handle must have exactly one use, by an "
                            "amp.all_reduce_wait";
  if (wait->getBlock() != (*this)->getBlock())
    return emitOpError()
           << "and its amp.all_reduce_wait must be in the same block";
  return success();
}

AllReduceStartOp AllReduceWaitOp::getStart() {
  return getHandle().getDefiningOp<AllReduceStartOp>();
}

LogicalResult AllReduceWaitOp::verify() {
  AllReduceStartOp start = getStart();
  if (!start)
    return emitOpError() << "handle must come from an amp.all_reduce_start";
  if (start->getBlock() == (*this)->getBlock() &&
      !start->isBeforeInBlock(*this))
    return emitOpError() << "must come after its amp.all_reduce_start";
  if (!llvm::equal(start.getInputs().getTypes(), getResults().getTypes()))
    return emitOpError() << "result types must match the types of the "
                            "amp.all_reduce_start inputs, "
                         << start.getInputs().size() << " tensors";
  return success();
}

#define GET_OP_CLASSES
#include "amp/Dialect/AMP/IR/AMPOps.cpp.inc"

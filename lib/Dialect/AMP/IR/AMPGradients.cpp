//===- AMPGradients.cpp - backward rules of the amp ops -------------------===//
//
// GradientOpInterface::buildGradients for every differentiable op. A rule
// receives the gradients of the op's results (null where a result has no
// gradient) and appends one value per operand: its gradient, or null for an
// operand that gets none (integer labels and indices, masks, seeds, the
// condition of a select, batch-norm running statistics).
//
// Rules follow three principles:
//  - Use the dedicated backward op where one exists (layer_norm_grad,
//    softmax_grad, conv2d_input_grad, cross_entropy_grad, ...), so that the
//    backward gets the fused kernel and the precision passes see it.
//  - Reuse forward values instead of recomputing them: the forward output
//    for exp, sqrt, rsqrt, tanh, sigmoid, softmax and div, the saved
//    statistics of the norms, the keep mask of dropout.
//  - Otherwise compose amp ops, with explicit broadcasts and reductions as
//    the dialect requires (no implicit broadcasting anywhere).
//
// Every operand gradient has exactly the operand's type. When a forward op
// produced a wider result than its operands (an f16 matmul with an f32
// result), the incoming gradient is cast to the operand's element type
// first; for fp32 graphs (what --amp-autodiff builds) no cast appears.
//
// PyTorch 1.13's autograd formulas (tools/autograd/derivatives.yaml) are the
// reference for the conventions at non-differentiable points: relu'(0) = 0,
// maximum/minimum split the gradient evenly on ties, reduce_max (amax)
// distributes it evenly among tied maxima, pow follows pow_backward.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMPBuilders.h"

#include "amp/Dialect/AMP/IR/AMPOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <numeric>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::build;

namespace {
/// Starts a rule: one null gradient per operand. Returns the gradient of
/// result `index` (null when it has none).
Value begin(Operation *op, ValueRange resultGradients,
            SmallVectorImpl<Value> &operandGradients, unsigned index = 0) {
  operandGradients.assign(op->getNumOperands(), Value());
  return index < resultGradients.size() ? resultGradients[index] : Value();
}

/// Runs `build` on the gradient of the first result, if it has one: the
/// frame of every rule that needs more than one expression.
LogicalResult withGradient(Operation *op, ValueRange resultGradients,
                           SmallVectorImpl<Value> &grads,
                           function_ref<void(Value)> build) {
  if (Value g = begin(op, resultGradients, grads))
    build(g);
  return success();
}

/// grads[0] = GradOpTy(type, g, args...) when the result has a gradient g:
/// the whole backward of the ops that have a dedicated grad op.
template <typename GradOpTy, typename... Args>
LogicalResult
buildGradOp(OpBuilder &b, Operation *op, ValueRange resultGradients,
            SmallVectorImpl<Value> &grads, Type type, Args &&...args) {
  if (Value g = begin(op, resultGradients, grads))
    grads[0] =
        GradOpTy::create(b, op->getLoc(), type, g, std::forward<Args>(args)...);
  return success();
}

/// grads[0] = GradOpTy(g's type, g, args...): the same with the gradient's
/// own type (elementwise and softmax backwards).
template <typename GradOpTy, typename... Args>
LogicalResult
buildGradOpLikeGradient(OpBuilder &b, Operation *op, ValueRange resultGradients,
                        SmallVectorImpl<Value> &grads, Args &&...args) {
  return withGradient(op, resultGradients, grads, [&](Value g) {
    grads[0] = GradOpTy::create(b, op->getLoc(), g.getType(), g,
                                std::forward<Args>(args)...);
  });
}

/// Sets the leading operand gradients (the rest stay null).
void set(SmallVectorImpl<Value> &grads, std::initializer_list<Value> values) {
  for (auto [index, value] : llvm::enumerate(values))
    grads[index] = value;
}

/// Sums the leading batch dimensions a shared (unbatched) matmul operand's
/// gradient picked up, so that it gets the operand's shape again.
Value sumBatchInto(OpBuilder &b, Location loc, Value grad, Value operand) {
  int64_t extra = tensorType(grad).getRank() - tensorType(operand).getRank();
  if (extra <= 0)
    return grad;
  Shape axes(extra);
  std::iota(axes.begin(), axes.end(), 0);
  return reduceSum(b, loc, grad, axes, /*keepDims=*/false, elementType(grad));
}

/// Flattens all but the last dimension: [d0, ..., dn-1, k] -> [M, k].
Value flattenLeading(OpBuilder &b, Location loc, Value value) {
  ArrayRef<int64_t> shape = tensorType(value).getShape();
  return reshape(b, loc, value, {product(shape.drop_back()), shape.back()});
}

/// A bias gradient: `grad` summed over `axes` in its own element type (f32
/// when the layer produced f32), then rounded once to the bias type.
Value biasGradient(OpBuilder &b, Location loc, Value grad,
                   ArrayRef<int64_t> axes, Value bias) {
  return castLike(
      b, loc, reduceSum(b, loc, grad, axes, false, elementType(grad)), bias);
}

/// The normalized axes of a reduction over `input`.
template <typename ReduceOpTy> Shape reducedAxes(ReduceOpTy op) {
  return normalizedAxes(op.getAxes(), tensorType(op.getInput()).getRank());
}
} // namespace

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

LogicalResult AddOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                    SmallVectorImpl<Value> &grads) {
  if (Value g = begin(*this, resultGradients, grads))
    set(grads, {g, g});
  return success();
}

LogicalResult SubOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                    SmallVectorImpl<Value> &grads) {
  if (Value g = begin(*this, resultGradients, grads))
    set(grads, {g, neg(b, getLoc(), g)});
  return success();
}

LogicalResult MulOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                    SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  if (Value g = begin(*this, resultGradients, grads))
    set(grads, {mul(b, loc, g, getRhs()), mul(b, loc, g, getLhs())});
  return success();
}

// d(a / b) = g / b, -g * (a / b) / b (reuses the quotient).
LogicalResult DivOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                    SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  if (Value g = begin(*this, resultGradients, grads))
    set(grads,
        {div(b, loc, g, getRhs()),
         neg(b, loc, div(b, loc, mul(b, loc, g, getResult()), getRhs()))});
  return success();
}

// PyTorch's pow_backward_self / pow_backward_exponent:
//   d/da = g * b * a^(b - 1), and 0 where b == 0;
//   d/db = g * a^b * log(a), and 0 where a == 0 and b >= 0.
LogicalResult PowOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                    SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  return withGradient(*this, resultGradients, grads, [&](Value g) {
    Value base = getLhs(), exponent = getRhs();
    Value zeros = splatLike(b, loc, base, 0.0);
    Value ones = splatLike(b, loc, base, 1.0);
    Value power = PowOp::create(b, loc, base, sub(b, loc, exponent, ones));
    Value dBase = mul(b, loc, mul(b, loc, g, exponent), power);
    dBase =
        select(b, loc, compare(b, loc, CompareDirection::EQ, exponent, zeros),
               zeros, dBase);
    Value logBase = LogOp::create(b, loc, base);
    Value dExponent = mul(b, loc, mul(b, loc, g, getResult()), logBase);
    Value baseIsZero = compare(b, loc, CompareDirection::EQ, base, zeros);
    Value exponentNonNegative =
        compare(b, loc, CompareDirection::GE, exponent, zeros);
    dExponent = select(b, loc, baseIsZero,
                       select(b, loc, exponentNonNegative, zeros, dExponent),
                       dExponent);
    set(grads, {dBase, dExponent});
  });
}

namespace {
/// maximum/minimum (PyTorch): the gradient goes to the operand that wins,
/// half to each on a tie. `wins` is GT for maximum, LT for minimum.
void buildExtremumGradients(OpBuilder &b, Location loc, Value g, Value lhs,
                            Value rhs, CompareDirection wins,
                            SmallVectorImpl<Value> &grads) {
  Value zeros = splatLike(b, loc, g, 0.0);
  Value half = scale(b, loc, g, 0.5);
  Value tie = compare(b, loc, CompareDirection::EQ, lhs, rhs);
  Value lhsWins = compare(b, loc, wins, lhs, rhs);
  Value dLhs = select(b, loc, lhsWins, g, select(b, loc, tie, half, zeros));
  set(grads, {dLhs, sub(b, loc, g, dLhs)});
}
} // namespace

LogicalResult MaximumOp::buildGradients(OpBuilder &b,
                                        ValueRange resultGradients,
                                        SmallVectorImpl<Value> &grads) {
  if (Value g = begin(*this, resultGradients, grads))
    buildExtremumGradients(b, getLoc(), g, getLhs(), getRhs(),
                           CompareDirection::GT, grads);
  return success();
}

LogicalResult MinimumOp::buildGradients(OpBuilder &b,
                                        ValueRange resultGradients,
                                        SmallVectorImpl<Value> &grads) {
  if (Value g = begin(*this, resultGradients, grads))
    buildExtremumGradients(b, getLoc(), g, getLhs(), getRhs(),
                           CompareDirection::LT, grads);
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

LogicalResult NegOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                    SmallVectorImpl<Value> &grads) {
  if (Value g = begin(*this, resultGradients, grads))
    set(grads, {neg(b, getLoc(), g)});
  return success();
}

// exp' = exp: reuse the output.
LogicalResult ExpOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                    SmallVectorImpl<Value> &grads) {
  if (Value g = begin(*this, resultGradients, grads))
    set(grads, {mul(b, getLoc(), g, getResult())});
  return success();
}

LogicalResult LogOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                    SmallVectorImpl<Value> &grads) {
  if (Value g = begin(*this, resultGradients, grads))
    set(grads, {div(b, getLoc(), g, getInput())});
  return success();
}

// sqrt' = 1 / (2 sqrt(x)): g * 0.5 / y.
LogicalResult SqrtOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                     SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  if (Value g = begin(*this, resultGradients, grads))
    set(grads, {div(b, loc, scale(b, loc, g, 0.5), getResult())});
  return success();
}

// rsqrt' = -x^(-3/2) / 2 = -y^3 / 2.
LogicalResult RsqrtOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                      SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  Value y = getResult();
  if (Value g = begin(*this, resultGradients, grads)) {
    Value cube = mul(b, loc, mul(b, loc, y, y), y);
    set(grads, {mul(b, loc, scale(b, loc, g, -0.5), cube)});
  }
  return success();
}

LogicalResult TanhOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                     SmallVectorImpl<Value> &grads) {
  return buildGradOpLikeGradient<TanhGradOp>(b, *this, resultGradients, grads,
                                             getResult());
}

LogicalResult SigmoidOp::buildGradients(OpBuilder &b,
                                        ValueRange resultGradients,
                                        SmallVectorImpl<Value> &grads) {
  return buildGradOpLikeGradient<SigmoidGradOp>(b, *this, resultGradients,
                                                grads, getResult());
}

LogicalResult ReluOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                     SmallVectorImpl<Value> &grads) {
  return buildGradOpLikeGradient<ReluGradOp>(b, *this, resultGradients, grads,
                                             getInput());
}

LogicalResult SiluOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                     SmallVectorImpl<Value> &grads) {
  return buildGradOpLikeGradient<SiluGradOp>(b, *this, resultGradients, grads,
                                             getInput());
}

LogicalResult GeluOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                     SmallVectorImpl<Value> &grads) {
  return buildGradOpLikeGradient<GeluGradOp>(b, *this, resultGradients, grads,
                                             getInput(), getApproximate());
}

// erf'(x) = 2 / sqrt(pi) * exp(-x^2).
LogicalResult ErfOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                    SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  Value x = getInput();
  if (Value g = begin(*this, resultGradients, grads)) {
    Value gauss = ExpOp::create(b, loc, neg(b, loc, mul(b, loc, x, x)));
    set(grads, {mul(b, loc, scale(b, loc, g, 1.1283791670955126), gauss)});
  }
  return success();
}

// sin'(x) = cos(x), cos'(x) = -sin(x).
LogicalResult SinOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                    SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  if (Value g = begin(*this, resultGradients, grads))
    set(grads, {mul(b, loc, g, CosOp::create(b, loc, getInput()))});
  return success();
}

LogicalResult CosOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                    SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  if (Value g = begin(*this, resultGradients, grads))
    set(grads,
        {mul(b, loc, neg(b, loc, g), SinOp::create(b, loc, getInput()))});
  return success();
}

// softplus'(x) = sigmoid(x), as PyTorch's softplus_backward (beta = 1).
LogicalResult SoftplusOp::buildGradients(OpBuilder &b,
                                         ValueRange resultGradients,
                                         SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  if (Value g = begin(*this, resultGradients, grads))
    set(grads, {mul(b, loc, g, SigmoidOp::create(b, loc, getInput()))});
  return success();
}

// The condition gets no gradient; each branch gets g where it was chosen.
LogicalResult WhereOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                      SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  Value g = begin(*this, resultGradients, grads);
  if (!g || !isFloatTensor(getResult()))
    return success();
  Value zeros = splatLike(b, loc, g, 0.0);
  set(grads, {Value(), select(b, loc, getCondition(), g, zeros),
              select(b, loc, getCondition(), zeros, g)});
  return success();
}

// A cast's gradient is cast back to the input's type.
LogicalResult CastOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                     SmallVectorImpl<Value> &grads) {
  if (Value g = begin(*this, resultGradients, grads))
    set(grads, {castLike(b, getLoc(), g, getInput())});
  return success();
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

// With A' = op(A) and B' = op(B) (op = the optional transpose of the last
// two dimensions), C = A' B' gives dA' = dC B'^T and dB' = A'^T dC. Each
// case is one amp.matmul with transpose flags, producing the gradient in
// the operand's stored layout. A shared (unbatched) operand of a batched
// product accumulates over the batch: for a shared right-hand side with an
// untransposed left-hand side (the linear-layer case) by flattening the
// batch into the rows of one matmul, otherwise by a batched matmul and a
// reduce_sum over the batch dimensions.
LogicalResult MatmulOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                       SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  return withGradient(*this, resultGradients, grads, [&](Value g) {
    Value lhs = getLhs(), rhs = getRhs();
    bool tl = getTransposeLhs(), tr = getTransposeRhs();
    g = castLike(b, loc, g, lhs);

    Value dRhs;
    bool sharedRhs =
        tensorType(rhs).getRank() == 2 && tensorType(lhs).getRank() > 2;
    Value a = lhs, dc = g;
    if (sharedRhs && !tl) {
      a = flattenLeading(b, loc, lhs);
      dc = flattenLeading(b, loc, g);
    }
    if (!tr)
      dRhs = matmul(b, loc, a, dc, !tl, false); // A'^T dC
    else
      dRhs = matmul(b, loc, dc, a, true, tl); // (A'^T dC)^T = dC^T A'
    grads[1] = sumBatchInto(b, loc, dRhs, rhs);

    // After dB', whose A' is often an activation with no later reader (as
    // for LinearOp, the weight gradient first).
    Value dLhs;
    if (!tl)
      dLhs = matmul(b, loc, g, rhs, false, !tr); // dC B'^T
    else
      dLhs = matmul(b, loc, rhs, g, tr, true); // (dC B'^T)^T = B' dC^T
    grads[0] = sumBatchInto(b, loc, dLhs, lhs);
  });
}

// y = x W^T + b over flattened leading dimensions x2 [M, in], dy2 [M, out]:
//   dx = dy2 W (reshaped back), dW = dy2^T x2, db = sum over M of dy2.
LogicalResult LinearOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                       SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  return withGradient(*this, resultGradients, grads, [&](Value g) {
    Value x = getInput(), w = getWeight();
    RankedTensorType xType = tensorType(x);
    auto flatten = [&](Value v) {
      ArrayRef<int64_t> shape = tensorType(v).getShape();
      if (shape.size() == 1)
        return reshape(b, loc, v, {1, shape[0]});
      return flattenLeading(b, loc, v);
    };
    Value g2 = flatten(g);
    Value g2x = castLike(b, loc, g2, x);
    Value x2 = flatten(x);
    // The weight gradient first: it is the input's last reader, so the
    // input (an activation kept from the forward) can be freed before the
    // input gradient's buffer is needed (a lower peak than PyTorch's, whose
    // AddmmBackward holds both).
    Value dw = matmul(b, loc, g2x, x2, true, false);
    Value dx =
        reshape(b, loc, matmul(b, loc, g2x, w, false, false), xType.getShape());
    grads[0] = dx;
    grads[1] = dw;
    if (Value bias = getBias())
      grads[2] = biasGradient(b, loc, g2, {0}, bias);
  });
}

LogicalResult Conv2DOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                       SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  return withGradient(*this, resultGradients, grads, [&](Value g) {
    Value x = getInput(), w = getWeight();
    Value gx = castLike(b, loc, g, x);
    // The weight gradient first, as for LinearOp.
    grads[1] =
        Conv2DWeightGradOp::create(b, loc, w.getType(), gx, x, getStride(),
                                   getPadding(), getDilation(), getGroups());
    grads[0] =
        Conv2DInputGradOp::create(b, loc, x.getType(), gx, w, getStride(),
                                  getPadding(), getDilation(), getGroups());
    if (Value bias = getBias())
      grads[2] = biasGradient(b, loc, g, {0, 2, 3}, bias);
  });
}

/// y = conv2d_input_grad(g, w) is a transposed convolution; its adjoints are
/// the forward convolution of dy with w (for g) and the weight gradient of a
/// convolution whose input is dy and output gradient g (for w).
LogicalResult Conv2DInputGradOp::buildGradients(OpBuilder &b,
                                                ValueRange resultGradients,
                                                SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  return withGradient(*this, resultGradients, grads, [&](Value dy) {
    Value g = getGrad(), w = getWeight();
    Value dyx = castLike(b, loc, dy, g);
    grads[1] =
        Conv2DWeightGradOp::create(b, loc, w.getType(), g, dyx, getStride(),
                                   getPadding(), getDilation(), getGroups());
    grads[0] =
        Conv2DOp::create(b, loc, g.getType(), dyx, w, Value(), getStride(),
                         getPadding(), getDilation(), getGroups());
  });
}

//===----------------------------------------------------------------------===//
// Reductions and softmax
//===----------------------------------------------------------------------===//

LogicalResult ReduceSumOp::buildGradients(OpBuilder &b,
                                          ValueRange resultGradients,
                                          SmallVectorImpl<Value> &grads) {
  Value x = getInput();
  if (Value g = begin(*this, resultGradients, grads))
    grads[0] = expandReduced(b, getLoc(), g, x, reducedAxes(*this));
  return success();
}

LogicalResult ReduceMeanOp::buildGradients(OpBuilder &b,
                                           ValueRange resultGradients,
                                           SmallVectorImpl<Value> &grads) {
  return withGradient(*this, resultGradients, grads, [&](Value g) {
    Shape axes = reducedAxes(*this);
    ArrayRef<int64_t> shape = tensorType(getInput()).getShape();
    int64_t count = 1;
    for (int64_t axis : axes)
      count *= shape[axis];
    // Scale before broadcasting: fewer elements.
    Location loc = getLoc();
    grads[0] = expandReduced(b, loc, scale(b, loc, g, 1.0 / double(count)),
                             getInput(), axes);
  });
}

// amax: the gradient is shared evenly among the elements equal to the
// maximum (PyTorch's amax backward).
LogicalResult ReduceMaxOp::buildGradients(OpBuilder &b,
                                          ValueRange resultGradients,
                                          SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  Value x = getInput();
  return withGradient(*this, resultGradients, grads, [&](Value g) {
    RankedTensorType xType = tensorType(x);
    Shape axes = reducedAxes(*this);
    Shape kept = keptShape(xType.getShape(), axes);
    Value maxima =
        broadcast(b, loc, reshape(b, loc, getResult(), kept), xType.getShape());
    Value isMax = compare(b, loc, CompareDirection::EQ, x, maxima);
    Value zeros = splatLike(b, loc, x, 0.0);
    Value ones = splatLike(b, loc, x, 1.0);
    Value count = reduceSum(b, loc, select(b, loc, isMax, ones, zeros), axes,
                            /*keepDims=*/true, xType.getElementType());
    Value share = div(b, loc, reshape(b, loc, g, kept), count);
    grads[0] = select(b, loc, isMax, broadcast(b, loc, share, xType.getShape()),
                      zeros);
  });
}

LogicalResult SoftmaxOp::buildGradients(OpBuilder &b,
                                        ValueRange resultGradients,
                                        SmallVectorImpl<Value> &grads) {
  return buildGradOpLikeGradient<SoftmaxGradOp>(b, *this, resultGradients,
                                                grads, getResult(), getAxis());
}

LogicalResult LogSoftmaxOp::buildGradients(OpBuilder &b,
                                           ValueRange resultGradients,
                                           SmallVectorImpl<Value> &grads) {
  return buildGradOpLikeGradient<LogSoftmaxGradOp>(
      b, *this, resultGradients, grads, getResult(), getAxis());
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

namespace {
/// The statistics a norm returns are for its own backward; differentiating
/// through them is not supported.
LogicalResult checkNoStatisticGradients(Operation *op,
                                        ValueRange resultGradients) {
  for (auto [index, grad] : llvm::enumerate(resultGradients))
    if (index > 0 && grad)
      return op->emitOpError()
             << "result #" << index
             << " (a saved statistic) is used on a path to the loss; "
                "autodiff differentiates only the normalized output";
  return success();
}

/// Runs `build` on the gradient of a norm's output, if any, once no saved
/// statistic has one: the frame every norm's backward shares.
LogicalResult buildNormGradients(Operation *op, ValueRange resultGradients,
                                 SmallVectorImpl<Value> &grads,
                                 function_ref<void(Value)> build) {
  if (failed(checkNoStatisticGradients(op, resultGradients)))
    return failure();
  return withGradient(op, resultGradients, grads, build);
}

/// Sets the input, weight and bias gradients a norm's grad op returns.
template <typename GradOpTy>
void setAffineNormGrads(SmallVectorImpl<Value> &grads, GradOpTy grad) {
  set(grads, {grad.getInputGrad(), grad.getWeightGrad(), grad.getBiasGrad()});
}
} // namespace

LogicalResult LayerNormOp::buildGradients(OpBuilder &b,
                                          ValueRange resultGradients,
                                          SmallVectorImpl<Value> &grads) {
  return buildNormGradients(*this, resultGradients, grads, [&](Value g) {
    setAffineNormGrads(grads, LayerNormGradOp::create(
                                  b, getLoc(), getInput().getType(),
                                  getWeight().getType(), getBias().getType(), g,
                                  getInput(), getMean(), getRstd(), getWeight(),
                                  getAxis()));
  });
}

LogicalResult RmsNormOp::buildGradients(OpBuilder &b,
                                        ValueRange resultGradients,
                                        SmallVectorImpl<Value> &grads) {
  return buildNormGradients(*this, resultGradients, grads, [&](Value g) {
    auto grad = RmsNormGradOp::create(b, getLoc(), getInput().getType(),
                                      getWeight().getType(), g, getInput(),
                                      getRstd(), getWeight(), getAxis());
    set(grads, {grad.getInputGrad(), grad.getWeightGrad()});
  });
}

LogicalResult GroupNormOp::buildGradients(OpBuilder &b,
                                          ValueRange resultGradients,
                                          SmallVectorImpl<Value> &grads) {
  return buildNormGradients(*this, resultGradients, grads, [&](Value g) {
    setAffineNormGrads(grads, GroupNormGradOp::create(
                                  b, getLoc(), getInput().getType(),
                                  getWeight().getType(), getBias().getType(), g,
                                  getInput(), getMean(), getRstd(), getWeight(),
                                  getNumGroups()));
  });
}

bool BatchNormOp::isDifferentiableOperand(unsigned index) {
  return index < 3; // input, weight, bias; not the running statistics
}

// Training mode: amp.batch_norm_grad from the saved batch statistics.
// Inference mode normalizes with the running statistics, which are
// constants for the backward: y = (x - rm) * r * w + b with
// r = rsqrt(rv + eps), so dx = dy * w * r, dw = sum(dy * (x - rm) * r),
// db = sum(dy), all per channel (computed in f32, the statistics' type).
LogicalResult BatchNormOp::buildGradients(OpBuilder &b,
                                          ValueRange resultGradients,
                                          SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  return buildNormGradients(*this, resultGradients, grads, [&](Value g) {
    Value x = getInput(), w = getWeight(), bias = getBias();
    if (getTraining()) {
      setAffineNormGrads(
          grads, BatchNormGradOp::create(b, loc, x.getType(), w.getType(),
                                         bias.getType(), g, x, getSavedMean(),
                                         getSavedRstd(), w));
      return;
    }
    RankedTensorType xType = tensorType(x);
    Type f32 = b.getF32Type();
    ArrayRef<int64_t> shape = xType.getShape();
    int64_t channels = shape[1];
    Shape perChannel = {channels};
    perChannel.append(shape.size() - 2, 1);
    auto spread = [&](Value stat) { // [C] -> the input's shape
      return broadcast(b, loc, reshape(b, loc, stat, perChannel), shape);
    };
    Shape axes = {0};
    for (int64_t d = 2; d < xType.getRank(); ++d)
      axes.push_back(d);

    Value variance = getRunningVar();
    Value rstd = RsqrtOp::create(
        b, loc,
        add(b, loc, variance,
            splatLike(b, loc, variance, getEpsilon().convertToDouble())));
    Value g32 = castElement(b, loc, g, f32);
    Value channelScale = mul(b, loc, castElement(b, loc, w, f32), rstd);
    grads[0] = castLike(b, loc, mul(b, loc, g32, spread(channelScale)), x);
    Value centered =
        sub(b, loc, castElement(b, loc, x, f32), spread(getRunningMean()));
    Value normalized = mul(b, loc, centered, spread(rstd));
    grads[1] = castLike(
        b, loc,
        reduceSum(b, loc, mul(b, loc, g32, normalized), axes, false, f32), w);
    grads[2] = biasGradient(b, loc, g32, axes, bias);
  });
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

LogicalResult MaxPool2DOp::buildGradients(OpBuilder &b,
                                          ValueRange resultGradients,
                                          SmallVectorImpl<Value> &grads) {
  return buildGradOp<MaxPool2DGradOp>(
      b, *this, resultGradients, grads, getInput().getType(), getInput(),
      getKernelSize(), getStride(), getPadding());
}

LogicalResult AvgPool2DOp::buildGradients(OpBuilder &b,
                                          ValueRange resultGradients,
                                          SmallVectorImpl<Value> &grads) {
  return buildGradOp<AvgPool2DGradOp>(
      b, *this, resultGradients, grads, getInput().getType(), getKernelSize(),
      getStride(), getPadding(), getExcludePadding());
}

// The mean over the spatial dimensions: broadcast back, divided by H * W.
LogicalResult GlobalAvgPoolOp::buildGradients(OpBuilder &b,
                                              ValueRange resultGradients,
                                              SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  Value x = getInput();
  return withGradient(*this, resultGradients, grads, [&](Value g) {
    ArrayRef<int64_t> shape = tensorType(x).getShape();
    double count = double(product(shape.drop_front(2)));
    grads[0] = broadcast(b, loc, scale(b, loc, g, 1.0 / count), shape);
  });
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::buildGradients(OpBuilder &b,
                                        ValueRange resultGradients,
                                        SmallVectorImpl<Value> &grads) {
  Value g = begin(*this, resultGradients, grads);
  if (g && isFloatTensor(getInput()))
    grads[0] = ReshapeOp::create(b, getLoc(), getInput().getType(), g);
  return success();
}

LogicalResult TransposeOp::buildGradients(OpBuilder &b,
                                          ValueRange resultGradients,
                                          SmallVectorImpl<Value> &grads) {
  Value g = begin(*this, resultGradients, grads);
  if (!g || !isFloatTensor(getInput()))
    return success();
  ArrayRef<int64_t> permutation = getPermutation();
  Shape inverse(permutation.size());
  for (auto [i, p] : llvm::enumerate(permutation))
    inverse[p] = i;
  grads[0] = TransposeOp::create(b, getLoc(), getInput().getType(), g, inverse);
  return success();
}

// Sum over the dimensions the broadcast added or expanded from 1, then
// reshape to the input's shape.
LogicalResult BroadcastOp::buildGradients(OpBuilder &b,
                                          ValueRange resultGradients,
                                          SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  Value g = begin(*this, resultGradients, grads);
  if (!g || !isFloatTensor(getInput()))
    return success();
  ArrayRef<int64_t> in = tensorType(getInput()).getShape();
  ArrayRef<int64_t> out = tensorType(g).getShape();
  int64_t lead = out.size() - in.size();
  Shape axes;
  for (int64_t d = 0; d < int64_t(out.size()); ++d)
    if (d < lead || (in[d - lead] == 1 && out[d] != 1))
      axes.push_back(d);
  Value summed = g;
  if (!axes.empty())
    summed = reduceSum(b, loc, g, axes, false, elementType(g));
  grads[0] = reshape(b, loc, summed, in);
  return success();
}

LogicalResult SliceOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                      SmallVectorImpl<Value> &grads) {
  Value g = begin(*this, resultGradients, grads);
  if (g && isFloatTensor(getInput()))
    grads[0] = SliceGradOp::create(b, getLoc(), getInput().getType(), g,
                                   getStarts(), getLimits(), getStrides());
  return success();
}

// Each input gets its slab of the gradient back.
LogicalResult ConcatOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                       SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  return withGradient(*this, resultGradients, grads, [&](Value g) {
    RankedTensorType resultType = tensorType(getResult());
    int64_t rank = resultType.getRank();
    int64_t axis = getAxis() < 0 ? getAxis() + rank : getAxis();
    int64_t offset = 0;
    for (auto [index, input] : llvm::enumerate(getInputs())) {
      RankedTensorType type = tensorType(input);
      Shape starts(rank, 0), limits(resultType.getShape()), strides(rank, 1);
      starts[axis] = offset;
      limits[axis] = offset + type.getDimSize(axis);
      offset = limits[axis];
      if (isFloatTensor(input))
        grads[index] =
            SliceOp::create(b, loc, type, g, starts, limits, strides);
    }
  });
}

// The indices get no gradient; the table gets a scatter-add, which skips
// the padding row's entries (padding_idx travels with it).
LogicalResult GatherOp::buildGradients(OpBuilder &b, ValueRange resultGradients,
                                       SmallVectorImpl<Value> &grads) {
  Value g = begin(*this, resultGradients, grads);
  if (g && isFloatTensor(getInput()))
    grads[0] =
        GatherGradOp::create(b, getLoc(), getInput().getType(), g, getIndices(),
                             getAxis(), getPaddingIdxAttr());
  return success();
}

// The indices get no gradient; the input gets each element of the output
// gradient added where the forward read it.
LogicalResult GatherElementsOp::buildGradients(OpBuilder &b,
                                               ValueRange resultGradients,
                                               SmallVectorImpl<Value> &grads) {
  Value g = begin(*this, resultGradients, grads);
  if (g && isFloatTensor(getInput()))
    grads[0] = ScatterAddElementsOp::create(b, getLoc(), getInput().getType(),
                                            g, getIndices(), getAxis());
  return success();
}

//===----------------------------------------------------------------------===//
// Dropout and losses
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

// One amp.attention_grad recomputes the probabilities from the saved
// log-sum-exp; the mask and the seed get no gradient (isDifferentiableOperand).
// The log-sum-exp is a statistic for the backward, not a value a loss reads.
LogicalResult AttentionOp::buildGradients(OpBuilder &b,
                                          ValueRange resultGradients,
                                          SmallVectorImpl<Value> &grads) {
  if (resultGradients.size() > 1 && resultGradients[1])
    return emitOpError() << "the log-sum-exp result has no gradient rule";
  return withGradient(*this, resultGradients, grads, [&](Value g) {
    auto grad = AttentionGradOp::create(
        b, getLoc(), getQuery().getType(), getKey().getType(),
        getValue().getType(), castLike(b, getLoc(), g, getOutput()), getQuery(),
        getKey(), getValue(), getOutput(), getLse(), getMask(), getSeed(),
        getScaleAttr(), getCausalAttr(), getDropoutAttr());
    set(grads, {grad.getQueryGrad(), grad.getKeyGrad(), grad.getValueGrad()});
  });
}

// From the keep mask the forward returned; the seed gets no gradient.
LogicalResult DropoutOp::buildGradients(OpBuilder &b,
                                        ValueRange resultGradients,
                                        SmallVectorImpl<Value> &grads) {
  return buildGradOp<DropoutGradOp>(b, *this, resultGradients, grads,
                                    getInput().getType(), getMask(),
                                    getProbability());
}

// The integer labels get no gradient.
LogicalResult CrossEntropyOp::buildGradients(OpBuilder &b,
                                             ValueRange resultGradients,
                                             SmallVectorImpl<Value> &grads) {
  return buildGradOp<CrossEntropyGradOp>(b, *this, resultGradients, grads,
                                         getLogits().getType(), getLogits(),
                                         getLabels());
}

// d/dprediction from amp.mse_loss_grad; the target gets its negation.
LogicalResult MseLossOp::buildGradients(OpBuilder &b,
                                        ValueRange resultGradients,
                                        SmallVectorImpl<Value> &grads) {
  Location loc = getLoc();
  return withGradient(*this, resultGradients, grads, [&](Value g) {
    Value dPrediction = MseLossGradOp::create(b, loc, getPrediction().getType(),
                                              g, getPrediction(), getTarget());
    set(grads, {dPrediction, neg(b, loc, dPrediction)});
  });
}

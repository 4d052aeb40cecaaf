//===- RaiseONNXIdioms.cpp - decomposed ONNX idioms to amp ops ------------===//
//
// ONNX exporters spell several ops the precision policy cares about as
// chains of primitive ops (opset 13 has no LayerNormalization, no GELU and
// no GroupNormalization). These patterns recognise the chains PyTorch emits,
// as the importer translates them (explicit amp.broadcast, splat constants),
// and rewrite them to the dedicated amp ops, so that norms keep f32
// statistics and GELU is one INFER op under the AMP passes:
//
//   LayerNorm: d = x - mean(x); v = mean(d ^ 2); y = d / sqrt(v + eps)
//              [* w] [+ b]                                  -> amp.layer_norm
//   GELU:      x * 0.5 * (1 + erf(x / sqrt(2)))  (any association)
//                                                           -> amp.gelu
//              x * 0.5 * (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
//                                          -> amp.gelu approximate = tanh
//   GroupNorm: reshape(x, [N, G, -1]) -> instance norm (scale 1, bias 0)
//              -> reshape back [* w] [+ b]                  -> amp.group_norm
//   Linear:    matmul(x, transpose(W)) [+ b]                -> amp.linear
//
// A chain is only rewritten at its end; intermediate values that have other
// users stay (and are computed twice), the rest is removed as dead code.
//
//===----------------------------------------------------------------------===//

#include "amp/Target/ONNX/ONNXImporter.h"

#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <cstdio>
#include <optional>

using namespace mlir;
using namespace mlir::amp;

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// Looks through amp.broadcast (explicit ONNX broadcasting).
Value stripBroadcast(Value v) {
  while (auto b = v.getDefiningOp<BroadcastOp>())
    v = b.getInput();
  return v;
}

/// The value of a splat floating-point constant (possibly broadcast).
std::optional<double> splatValue(Value v) {
  v = stripBroadcast(v);
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

/// Whether `got` is `expected` up to the rounding of `element`.
bool near(double got, double expected, Type element) {
  double tolerance = element.isF32() ? 1e-6 : 8e-3;
  return std::fabs(got - expected) <= tolerance * std::fabs(expected);
}

bool isSplatOf(Value v, double expected) {
  std::optional<double> value = splatValue(v);
  return value && near(*value, expected, typeOf(v).getElementType());
}

/// The shortest decimal that rounds to the same value of `element` (eps =
/// 1e-5 arrives as the f32 9.99999974737875e-06, 1e-3 as the f16
/// 0.0010004): the constant the model's author wrote.
double shortestDecimal(double value, Type element) {
  auto floatType = dyn_cast<FloatType>(element);
  if (!std::isfinite(value) || !floatType)
    return value;
  const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
  auto round = [&](double v) {
    APFloat f(v);
    bool losesInfo = false;
    f.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
    return f;
  };
  APFloat target = round(value);
  char text[64];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits, value);
    double parsed = std::strtod(text, nullptr);
    if (round(parsed).bitwiseIsEqual(target))
      return parsed;
  }
  return value;
}

/// The single user of `v`'s defining op result, if `v` has exactly one use.
Operation *singleUser(Value v) {
  if (!v.hasOneUse())
    return nullptr;
  return *v.user_begin();
}

/// For a binary op with operands {a, b}: the operand other than `known`.
template <typename OpTy> Value otherOperand(OpTy op, Value known) {
  if (op.getLhs() == known)
    return op.getRhs();
  if (op.getRhs() == known)
    return op.getLhs();
  return {};
}

/// A splat constant `p` as a splat of `shape` (null if `p` is not one).
/// With a null `rewriter`, only checks (returns `p` on success).
Value splatLike(PatternRewriter *rewriter, Location loc, Value p,
                ArrayRef<int64_t> shape, Type element) {
  std::optional<double> value = splatValue(p);
  Type pElement = typeOf(p).getElementType();
  if (!value || (pElement != element && !pElement.isF32()))
    return {};
  if (!rewriter)
    return p;
  RankedTensorType type = RankedTensorType::get(shape, pElement);
  return ConstantOp::create(
      *rewriter, loc, type,
      DenseElementsAttr::get(type, rewriter->getFloatAttr(pElement, *value)));
}

/// The value an affine parameter `p` was broadcast from, when its element
/// type is `element` or f32 (what the norms accept); null otherwise.
Value affineSource(Value p, Type element) {
  Value source = stripBroadcast(p);
  Type sourceElement = typeOf(source).getElementType();
  if (sourceElement != element && !sourceElement.isF32())
    return {};
  return source;
}

/// An affine parameter `p` that was broadcast over `x` (rank `rank`) and
/// varies only along dimensions [begin, end): returns it reshaped and
/// broadcast to exactly `target` (x's shape over those dimensions), or null.
/// With a null `rewriter`, only checks (returns `p` on success).
Value affineAlong(PatternRewriter *rewriter, Location loc, Value p,
                  int64_t rank, int64_t begin, int64_t end,
                  ArrayRef<int64_t> target, Type element) {
  if (Value splat = splatLike(rewriter, loc, p, target, element))
    return splat;
  Value source = affineSource(p, element);
  if (!source)
    return {};
  Type sourceElement = typeOf(source).getElementType();
  ArrayRef<int64_t> shape = typeOf(source).getShape();
  if (static_cast<int64_t>(shape.size()) > rank)
    return {};
  // Right-align with x; dimensions outside [begin, end) must be 1.
  int64_t offset = rank - shape.size();
  SmallVector<int64_t> trailing;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    int64_t xDim = offset + d;
    if (xDim < begin || xDim >= end) {
      if (shape[d] != 1)
        return {};
      continue;
    }
    int64_t want = target[xDim - begin];
    if (shape[d] != 1 && shape[d] != want)
      return {};
    trailing.push_back(shape[d]);
  }
  if (!rewriter)
    return p;
  Value v = source;
  if (ArrayRef<int64_t>(trailing) != shape)
    v = ReshapeOp::create(*rewriter, loc,
                          RankedTensorType::get(trailing, sourceElement), v);
  if (ArrayRef<int64_t>(trailing) != target)
    v = BroadcastOp::create(*rewriter, loc,
                            RankedTensorType::get(target, sourceElement), v);
  return v;
}

/// affineAlong over the trailing dimensions [begin, rank) of x.
Value affineOver(PatternRewriter *rewriter, Location loc, Value p, int64_t rank,
                 int64_t begin, ArrayRef<int64_t> target, Type element) {
  return affineAlong(rewriter, loc, p, rank, begin, rank, target, element);
}

/// The affine parameters of a raised norm over `affineType`: `weight` and
/// `bias` where the chain had them, else the identity (ones, zeros).
std::pair<Value, Value> affineOrIdentity(PatternRewriter &rewriter,
                                         Location loc, Value weight, Value bias,
                                         RankedTensorType affineType) {
  auto orSplat = [&](Value value, double fill) -> Value {
    if (value)
      return value;
    return ConstantOp::create(
        rewriter, loc, affineType,
        DenseElementsAttr::get(
            affineType,
            rewriter.getFloatAttr(affineType.getElementType(), fill)));
  };
  Value w = orSplat(weight, 1.0);
  return {w, orSplat(bias, 0.0)};
}

/// An affine parameter broadcast over the channel dimension (1) of an
/// [N, C, ...] tensor: returns it as a [C] tensor, or null.
/// With a null `rewriter`, only checks (returns `p` on success).
Value channelAffine(PatternRewriter *rewriter, Location loc, Value p,
                    int64_t rank, int64_t channels, Type element) {
  return affineAlong(rewriter, loc, p, rank, 1, 2, {channels}, element);
}

/// Sorted axes of a reduction, normalized; whether they are [begin, rank).
std::optional<int64_t> suffixBegin(ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> normalized;
  for (int64_t a : axes)
    normalized.push_back(a < 0 ? a + rank : a);
  llvm::sort(normalized);
  if (normalized.empty() || normalized.back() != rank - 1)
    return std::nullopt;
  for (size_t i = 1; i < normalized.size(); ++i)
    if (normalized[i] != normalized[i - 1] + 1)
      return std::nullopt;
  return normalized.front();
}

//===----------------------------------------------------------------------===//
// LayerNorm
//===----------------------------------------------------------------------===//

struct RaiseLayerNorm : OpRewritePattern<DivOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DivOp div,
                                PatternRewriter &rewriter) const override {
    // y = d / sqrt(var + eps)
    Value d = div.getLhs();
    auto sqrt = stripBroadcast(div.getRhs()).getDefiningOp<SqrtOp>();
    if (!sqrt)
      return failure();
    auto addEps = sqrt.getInput().getDefiningOp<AddOp>();
    if (!addEps)
      return failure();
    Value var;
    std::optional<double> eps;
    if ((eps = splatValue(addEps.getRhs())))
      var = addEps.getLhs();
    else if ((eps = splatValue(addEps.getLhs())))
      var = addEps.getRhs();
    else
      return failure();
    auto varMean = var.getDefiningOp<ReduceMeanOp>();
    if (!varMean || !varMean.getKeepDims())
      return failure();
    // var = mean(d ^ 2) or mean(d * d)
    Value squared = varMean.getInput();
    if (auto pow = squared.getDefiningOp<PowOp>()) {
      if (pow.getLhs() != d || !isSplatOf(pow.getRhs(), 2.0))
        return failure();
    } else if (auto mul = squared.getDefiningOp<MulOp>()) {
      if (mul.getLhs() != d || mul.getRhs() != d)
        return failure();
    } else {
      return failure();
    }
    // d = x - mean(x)
    auto sub = d.getDefiningOp<SubOp>();
    if (!sub)
      return failure();
    Value x = sub.getLhs();
    auto mean = stripBroadcast(sub.getRhs()).getDefiningOp<ReduceMeanOp>();
    if (!mean || mean.getInput() != x || !mean.getKeepDims())
      return failure();
    RankedTensorType xType = typeOf(x);
    int64_t rank = xType.getRank();
    std::optional<int64_t> begin = suffixBegin(mean.getAxes(), rank);
    std::optional<int64_t> varBegin = suffixBegin(varMean.getAxes(), rank);
    if (!begin || !varBegin || *begin != *varBegin ||
        typeOf(div.getResult()) != xType)
      return failure();
    if (*eps < 0 || !std::isfinite(*eps))
      return failure();

    // Optional affine: * w, then + b.
    Location loc = div.getLoc();
    Type element = xType.getElementType();
    ArrayRef<int64_t> normalized = xType.getShape().drop_front(*begin);
    Operation *last = div;
    Value weight, bias;
    if (auto mul = dyn_cast_or_null<MulOp>(singleUser(div.getResult()))) {
      Value w = otherOperand(mul, div.getResult());
      if (w && w != div.getResult() &&
          (weight = affineOver(nullptr, loc, w, rank, *begin, normalized,
                               element))) {
        last = mul;
        if (auto add = dyn_cast_or_null<AddOp>(singleUser(mul.getResult()))) {
          Value b = otherOperand(add, mul.getResult());
          if (b && b != mul.getResult() &&
              (bias = affineOver(nullptr, loc, b, rank, *begin, normalized,
                                 element)))
            last = add;
        }
      }
    }
    // Everything the new op reads dominates the end of the chain.
    rewriter.setInsertionPoint(last);
    if (weight)
      weight =
          affineOver(&rewriter, loc, weight, rank, *begin, normalized, element);
    if (bias)
      bias =
          affineOver(&rewriter, loc, bias, rank, *begin, normalized, element);
    std::tie(weight, bias) =
        affineOrIdentity(rewriter, loc, weight, bias,
                         RankedTensorType::get(normalized, element));
    // Weight and bias must agree in type with each other's role: each is
    // the input's element type or f32 (checked by the verifier).
    RankedTensorType stat = RankedTensorType::get(
        xType.getShape().take_front(*begin), rewriter.getF32Type());
    double epsilon =
        shortestDecimal(*eps, typeOf(addEps.getResult()).getElementType());
    auto norm = LayerNormOp::create(rewriter, loc, xType, stat, stat, x, weight,
                                    bias, rewriter.getI64IntegerAttr(*begin),
                                    rewriter.getF64FloatAttr(epsilon));
    rewriter.replaceOp(last, norm.getOutput());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// GELU
//===----------------------------------------------------------------------===//

/// The common tail of both GELU forms: given `activation` (erf(...) or
/// tanh(...)) of `x`, matches 0.5 * x * (1 + activation) in any association
/// and returns the op computing it, or null.
Operation *matchGeluTail(Value activation, Value x) {
  auto addOne = dyn_cast_or_null<AddOp>(singleUser(activation));
  if (!addOne)
    return nullptr;
  Value one = otherOperand(addOne, activation);
  if (!one || !isSplatOf(one, 1.0))
    return nullptr;
  auto isHalfOfX = [&](Value v) {
    auto mul = v.getDefiningOp<MulOp>();
    if (!mul)
      return false;
    Value half = otherOperand(mul, x);
    return half && half != x && isSplatOf(half, 0.5);
  };
  auto mul1 = dyn_cast_or_null<MulOp>(singleUser(addOne.getResult()));
  if (!mul1)
    return nullptr;
  Value p = otherOperand(mul1, addOne.getResult());
  Operation *last = nullptr;
  if (p == x || (p && isSplatOf(p, 0.5))) {
    // (x * (1 + a)) * 0.5 or (0.5 * (1 + a)) * x
    auto mul2 = dyn_cast_or_null<MulOp>(singleUser(mul1.getResult()));
    if (!mul2)
      return nullptr;
    Value q = otherOperand(mul2, mul1.getResult());
    if (!q || !(p == x ? isSplatOf(q, 0.5) : q == x))
      return nullptr;
    last = mul2;
  } else if (p && isHalfOfX(p)) {
    last = mul1; // (x * 0.5) * (1 + a)
  } else {
    return nullptr;
  }
  if (last->getResult(0).getType() != x.getType())
    return nullptr;
  return last;
}

/// The erf form: 0.5 * x * (1 + erf(x / sqrt(2))).
struct RaiseGelu : OpRewritePattern<ErfOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ErfOp erf,
                                PatternRewriter &rewriter) const override {
    // erf(x / sqrt(2)) or erf(x * (1 / sqrt(2)))
    Value x;
    Value scaled = erf.getInput();
    if (auto div = scaled.getDefiningOp<DivOp>()) {
      if (isSplatOf(div.getRhs(), std::sqrt(2.0)))
        x = div.getLhs();
    } else if (auto mul = scaled.getDefiningOp<MulOp>()) {
      if (isSplatOf(mul.getRhs(), 1.0 / std::sqrt(2.0)))
        x = mul.getLhs();
      else if (isSplatOf(mul.getLhs(), 1.0 / std::sqrt(2.0)))
        x = mul.getRhs();
    }
    if (!x)
      return failure();
    Operation *last = matchGeluTail(erf.getResult(), x);
    if (!last)
      return failure();
    rewriter.replaceOp(last,
                       GeluOp::create(rewriter, last->getLoc(), x.getType(), x,
                                      GeluApproximation::None)
                           .getResult());
    return success();
  }
};

/// The tanh form (GPT-2's, PyTorch's approximate='tanh'):
/// 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
struct RaiseGeluTanh : OpRewritePattern<TanhOp> {
  using OpRewritePattern::OpRewritePattern;

  /// Whether `v` is x^3: pow(x, 3), x * (x * x) or (x * x) * x.
  static bool isCube(Value v, Value x) {
    if (auto pow = v.getDefiningOp<PowOp>())
      return pow.getLhs() == x && isSplatOf(pow.getRhs(), 3.0);
    auto mul = v.getDefiningOp<MulOp>();
    if (!mul)
      return false;
    auto isSquare = [&](Value s) {
      auto sq = s.getDefiningOp<MulOp>();
      return sq && sq.getLhs() == x && sq.getRhs() == x;
    };
    return (mul.getLhs() == x && isSquare(mul.getRhs())) ||
           (mul.getRhs() == x && isSquare(mul.getLhs()));
  }

  LogicalResult matchAndRewrite(TanhOp tanh,
                                PatternRewriter &rewriter) const override {
    auto scale = tanh.getInput().getDefiningOp<MulOp>();
    if (!scale)
      return failure();
    const double k = std::sqrt(2.0 / M_PI);
    Value inner;
    if (isSplatOf(scale.getRhs(), k))
      inner = scale.getLhs();
    else if (isSplatOf(scale.getLhs(), k))
      inner = scale.getRhs();
    auto add = inner ? inner.getDefiningOp<AddOp>() : AddOp();
    if (!add)
      return failure();
    // x + 0.044715 * x^3, in either order.
    for (int side = 0; side < 2; ++side) {
      Value x = side ? add.getRhs() : add.getLhs();
      auto cubic = (side ? add.getLhs() : add.getRhs()).getDefiningOp<MulOp>();
      if (!cubic)
        continue;
      Value cube;
      if (isSplatOf(cubic.getRhs(), 0.044715))
        cube = cubic.getLhs();
      else if (isSplatOf(cubic.getLhs(), 0.044715))
        cube = cubic.getRhs();
      if (!cube || !isCube(cube, x))
        continue;
      Operation *last = matchGeluTail(tanh.getResult(), x);
      if (!last)
        return failure();
      rewriter.replaceOp(last,
                         GeluOp::create(rewriter, last->getLoc(), x.getType(),
                                        x, GeluApproximation::Tanh)
                             .getResult());
      return success();
    }
    return failure();
  }
};

//===----------------------------------------------------------------------===//
// GroupNorm
//===----------------------------------------------------------------------===//

struct RaiseGroupNorm : OpRewritePattern<GroupNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GroupNormOp inner,
                                PatternRewriter &rewriter) const override {
    // inner: instance norm of reshape(x, [N, G, K]) with scale 1, bias 0.
    auto flatten = inner.getInput().getDefiningOp<ReshapeOp>();
    if (!flatten || !isSplatOf(inner.getWeight(), 1.0) ||
        !isSplatOf(inner.getBias(), 0.0))
      return failure();
    Value x = flatten.getInput();
    RankedTensorType xType = typeOf(x);
    ArrayRef<int64_t> xs = xType.getShape(),
                      grouped = typeOf(flatten.getResult()).getShape();
    if (xs.size() < 3 || grouped.size() != 3 || grouped[0] != xs[0])
      return failure();
    int64_t groups = grouped[1], channels = xs[1];
    if (groups < 1 || channels % groups != 0 || inner.getNumGroups() != groups)
      return failure();
    // The per-group size must be C / G times the spatial size, so that a
    // group is a run of whole channels.
    int64_t spatial = 1;
    for (int64_t d : xs.drop_front(2))
      spatial *= d;
    if (grouped[2] != channels / groups * spatial)
      return failure();
    auto unflatten = dyn_cast_or_null<ReshapeOp>(singleUser(inner.getOutput()));
    if (!unflatten || unflatten.getResult().getType() != xType)
      return failure();

    Location loc = inner.getLoc();
    Type element = xType.getElementType();
    int64_t rank = xs.size();
    Operation *last = unflatten;
    Value weight, bias;
    Value normalized = unflatten.getResult();
    if (auto mul = dyn_cast_or_null<MulOp>(singleUser(normalized))) {
      Value w = otherOperand(mul, normalized);
      if (w && w != normalized &&
          (weight = channelAffine(nullptr, loc, w, rank, channels, element))) {
        last = mul;
        if (auto add = dyn_cast_or_null<AddOp>(singleUser(mul.getResult()))) {
          Value b = otherOperand(add, mul.getResult());
          if (b && b != mul.getResult() &&
              (bias = channelAffine(nullptr, loc, b, rank, channels, element)))
            last = add;
        }
      }
    }
    rewriter.setInsertionPoint(last);
    if (weight)
      weight = channelAffine(&rewriter, loc, weight, rank, channels, element);
    if (bias)
      bias = channelAffine(&rewriter, loc, bias, rank, channels, element);
    std::tie(weight, bias) =
        affineOrIdentity(rewriter, loc, weight, bias,
                         RankedTensorType::get({channels}, element));
    RankedTensorType stat =
        RankedTensorType::get({xs[0], groups}, rewriter.getF32Type());
    auto norm = GroupNormOp::create(rewriter, loc, xType, stat, stat, x, weight,
                                    bias, rewriter.getI64IntegerAttr(groups),
                                    inner.getEpsilonAttr());
    rewriter.replaceOp(last, norm.getOutput());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Linear
//===----------------------------------------------------------------------===//

/// matmul(x, transpose(W)) with a 2-d W, or matmul(x, W) {transpose_rhs}:
/// x * W^T, which is amp.linear(x, W).
struct RaiseLinear : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatmulOp matmul,
                                PatternRewriter &rewriter) const override {
    if (matmul.getTransposeLhs())
      return failure();
    Value weight;
    Value rhs = matmul.getRhs();
    if (typeOf(rhs).getRank() != 2)
      return failure();
    if (matmul.getTransposeRhs()) {
      weight = rhs;
    } else if (auto transpose = rhs.getDefiningOp<TransposeOp>()) {
      if (transpose.getPermutation() != ArrayRef<int64_t>{1, 0})
        return failure();
      weight = transpose.getInput();
    } else {
      return failure();
    }
    Value x = matmul.getLhs();
    if (typeOf(weight).getElementType() != typeOf(x).getElementType())
      return failure();
    rewriter.replaceOp(matmul, LinearOp::create(rewriter, matmul.getLoc(),
                                                matmul.getResult().getType(), x,
                                                weight, Value())
                                   .getResult());
    return success();
  }
};

/// linear(x, W) + broadcast(b) with b of shape [out] -> linear(x, W, b).
struct FoldLinearBias : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AddOp add,
                                PatternRewriter &rewriter) const override {
    for (int side = 0; side < 2; ++side) {
      Value product = side ? add.getRhs() : add.getLhs();
      Value other = side ? add.getLhs() : add.getRhs();
      auto linear = product.getDefiningOp<LinearOp>();
      if (!linear || linear.getBias() || !product.hasOneUse())
        continue;
      Value b = stripBroadcast(other);
      RankedTensorType bType = typeOf(b);
      int64_t out = typeOf(linear.getWeight()).getDimSize(0);
      if (bType.getRank() != 1 || bType.getDimSize(0) != out ||
          (bType.getElementType() !=
           typeOf(linear.getInput()).getElementType()))
        continue;
      if (add.getResult().getType() != product.getType())
        continue;
      rewriter.replaceOp(add, LinearOp::create(rewriter, add.getLoc(),
                                               add.getResult().getType(),
                                               linear.getInput(),
                                               linear.getWeight(), b)
                                  .getResult());
      return success();
    }
    return failure();
  }
};

struct RaiseONNXIdiomsPass
    : public PassWrapper<RaiseONNXIdiomsPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RaiseONNXIdiomsPass)

  StringRef getArgument() const final { return "amp-raise-onnx-idioms"; }
  StringRef getDescription() const final {
    return "Rewrite decomposed LayerNorm, GELU, GroupNorm and Linear "
           "(as ONNX exporters spell them) to amp ops";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<AMPDialect>();
  }
  void runOnOperation() override {
    if (failed(raiseONNXIdioms(getOperation())))
      signalPassFailure();
  }
};

} // namespace

void mlir::amp::populateRaiseONNXIdiomsPatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseLayerNorm, RaiseGelu, RaiseGeluTanh, RaiseGroupNorm,
               RaiseLinear, FoldLinearBias>(patterns.getContext());
}

LogicalResult mlir::amp::raiseONNXIdioms(Operation *op) {
  MLIRContext *context = op->getContext();
  RewritePatternSet patterns(context);
  populateRaiseONNXIdiomsPatterns(patterns);
  for (RegisteredOperationName name : context->getRegisteredOperations())
    if (name.getDialectNamespace() == AMPDialect::getDialectNamespace())
      name.getCanonicalizationPatterns(patterns, context);
  // Common subexpressions first (the importer broadcasts an operand once
  // per use), then the rewrite (which converges on these graphs; not
  // converging would not be an error), then CSE of what it created.
  IRRewriter rewriter(context);
  {
    DominanceInfo dominance(op);
    eliminateCommonSubExpressions(rewriter, dominance, op);
  }
  (void)applyPatternsGreedily(op, std::move(patterns));
  DominanceInfo dominance(op);
  eliminateCommonSubExpressions(rewriter, dominance, op);
  return success();
}

std::unique_ptr<Pass> mlir::amp::createRaiseONNXIdiomsPass() {
  return std::make_unique<RaiseONNXIdiomsPass>();
}

void mlir::amp::registerRaiseONNXIdiomsPass() {
  PassRegistration<RaiseONNXIdiomsPass>();
}

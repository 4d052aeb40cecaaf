//===- ElementwiseToLinalg.cpp - elementwise amp ops to linalg ------------===//
//
// Each elementwise op becomes one linalg.generic. Float arithmetic happens in
// f32 and is rounded once to the result type: for f16/bf16 this is what a
// GPU kernel does, it keeps transcendental functions accurate, and hosts
// without native half arithmetic need nothing else.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"
#include "amp/Conversion/AMPToLinalg/AMPToLinalg.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::amp;

namespace {
//===----------------------------------------------------------------------===//
// Scalar formulas, on f32 values
//===----------------------------------------------------------------------===//

Value f32(OpBuilder &b, Location loc, double value) {
  return scalarConstant(b, loc, b.getF32Type(), value);
}

Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Value one = f32(b, loc, 1.0);
  Value expNeg = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, expNeg));
}

constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kGeluTanhCubic = 0.044715;

/// gelu(x) = x * cdf(x); returns cdf(x) (and its derivative in `pdf`).
Value geluCdf(OpBuilder &b, Location loc, Value x, GeluApproximation form,
              Value *derivative) {
  Value half = f32(b, loc, 0.5), one = f32(b, loc, 1.0);
  if (form == GeluApproximation::None) {
    Value erf = math::ErfOp::create(
        b, loc, arith::MulFOp::create(b, loc, x, f32(b, loc, kSqrtHalf)));
    if (derivative) {
      // d/dx [x cdf(x)] = cdf(x) + x * exp(-x^2 / 2) / sqrt(2 pi)
      Value x2 = arith::MulFOp::create(b, loc, x, x);
      Value pdf = arith::MulFOp::create(
          b, loc, f32(b, loc, kInvSqrt2Pi),
          math::ExpOp::create(
              b, loc, arith::MulFOp::create(b, loc, x2, f32(b, loc, -0.5))));
      *derivative = arith::MulFOp::create(b, loc, x, pdf);
    }
    return arith::MulFOp::create(b, loc, half,
                                 arith::AddFOp::create(b, loc, one, erf));
  }
  // tanh form: cdf = 0.5 (1 + tanh(k (x + c x^3))).
  Value x2 = arith::MulFOp::create(b, loc, x, x);
  Value inner = arith::MulFOp::create(
      b, loc, f32(b, loc, kSqrt2OverPi),
      arith::AddFOp::create(
          b, loc, x,
          arith::MulFOp::create(b, loc, f32(b, loc, kGeluTanhCubic),
                                arith::MulFOp::create(b, loc, x2, x))));
  Value t = math::TanhOp::create(b, loc, inner);
  if (derivative) {
    // x * 0.5 * (1 - t^2) * k * (1 + 3 c x^2)
    Value sech2 =
        arith::SubFOp::create(b, loc, one, arith::MulFOp::create(b, loc, t, t));
    Value dInner = arith::MulFOp::create(
        b, loc, f32(b, loc, kSqrt2OverPi),
        arith::AddFOp::create(
            b, loc, one,
            arith::MulFOp::create(b, loc, f32(b, loc, 3 * kGeluTanhCubic),
                                  x2)));
    *derivative =
        arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, x, half),
                              arith::MulFOp::create(b, loc, sech2, dInner));
  }
  return arith::MulFOp::create(b, loc, half,
                               arith::AddFOp::create(b, loc, one, t));
}

//===----------------------------------------------------------------------===//
// Per-op scalar bodies. Each takes the op and its f32 scalar arguments.
//===----------------------------------------------------------------------===//

template <typename OpTy>
Value computeF32(OpTy op, OpBuilder &b, Location loc, ValueRange x);

#define AMP_BINARY_ARITH(OpTy, ArithOp)                                        \
  template <>                                                                  \
  Value computeF32(OpTy, OpBuilder &b, Location loc, ValueRange x) {           \
    return ArithOp::create(b, loc, x[0], x[1]);                                \
  }
AMP_BINARY_ARITH(AddOp, arith::AddFOp)
AMP_BINARY_ARITH(SubOp, arith::SubFOp)
AMP_BINARY_ARITH(MulOp, arith::MulFOp)
AMP_BINARY_ARITH(DivOp, arith::DivFOp)
AMP_BINARY_ARITH(PowOp, math::PowFOp)
AMP_BINARY_ARITH(MaximumOp, arith::MaximumFOp)
AMP_BINARY_ARITH(MinimumOp, arith::MinimumFOp)
#undef AMP_BINARY_ARITH

#define AMP_UNARY_MATH(OpTy, MathOp)                                           \
  template <>                                                                  \
  Value computeF32(OpTy, OpBuilder &b, Location loc, ValueRange x) {           \
    return MathOp::create(b, loc, x[0]);                                       \
  }
AMP_UNARY_MATH(NegOp, arith::NegFOp)
AMP_UNARY_MATH(ExpOp, math::ExpOp)
AMP_UNARY_MATH(LogOp, math::LogOp)
AMP_UNARY_MATH(SqrtOp, math::SqrtOp)
AMP_UNARY_MATH(RsqrtOp, math::RsqrtOp)
AMP_UNARY_MATH(TanhOp, math::TanhOp)
AMP_UNARY_MATH(ErfOp, math::ErfOp)
#undef AMP_UNARY_MATH

template <>
Value computeF32(SigmoidOp, OpBuilder &b, Location loc, ValueRange x) {
  return sigmoid(b, loc, x[0]);
}
template <> Value computeF32(ReluOp, OpBuilder &b, Location loc, ValueRange x) {
  // maximumf propagates NaN, as torch.relu does.
  return arith::MaximumFOp::create(b, loc, x[0], f32(b, loc, 0.0));
}
template <> Value computeF32(SiluOp, OpBuilder &b, Location loc, ValueRange x) {
  return arith::MulFOp::create(b, loc, x[0], sigmoid(b, loc, x[0]));
}
template <>
Value computeF32(GeluOp op, OpBuilder &b, Location loc, ValueRange x) {
  return arith::MulFOp::create(
      b, loc, x[0],
      geluCdf(b, loc, x[0], op.getApproximate(), /*derivative=*/nullptr));
}
template <>
Value computeF32(ReluGradOp, OpBuilder &b, Location loc, ValueRange x) {
  Value positive = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                         x[1], f32(b, loc, 0.0));
  return arith::SelectOp::create(b, loc, positive, x[0], f32(b, loc, 0.0));
}
template <>
Value computeF32(SiluGradOp, OpBuilder &b, Location loc, ValueRange x) {
  // d/dx x s(x) = s (1 + x (1 - s))
  Value s = sigmoid(b, loc, x[1]);
  Value one = f32(b, loc, 1.0);
  Value d = arith::MulFOp::create(
      b, loc, s,
      arith::AddFOp::create(
          b, loc, one,
          arith::MulFOp::create(b, loc, x[1],
                                arith::SubFOp::create(b, loc, one, s))));
  return arith::MulFOp::create(b, loc, x[0], d);
}
template <>
Value computeF32(SigmoidGradOp, OpBuilder &b, Location loc, ValueRange x) {
  Value y = x[1];
  Value d = arith::MulFOp::create(
      b, loc, y, arith::SubFOp::create(b, loc, f32(b, loc, 1.0), y));
  return arith::MulFOp::create(b, loc, x[0], d);
}
template <>
Value computeF32(TanhGradOp, OpBuilder &b, Location loc, ValueRange x) {
  Value y = x[1];
  Value d = arith::SubFOp::create(b, loc, f32(b, loc, 1.0),
                                  arith::MulFOp::create(b, loc, y, y));
  return arith::MulFOp::create(b, loc, x[0], d);
}
template <>
Value computeF32(GeluGradOp op, OpBuilder &b, Location loc, ValueRange x) {
  Value rest;
  Value cdf = geluCdf(b, loc, x[1], op.getApproximate(), &rest);
  return arith::MulFOp::create(b, loc, x[0],
                               arith::AddFOp::create(b, loc, cdf, rest));
}

/// Lowers a float elementwise op: widen, compute in f32, round once.
template <typename OpTy>
struct FloatElementwiseLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Type element = resultType.getElementType();
    Value result = buildElementwise(
        rewriter, op.getLoc(), resultType, op->getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          SmallVector<Value> wide;
          for (Value arg : args)
            wide.push_back(widenToF32(b, loc, arg));
          return roundTo(b, loc, computeF32(op, b, loc, wide), element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct CastLowering : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Type to = resultType.getElementType();
    Value result = buildElementwise(
        rewriter, op.getLoc(), resultType, op.getInput(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          // Through f32: exact for widening, one rounding for narrowing
          // (f16 <-> bf16 via f32 rounds once since f32 holds both exactly).
          return roundTo(b, loc, widenToF32(b, loc, args[0]), to);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

arith::CmpFPredicate floatPredicate(CompareDirection direction) {
  switch (direction) {
  case CompareDirection::EQ:
    return arith::CmpFPredicate::OEQ;
  case CompareDirection::NE:
    return arith::CmpFPredicate::UNE;
  case CompareDirection::LT:
    return arith::CmpFPredicate::OLT;
  case CompareDirection::LE:
    return arith::CmpFPredicate::OLE;
  case CompareDirection::GT:
    return arith::CmpFPredicate::OGT;
  case CompareDirection::GE:
    return arith::CmpFPredicate::OGE;
  }
  llvm_unreachable("unknown direction");
}

arith::CmpIPredicate integerPredicate(CompareDirection direction) {
  switch (direction) {
  case CompareDirection::EQ:
    return arith::CmpIPredicate::eq;
  case CompareDirection::NE:
    return arith::CmpIPredicate::ne;
  case CompareDirection::LT:
    return arith::CmpIPredicate::slt;
  case CompareDirection::LE:
    return arith::CmpIPredicate::sle;
  case CompareDirection::GT:
    return arith::CmpIPredicate::sgt;
  case CompareDirection::GE:
    return arith::CmpIPredicate::sge;
  }
  llvm_unreachable("unknown direction");
}

struct CompareLowering : OpRewritePattern<CompareOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CompareOp op,
                                PatternRewriter &rewriter) const override {
    CompareDirection direction = op.getDirection();
    Value result = buildElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
        op->getOperands(), [&](OpBuilder &b, Location loc, ValueRange args) {
          if (isa<FloatType>(args[0].getType()))
            return arith::CmpFOp::create(b, loc, floatPredicate(direction),
                                         args[0], args[1])
                .getResult();
          return arith::CmpIOp::create(b, loc, integerPredicate(direction),
                                       args[0], args[1])
              .getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct WhereLowering : OpRewritePattern<WhereOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(WhereOp op,
                                PatternRewriter &rewriter) const override {
    Value result = buildElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
        op->getOperands(), [](OpBuilder &b, Location loc, ValueRange args) {
          return arith::SelectOp::create(b, loc, args[0], args[1], args[2])
              .getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct DropoutGradLowering : OpRewritePattern<DropoutGradOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DropoutGradOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    double keepScale = 1.0 / (1.0 - op.getProbability().convertToDouble());
    Value result = buildElementwise(
        rewriter, op.getLoc(), resultType, op->getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value scaled = arith::MulFOp::create(
              b, loc, widenToF32(b, loc, args[0]), f32(b, loc, keepScale));
          Value kept = arith::SelectOp::create(b, loc, args[1], scaled,
                                               f32(b, loc, 0.0));
          return roundTo(b, loc, kept, resultType.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void mlir::amp::populateAMPElementwiseToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<
      FloatElementwiseLowering<AddOp>, FloatElementwiseLowering<SubOp>,
      FloatElementwiseLowering<MulOp>, FloatElementwiseLowering<DivOp>,
      FloatElementwiseLowering<PowOp>, FloatElementwiseLowering<MaximumOp>,
      FloatElementwiseLowering<MinimumOp>, FloatElementwiseLowering<NegOp>,
      FloatElementwiseLowering<ExpOp>, FloatElementwiseLowering<LogOp>,
      FloatElementwiseLowering<SqrtOp>, FloatElementwiseLowering<RsqrtOp>,
      FloatElementwiseLowering<TanhOp>, FloatElementwiseLowering<ErfOp>,
      FloatElementwiseLowering<SigmoidOp>, FloatElementwiseLowering<ReluOp>,
      FloatElementwiseLowering<SiluOp>, FloatElementwiseLowering<GeluOp>,
      FloatElementwiseLowering<ReluGradOp>,
      FloatElementwiseLowering<SiluGradOp>,
      FloatElementwiseLowering<SigmoidGradOp>,
      FloatElementwiseLowering<TanhGradOp>,
      FloatElementwiseLowering<GeluGradOp>, CastLowering, CompareLowering,
      WhereLowering, DropoutGradLowering>(patterns.getContext());
}

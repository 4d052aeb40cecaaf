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
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;
using namespace mlir::amp;

namespace {
//===----------------------------------------------------------------------===//
// Scalar formulas, on f32 values
//===----------------------------------------------------------------------===//

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
// Per-op scalar formulas. Each takes the op (for its attributes) and its f32
// scalar operands, and returns the f32 result.
//===----------------------------------------------------------------------===//

template <typename OpTy>
using ScalarFormula = Value (*)(OpTy, OpBuilder &, Location, ValueRange);

/// Ops that are one arith or math op on their operands.
template <typename ArithOp, typename OpTy>
Value binary(OpTy, OpBuilder &b, Location loc, ValueRange x) {
  return ArithOp::create(b, loc, x[0], x[1]);
}
template <typename MathOp, typename OpTy>
Value unary(OpTy, OpBuilder &b, Location loc, ValueRange x) {
  return MathOp::create(b, loc, x[0]);
}

Value sigmoidFormula(SigmoidOp, OpBuilder &b, Location loc, ValueRange x) {
  return sigmoid(b, loc, x[0]);
}
Value reluFormula(ReluOp, OpBuilder &b, Location loc, ValueRange x) {
  // maximumf propagates NaN, as torch.relu does.
  return arith::MaximumFOp::create(b, loc, x[0], f32(b, loc, 0.0));
}
Value softplusFormula(SoftplusOp, OpBuilder &b, Location loc, ValueRange x) {
  // max(x, 0) + log1p(exp(-|x|)): exp never overflows, and maximumf
  // propagates NaN.
  Value positive = arith::MaximumFOp::create(b, loc, x[0], f32(b, loc, 0.0));
  Value negAbs =
      arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x[0]));
  Value tail =
      math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, negAbs));
  return arith::AddFOp::create(b, loc, positive, tail);
}
Value siluFormula(SiluOp, OpBuilder &b, Location loc, ValueRange x) {
  return arith::MulFOp::create(b, loc, x[0], sigmoid(b, loc, x[0]));
}
Value geluFormula(GeluOp op, OpBuilder &b, Location loc, ValueRange x) {
  return arith::MulFOp::create(
      b, loc, x[0],
      geluCdf(b, loc, x[0], op.getApproximate(), /*derivative=*/nullptr));
}
Value reluGradFormula(ReluGradOp, OpBuilder &b, Location loc, ValueRange x) {
  Value positive = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                         x[1], f32(b, loc, 0.0));
  return arith::SelectOp::create(b, loc, positive, x[0], f32(b, loc, 0.0));
}
Value siluGradFormula(SiluGradOp, OpBuilder &b, Location loc, ValueRange x) {
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
Value sigmoidGradFormula(SigmoidGradOp, OpBuilder &b, Location loc,
                         ValueRange x) {
  Value y = x[1];
  Value d = arith::MulFOp::create(
      b, loc, y, arith::SubFOp::create(b, loc, f32(b, loc, 1.0), y));
  return arith::MulFOp::create(b, loc, x[0], d);
}
Value tanhGradFormula(TanhGradOp, OpBuilder &b, Location loc, ValueRange x) {
  Value y = x[1];
  Value d = arith::SubFOp::create(b, loc, f32(b, loc, 1.0),
                                  arith::MulFOp::create(b, loc, y, y));
  return arith::MulFOp::create(b, loc, x[0], d);
}
Value geluGradFormula(GeluGradOp op, OpBuilder &b, Location loc, ValueRange x) {
  Value rest;
  Value cdf = geluCdf(b, loc, x[1], op.getApproximate(), &rest);
  return arith::MulFOp::create(b, loc, x[0],
                               arith::AddFOp::create(b, loc, cdf, rest));
}

/// Lowers a float elementwise op: widen, compute `formula` in f32, round once.
template <typename OpTy>
struct FloatElementwiseLowering : ResultLowering<OpTy> {
  FloatElementwiseLowering(MLIRContext *context, ScalarFormula<OpTy> formula)
      : ResultLowering<OpTy>(context), formula(formula) {}

  Value lower(OpTy op, typename OpTy::Adaptor adaptor, OpBuilder &builder,
              Location loc, RankedTensorType resultType) const override {
    Type element = resultType.getElementType();
    return buildElementwise(builder, loc, resultType, adaptor.getOperands(),
                            [&](OpBuilder &b, Location loc, ValueRange args) {
                              SmallVector<Value> wide;
                              for (Value arg : args)
                                wide.push_back(widenToF32(b, loc, arg));
                              return roundTo(b, loc, formula(op, b, loc, wide),
                                             element);
                            });
  }

private:
  ScalarFormula<OpTy> formula;
};

/// One entry of the float elementwise table below.
template <typename OpTy>
void addFloatElementwise(RewritePatternSet &patterns,
                         ScalarFormula<OpTy> formula) {
  patterns.add<FloatElementwiseLowering<OpTy>>(patterns.getContext(), formula);
}

struct CastLowering : ResultLowering<CastOp> {
  using ResultLowering::ResultLowering;
  Value lower(CastOp op, OpAdaptor adaptor, OpBuilder &builder, Location loc,
              RankedTensorType resultType) const override {
    Type to = resultType.getElementType();
    return buildElementwise(builder, loc, resultType, adaptor.getInput(),
                            [&](OpBuilder &b, Location loc, ValueRange args) {
                              // Through f32: exact for widening, one rounding
                              // for narrowing (f16 <-> bf16 via f32 rounds once
                              // since f32 holds both exactly).
                              return roundTo(b, loc,
                                             widenToF32(b, loc, args[0]), to);
                            });
  }
};

/// Two passes over the input: the maximum magnitude, then the saturated,
/// rounded product (after the reduction, so that the GPU backend can
/// compute it in the reduction's element loop, a companion of
/// amp-gpu-parallel-reductions, reading the input once).
/// arith.maximumf and minimumf propagate NaN, so a NaN element stays NaN
/// and makes the amax NaN (which the scaling sees); an infinite element
/// becomes NaN too (x - x, NaN exactly when x is not finite) instead of
/// saturating, so that its products are NaN and loss scaling skips the
/// step rather than training on the clamped value.
struct Fp8QuantizeLowering : Lowering<Fp8QuantizeOp> {
  using Lowering::Lowering;
  SmallVector<Value> lower(Fp8QuantizeOp op, OpAdaptor adaptor,
                           OpBuilder &builder, Location loc) const override {
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    auto format = cast<FloatType>(resultType.getElementType());
    double largest =
        APFloat::getLargest(format.getFloatSemantics()).convertToDouble();
    unsigned rank = resultType.getRank();
    SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    Value amax =
        buildReduction(builder, loc, rank, axes, {}, adaptor.getInput(),
                       builder.getMultiDimIdentityMap(rank), 0.0,
                       [](OpBuilder &b, Location l, Value acc, ValueRange x) {
                         return arith::MaximumFOp::create(
                                    b, l, acc, math::AbsFOp::create(b, l, x[0]))
                             .getResult();
                       });
    SmallVector<AffineMap> maps = {builder.getMultiDimIdentityMap(rank),
                                   scalarMap(builder, rank)};
    Value quantized = buildElementwise(
        builder, loc, resultType, {adaptor.getInput(), adaptor.getScale()},
        [&](OpBuilder &b, Location l, ValueRange x) {
          Value input = widenToF32(b, l, x[0]);
          Value value = arith::MulFOp::create(b, l, input, x[1]);
          value = arith::MaximumFOp::create(b, l, value, f32(b, l, -largest));
          value = arith::MinimumFOp::create(b, l, value, f32(b, l, largest));
          // A select, not an addition: -0 stays -0.
          Value poison = arith::SubFOp::create(b, l, input, input);
          Value finite = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                               poison, f32(b, l, 0.0));
          value = arith::SelectOp::create(b, l, finite, value, poison);
          return roundTo(b, l, value, format);
        },
        maps);
    return {quantized, amax};
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

struct CompareLowering : ResultLowering<CompareOp> {
  using ResultLowering::ResultLowering;
  Value lower(CompareOp op, OpAdaptor adaptor, OpBuilder &builder, Location loc,
              RankedTensorType resultType) const override {
    CompareDirection direction = op.getDirection();
    return buildElementwise(
        builder, loc, resultType, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          if (isa<FloatType>(args[0].getType()))
            return arith::CmpFOp::create(b, loc, floatPredicate(direction),
                                         args[0], args[1])
                .getResult();
          return arith::CmpIOp::create(b, loc, integerPredicate(direction),
                                       args[0], args[1])
              .getResult();
        });
  }
};

struct WhereLowering : ResultLowering<WhereOp> {
  using ResultLowering::ResultLowering;
  Value lower(WhereOp op, OpAdaptor adaptor, OpBuilder &builder, Location loc,
              RankedTensorType resultType) const override {
    return buildElementwise(builder, loc, resultType, adaptor.getOperands(),
                            [](OpBuilder &b, Location loc, ValueRange args) {
                              return arith::SelectOp::create(b, loc, args[0],
                                                             args[1], args[2])
                                  .getResult();
                            });
  }
};

struct DropoutGradLowering : ResultLowering<DropoutGradOp> {
  using ResultLowering::ResultLowering;
  Value lower(DropoutGradOp op, OpAdaptor adaptor, OpBuilder &builder,
              Location loc, RankedTensorType resultType) const override {
    double keepScale = 1.0 / (1.0 - op.getProbability().convertToDouble());
    return buildElementwise(
        builder, loc, resultType, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value scaled = arith::MulFOp::create(
              b, loc, widenToF32(b, loc, args[0]), f32(b, loc, keepScale));
          Value kept = arith::SelectOp::create(b, loc, args[1], scaled,
                                               f32(b, loc, 0.0));
          return roundTo(b, loc, kept, resultType.getElementType());
        });
  }
};
} // namespace

void mlir::amp::populateAMPElementwiseToLinalgPatterns(
    RewritePatternSet &patterns) {
  // Float elementwise ops, one entry each: the op and its f32 formula. A new
  // elementwise op is one line here (plus its formula above when no single
  // arith or math op computes it).
  addFloatElementwise<AddOp>(patterns, binary<arith::AddFOp>);
  addFloatElementwise<SubOp>(patterns, binary<arith::SubFOp>);
  addFloatElementwise<MulOp>(patterns, binary<arith::MulFOp>);
  addFloatElementwise<DivOp>(patterns, binary<arith::DivFOp>);
  addFloatElementwise<PowOp>(patterns, binary<math::PowFOp>);
  addFloatElementwise<MaximumOp>(patterns, binary<arith::MaximumFOp>);
  addFloatElementwise<MinimumOp>(patterns, binary<arith::MinimumFOp>);
  addFloatElementwise<NegOp>(patterns, unary<arith::NegFOp>);
  addFloatElementwise<ExpOp>(patterns, unary<math::ExpOp>);
  addFloatElementwise<LogOp>(patterns, unary<math::LogOp>);
  addFloatElementwise<SqrtOp>(patterns, unary<math::SqrtOp>);
  addFloatElementwise<RsqrtOp>(patterns, unary<math::RsqrtOp>);
  addFloatElementwise<TanhOp>(patterns, unary<math::TanhOp>);
  addFloatElementwise<ErfOp>(patterns, unary<math::ErfOp>);
  addFloatElementwise<SinOp>(patterns, unary<math::SinOp>);
  addFloatElementwise<CosOp>(patterns, unary<math::CosOp>);
  addFloatElementwise<SigmoidOp>(patterns, sigmoidFormula);
  addFloatElementwise<ReluOp>(patterns, reluFormula);
  addFloatElementwise<SiluOp>(patterns, siluFormula);
  addFloatElementwise<SoftplusOp>(patterns, softplusFormula);
  addFloatElementwise<GeluOp>(patterns, geluFormula);
  addFloatElementwise<ReluGradOp>(patterns, reluGradFormula);
  addFloatElementwise<SiluGradOp>(patterns, siluGradFormula);
  addFloatElementwise<SigmoidGradOp>(patterns, sigmoidGradFormula);
  addFloatElementwise<TanhGradOp>(patterns, tanhGradFormula);
  addFloatElementwise<GeluGradOp>(patterns, geluGradFormula);

  patterns.add<CastLowering, Fp8QuantizeLowering, CompareLowering,
               WhereLowering, DropoutGradLowering>(patterns.getContext());
}

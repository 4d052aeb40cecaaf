//===- ExpandFloat8.cpp - f8 conversions as integer code ------------------===//
//
// The amp-expand-float8 pass: arith.truncf to f8E4M3FN / f8E5M2 and
// arith.extf from them become integer bit operations, since LLVM has no f8
// types (the LLVM type converter maps them to i8, so loads, stores,
// constants and selects of f8 already lower) and no conversion
// instructions for them on the host or before sm_89. Arithmetic on f8
// values (a comparison, a maximum) first runs in f32 between explicit
// conversions (upstream's float emulation patterns), so that only
// conversions are left. The results are bit-exact with APFloat, which is
// what arith.truncf and arith.extf mean: round to nearest even including
// subnormals, out of range to NaN (e4m3fn, which has no infinity) or to
// infinity (e5m2), NaN to a quiet NaN of the same sign with the top bits of
// the payload. include/amp/Runtime/Numerics.h holds the same conversions in
// C++; the execution tests compare the two.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::amp {
#define GEN_PASS_DEF_EXPANDFLOAT8PASS
#include "amp/Codegen/Common/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {
/// A binary float format: `mantissa` stored significand bits, exponent
/// `bias`, and whether its all-ones exponent holds infinities and NaNs (IEEE
/// formats and e5m2) or only S.1111.111 is NaN (e4m3fn).
struct Format {
  unsigned width;
  unsigned mantissa;
  int64_t bias;
  bool hasInfinity;
};

std::optional<Format> float8Format(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return Format{8, 3, 7, false};
  if (isa<Float8E5M2Type>(type))
    return Format{8, 2, 15, true};
  return std::nullopt;
}

/// The formats conversions to and from f8 take on the wider side.
std::optional<Format> wideFormat(Type type) {
  if (type.isF16())
    return Format{16, 10, 15, true};
  if (type.isBF16())
    return Format{16, 7, 127, true};
  if (type.isF32())
    return Format{32, 23, 127, true};
  if (type.isF64())
    return Format{64, 52, 1023, true};
  return std::nullopt;
}

bool isFloat8(Type type) {
  return float8Format(getElementTypeOrSelf(type)).has_value();
}

/// Builds integer code on scalars or vectors of the shape of a value.
class BitBuilder {
public:
  BitBuilder(OpBuilder &b, Location loc, Type like, unsigned width)
      : b(b), loc(loc), like(like), intType(shaped(b.getIntegerType(width))) {}

  /// `element` in the shape of the converted value.
  Type shaped(Type element) const {
    if (auto vector = dyn_cast<VectorType>(like))
      return vector.clone(element);
    return element;
  }
  Type type() const { return intType; }

  Value constant(uint64_t value) { return constant(value, intType); }
  Value constant(uint64_t value, Type type) {
    Type element = getElementTypeOrSelf(type);
    auto attr = b.getIntegerAttr(element,
                                 APInt(element.getIntOrFloatBitWidth(), value));
    if (auto vector = dyn_cast<VectorType>(type))
      return arith::ConstantOp::create(b, loc,
                                       DenseElementsAttr::get(vector, attr));
    return arith::ConstantOp::create(b, loc, attr);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value andI(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value orI(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value shl(Value x, Value y) { return arith::ShLIOp::create(b, loc, x, y); }
  Value shr(Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); }
  Value minU(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
  Value maxU(Value x, Value y) { return arith::MaxUIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate predicate, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, predicate, x, y);
  }
  Value select(Value condition, Value x, Value y) {
    return arith::SelectOp::create(b, loc, condition, x, y);
  }
  Value bitcast(Value x, Type type) {
    return arith::BitcastOp::create(b, loc, type, x);
  }
  Value extU(Value x, Type type) {
    return arith::ExtUIOp::create(b, loc, type, x);
  }
  Value trunc(Value x, Type type) {
    return arith::TruncIOp::create(b, loc, type, x);
  }

  OpBuilder &b;
  Location loc;

private:
  Type like;
  Type intType;
};

/// `in` (f16, bf16, f32 or f64) rounded to nearest even into the f8 format
/// `to`, as integer code; returns the f8 value.
Value truncateToFloat8(OpBuilder &builder, Location loc, Value in,
                       Type resultType, const Format &from, const Format &to) {
  // The work type holds the source's bits with room for the rounding
  // increments (at least i32, so that f16 and bf16 magnitudes cannot wrap).
  unsigned width = std::max(32u, from.width);
  BitBuilder b(builder, loc, in.getType(), width);
  using P = arith::CmpIPredicate;
  auto c = [&](uint64_t value) { return b.constant(value); };

  Value bits = b.bitcast(in, b.shaped(builder.getIntegerType(from.width)));
  if (from.width < width)
    bits = b.extU(bits, b.type());
  uint64_t signBit = uint64_t(1) << (from.width - 1);
  Value magnitude = b.andI(bits, c(signBit - 1));
  Value sign = b.andI(b.shr(bits, c(from.width - 8)), c(0x80));

  unsigned drop = from.mantissa - to.mantissa;
  // Normal results: add just under half an f8 unit, plus one more when the
  // kept last bit is odd (ties to even), drop the bits, then rebias (the
  // carry of a rounding up moves into the exponent, as it should).
  Value rounded = b.add(b.add(magnitude, c((uint64_t(1) << (drop - 1)) - 1)),
                        b.andI(b.shr(magnitude, c(drop)), c(1)));
  Value normal = b.sub(b.shr(rounded, c(drop)),
                       c(uint64_t(from.bias - to.bias) << to.mantissa));

  // Subnormal results (|x| below the f8's smallest normal): the source's
  // significand, with its implicit bit where it has one, shifted right to
  // units of the f8's smallest subnormal with the same rounding. The shift
  // is clamped to [1, width - 1] so that no lane shifts by its width or
  // more (poison); lanes that need more round to zero either way.
  Value exponent = b.shr(magnitude, c(from.mantissa));
  Value effective = b.maxU(exponent, c(1));
  Value significand =
      b.sub(magnitude, b.shl(b.sub(effective, c(1)), c(from.mantissa)));
  int64_t shiftBase = from.bias + from.mantissa + 1 - to.bias - to.mantissa;
  Value shift = b.minU(b.sub(c(shiftBase), effective), c(width - 1));
  shift = b.maxU(shift, c(1));
  Value half = b.shl(c(1), b.sub(shift, c(1)));
  Value subnormal = b.shr(b.add(b.add(significand, b.sub(half, c(1))),
                                b.andI(b.shr(significand, shift), c(1))),
                          shift);
  uint64_t minNormal = uint64_t(from.bias + 1 - to.bias) << from.mantissa;
  Value isSubnormal = b.cmp(P::ult, magnitude, c(minNormal));
  Value result = b.select(isSubnormal, subnormal, normal);

  // Past the largest finite value (infinity included): NaN for e4m3fn
  // (APFloat; PyTorch too), infinity for e5m2.
  uint64_t maxFinite = to.hasInfinity ? 0x7b : 0x7e;
  Value overflows = b.cmp(P::ugt, result, c(maxFinite));
  result = b.select(overflows, c(to.hasInfinity ? 0x7c : 0x7f), result);

  // NaN: e4m3fn has one NaN; e5m2 keeps the top two payload bits and is
  // made quiet (its top mantissa bit), as APFloat converts.
  uint64_t infinity = ((uint64_t(1) << (from.width - 1 - from.mantissa)) - 1)
                      << from.mantissa;
  Value isNaN = b.cmp(P::ugt, magnitude, c(infinity));
  Value nan = c(0x7f);
  if (to.hasInfinity)
    nan = b.orI(c(0x7e), b.andI(b.shr(magnitude, c(from.mantissa - 2)), c(1)));
  result = b.orI(b.select(isNaN, nan, result), sign);

  Value byte = b.trunc(result, b.shaped(builder.getI8Type()));
  return b.bitcast(byte, resultType);
}

/// The f8 `in` of format `from` widened exactly to `resultType` (f16, bf16,
/// f32 or f64), as integer code.
Value extendFromFloat8(OpBuilder &builder, Location loc, Value in,
                       Type resultType, const Format &from) {
  BitBuilder b(builder, loc, in.getType(), 32);
  using P = arith::CmpIPredicate;
  auto c = [&](uint64_t value) { return b.constant(value); };
  Type i32 = b.type();

  Value x = b.extU(b.bitcast(in, b.shaped(builder.getI8Type())), i32);
  Value sign = b.shl(b.andI(x, c(0x80)), c(24));
  Value exponent =
      b.andI(b.shr(x, c(from.mantissa)), c((1u << (7 - from.mantissa)) - 1));
  Value mantissa = b.andI(x, c((1u << from.mantissa) - 1));

  // f32 bits of |x|. Every f8 value is an f32 normal (or zero): normals
  // rebias; subnormals (mantissa * 2^(1 - bias - m)) are the integer
  // mantissa converted exactly, its exponent lowered by bias + m - 1.
  Value normal = b.orI(b.shl(b.add(exponent, c(127 - from.bias)), c(23)),
                       b.shl(mantissa, c(23 - from.mantissa)));
  Value asFloat = arith::UIToFPOp::create(
      builder, loc, b.shaped(builder.getF32Type()), mantissa);
  Value subnormal =
      b.select(b.cmp(P::eq, mantissa, c(0)), c(0),
               b.sub(b.bitcast(asFloat, i32),
                     c(uint64_t(from.bias + from.mantissa - 1) << 23)));
  Value magnitude = b.select(b.cmp(P::eq, exponent, c(0)), subnormal, normal);
  Value isNaN;
  if (from.hasInfinity) {
    // e5m2: the all-ones exponent is infinity or a NaN, made quiet.
    Value special = b.cmp(P::eq, exponent, c(0x1f));
    isNaN = b.andI(special, b.cmp(P::ne, mantissa, c(0)));
    Value nanBits =
        b.orI(c(0x7fc00000), b.shl(mantissa, c(23 - from.mantissa)));
    magnitude =
        b.select(special, b.select(isNaN, nanBits, c(0x7f800000)), magnitude);
  } else {
    // e4m3fn: S.1111.111 is the NaN, its payload all ones.
    isNaN = b.cmp(P::eq, b.andI(x, c(0x7f)), c(0x7f));
    magnitude = b.select(isNaN, c(0x7ff00000), magnitude);
  }

  Type element = getElementTypeOrSelf(resultType);
  if (element.isF32())
    return b.bitcast(b.orI(magnitude, sign), resultType);
  if (element.isF64())
    // f32 -> f64 is exact, and fpext keeps NaN payloads on every target.
    return arith::ExtFOp::create(
        builder, loc, resultType,
        b.bitcast(b.orI(magnitude, sign), b.shaped(builder.getF32Type())));
  Type i16 = b.shaped(builder.getI16Type());
  Value half;
  if (element.isBF16()) {
    // bf16 is the top half of f32, and holds every f8 value exactly.
    half = b.shr(b.orI(magnitude, sign), c(16));
  } else if (from.hasInfinity) {
    // f16 (e5m2 is its top byte); a NaN is made quiet.
    half = b.orI(b.shl(x, c(8)), b.select(isNaN, c(0x200), c(0)));
  } else {
    // f16 from e4m3fn: every value is an f16 normal or zero; rebias the
    // f32 bits; the NaN's payload stays all ones.
    Value rebiased =
        b.sub(b.shr(magnitude, c(13)), c(uint64_t(127 - 15) << 10));
    rebiased = b.select(b.cmp(P::eq, magnitude, c(0)), c(0), rebiased);
    rebiased = b.select(isNaN, c(0x7f80), rebiased);
    half = b.orI(rebiased, b.shr(sign, c(16)));
  }
  return b.bitcast(b.trunc(half, i16), resultType);
}

/// Whether `type` is a scalar or a vector (what the expansion rewrites).
bool isScalarOrVector(Type type) {
  return type.isIntOrIndexOrFloat() || isa<VectorType>(type);
}

struct ExpandFloat8Pass : amp::impl::ExpandFloat8PassBase<ExpandFloat8Pass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    MLIRContext *ctx = &getContext();

    // 1. Arithmetic on f8 values runs in f32 between conversions.
    {
      TypeConverter converter;
      arith::populateEmulateUnsupportedFloatsConversions(
          converter, {Float8E4M3FNType::get(ctx), Float8E5M2Type::get(ctx)},
          Float32Type::get(ctx));
      RewritePatternSet patterns(ctx);
      arith::populateEmulateUnsupportedFloatsPatterns(patterns, converter);
      ConversionTarget target(*ctx);
      arith::populateEmulateUnsupportedFloatsLegality(target, converter);
      if (failed(applyPartialConversion(root, target, std::move(patterns))))
        return signalPassFailure();
    }

    // 2. The conversions become integer code.
    SmallVector<Operation *> conversions;
    WalkResult walk = root->walk([&](Operation *op) {
      if (!isa<arith::TruncFOp, arith::ExtFOp>(op))
        return WalkResult::advance();
      Type in = getElementTypeOrSelf(op->getOperand(0).getType());
      Type out = getElementTypeOrSelf(op->getResult(0).getType());
      if (isFloat8(in) || isFloat8(out)) {
        conversions.push_back(op);
        return WalkResult::advance();
      }
      // The other 8-bit formats (FNUZ, E4M3, E3M4, ...) would reach LLVM
      // as i8 too, with no lowering of their conversions either.
      for (Type type : {in, out})
        if (isa<FloatType>(type) && type.getIntOrFloatBitWidth() == 8) {
          op->emitOpError() << "converts " << in << " to " << out
                            << ": amp-expand-float8 expands conversions of "
                               "f8E4M3FN and f8E5M2 only";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    IRRewriter rewriter(ctx);
    for (Operation *op : conversions) {
      Type inType = op->getOperand(0).getType();
      Type outType = op->getResult(0).getType();
      if (!isScalarOrVector(inType)) {
        op->emitOpError() << "on " << inType
                          << ": amp-expand-float8 expands f8 conversions of "
                             "scalars and vectors only; bufferize and lower "
                             "linalg to loops first";
        return signalPassFailure();
      }
      Type inElement = getElementTypeOrSelf(inType);
      Type outElement = getElementTypeOrSelf(outType);
      rewriter.setInsertionPoint(op);
      Value in = op->getOperand(0);
      Value result;
      if (auto truncf = dyn_cast<arith::TruncFOp>(op)) {
        std::optional<arith::RoundingMode> mode = truncf.getRoundingmode();
        if (mode && *mode != arith::RoundingMode::to_nearest_even) {
          op->emitOpError()
              << "rounds " << arith::stringifyRoundingMode(*mode)
              << ": amp-expand-float8 implements round to nearest even only";
          return signalPassFailure();
        }
        std::optional<Format> from = wideFormat(inElement);
        if (!from || !isFloat8(outElement)) {
          op->emitOpError() << "converts " << inElement << " to " << outElement
                            << ": amp-expand-float8 rounds f16, bf16, f32 "
                               "and f64 to f8 only";
          return signalPassFailure();
        }
        result = truncateToFloat8(rewriter, op->getLoc(), in, outType, *from,
                                  *float8Format(outElement));
      } else {
        if (!isFloat8(inElement) || !wideFormat(outElement)) {
          op->emitOpError() << "converts " << inElement << " to " << outElement
                            << ": amp-expand-float8 widens f8 to f16, bf16, "
                               "f32 and f64 only";
          return signalPassFailure();
        }
        result = extendFromFloat8(rewriter, op->getLoc(), in, outType,
                                  *float8Format(inElement));
      }
      rewriter.replaceOp(op, result);
    }
  }
};
} // namespace

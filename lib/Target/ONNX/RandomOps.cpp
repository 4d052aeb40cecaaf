//===- RandomOps.cpp - ONNX random ops ------------------------------------===//
//
// Stochastic depth's random drop path as PyTorch 1.x exports it:
// floor(keep + torch.rand(N, 1, ...)) (RandomUniformLike, Add, Floor),
// torch.rand(...) < keep (RandomUniform, Less) and torch.bernoulli of a
// constant probability (Bernoulli). amp's randomness is explicit, a seeded
// amp.dropout whose mask is a Bernoulli draw (one i64 seed argument per
// draw, `<node name>.seed`, as Dropout's), and it draws no uniform
// numbers: RandomUniform(Like) defines a symbolic Uniform[low, high)
// (Entry::uniform), which shifts and scales by constants keep, and which
// Floor or a comparison with a constant turns into a Bernoulli draw with
// the same distribution. Any other use is an error. The random stream is
// amp's, not PyTorch's; the ONNX `seed` attributes are ignored. In eval
// mode (amp.dropout the identity) a float draw is its expectation p, and
// a mask (a comparison's) keeps everything.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"
#include "OpTable.h"

#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "onnx/onnx_pb.h"

#include <cmath>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::onnx_import;

Value Importer::bernoulli(double p, ArrayRef<int64_t> shape, Type element) {
  Type i1 = builder.getI1Type();
  RankedTensorType maskType = tensorType(shape, i1);
  RankedTensorType type = tensorType(shape, element ? element : i1);
  // amp.dropout's ratio 1 - p must be in [0, 1): a p too small to change
  // 1 - p draws nothing.
  double ratio = 1.0 - p;
  if (ratio >= 1.0 || ratio <= 0.0) {
    if (!element)
      return constant(HostTensor::scalarInt(ratio <= 0.0, kBool), maskType);
    return splat(ratio <= 0.0 ? 1.0 : 0.0, type);
  }
  std::string name =
      (node->name().empty() ? node->output(0) : node->name()) + ".seed";
  Value seed = body->addArgument(
      RankedTensorType::get({}, builder.getI64Type()), fileLoc);
  args.push_back({ArgKind::Seed, name, seedCount++, seed});
  // amp.dropout keeps each element with probability 1 - ratio.
  RankedTensorType onesType = tensorType(shape, builder.getF32Type());
  auto drop =
      DropoutOp::create(builder, loc, onesType, maskType, splat(1.0, onesType),
                        seed, llvm::APFloat(ratio));
  if (!element)
    return drop.getMask();
  // The kept ones scaled by 1 / p, times p: 0 or 1 in training, and p, the
  // expectation, where amp runs the forward in eval mode (amp.dropout the
  // identity), so that a drop path x / p * mask is x there as in PyTorch's
  // eval mode.
  Value kept = drop.getOutput();
  if (element != builder.getF32Type())
    kept = CastOp::create(builder, loc, type, kept);
  return MulOp::create(builder, loc, type, kept, splat(p, type));
}

LogicalResult Importer::importRandomUniform(bool like) {
  if (failed(checkArity(like ? 1 : 0, like ? 1 : 0)))
    return failure();
  FailureOr<double> low = floatAttr("low", 0.0);
  FailureOr<double> high = floatAttr("high", 1.0);
  FailureOr<int64_t> dtypeAttr = intAttr("dtype", kFloat);
  FailureOr<std::optional<SmallVector<int64_t>>> shapeAttr = intsAttr("shape");
  if (failed(low) || failed(high) || failed(dtypeAttr) || failed(shapeAttr))
    return failure();
  if (!(*low < *high) || !std::isfinite(*low) || !std::isfinite(*high)) {
    error() << "low " << *low << " must be below high " << *high
            << " (both finite)";
    return failure();
  }
  auto samples = std::make_shared<UniformSamples>();
  samples->low = *low;
  samples->high = *high;
  samples->dtype = static_cast<int32_t>(*dtypeAttr);
  if (like) {
    FailureOr<Shape> shape = inputShape(0);
    FailureOr<int32_t> dtype = inputDType(0);
    if (failed(shape) || failed(dtype))
      return failure();
    samples->shape = *shape;
    if (!attr("dtype"))
      samples->dtype = *dtype;
  } else {
    if (!*shapeAttr) {
      error() << "has no shape attribute";
      return failure();
    }
    samples->shape = **shapeAttr;
  }
  if (!isFloatDType(samples->dtype)) {
    error() << "draws " << dtypeName(samples->dtype)
            << " samples; amp supports floating-point ones";
    return failure();
  }
  if (failed(checkShape(samples->shape)))
    return failure();
  Entry e;
  e.uniform = std::move(samples);
  return defineOutput(0, std::move(e));
}

/// A scalar (or splat) known at import time that broadcasts to `shape`
/// without enlarging it: the constant a uniform is shifted, scaled or
/// compared by.
static FailureOr<double> uniformOperand(Importer &im, unsigned i,
                                        ArrayRef<int64_t> shape) {
  FailureOr<const HostTensor *> known = im.hostOf(i);
  if (failed(known))
    return failure();
  if (!*known || !(*known)->isSplat() || (*known)->size() == 0) {
    im.error() << im.inputLabel(i)
               << " must be a constant (one value known at import time) to "
                  "combine with uniform random samples";
    return failure();
  }
  FailureOr<Shape> joined = im.broadcastShapes({(*known)->shape, Shape(shape)});
  if (failed(joined))
    return failure();
  if (ArrayRef<int64_t>(*joined) != shape) {
    im.error() << "the constant " << im.inputLabel(i) << " of shape "
               << formatShape((*known)->shape)
               << " would broadcast the uniform samples of shape "
               << formatShape(shape);
    return failure();
  }
  return (*known)->getDouble(0);
}

LogicalResult Importer::importUniformArith(Arith kind) {
  unsigned sampled = uniformOf(0) ? 0 : 1, other = 1 - sampled;
  if (uniformOf(other)) {
    error() << "combines two draws of uniform random samples, which amp "
               "does not support";
    return failure();
  }
  UniformSamples u = *uniformOf(sampled);
  FailureOr<double> c = uniformOperand(*this, other, u.shape);
  if (failed(c))
    return failure();
  double lo = u.low, hi = u.high;
  switch (kind) {
  case Arith::Add:
    lo += *c;
    hi += *c;
    break;
  case Arith::Sub:
    // c - U is uniform over (c - high, c - low].
    if (sampled == 0) {
      lo -= *c;
      hi -= *c;
    } else {
      std::tie(lo, hi) = std::make_pair(*c - hi, *c - lo);
    }
    break;
  case Arith::Mul:
  case Arith::Div: {
    if (kind == Arith::Div && sampled == 1) {
      error() << "divides by uniform random samples, which are then not "
                 "uniform";
      return failure();
    }
    double factor = kind == Arith::Mul ? *c : 1.0 / *c;
    if (factor == 0.0 || !std::isfinite(factor)) {
      error() << "scales uniform random samples by " << factor;
      return failure();
    }
    lo *= factor;
    hi *= factor;
    if (factor < 0)
      std::swap(lo, hi);
    break;
  }
  default:
    error() << "is not supported on uniform random samples (Add, Sub, Mul "
               "and Div by a constant, Floor and comparisons with a constant "
               "are)";
    return failure();
  }
  auto samples = std::make_shared<UniformSamples>(u);
  samples->low = lo;
  samples->high = hi;
  Entry e;
  e.uniform = std::move(samples);
  return defineOutput(0, std::move(e));
}

LogicalResult Importer::importUniformCompare(Compare kind) {
  unsigned sampled = uniformOf(0) ? 0 : 1, other = 1 - sampled;
  if (uniformOf(other) || kind == Compare::EQ) {
    error() << "compares uniform random samples "
            << (kind == Compare::EQ ? "for equality" : "with each other")
            << ", which amp does not support";
    return failure();
  }
  const UniformSamples &u = *uniformOf(sampled);
  FailureOr<double> c = uniformOperand(*this, other, u.shape);
  if (failed(c))
    return failure();
  // P(U < c), U ~ Uniform[low, high); the operands' order flips it.
  double below = std::clamp((*c - u.low) / (u.high - u.low), 0.0, 1.0);
  bool less = kind == Compare::LT || kind == Compare::LE;
  if (sampled == 1)
    less = !less;
  return setValue(0, bernoulli(less ? below : 1.0 - below, u.shape, Type()));
}

LogicalResult Importer::importFloor() {
  if (failed(checkArity(1, 1)))
    return failure();
  if (const UniformSamples *u = uniformOf(0)) {
    // floor(U) is k = floor(low) or k + 1, the latter with probability
    // (high - (k + 1)) / (high - low): floor(keep + rand) is
    // Bernoulli(keep).
    double k = std::floor(u->low);
    if (u->high > k + 2) {
      error() << "the floor of uniform samples over [" << u->low << ", "
              << u->high
              << ") takes more than two values, which amp does not draw";
      return failure();
    }
    double p = std::max(0.0, (u->high - (k + 1)) / (u->high - u->low));
    Type element = runtimeElementType(u->dtype, context);
    Value b = bernoulli(p, u->shape, element);
    if (k != 0.0) {
      RankedTensorType type = cast<RankedTensorType>(b.getType());
      b = AddOp::create(builder, loc, type, b, splat(k, type));
    }
    return setValue(0, b);
  }
  FailureOr<const HostTensor *> known = hostOf(0);
  if (failed(known))
    return failure();
  if (!*known) {
    error() << "Floor of a tensor computed at run time is not supported (amp "
               "has no floor op; Floor of values known at import time is "
               "folded, and of uniform random samples drawn as a Bernoulli "
               "mask)";
    return failure();
  }
  HostTensor out = **known;
  if (!out.isFloat()) {
    error() << "X must be a floating-point tensor";
    return failure();
  }
  for (double &v : out.floats)
    v = std::floor(v);
  return setHost(0, std::move(out));
}

LogicalResult Importer::importBernoulli() {
  if (failed(checkArity(1, 1)))
    return failure();
  FailureOr<int64_t> dtypeAttr = intAttr("dtype", kUndefined);
  FailureOr<const HostTensor *> known = hostOf(0);
  FailureOr<int32_t> inDType = inputDType(0);
  if (failed(dtypeAttr) || failed(known) || failed(inDType))
    return failure();
  if (!*known || !(*known)->isSplat() || (*known)->size() == 0) {
    error() << "draws with probabilities computed at run time or varying "
               "between elements, which amp does not support (its draws "
               "are Bernoulli masks of one constant probability)";
    return failure();
  }
  double p = (*known)->getDouble(0);
  if (!(p >= 0.0 && p <= 1.0)) {
    error() << "probability " << p << " is not in [0, 1]";
    return failure();
  }
  int32_t dtype = attr("dtype") ? static_cast<int32_t>(*dtypeAttr) : *inDType;
  Type element = runtimeElementType(dtype, context);
  if (!element || !(isa<FloatType>(element) || element.isInteger(1))) {
    error() << "draws " << dtypeName(dtype)
            << " samples; amp supports floating-point and BOOL ones";
    return failure();
  }
  return setValue(0, bernoulli(p, (*known)->shape,
                               element.isInteger(1) ? Type() : element));
}

void mlir::amp::onnx_import::registerRandomHandlers(OpTable &table) {
  table.onOp("RandomUniformLike", kMinOpset, [](Importer &im) {
    return im.importRandomUniform(/*like=*/true);
  });
  table.onOp("RandomUniform", kMinOpset, [](Importer &im) {
    return im.importRandomUniform(/*like=*/false);
  });
  table.onOp("Bernoulli", 15, &Importer::importBernoulli);
  table.onOp("Floor", kMinOpset, &Importer::importFloor);
}

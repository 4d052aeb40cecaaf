//===- OptimizerToLinalg.cpp - loss scaling and optimizer ops to linalg ---===//
//
// Loss scaling (scale_seed, unscale_grads, update_scale) and the optimizer
// steps (clip_grad_norm, sgd_update, adamw_update) on tensors.
//
// * Elementwise updates are one all-parallel linalg.generic per parameter
//   that writes every result (parameter, momentum buffer or moments) in the
//   same pass. They compute in f32 and round each result once to its type.
// * Scalars that depend only on 0-d operands (the reciprocal of the loss
//   scale, the clipping coefficient, AdamW's bias-corrected step size) are
//   computed once, by a 0-d linalg.generic, and read by the elementwise
//   generic through a map to no loops, `affine_map<(d0, ...) -> ()>`, as are
//   `lr` and `found_inf`. Everything stays on tensors: no value is ever read
//   back to the host, so a training step with a dynamic loss scale needs no
//   synchronisation.
// * A skipped step (`found_inf` true) selects the original operand elements,
//   so the parameter and optimizer state come back bit-identical.
// * The low-precision casts of an f32 parameter's update (the copies of
//   master weights for the next step, --amp-master-weights) are written by
//   the update's generic: one pass reads the master once and writes the
//   master, its optimizer state and its copies.
//
// Formulas follow PyTorch 1.13 (GradScaler, torch.optim.SGD and AdamW's
// single-tensor implementations, torch.nn.utils.clip_grad_norm_), and
// Megatron-LM's DynamicGradScaler for the hysteresis.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"
#include "amp/Conversion/AMPToLinalg/AMPToLinalg.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;
using namespace mlir::amp;

namespace {
using utils::IteratorType;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

Value f64(OpBuilder &b, Location loc, double value) {
  return scalarConstant(b, loc, b.getF64Type(), value);
}

/// Maps for `inputs` read by a `rank`-loop elementwise generic: identity for
/// tensors of rank `rank`, no loops for 0-d tensors (scalars).
SmallVector<AffineMap> elementwiseMaps(OpBuilder &b, unsigned rank,
                                       ValueRange inputs) {
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(cast<RankedTensorType>(input.getType()).getRank() == 0
                       ? scalarMap(b, rank)
                       : b.getMultiDimIdentityMap(rank));
  return maps;
}

/// True when `x` (a float) is infinite or NaN: |x| unordered-or-equal +inf.
Value isNonFinite(OpBuilder &b, Location loc, Value x) {
  Value magnitude = math::AbsFOp::create(b, loc, x);
  Value inf = scalarConstant(b, loc, x.getType(), kInfinity);
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UEQ, magnitude,
                               inf);
}

/// A 0-d i1 tensor: whether any element of any of `tensors` is non-finite.
/// One reduction per tensor, chained through its init (the flag so far), so
/// the flags are or-ed without a separate combining op.
Value anyNonFinite(OpBuilder &b, Location loc, ValueRange tensors) {
  auto flagType = RankedTensorType::get({}, b.getI1Type());
  Value no = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  Value flag = linalg::FillOp::create(b, loc, no, emptyTensor(b, loc, flagType))
                   .getResult(0);
  for (Value tensor : tensors) {
    unsigned rank = cast<RankedTensorType>(tensor.getType()).getRank();
    SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                   scalarMap(b, rank)};
    SmallVector<IteratorType> iterators(rank, IteratorType::reduction);
    flag = linalg::GenericOp::create(
               b, loc, flagType, tensor, flag, maps, iterators,
               [&](OpBuilder &nb, Location nloc, ValueRange args) {
                 Value bad =
                     isNonFinite(nb, nloc, widenToF32(nb, nloc, args[0]));
                 linalg::YieldOp::create(
                     nb, nloc,
                     arith::OrIOp::create(nb, nloc, args[1], bad).getResult());
               })
               .getResult(0);
  }
  return flag;
}

/// `updated` where the step is taken, `original` (bit for bit) where
/// `foundInf` (an i1 scalar, or null when there is no flag) is set.
Value skipIf(OpBuilder &b, Location loc, Value foundInf, Value original,
             Value updated) {
  if (!foundInf)
    return updated;
  return arith::SelectOp::create(b, loc, foundInf, original, updated);
}

/// Low-precision copies of an f32 master weight that the next step reads
/// (`amp.cast` users of an update's new parameter, from --amp-master-weights
/// or the precision passes): the update's generic writes them too, so the
/// master is read once per step. One entry per copy type.
struct MasterCopies {
  SmallVector<RankedTensorType> types;
  SmallVector<SmallVector<CastOp>> casts;

  static MasterCopies of(Value newParam) {
    MasterCopies copies;
    auto paramType = cast<RankedTensorType>(newParam.getType());
    if (!paramType.getElementType().isF32())
      return copies;
    for (Operation *user : newParam.getUsers()) {
      auto castOp = dyn_cast<CastOp>(user);
      if (!castOp)
        continue;
      auto type = cast<RankedTensorType>(castOp.getType());
      if (!isa<Float16Type, BFloat16Type>(type.getElementType()))
        continue;
      auto *it = llvm::find(copies.types, type);
      if (it == copies.types.end()) {
        copies.types.push_back(type);
        copies.casts.emplace_back();
        it = copies.types.end() - 1;
      }
      copies.casts[it - copies.types.begin()].push_back(castOp);
    }
    return copies;
  }

  /// The copies of `master` (the new parameter's element, f32).
  void build(OpBuilder &b, Location loc, Value master,
             SmallVectorImpl<Value> &out) const {
    for (RankedTensorType type : types)
      out.push_back(roundTo(b, loc, master, type.getElementType()));
  }

  /// Replaces the casts by the update's extra results.
  void replace(PatternRewriter &rewriter, ValueRange results) const {
    for (auto [castOps, result] : llvm::zip_equal(casts, results))
      for (CastOp castOp : castOps)
        rewriter.replaceOp(castOp, result);
  }
};

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

/// Each of `grads` times the f32 scalar `factor`, in f32, rounded to the type
/// of the matching `results`: unscaling and clipping scale every gradient so.
SmallVector<Value> scaleGradients(OpBuilder &builder, Location loc,
                                  ValueRange grads, ValueRange results,
                                  Value factor) {
  SmallVector<Value> scaled;
  for (auto [grad, result] : llvm::zip_equal(grads, results)) {
    auto resultType = cast<RankedTensorType>(result.getType());
    Value inputs[] = {grad, factor};
    scaled.push_back(buildElementwise(
        builder, loc, resultType, inputs,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value product =
              arith::MulFOp::create(b, l, widenToF32(b, l, args[0]), args[1]);
          return roundTo(b, l, product, resultType.getElementType());
        },
        elementwiseMaps(builder, resultType.getRank(), inputs)));
  }
  return scaled;
}

struct ScaleSeedLowering : ResultLowering<ScaleSeedOp> {
  using ResultLowering::ResultLowering;
  Value lower(ScaleSeedOp op, OpAdaptor adaptor, OpBuilder &builder,
              Location loc, RankedTensorType resultType) const override {
    return buildElementwise(
        builder, loc, resultType, adaptor.getOperands(),
        [](OpBuilder &b, Location loc, ValueRange args) {
          return arith::MulFOp::create(b, loc, args[0], args[1]).getResult();
        });
  }
};

/// GradScaler's `_amp_foreach_non_finite_check_and_unscale_`: the reciprocal
/// of the scale is computed once (in f64 and rounded to f32, as
/// `scale.double().reciprocal().float()`), every gradient is multiplied by
/// it in f32 and rounded to its result type, and found_inf is set when an
/// element of the *incoming* gradient is not finite. At this level the
/// unscaling (parallel) and the check (a reduction) are separate generics
/// reading the same gradient; a backend may fuse them into one pass.
struct UnscaleGradsLowering : Lowering<UnscaleGradsOp> {
  using Lowering::Lowering;
  SmallVector<Value> lower(UnscaleGradsOp op, OpAdaptor adaptor,
                           OpBuilder &builder, Location loc) const override {
    Value invScale = buildElementwise(
        builder, loc, cast<RankedTensorType>(adaptor.getScale().getType()),
        adaptor.getScale(), [](OpBuilder &b, Location l, ValueRange args) {
          Value wide = arith::ExtFOp::create(b, l, b.getF64Type(), args[0]);
          Value inv = arith::DivFOp::create(b, l, f64(b, l, 1.0), wide);
          return roundTo(b, l, inv, b.getF32Type());
        });
    SmallVector<Value> results = scaleGradients(
        builder, loc, adaptor.getGradients(), op.getUnscaled(), invScale);
    results.push_back(anyNonFinite(builder, loc, adaptor.getGradients()));
    return results;
  }
};

/// The three new scaler values, the body of update_scale's 0-d
/// linalg.generic, with arith.select (no control flow, no host read of
/// found_inf):
///
///   found:     growth' = 0
///              hyst'   = hyst - 1
///              scale'  = hyst' <= 0 ? max(scale * backoff, min_scale) : scale
///   not found: t = growth + 1
///              if t >= growth_interval:
///                grown   = min(scale * growth_factor, max_scale)
///                scale'  = isfinite(grown) ? grown : scale
///                growth' = 0
///                hyst'   = hysteresis
///              else: scale' = scale, growth' = t, hyst' = hyst
///
/// The hysteresis tracker is reset only when the scale grows (Megatron-LM's
/// DynamicGradScaler); a clean step that does not grow the scale leaves it
/// alone, and after a back-off it stays <= 0, so every further overflow
/// before the next growth backs off again. With hysteresis = 1 (tracker
/// starting at 1) every overflow backs off: GradScaler's rule, except for
/// the min_scale/max_scale clamps. `>=` equals GradScaler's `==` on valid
/// trackers (0 <= growth < interval) and still grows after an interval was
/// lowered between runs. Products with the factors are computed in f64 and
/// rounded once to f32, as GradScaler's `_amp_update_scale_` (float scale
/// times double factor) does.
SmallVector<Value> updatedScaler(UpdateScaleOp op, OpBuilder &b, Location loc,
                                 ValueRange args) {
  double growthFactor = op.getGrowthFactor().convertToDouble();
  double backoffFactor = op.getBackoffFactor().convertToDouble();
  double minScale = op.getMinScale().convertToDouble();
  double maxScale = op.getMaxScale().convertToDouble();
  int64_t interval = op.getGrowthInterval();
  int64_t hysteresis = op.getHysteresis();
  Value scale = args[0], growth = args[1], hyst = args[2];
  Value found = args[3];
  auto i64Const = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  };
  // scale * factor, in f64, rounded once to f32.
  Value wide = arith::ExtFOp::create(b, loc, b.getF64Type(), scale);
  auto times = [&](double factor) -> Value {
    Value wideFactor = f64(b, loc, factor);
    Value product = arith::MulFOp::create(b, loc, wide, wideFactor);
    return arith::TruncFOp::create(b, loc, b.getF32Type(), product);
  };
  Value zero = i64Const(0), one = i64Const(1);

  // Overflow: count the hysteresis down, back off once it is <= 0.
  Value hystDown = arith::SubIOp::create(b, loc, hyst, one);
  Value exhausted =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, hystDown, zero);
  Value shrunk = times(backoffFactor);
  Value lowest = f32(b, loc, minScale);
  Value backedOff = arith::MaximumFOp::create(b, loc, shrunk, lowest);
  Value overflowScale =
      arith::SelectOp::create(b, loc, exhausted, backedOff, scale);

  // Clean step: count up, grow at the interval (never to inf).
  Value counted = arith::AddIOp::create(b, loc, growth, one);
  Value intervalValue = i64Const(interval);
  Value due = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, counted,
                                    intervalValue);
  Value enlarged = times(growthFactor);
  Value ceiling = f32(b, loc, maxScale);
  Value grown = arith::MinimumFOp::create(b, loc, enlarged, ceiling);
  Value grownAbs = math::AbsFOp::create(b, loc, grown);
  Value inf = f32(b, loc, kInfinity);
  Value grownFinite =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, grownAbs, inf);
  Value grow = arith::AndIOp::create(b, loc, due, grownFinite);
  Value cleanScale = arith::SelectOp::create(b, loc, grow, grown, scale);
  Value cleanGrowth = arith::SelectOp::create(b, loc, due, zero, counted);
  Value reset = i64Const(hysteresis);
  Value cleanHyst = arith::SelectOp::create(b, loc, due, reset, hyst);

  Value newScale =
      arith::SelectOp::create(b, loc, found, overflowScale, cleanScale);
  Value newGrowth = arith::SelectOp::create(b, loc, found, zero, cleanGrowth);
  Value newHyst = arith::SelectOp::create(b, loc, found, hystDown, cleanHyst);
  return SmallVector<Value>{newScale, newGrowth, newHyst};
}

/// update_scale: one 0-d linalg.generic with the body above.
struct UpdateScaleLowering : Lowering<UpdateScaleOp> {
  using Lowering::Lowering;
  SmallVector<Value> lower(UpdateScaleOp op, OpAdaptor adaptor,
                           OpBuilder &builder, Location loc) const override {
    auto scaleType = cast<RankedTensorType>(op.getNewScale().getType());
    auto trackerType =
        cast<RankedTensorType>(op.getNewGrowthTracker().getType());
    RankedTensorType resultTypes[] = {scaleType, trackerType, trackerType};
    return buildMultiElementwise(
        builder, loc, resultTypes, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return updatedScaler(op, b, loc, args);
        });
  }
};

//===----------------------------------------------------------------------===//
// Optimizer
//===----------------------------------------------------------------------===//

/// torch.nn.utils.clip_grad_norm_ (L2): total = sqrt(sum of the squares of
/// every gradient element), accumulated in f32; coef = max_norm / (total +
/// 1e-6) clamped to at most 1 (minimumf, so a NaN norm poisons the gradients
/// as in PyTorch); each gradient is multiplied by coef in f32 and rounded to
/// its type. coef <= 1 never scales a gradient up; at coef = 1 the product
/// is exact.
struct ClipGradNormLowering : Lowering<ClipGradNormOp> {
  using Lowering::Lowering;
  SmallVector<Value> lower(ClipGradNormOp op, OpAdaptor adaptor,
                           OpBuilder &builder, Location loc) const override {
    double maxNorm = op.getMaxNorm().convertToDouble();
    auto sumSquares = [](OpBuilder &b, Location l, Value acc, ValueRange x) {
      Value square = arith::MulFOp::create(b, l, x[0], x[0]);
      return arith::AddFOp::create(b, l, acc, square).getResult();
    };
    SmallVector<Value> partials;
    for (Value grad : adaptor.getGradients()) {
      unsigned rank = cast<RankedTensorType>(grad.getType()).getRank();
      SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(rank));
      partials.push_back(buildReduction(builder, loc, rank, all, {}, grad,
                                        builder.getMultiDimIdentityMap(rank),
                                        0.0, sumSquares));
    }
    RankedTensorType scalarType = f32TensorOf(builder, {});
    SmallVector<Value> normAndCoef = buildMultiElementwise(
        builder, loc, {scalarType, scalarType}, partials,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value sum = args[0];
          for (Value partial : args.drop_front())
            sum = arith::AddFOp::create(b, l, sum, partial);
          Value norm = math::SqrtOp::create(b, l, sum);
          Value tiny = f32(b, l, 1e-6);
          Value shifted = arith::AddFOp::create(b, l, norm, tiny);
          Value limit = f32(b, l, maxNorm);
          Value coef = arith::DivFOp::create(b, l, limit, shifted);
          Value one = f32(b, l, 1.0);
          Value clamped = arith::MinimumFOp::create(b, l, coef, one);
          return SmallVector<Value>{norm, clamped};
        });
    Value coef = normAndCoef[1];

    SmallVector<Value> results = scaleGradients(
        builder, loc, adaptor.getGradients(), op.getClipped(), coef);
    results.push_back(normAndCoef[0]);
    return results;
  }
};

/// torch.optim.SGD (1.13, `_single_tensor_sgd`), per element in f32:
///   g = grad (+ weight_decay * param)
///   buf' = momentum * buf + (1 - dampening) * g
///   g = nesterov ? g + momentum * buf' : buf'
///   param' = param - lr * g
/// param' and buf' are rounded once to the parameter type; with found_inf
/// set both are the incoming elements. The scalar body of the update: `args`
/// are param, grad, [buffer], lr, [found_inf]; the results param', [buf']
/// and the master weight copies.
SmallVector<Value> sgdStep(SgdUpdateOp op, Type element,
                           const MasterCopies &copies, OpBuilder &b,
                           Location loc, ValueRange args) {
  double momentum = op.getMomentum().convertToDouble();
  double dampening = op.getDampening().convertToDouble();
  double weightDecay = op.getWeightDecay().convertToDouble();
  bool nesterov = op.getNesterov();
  bool buffer = static_cast<bool>(op.getMomentumBuffer());
  bool foundInf = static_cast<bool>(op.getFoundInf());
  unsigned next = 0;
  Value paramIn = args[next++], gradIn = args[next++];
  Value bufferIn = buffer ? args[next++] : Value();
  Value lr = args[next++];
  Value found = foundInf ? args[next++] : Value();

  Value param = widenToF32(b, loc, paramIn);
  Value g = widenToF32(b, loc, gradIn);
  if (weightDecay != 0) {
    Value wd = f32(b, loc, weightDecay);
    Value decay = arith::MulFOp::create(b, loc, wd, param);
    g = arith::AddFOp::create(b, loc, g, decay);
  }
  Value newBuffer;
  if (bufferIn) {
    Value mu = f32(b, loc, momentum);
    Value old = widenToF32(b, loc, bufferIn);
    Value decayed = arith::MulFOp::create(b, loc, mu, old);
    Value fresh = g;
    if (dampening != 0) {
      Value keep = f32(b, loc, 1.0 - dampening);
      fresh = arith::MulFOp::create(b, loc, keep, g);
    }
    newBuffer = arith::AddFOp::create(b, loc, decayed, fresh);
    if (nesterov) {
      Value ahead = arith::MulFOp::create(b, loc, mu, newBuffer);
      g = arith::AddFOp::create(b, loc, g, ahead);
    } else {
      g = newBuffer;
    }
  }
  Value delta = arith::MulFOp::create(b, loc, lr, g);
  Value newParam = arith::SubFOp::create(b, loc, param, delta);
  SmallVector<Value> out = {
      skipIf(b, loc, found, paramIn, roundTo(b, loc, newParam, element))};
  if (bufferIn)
    out.push_back(
        skipIf(b, loc, found, bufferIn, roundTo(b, loc, newBuffer, element)));
  copies.build(b, loc, out.front(), out);
  return out;
}

/// Replaces the optimizer update `op` by one elementwise generic over the
/// parameter's shape whose `body` computes, from `inputs`, the op's results
/// (of `ownTypes`, the new parameter first) and then the master-weight
/// `copies` of the new parameter.
void replaceWithUpdate(ConversionPatternRewriter &rewriter, Operation *op,
                       ArrayRef<RankedTensorType> ownTypes,
                       const MasterCopies &copies, ValueRange inputs,
                       MultiBodyBuilder body) {
  SmallVector<RankedTensorType> resultTypes(ownTypes);
  llvm::append_range(resultTypes, copies.types);
  SmallVector<Value> results = buildMultiElementwise(
      rewriter, op->getLoc(), resultTypes, inputs, body,
      elementwiseMaps(rewriter, ownTypes.front().getRank(), inputs));
  unsigned own = ownTypes.size();
  copies.replace(rewriter, ArrayRef<Value>(results).drop_front(own));
  rewriter.replaceOp(op, ArrayRef<Value>(results).take_front(own));
}

/// sgd_update: one elementwise generic per parameter with the body above.
struct SgdUpdateLowering : OpConversionPattern<SgdUpdateOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SgdUpdateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value buffer = adaptor.getMomentumBuffer();
    Value foundInf = adaptor.getFoundInf();

    auto paramType = cast<RankedTensorType>(op.getNewParam().getType());
    Type element = paramType.getElementType();
    // Operands in order: param, grad, [buffer], lr, [found_inf].
    SmallVector<Value> inputs = {adaptor.getParam(), adaptor.getGrad()};
    if (buffer)
      inputs.push_back(buffer);
    inputs.push_back(adaptor.getLr());
    if (foundInf)
      inputs.push_back(foundInf);
    SmallVector<RankedTensorType> ownTypes = {paramType};
    if (buffer)
      ownTypes.push_back(paramType);
    MasterCopies copies = MasterCopies::of(op.getNewParam());
    replaceWithUpdate(rewriter, op, ownTypes, copies, inputs,
                      [&](OpBuilder &b, Location loc, ValueRange args) {
                        return sgdStep(op, element, copies, b, loc, args);
                      });
    return success();
  }
};

/// AdamW's per-step scalars from the step and lr scalars (`args`), in f64
/// rounded to f32: -lr / (1 - b1^t), sqrt(1 - b2^t) and, with weight decay,
/// 1 - lr * wd.
SmallVector<Value> adamWStepScalars(AdamWUpdateOp op, OpBuilder &b, Location l,
                                    ValueRange args) {
  double beta1 = op.getBeta1().convertToDouble();
  double beta2 = op.getBeta2().convertToDouble();
  double weightDecay = op.getWeightDecay().convertToDouble();
  bool decays = weightDecay != 0;
  Type f64Type = b.getF64Type(), f32Type = b.getF32Type();
  Value step = arith::SIToFPOp::create(b, l, f64Type, args[0]);
  Value lr = arith::ExtFOp::create(b, l, f64Type, args[1]);
  Value one = f64(b, l, 1.0);
  auto biasCorrection = [&](double beta) -> Value {
    Value base = f64(b, l, beta);
    Value power = math::PowFOp::create(b, l, base, step);
    return arith::SubFOp::create(b, l, one, power);
  };
  Value bc1 = biasCorrection(beta1);
  Value stepSize = arith::DivFOp::create(b, l, lr, bc1);
  Value negStep = arith::NegFOp::create(b, l, stepSize);
  Value bc2 = biasCorrection(beta2);
  Value bc2Sqrt = math::SqrtOp::create(b, l, bc2);
  SmallVector<Value> results = {roundTo(b, l, negStep, f32Type),
                                roundTo(b, l, bc2Sqrt, f32Type)};
  if (decays) {
    Value wd = f64(b, l, weightDecay);
    Value lrWd = arith::MulFOp::create(b, l, lr, wd);
    Value decay = arith::SubFOp::create(b, l, one, lrWd);
    results.push_back(roundTo(b, l, decay, f32Type));
  }
  return results;
}

/// AdamW's scalar body: `args` are param, grad, exp_avg, exp_avg_sq, the
/// step scalars and [found_inf]; the results param', m', v' and the master
/// weight copies.
SmallVector<Value> adamWStep(AdamWUpdateOp op, RankedTensorType paramType,
                             RankedTensorType momentType,
                             const MasterCopies &copies, OpBuilder &b,
                             Location l, ValueRange args) {
  double beta1 = op.getBeta1().convertToDouble();
  double beta2 = op.getBeta2().convertToDouble();
  double epsilon = op.getEpsilon().convertToDouble();
  bool decays = op.getWeightDecay().convertToDouble() != 0;
  bool foundInf = static_cast<bool>(op.getFoundInf());
  Value param = widenToF32(b, l, args[0]);
  Value g = widenToF32(b, l, args[1]);
  Value m = widenToF32(b, l, args[2]);
  Value v = widenToF32(b, l, args[3]);
  Value negStep = args[4], bc2Sqrt = args[5];
  unsigned next = 6;
  Value decay = decays ? args[next++] : Value();
  Value found = foundInf ? args[next++] : Value();

  // param *= 1 - lr * wd (decoupled weight decay, first).
  if (decay)
    param = arith::MulFOp::create(b, l, param, decay);
  // m' = beta1 m + (1 - beta1) g
  Value b1 = f32(b, l, beta1);
  Value mDecayed = arith::MulFOp::create(b, l, b1, m);
  Value oneMinusB1 = f32(b, l, 1.0 - beta1);
  Value mFresh = arith::MulFOp::create(b, l, oneMinusB1, g);
  Value newM = arith::AddFOp::create(b, l, mDecayed, mFresh);
  // v' = beta2 v + ((1 - beta2) g) g
  Value b2 = f32(b, l, beta2);
  Value vDecayed = arith::MulFOp::create(b, l, b2, v);
  Value oneMinusB2 = f32(b, l, 1.0 - beta2);
  Value gScaled = arith::MulFOp::create(b, l, oneMinusB2, g);
  Value vFresh = arith::MulFOp::create(b, l, gScaled, g);
  Value newV = arith::AddFOp::create(b, l, vDecayed, vFresh);
  // param' = param + (-step_size m') / (sqrt(v') / sqrt(bc2) + eps)
  Value root = math::SqrtOp::create(b, l, newV);
  Value corrected = arith::DivFOp::create(b, l, root, bc2Sqrt);
  Value eps = f32(b, l, epsilon);
  Value denom = arith::AddFOp::create(b, l, corrected, eps);
  Value scaledM = arith::MulFOp::create(b, l, negStep, newM);
  Value update = arith::DivFOp::create(b, l, scaledM, denom);
  Value newParam = arith::AddFOp::create(b, l, param, update);
  SmallVector<Value> out = {
      skipIf(b, l, found, args[0],
             roundTo(b, l, newParam, paramType.getElementType())),
      skipIf(b, l, found, args[2],
             roundTo(b, l, newM, momentType.getElementType())),
      skipIf(b, l, found, args[3],
             roundTo(b, l, newV, momentType.getElementType()))};
  copies.build(b, l, out.front(), out);
  return out;
}

/// torch.optim.AdamW (1.13, `_single_tensor_adam` with decoupled decay):
///   param *= 1 - lr * weight_decay
///   m' = beta1 * m + (1 - beta1) * g
///   v' = beta2 * v + (1 - beta2) * g * g
///   denom = sqrt(v') / sqrt(1 - beta2^step) + eps
///   param -= (lr / (1 - beta1^step)) * m' / denom
/// The step-dependent scalars (-lr / bias_correction1, sqrt(bias_correction2)
/// and the decay factor) are computed once by a 0-d generic in f64 (as
/// PyTorch computes them in Python floats) and rounded to f32; in f32,
/// 1 - 0.999^1 would already be off by 1e-5. The elementwise update runs in
/// f32 and rounds each result once to its type.
struct AdamWUpdateLowering : OpConversionPattern<AdamWUpdateOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AdamWUpdateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value foundInf = adaptor.getFoundInf();

    // Per-step scalars: negStep = -lr / (1 - b1^t), bc2Sqrt = sqrt(1 - b2^t)
    // and, with weight decay, decay = 1 - lr * wd.
    bool decays = op.getWeightDecay().convertToDouble() != 0;
    RankedTensorType scalarType = f32TensorOf(rewriter, {});
    SmallVector<RankedTensorType> scalarTypes(decays ? 3 : 2, scalarType);
    Value stepInputs[] = {adaptor.getStep(), adaptor.getLr()};
    SmallVector<Value> scalars =
        buildMultiElementwise(rewriter, loc, scalarTypes, stepInputs,
                              [&](OpBuilder &b, Location l, ValueRange args) {
                                return adamWStepScalars(op, b, l, args);
                              });

    auto paramType = cast<RankedTensorType>(op.getNewParam().getType());
    auto momentType = cast<RankedTensorType>(op.getNewExpAvg().getType());
    // Operands in order: param, grad, exp_avg, exp_avg_sq, negStep, bc2Sqrt,
    // [decay], [found_inf].
    SmallVector<Value> inputs = {adaptor.getParam(), adaptor.getGrad(),
                                 adaptor.getExpAvg(), adaptor.getExpAvgSq()};
    llvm::append_range(inputs, scalars);
    if (foundInf)
      inputs.push_back(foundInf);
    MasterCopies copies = MasterCopies::of(op.getNewParam());
    replaceWithUpdate(rewriter, op, {paramType, momentType, momentType}, copies,
                      inputs, [&](OpBuilder &b, Location l, ValueRange args) {
                        return adamWStep(op, paramType, momentType, copies, b,
                                         l, args);
                      });
    return success();
  }
};
} // namespace

void mlir::amp::populateAMPOptimizerToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ScaleSeedLowering, UnscaleGradsLowering, UpdateScaleLowering,
               ClipGradNormLowering, SgdUpdateLowering, AdamWUpdateLowering>(
      patterns.getContext());
}

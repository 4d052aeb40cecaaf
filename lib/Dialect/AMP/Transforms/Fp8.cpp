//===- Fp8.cpp - FP8 contractions with delayed scaling (amp-fp8) ----------===//
//
// Transformer Engine's HYBRID recipe as a rewrite of a materialized bf16
// step: e4m3 operands in the forward, e5m2 gradients, one quantization per
// value and format, and the delayed-scaling state (per-tensor scales and an
// amax history) threaded through the step like the loss scaler's.
//
//===----------------------------------------------------------------------===//

#include "StepRewriting.h"
#include "amp/Analysis/GPUCost.h"
#include "amp/Dialect/AMP/IR/AMPBuilders.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Dialect/AMP/IR/TrainingStep.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"
#include "amp/Dialect/AMP/Transforms/Precision.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Format.h"

#include <limits>

namespace mlir::amp {
#define GEN_PASS_DEF_AMPFP8PASS
#include "amp/Dialect/AMP/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::build;

namespace {

/// The state names (the checkpoint and amp_tensor find them by these).
constexpr StringLiteral kScaleName = "fp8.scale";
constexpr StringLiteral kHistoryName = "fp8.amax_history";

/// FP8 GEMMs take sizes that are multiples of 16 (cuBLASLt's FP8 rule); the
/// decision does not depend on the target, so the CPU backend computes
/// what the GPU does.
constexpr int64_t kFp8Alignment = 16;

/// f32 elements from one scale inverse to the next: 16 bytes, the alignment
/// cuBLASLt needs of the scale pointers (CublasLtFp8Rules.h, F9).
constexpr int64_t kScaleInvStride = 4;

bool isBF16Tensor(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.getElementType().isBF16();
}

/// The value `value` reshapes, through any chain of amp.reshape.
Value throughReshapes(Value value) {
  while (auto reshape = value.getDefiningOp<ReshapeOp>())
    value = reshape.getInput();
  return value;
}

/// A 2-D view of `value` ([..., k] -> [prod(...), k]).
Value flattenTo2D(OpBuilder &b, Location loc, Value value) {
  ArrayRef<int64_t> shape = tensorType(value).getShape();
  int64_t rows = 1;
  for (int64_t size : shape.drop_back())
    rows *= size;
  return reshape(b, loc, value, {rows, shape.back()});
}

/// A contraction to run in FP8: C = op(A) x op(B) (+ bias) on 2-D views,
/// C m x n.
struct Candidate {
  Operation *op;
  Value lhs, rhs, bias;
  bool transposeLhs = false, transposeRhs = false;
  int64_t m = 0, n = 0, k = 0;
};

/// The pass's options as the rewriter uses them.
struct Fp8Config {
  int64_t history, margin;
  bool fastAccumulation;
  /// select=cost: the device the decision models; null for select=all.
  const DeviceModel *model;
};

std::string formatMicroseconds(double seconds) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.2f us", seconds * 1e6);
  return text;
}

class Fp8Rewriter {
public:
  Fp8Rewriter(func::FuncOp step, const Fp8Config &config)
      : step(step), view(step), b(step.getContext()),
        loc(NameLoc::get(StringAttr::get(step.getContext(), "fp8_scaling"))),
        history(config.history), margin(config.margin),
        fastAccumulation(config.fastAccumulation), model(config.model) {}

  LogicalResult run();

private:
  /// A quantized tensor: its (2-D) input and format, and what the step
  /// computes of it.
  struct Site {
    Value input;
    FloatType format;
    Value quantized, amax, scaleInv;
  };

  void findGradients();
  std::optional<Candidate> match(Operation *op);
  bool isGradient(Value value) const {
    return gradients.contains(throughReshapes(value));
  }
  FloatType formatOf(Value value) {
    return isGradient(value) ? FloatType(b.getType<Float8E5M2Type>())
                             : FloatType(b.getType<Float8E4M3FNType>());
  }
  using SiteKey = std::pair<Value, Type>;
  SiteKey siteKey(Value value);
  unsigned siteOf(Value value);
  SmallVector<Candidate> choose(ArrayRef<Candidate> candidates);
  void loadScales();
  Value element(Value vector, unsigned index);
  void quantize(Site &site, unsigned index, Operation *before);
  void rewrite(const Candidate &candidate);
  void updateState();

  func::FuncOp step;
  TrainingStep view;
  OpBuilder b;
  /// Where the scaling state's ops come from (the quantizations and
  /// products take their contraction's location).
  Location loc;
  int64_t history, margin;
  bool fastAccumulation;
  const DeviceModel *model;

  DenseSet<Value> gradients;
  SmallVector<Site> sites;
  DenseMap<SiteKey, unsigned> siteIndex;
  BlockArgument scaleArg, historyArg;
  /// The scales in use ([N]: a fresh 0 reads as 1) and their inverses.
  Value scales, scaleInvs;
};

/// Values computed from a backward seed: gradients (e5m2).
void Fp8Rewriter::findGradients() {
  SmallVector<Value> worklist;
  step.walk([&](SeedOp seed) { worklist.push_back(seed.getResult()); });
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!gradients.insert(value).second)
      continue;
    for (Operation *user : value.getUsers())
      llvm::append_range(worklist, user->getResults());
  }
}

std::optional<Candidate> Fp8Rewriter::match(Operation *op) {
  Candidate candidate{op, {}, {}, {}};
  if (auto linear = dyn_cast<LinearOp>(op)) {
    candidate.lhs = linear.getInput();
    candidate.rhs = linear.getWeight();
    candidate.bias = linear.getBias();
    candidate.transposeRhs = true;
  } else if (auto matmul = dyn_cast<MatmulOp>(op)) {
    if (tensorType(matmul.getLhs()).getRank() != 2 ||
        tensorType(matmul.getRhs()).getRank() != 2)
      return std::nullopt;
    candidate.lhs = matmul.getLhs();
    candidate.rhs = matmul.getRhs();
    candidate.transposeLhs = matmul.getTransposeLhs();
    candidate.transposeRhs = matmul.getTransposeRhs();
  } else {
    return std::nullopt;
  }
  // A contraction the user pinned (to bf16) stays as pinned.
  if (auto rule = op->getAttrOfType<StringAttr>(kPrecisionRuleAttrName))
    if (getRuleName(rule.getValue()) == rule::kPin)
      return std::nullopt;
  if (!isBF16Tensor(candidate.lhs) || !isBF16Tensor(candidate.rhs) ||
      (isGradient(candidate.lhs) && isGradient(candidate.rhs)))
    return std::nullopt;
  ArrayRef<int64_t> lhs = tensorType(candidate.lhs).getShape();
  ArrayRef<int64_t> rhs = tensorType(candidate.rhs).getShape();
  int64_t m = 1;
  for (int64_t size : lhs.drop_back())
    m *= size;
  int64_t k = lhs.back();
  if (candidate.transposeLhs)
    std::swap(m, k);
  int64_t n = candidate.transposeRhs ? rhs[0] : rhs[1];
  if (m % kFp8Alignment || n % kFp8Alignment || k % kFp8Alignment)
    return std::nullopt;
  candidate.m = m;
  candidate.n = n;
  candidate.k = k;
  return candidate;
}

/// What identifies a quantized tensor: the value reshapes start from and
/// the quantized matrix's type (its 2-D shape and format).
Fp8Rewriter::SiteKey Fp8Rewriter::siteKey(Value value) {
  ArrayRef<int64_t> shape = tensorType(value).getShape();
  int64_t rows = 1;
  for (int64_t size : shape.drop_back())
    rows *= size;
  return {throughReshapes(value),
          RankedTensorType::get({rows, shape.back()}, formatOf(value))};
}

/// The site of `value`, created on first use.
unsigned Fp8Rewriter::siteOf(Value value) {
  auto [it, inserted] = siteIndex.try_emplace(siteKey(value), sites.size());
  if (inserted)
    sites.push_back({value, formatOf(value), {}, {}, {}});
  return it->second;
}

/// The candidates FP8 makes faster on the device model (all of them
/// without one): the GEMM at the FP8 rate against bf16's, less the
/// quantizations (read 2 bytes, write 1, read 2 again for the amax, two
/// launches: where the GPU computes the amax in the quantization's launch,
/// the amax's initialization and its copy into the history row are still
/// launches of their own; shared by the products that use the quantized
/// tensor) and the
/// one-byte transposed copies cuBLASLt's TN layout needs (A stored m x k,
/// B n x k). Each candidate records the modeled times (amp.fp8).
SmallVector<Candidate> Fp8Rewriter::choose(ArrayRef<Candidate> candidates) {
  if (!model)
    return SmallVector<Candidate>(candidates);
  DenseMap<SiteKey, int64_t> uses;
  for (const Candidate &candidate : candidates) {
    ++uses[siteKey(candidate.lhs)];
    ++uses[siteKey(candidate.rhs)];
  }
  double bandwidth = model->hbmBytesPerSecond;
  SmallVector<Candidate> chosen;
  for (const Candidate &candidate : candidates) {
    StringRef out =
        tensorType(candidate.op->getResult(0)).getElementType().isF32()
            ? "f32"
            : "bf16";
    double bf16 = modelGemmSeconds(*model, candidate.m, candidate.n,
                                   candidate.k, "bf16", out);
    double fp8 = modelGemmSeconds(*model, candidate.m, candidate.n, candidate.k,
                                  "f8E4M3FN", out);
    for (Value operand : {candidate.lhs, candidate.rhs}) {
      double elements = double(getNumElements(operand.getType()));
      fp8 += (5 * elements / bandwidth + 2 * model->launchSeconds) /
             double(uses[siteKey(operand)]);
    }
    if (candidate.transposeLhs)
      fp8 += 2 * double(candidate.m * candidate.k) / bandwidth +
             model->launchSeconds;
    if (!candidate.transposeRhs)
      fp8 += 2 * double(candidate.n * candidate.k) / bandwidth +
             model->launchSeconds;
    bool pays = fp8 < bf16;
    std::string decision =
        (pays ? "fp8: " : "bf16: ") + formatMicroseconds(fp8) + " in fp8, " +
        formatMicroseconds(bf16) + " in bf16 (modeled " + model->key + ")";
    candidate.op->setAttr(kFp8AttrName, b.getStringAttr(decision));
    if (pays)
      chosen.push_back(candidate);
  }
  return chosen;
}

/// At the start of the step: the stored scales, a fresh (zero) one read as
/// 1, and their inverses, kScaleInvStride apart: cuBLASLt's FP8 GEMMs read
/// each through a pointer on a 16-byte boundary (CublasLtFp8Rules.h, F9),
/// and the GEMMs take views of this vector.
void Fp8Rewriter::loadScales() {
  b.setInsertionPointToStart(&step.front());
  Value positive = build::compare(b, loc, CompareDirection::GT, scaleArg,
                                  splatLike(b, loc, scaleArg, 0.0));
  scales = select(b, loc, positive, scaleArg, splatLike(b, loc, scaleArg, 1.0));
  int64_t count = tensorType(scales).getDimSize(0);
  Value column = reshape(b, loc, scales, {count, 1});
  auto spreadType =
      RankedTensorType::get({count, kScaleInvStride}, b.getF32Type());
  Value spread = BroadcastOp::create(b, loc, spreadType, column);
  scaleInvs =
      reshape(b, loc, div(b, loc, splatLike(b, loc, spread, 1.0), spread),
              {count * kScaleInvStride});
}

/// Element `index` of a 1-D f32 tensor, as a 0-d tensor.
Value Fp8Rewriter::element(Value vector, unsigned index) {
  auto type = RankedTensorType::get({1}, b.getF32Type());
  Value slice = SliceOp::create(b, loc, type, vector,
                                b.getDenseI64ArrayAttr({int64_t(index)}),
                                b.getDenseI64ArrayAttr({int64_t(index) + 1}),
                                b.getDenseI64ArrayAttr({1}));
  return reshape(b, loc, slice, {});
}

/// Quantizes site `index` before `before` (its first user).
void Fp8Rewriter::quantize(Site &site, unsigned index, Operation *before) {
  b.setInsertionPoint(before);
  Location at = before->getLoc();
  Value matrix = flattenTo2D(b, at, site.input);
  auto type = tensorType(matrix).clone(site.format);
  auto quantize = Fp8QuantizeOp::create(b, at, type, scalarOf(b.getF32Type()),
                                        matrix, element(scales, index));
  site.quantized = quantize.getResult();
  site.amax = quantize.getAmax();
  // A view of the step's scale inverses: no computation per tensor. (The
  // quantization writes NaN for an infinite input, so its products are NaN
  // and loss scaling skips the step and backs off as in bf16.)
  site.scaleInv = element(scaleInvs, index * kScaleInvStride);
}

void Fp8Rewriter::rewrite(const Candidate &candidate) {
  Operation *op = candidate.op;
  Value operands[2] = {candidate.lhs, candidate.rhs};
  unsigned indices[2];
  for (auto [i, operand] : llvm::enumerate(operands)) {
    indices[i] = siteOf(operand);
    if (!sites[indices[i]].quantized)
      quantize(sites[indices[i]], indices[i], op);
  }
  const Site *used[2] = {&sites[indices[0]], &sites[indices[1]]};
  b.setInsertionPoint(op);
  RankedTensorType resultType = cast<RankedTensorType>(op->getResultTypes()[0]);
  Value bias = candidate.bias;
  if (bias)
    bias = castElement(b, op->getLoc(), bias, resultType.getElementType());
  ArrayRef<int64_t> lhsShape = tensorType(used[0]->quantized).getShape();
  ArrayRef<int64_t> rhsShape = tensorType(used[1]->quantized).getShape();
  int64_t m = candidate.transposeLhs ? lhsShape[1] : lhsShape[0];
  int64_t n = candidate.transposeRhs ? rhsShape[0] : rhsShape[1];
  bool forward = !isGradient(candidate.lhs) && !isGradient(candidate.rhs);
  auto product = Fp8MatmulOp::create(
      b, op->getLoc(), resultType.clone({m, n}), used[0]->quantized,
      used[1]->quantized, used[0]->scaleInv, used[1]->scaleInv, bias,
      candidate.transposeLhs, candidate.transposeRhs,
      forward && fastAccumulation);
  if (Attribute decision = op->getAttr(kFp8AttrName))
    product->setAttr(kFp8AttrName, decision);
  Value result = reshape(b, op->getLoc(), product, resultType.getShape());
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

/// Records this step's finite amaxes as the newest history row and
/// returns the next scales: (max / amax) / 2^margin from the largest amax
/// of each history, or the scale in use where that is not finite (a zero
/// history).
void Fp8Rewriter::updateState() {
  b.setInsertionPoint(view.getReturn());
  Type f32 = b.getF32Type();
  int64_t count = sites.size();
  SmallVector<Value> rows;
  SmallVector<float> largest;
  for (Site &site : sites) {
    rows.push_back(reshape(b, loc, site.amax, {1}));
    largest.push_back(static_cast<float>(
        APFloat::getLargest(site.format.getFloatSemantics()).convertToDouble() /
        std::ldexp(1.0, margin)));
  }
  // Joined as a vector: the copies into it are one-dimensional loops, which
  // the GPU backend runs in one launch (amp-gpu-batch-loops).
  Value amaxes = rows.size() == 1
                     ? rows.front()
                     : Value(ConcatOp::create(
                           b, loc, RankedTensorType::get({count}, f32), rows,
                           /*axis=*/0));
  amaxes = reshape(b, loc, amaxes, {1, count});
  // x - x is 0 exactly when x is finite.
  Value finite =
      build::compare(b, loc, CompareDirection::EQ, sub(b, loc, amaxes, amaxes),
                     splatLike(b, loc, amaxes, 0.0));
  Value row = select(b, loc, finite, amaxes, splatLike(b, loc, amaxes, 0.0));
  Value newHistory = row;
  if (history > 1) {
    auto keptType = RankedTensorType::get({history - 1, count}, f32);
    Value kept = SliceOp::create(b, loc, keptType, historyArg,
                                 b.getDenseI64ArrayAttr({0, 0}),
                                 b.getDenseI64ArrayAttr({history - 1, count}),
                                 b.getDenseI64ArrayAttr({1, 1}));
    newHistory = ConcatOp::create(b, loc, tensorType(historyArg),
                                  ValueRange{row, kept}, /*axis=*/0);
  }
  auto vectorType = RankedTensorType::get({count}, f32);
  Value amax = ReduceMaxOp::create(b, loc, vectorType, newHistory,
                                   b.getDenseI64ArrayAttr({0}),
                                   /*keep_dims=*/false);
  auto maxima =
      ConstantOp::create(b, loc, vectorType,
                         DenseElementsAttr::get(vectorType, ArrayRef(largest)));
  Value next = div(b, loc, maxima, amax);
  Value usable = build::compare(
      b, loc, CompareDirection::LE, next,
      splatLike(b, loc, next, std::numeric_limits<float>::max()));
  view.setUpdatedValue(scaleArg, select(b, loc, usable, next, scales));
  view.setUpdatedValue(historyArg, newHistory);
}

LogicalResult Fp8Rewriter::run() {
  findGradients();
  SmallVector<Candidate> matched;
  step.walk([&](Operation *op) {
    if (std::optional<Candidate> candidate = match(op))
      matched.push_back(*candidate);
  });
  SmallVector<Candidate> candidates = choose(matched);
  if (candidates.empty())
    return success();
  // Sites in program order, so that state index i is the i-th quantized
  // tensor the step computes.
  for (const Candidate &candidate : candidates) {
    siteOf(candidate.lhs);
    siteOf(candidate.rhs);
  }
  int64_t count = sites.size();
  Type f32 = b.getF32Type();
  MLIRContext *context = step.getContext();
  FailureOr<SmallVector<BlockArgument>> added = view.addState(
      Role::ScalerState,
      {RankedTensorType::get({count}, f32),
       RankedTensorType::get({history, count}, f32)},
      {makeContractAttrs(context, Role::ScalerState, kScaleName),
       makeContractAttrs(context, Role::ScalerState, kHistoryName)});
  if (failed(added))
    return step.emitError() << "amp-fp8: cannot add the FP8 scaling state";
  scaleArg = (*added)[0];
  historyArg = (*added)[1];
  loadScales();
  for (Site &site : sites)
    site.quantized = nullptr;
  for (const Candidate &candidate : candidates)
    rewrite(candidate);
  updateState();
  return success();
}

struct AMPFp8Pass : mlir::amp::impl::AMPFp8PassBase<AMPFp8Pass> {
  using AMPFp8PassBase::AMPFp8PassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (history < 1) {
      emitError(module.getLoc())
          << "amp-fp8: history must be at least 1, got " << int64_t(history);
      return signalPassFailure();
    }
    if (margin < 0 || margin > 64) {
      emitError(module.getLoc())
          << "amp-fp8: margin must be in [0, 64], got " << int64_t(margin);
      return signalPassFailure();
    }
    std::optional<DeviceModel> deviceModel;
    if (select == Fp8Selection::Cost) {
      std::string error;
      deviceModel = loadDeviceModel(defaultDevicesPath(), device, error);
      if (!deviceModel) {
        emitError(module.getLoc())
            << "amp-fp8: select=cost needs a device model: " << error
            << " (select=all chooses without one)";
        return signalPassFailure();
      }
    }
    Fp8Config config{history, margin, fastAccumulation,
                     deviceModel ? &*deviceModel : nullptr};
    for (auto step :
         getGraphDefinitions<func::FuncOp>(module, GraphKind::TrainingStep)) {
      if (!isPrecisionMaterialized(step)) {
        step.emitError() << "amp-fp8: run amp-assign-precision and "
                            "amp-insert-casts first";
        return signalPassFailure();
      }
      Fp8Rewriter rewriter(step, config);
      if (failed(rewriter.run()))
        return signalPassFailure();
    }
  }
};

} // namespace

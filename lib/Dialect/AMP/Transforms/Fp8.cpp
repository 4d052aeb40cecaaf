//===- Fp8.cpp - FP8 contractions with delayed scaling (amp-fp8) ----------===//
//
// Transformer Engine's HYBRID recipe as a rewrite of a materialized bf16
// step: e4m3 operands in the forward, e5m2 gradients, one quantization per
// value and format, and the delayed-scaling state (per-tensor scales and an
// amax history) threaded through the step like the loss scaler's.
//
//===----------------------------------------------------------------------===//

#include "StepRewriting.h"
#include "amp/Dialect/AMP/IR/AMPBuilders.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Dialect/AMP/IR/TrainingStep.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"
#include "amp/Dialect/AMP/Transforms/Precision.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

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

/// A contraction to run in FP8: C = op(A) x op(B) (+ bias) on 2-D views.
struct Candidate {
  Operation *op;
  Value lhs, rhs, bias;
  bool transposeLhs = false, transposeRhs = false;
};

class Fp8Rewriter {
public:
  Fp8Rewriter(func::FuncOp step, int64_t history, int64_t margin,
              bool fastAccumulation)
      : step(step), view(step), b(step.getContext()),
        loc(NameLoc::get(StringAttr::get(step.getContext(), "fp8_scaling"))),
        history(history), margin(margin), fastAccumulation(fastAccumulation) {}

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
  unsigned siteOf(Value value, FloatType format);
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

  DenseSet<Value> gradients;
  SmallVector<Site> sites;
  DenseMap<std::pair<Value, Type>, unsigned> siteIndex;
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
  return candidate;
}

/// The site of (value as a 2-D matrix, format), created on first use: the
/// key is the value reshapes start from and the quantized matrix's type.
unsigned Fp8Rewriter::siteOf(Value value, FloatType format) {
  ArrayRef<int64_t> shape = tensorType(value).getShape();
  int64_t rows = 1;
  for (int64_t size : shape.drop_back())
    rows *= size;
  auto key =
      std::make_pair(throughReshapes(value),
                     Type(RankedTensorType::get({rows, shape.back()}, format)));
  auto [it, inserted] = siteIndex.try_emplace(key, sites.size());
  if (inserted)
    sites.push_back({value, format, {}, {}, {}});
  return it->second;
}

/// At the start of the step: the stored scales, a fresh (zero) one read as
/// 1, and their inverses.
void Fp8Rewriter::loadScales() {
  b.setInsertionPointToStart(&step.front());
  Value positive = build::compare(b, loc, CompareDirection::GT, scaleArg,
                                  splatLike(b, loc, scaleArg, 0.0));
  scales = select(b, loc, positive, scaleArg, splatLike(b, loc, scaleArg, 1.0));
  scaleInvs = div(b, loc, splatLike(b, loc, scales, 1.0), scales);
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
  site.scaleInv = element(scaleInvs, index);
}

void Fp8Rewriter::rewrite(const Candidate &candidate) {
  Operation *op = candidate.op;
  Value operands[2] = {candidate.lhs, candidate.rhs};
  unsigned indices[2];
  for (auto [i, operand] : llvm::enumerate(operands)) {
    indices[i] = siteOf(operand, formatOf(operand));
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
    rows.push_back(reshape(b, loc, site.amax, {1, 1}));
    largest.push_back(static_cast<float>(
        APFloat::getLargest(site.format.getFloatSemantics()).convertToDouble() /
        std::ldexp(1.0, margin)));
  }
  auto rowType = RankedTensorType::get({1, count}, f32);
  Value amaxes =
      rows.size() == 1
          ? rows.front()
          : Value(ConcatOp::create(b, loc, rowType, rows, /*axis=*/1));
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
  SmallVector<Candidate> candidates;
  step.walk([&](Operation *op) {
    if (std::optional<Candidate> candidate = match(op))
      candidates.push_back(*candidate);
  });
  if (candidates.empty())
    return success();
  // Sites in program order, so that state index i is the i-th quantized
  // tensor the step computes.
  for (const Candidate &candidate : candidates) {
    siteOf(candidate.lhs, formatOf(candidate.lhs));
    siteOf(candidate.rhs, formatOf(candidate.rhs));
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
    for (auto step :
         getGraphDefinitions<func::FuncOp>(module, GraphKind::TrainingStep)) {
      if (!isPrecisionMaterialized(step)) {
        step.emitError() << "amp-fp8: run amp-assign-precision and "
                            "amp-insert-casts first";
        return signalPassFailure();
      }
      Fp8Rewriter rewriter(step, history, margin, fastAccumulation);
      if (failed(rewriter.run()))
        return signalPassFailure();
    }
  }
};

} // namespace

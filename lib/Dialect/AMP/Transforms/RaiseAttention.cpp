//===- RaiseAttention.cpp - attention chains to amp.attention -------------===//
//
// amp-raise-attention (AttentionPasses.td): finds matmul, scale, mask,
// softmax, dropout, matmul chains in forward models and replaces each by one
// amp.attention, as XLA's cuDNN fused-attention rewriter does for HLO.
// Matching starts at each amp.softmax over the last axis and walks up to the
// scores' matmul and down to the values' matmul; every op in between must
// have no other use.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMPBuilders.h"
#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Dialect/AMP/IR/TrainingStep.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>

namespace mlir::amp {
#define GEN_PASS_DEF_AMPRAISEATTENTIONPASS
#include "amp/Dialect/AMP/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;
using build::Shape;

namespace {
/// A score at or below this hides its key (GPT-2 writes -1e4, Hugging Face
/// finfo.min, nanoGPT -inf); see the pass description for why -1e4 is
/// exact.
constexpr double kHidingScore = -1.0e4;
/// Masks evaluated at compile time are at most this many elements.
constexpr int64_t kMaxEvaluated = int64_t(1) << 24;

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

int64_t product(ArrayRef<int64_t> dims) {
  int64_t result = 1;
  for (int64_t dim : dims)
    result *= dim;
  return result;
}

bool hasOneUse(Value value) { return value.hasOneUse(); }

/// The value of a 0-d constant, possibly broadcast, or of a splat constant.
std::optional<double> scalarConstant(Value value) {
  if (auto broadcast = value.getDefiningOp<BroadcastOp>())
    value = broadcast.getInput();
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!dense || !dense.isSplat() || !isa<FloatType>(dense.getElementType()))
    return std::nullopt;
  return dense.getSplatValue<APFloat>().convertToDouble();
}

bool isHidingScore(Value value) {
  std::optional<double> score = scalarConstant(value);
  return score && *score <= kHidingScore;
}

//===----------------------------------------------------------------------===//
// Masks known at compile time
//===----------------------------------------------------------------------===//

/// The elements (row-major, as doubles) of a value computed from constants
/// by broadcasts, reshapes, comparisons and selects: the triangular masks
/// models build from iotas or constant buffers.
FailureOr<SmallVector<double>> evaluate(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t count = type.getNumElements();
  if (count > kMaxEvaluated)
    return failure();
  Operation *op = value.getDefiningOp();
  if (auto constant = dyn_cast_or_null<ConstantOp>(op)) {
    auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (!dense)
      return failure();
    SmallVector<double> values;
    Type element = dense.getElementType();
    if (isa<FloatType>(element))
      for (APFloat v : dense.getValues<APFloat>())
        values.push_back(v.convertToDouble());
    else if (element.isInteger(1))
      for (bool v : dense.getValues<bool>())
        values.push_back(v);
    else
      for (APInt v : dense.getValues<APInt>())
        values.push_back(static_cast<double>(v.getSExtValue()));
    return values;
  }
  if (auto reshape = dyn_cast_or_null<ReshapeOp>(op))
    return evaluate(reshape.getInput());
  if (auto broadcast = dyn_cast_or_null<BroadcastOp>(op)) {
    FailureOr<SmallVector<double>> input = evaluate(broadcast.getInput());
    if (failed(input))
      return failure();
    ArrayRef<int64_t> from = shapeOf(broadcast.getInput());
    ArrayRef<int64_t> to = type.getShape();
    SmallVector<double> values(count);
    for (int64_t i = 0; i < count; ++i) {
      // The input element the result element i reads (NumPy rules).
      int64_t rest = i, source = 0, stride = 1;
      for (int64_t d = to.size() - 1, s = from.size() - 1; d >= 0; --d, --s) {
        int64_t index = rest % to[d];
        rest /= to[d];
        if (s >= 0) {
          source += (from[s] == 1 ? 0 : index) * stride;
          stride *= from[s];
        }
      }
      values[i] = (*input)[source];
    }
    return values;
  }
  if (auto compare = dyn_cast_or_null<CompareOp>(op)) {
    FailureOr<SmallVector<double>> lhs = evaluate(compare.getLhs());
    FailureOr<SmallVector<double>> rhs = evaluate(compare.getRhs());
    if (failed(lhs) || failed(rhs))
      return failure();
    SmallVector<double> values(count);
    for (int64_t i = 0; i < count; ++i) {
      double a = (*lhs)[i], b = (*rhs)[i];
      switch (compare.getDirection()) {
      case CompareDirection::EQ:
        values[i] = a == b;
        break;
      case CompareDirection::NE:
        values[i] = a != b;
        break;
      case CompareDirection::LT:
        values[i] = a < b;
        break;
      case CompareDirection::LE:
        values[i] = a <= b;
        break;
      case CompareDirection::GT:
        values[i] = a > b;
        break;
      case CompareDirection::GE:
        values[i] = a >= b;
        break;
      }
    }
    return values;
  }
  if (auto where = dyn_cast_or_null<WhereOp>(op)) {
    FailureOr<SmallVector<double>> c = evaluate(where.getCondition());
    FailureOr<SmallVector<double>> t = evaluate(where.getTrueValue());
    FailureOr<SmallVector<double>> f = evaluate(where.getFalseValue());
    if (failed(c) || failed(t) || failed(f))
      return failure();
    SmallVector<double> values(count);
    for (int64_t i = 0; i < count; ++i)
      values[i] = (*c)[i] != 0 ? (*t)[i] : (*f)[i];
    return values;
  }
  return failure();
}

/// Whether a boolean mask of shape [..., Sq, Skv] (leading dimensions 1)
/// keeps exactly the keys j <= i: causal attention.
bool isCausalKeep(Value keep) {
  ArrayRef<int64_t> shape = shapeOf(keep);
  if (shape.size() < 2 || product(shape.drop_back(2)) != 1)
    return false;
  FailureOr<SmallVector<double>> values = evaluate(keep);
  if (failed(values))
    return false;
  int64_t rows = shape[shape.size() - 2], cols = shape.back();
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      if (((*values)[i * cols + j] != 0) != (j <= i))
        return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Matching
//===----------------------------------------------------------------------===//

/// One attention chain.
struct Chain {
  MatmulOp scores, values;
  SoftmaxOp softmax;
  DropoutOp dropout;
  /// k as [..., Skv, D], and whether that still needs a transpose of the
  /// matmul's right operand (k^T computed some other way).
  Value keyRows;
  bool transposeKey = false;
  double scale = 1.0;
  /// The mask before its broadcast to the scores' shape: boolean (true
  /// keeps, or true hides with `hides`) or additive.
  Value mask;
  bool hides = false;
};

/// The value under a reshape, if `value` is one's result with one use.
Value underReshape(Value value) {
  auto reshape = value.getDefiningOp<ReshapeOp>();
  return reshape && hasOneUse(value) ? reshape.getInput() : value;
}

/// The mask operand before its broadcast to the scores.
Value unbroadcast(Value value) {
  auto broadcast = value.getDefiningOp<BroadcastOp>();
  return broadcast ? broadcast.getInput() : value;
}

/// Whether `value` depends on a parameter of `forward`.
bool dependsOnParameter(Value value, func::FuncOp forward) {
  SetVector<Operation *> slice;
  BackwardSliceOptions options;
  options.omitBlockArguments = false;
  options.inclusive = true;
  SmallVector<Value> roots = {value};
  auto isParameter = [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner()->isEntryBlock() &&
           getRole(forward.getArgAttrDict(arg.getArgNumber())) ==
               Role::Parameter;
  };
  if (isParameter(value))
    return true;
  if (Operation *def = value.getDefiningOp()) {
    (void)getBackwardSlice(def, &slice, options);
    for (Operation *op : slice)
      for (Value operand : op->getOperands())
        if (isParameter(operand))
          return true;
  }
  return false;
}

/// Matches the scores' matmul: `value` (under a reshape) is q k^T.
LogicalResult matchScores(Value value, Chain &chain) {
  auto matmul = underReshape(value).getDefiningOp<MatmulOp>();
  if (!matmul || !hasOneUse(matmul.getResult()) || matmul.getTransposeLhs())
    return failure();
  chain.scores = matmul;
  Value rhs = matmul.getRhs();
  if (matmul.getTransposeRhs()) {
    chain.keyRows = rhs;
    return success();
  }
  // k^T as an amp.transpose of k's last two dimensions, perhaps reshaped.
  Value under = underReshape(rhs);
  auto transpose = under.getDefiningOp<TransposeOp>();
  ArrayRef<int64_t> perm =
      transpose ? transpose.getPermutation() : ArrayRef<int64_t>();
  int64_t rank = perm.size();
  bool swapsLast = rank >= 2 && perm[rank - 1] == rank - 2 &&
                   perm[rank - 2] == rank - 1 &&
                   llvm::all_of(llvm::seq<int64_t>(0, rank - 2),
                                [&](int64_t d) { return perm[d] == d; });
  if (swapsLast && hasOneUse(transpose.getResult())) {
    chain.keyRows = transpose.getInput();
    return success();
  }
  chain.keyRows = rhs;
  chain.transposeKey = true;
  return success();
}

/// Matches scale * scores (or scores / scale), then the scores.
LogicalResult matchScaled(Value value, Chain &chain) {
  if (hasOneUse(value)) {
    if (auto mul = value.getDefiningOp<MulOp>()) {
      for (auto [scale, other] : {std::pair(mul.getRhs(), mul.getLhs()),
                                  std::pair(mul.getLhs(), mul.getRhs())})
        if (std::optional<double> factor = scalarConstant(scale)) {
          chain.scale = *factor;
          return matchScores(other, chain);
        }
    }
    if (auto div = value.getDefiningOp<DivOp>())
      if (std::optional<double> divisor = scalarConstant(div.getRhs());
          divisor && *divisor != 0) {
        chain.scale = 1.0 / *divisor;
        return matchScores(div.getLhs(), chain);
      }
  }
  return matchScores(value, chain);
}

/// Matches the softmax's input: an optional mask over the scaled scores.
LogicalResult matchMasked(Value value, Chain &chain, func::FuncOp forward) {
  if (hasOneUse(value)) {
    if (auto where = value.getDefiningOp<WhereOp>()) {
      Value condition = unbroadcast(where.getCondition());
      if (isHidingScore(where.getTrueValue())) {
        chain.mask = condition;
        chain.hides = true;
        return matchScaled(where.getFalseValue(), chain);
      }
      if (isHidingScore(where.getFalseValue())) {
        chain.mask = condition;
        return matchScaled(where.getTrueValue(), chain);
      }
      return failure();
    }
    if (auto add = value.getDefiningOp<AddOp>()) {
      for (auto [mask, scores] : {std::pair(add.getRhs(), add.getLhs()),
                                  std::pair(add.getLhs(), add.getRhs())}) {
        Chain candidate = chain;
        if (failed(matchScaled(scores, candidate)))
          continue;
        // A learned bias would get no gradient from amp.attention.
        if (dependsOnParameter(mask, forward))
          return failure();
        candidate.mask = unbroadcast(mask);
        chain = candidate;
        return success();
      }
      return failure();
    }
  }
  return matchScaled(value, chain);
}

/// The only user of `value`, or null.
Operation *soleUser(Value value) {
  return hasOneUse(value) ? *value.getUsers().begin() : nullptr;
}

/// Matches probs (after an optional dropout, under a reshape) times v.
LogicalResult matchValues(Value probs, Chain &chain) {
  Operation *user = soleUser(probs);
  if (auto dropout = dyn_cast_or_null<DropoutOp>(user)) {
    if (!dropout.getMask().use_empty())
      return failure();
    chain.dropout = dropout;
    probs = dropout.getOutput();
    user = soleUser(probs);
  }
  if (auto reshape = dyn_cast_or_null<ReshapeOp>(user)) {
    probs = reshape.getResult();
    user = soleUser(probs);
  }
  auto matmul = dyn_cast_or_null<MatmulOp>(user);
  if (!matmul || matmul.getLhs() != probs || matmul.getTransposeLhs() ||
      matmul.getTransposeRhs())
    return failure();
  chain.values = matmul;
  return success();
}

//===----------------------------------------------------------------------===//
// Rewriting
//===----------------------------------------------------------------------===//

/// The [batch, heads] an attention over scores of `shape` ([..., Sq, Skv])
/// runs as.
std::pair<int64_t, int64_t> batchAndHeads(ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> leading = shape.drop_back(2);
  if (leading.empty())
    return {1, 1};
  return {product(leading.drop_back()), leading.back()};
}

class Raiser {
public:
  Raiser(Chain &chain, OpBuilder &b)
      : chain(chain), b(b), loc(chain.values.getLoc()) {}

  /// Builds the amp.attention and replaces the values' matmul; fails when
  /// the operands do not fit [B, H, S, D], leaving only unused ops.
  LogicalResult raise();

private:
  /// `value` ([..., S, D] with B * H matrices) as [B, H, S, D].
  FailureOr<Value> heads(Value value);
  /// The mask as [1|B, 1|H, Sq, Skv] (true keeps), or null.
  FailureOr<Value> mask();

  Chain &chain;
  OpBuilder &b;
  Location loc;
  int64_t batch = 1, numHeads = 1, sq = 0, skv = 0;
};

FailureOr<Value> Raiser::heads(Value value) {
  ArrayRef<int64_t> shape = shapeOf(value);
  if (shape.size() < 2 || product(shape.drop_back(2)) != batch * numHeads)
    return failure();
  return build::reshape(
      b, loc, value, {batch, numHeads, shape[shape.size() - 2], shape.back()});
}

FailureOr<Value> Raiser::mask() {
  if (!chain.mask)
    return Value();
  Value mask = chain.mask;
  ArrayRef<int64_t> shape = shapeOf(mask);
  if (shape.size() < 2)
    return failure();
  // Queries and keys the mask broadcasts over become explicit.
  Shape full(shape);
  full[full.size() - 2] = sq;
  full.back() = skv;
  mask = build::broadcast(b, loc, mask, full);
  // The leading dimensions: all 1 (one mask) or the scores' own.
  ArrayRef<int64_t> leading = ArrayRef<int64_t>(full).drop_back(2);
  int64_t maskHeads = leading.empty() ? 1 : leading.back();
  int64_t maskBatch = leading.empty() ? 1 : product(leading.drop_back());
  if ((maskHeads != 1 && maskHeads != numHeads) ||
      (maskBatch != 1 && maskBatch != batch))
    return failure();
  mask = build::reshape(b, loc, mask, {maskBatch, maskHeads, sq, skv});
  Type element = cast<RankedTensorType>(mask.getType()).getElementType();
  if (!element.isInteger(1) || !chain.hides)
    return mask;
  // Hiding masks (masked_fill's) become keep masks.
  auto type = cast<RankedTensorType>(mask.getType());
  auto splat = [&](bool value) -> Value {
    return ConstantOp::create(b, loc, type,
                              DenseElementsAttr::get(type, value));
  };
  return b.createOrFold<WhereOp>(loc, type, mask, splat(false), splat(true));
}

LogicalResult Raiser::raise() {
  ArrayRef<int64_t> scores = shapeOf(chain.softmax.getResult());
  std::tie(batch, numHeads) = batchAndHeads(scores);
  sq = scores[scores.size() - 2];
  skv = scores.back();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(chain.values);
  Value key = chain.keyRows;
  if (chain.transposeKey) {
    ArrayRef<int64_t> kt = shapeOf(key);
    Shape perm = llvm::to_vector(llvm::seq<int64_t>(0, kt.size()));
    std::swap(perm[kt.size() - 1], perm[kt.size() - 2]);
    Shape rows(kt);
    std::swap(rows[kt.size() - 1], rows[kt.size() - 2]);
    key = TransposeOp::create(
        b, loc, cast<RankedTensorType>(key.getType()).clone(rows), key, perm);
  }
  FailureOr<Value> q = heads(chain.scores.getLhs());
  FailureOr<Value> k = heads(key);
  FailureOr<Value> v = heads(chain.values.getRhs());
  FailureOr<Value> keep = mask();
  if (failed(q) || failed(k) || failed(v) || failed(keep))
    return failure();
  bool causal =
      *keep &&
      cast<RankedTensorType>((*keep).getType()).getElementType().isInteger(1) &&
      isCausalKeep(*keep);
  Shape out = {batch, numHeads, sq, shapeOf(*v).back()};
  Type f32 = b.getF32Type();
  auto attention = AttentionOp::create(
      b, b.getFusedLoc({chain.scores.getLoc(), chain.softmax.getLoc(), loc}),
      RankedTensorType::get(out, f32),
      RankedTensorType::get({batch, numHeads, sq}, f32), *q, *k, *v,
      causal ? Value() : *keep,
      chain.dropout ? chain.dropout.getSeed() : Value(),
      b.getF64FloatAttr(chain.scale), causal ? b.getUnitAttr() : UnitAttr(),
      b.getF64FloatAttr(chain.dropout
                            ? chain.dropout.getProbability().convertToDouble()
                            : 0.0));
  Value result = build::reshape(b, loc, attention.getOutput(),
                                shapeOf(chain.values.getResult()));
  chain.values.getResult().replaceAllUsesWith(result);
  return success();
}

/// Erases the ops of `body` left without uses (the replaced chains and
/// their constants), last first.
void eraseDeadOps(Block &body) {
  SmallVector<Operation *> ops;
  for (Operation &op : body)
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (!op->hasTrait<mlir::OpTrait::IsTerminator>() && op->use_empty() &&
        isa_and_present<AMPDialect>(op->getDialect()) && isPure(op))
      op->erase();
}

/// Whether every value in `chain` is f32, as imported forward models are
/// (the precision passes come later).
bool isF32(Chain &chain) {
  auto f32 = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getElementType().isF32();
  };
  return f32(chain.scores.getLhs()) && f32(chain.keyRows) &&
         f32(chain.softmax.getResult()) && f32(chain.values.getRhs()) &&
         f32(chain.values.getResult());
}

struct AMPRaiseAttentionPass
    : public amp::impl::AMPRaiseAttentionPassBase<AMPRaiseAttentionPass> {
  void runOnOperation() override {
    for (auto forward :
         getGraphDefinitions<func::FuncOp>(getOperation(), GraphKind::Forward))
      raiseIn(forward);
  }

  void raiseIn(func::FuncOp forward) {
    SmallVector<SoftmaxOp> softmaxes;
    forward.walk([&](SoftmaxOp op) { softmaxes.push_back(op); });
    OpBuilder b(forward.getContext());
    bool attempted = false;
    for (SoftmaxOp softmax : softmaxes) {
      int64_t rank = shapeOf(softmax.getResult()).size();
      if (rank < 2 ||
          (softmax.getAxis() != -1 && softmax.getAxis() != rank - 1))
        continue;
      Chain chain;
      chain.softmax = softmax;
      if (failed(matchMasked(softmax.getInput(), chain, forward)) ||
          failed(matchValues(softmax.getResult(), chain)) || !isF32(chain))
        continue;
      // A chain that does not fit leaves only dead reshapes behind.
      attempted = true;
      (void)Raiser(chain, b).raise();
    }
    if (attempted)
      eraseDeadOps(forward.getBody().front());
  }
};
} // namespace

//===- AttentionDecomposition.cpp - attention as unfused amp ops ----------===//
//
// amp.attention and amp.attention_grad as the amp ops PyTorch's math path
// runs: the scores materialized as [B, Hq, Sq, Skv] f32 tensors. The GPU
// uses it where cuDNN's fused attention refuses the configuration (the
// report says so); tests use it as the reference the fused kernels must
// match. The numerics follow include/amp/Runtime/Attention.h: f32 scores,
// probabilities rounded to the operands' type for the products with v (and,
// in the backward, ds for the products with k and q), f32 accumulation, a
// row with every key hidden giving output 0 and lse -inf, and the dropout
// keep mask of amp.dropout over the probabilities.
//
//===----------------------------------------------------------------------===//

#include "AttentionDecomposition.h"

#include "amp/Dialect/AMP/IR/AMPBuilders.h"

#include <limits>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::build;

namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// What both directions read, with the key and value heads repeated to the
/// query heads (grouped-query attention) and the scores' shape.
struct Problem {
  Location loc;
  Value query, key, value, mask, seed;
  double scale, dropout;
  bool causal;
  Shape scores;  // [B, Hq, Sq, Skv]
  int64_t group; // query heads per key head
};

template <typename OpTy> Problem problemOf(OpTy op) {
  ArrayRef<int64_t> q = tensorType(op.getQuery()).getShape();
  ArrayRef<int64_t> k = tensorType(op.getKey()).getShape();
  return {op.getLoc(),
          op.getQuery(),
          op.getKey(),
          op.getValue(),
          op.getMask(),
          op.getSeed(),
          op.getScale().convertToDouble(),
          // The fused kernels take the probability as an f32 (Attention.h):
          // the same value gives the same keep mask and factor.
          static_cast<double>(
              static_cast<float>(op.getDropout().convertToDouble())),
          op.getCausal(),
          {q[0], q[1], q[2], k[2]},
          q[1] / k[1]};
}

/// [B, Hkv, S, D] -> [B, Hkv * group, S, D], head h reading h / group.
Value repeatHeads(OpBuilder &b, Location loc, Value kv, int64_t group) {
  if (group == 1)
    return kv;
  ArrayRef<int64_t> s = tensorType(kv).getShape();
  Value expanded = reshape(b, loc, kv, {s[0], s[1], 1, s[2], s[3]});
  expanded = broadcast(b, loc, expanded, {s[0], s[1], group, s[2], s[3]});
  return reshape(b, loc, expanded, {s[0], s[1] * group, s[2], s[3]});
}

/// The gradient of repeated heads summed back to [B, Hkv, S, D].
Value sumHeads(OpBuilder &b, Location loc, Value grad, int64_t group) {
  if (group == 1)
    return grad;
  ArrayRef<int64_t> s = tensorType(grad).getShape();
  Value split = reshape(b, loc, grad, {s[0], s[1] / group, group, s[2], s[3]});
  return reduceSum(b, loc, split, {2}, /*keepDims=*/false, elementType(grad));
}

/// amp.matmul with an f32 result (accumulated in f32).
Value matmulF32(OpBuilder &b, Location loc, Value lhs, Value rhs,
                bool transposeLhs, bool transposeRhs) {
  return matmul(b, loc, lhs, rhs, transposeLhs, transposeRhs, b.getF32Type());
}

/// The maximum of each row of the scores, [B, Hq, Sq, 1].
Value rowMax(OpBuilder &b, Location loc, Value scores) {
  Shape shape(tensorType(scores).getShape());
  shape.back() = 1;
  return ReduceMaxOp::create(b, loc, tensorType(scores).clone(shape), scores,
                             b.getDenseI64ArrayAttr({3}), b.getUnitAttr());
}

/// A [Sq, Skv] boolean constant, true where key j is visible to query i
/// (j <= i), as [1, 1, Sq, Skv].
Value causalKeep(OpBuilder &b, Location loc, int64_t sq, int64_t skv) {
  SmallVector<bool> keep;
  keep.reserve(sq * skv);
  for (int64_t i = 0; i < sq; ++i)
    for (int64_t j = 0; j < skv; ++j)
      keep.push_back(j <= i);
  auto type = RankedTensorType::get({1, 1, sq, skv}, b.getI1Type());
  return ConstantOp::create(b, loc, type, DenseElementsAttr::get(type, keep));
}

/// Where `keep` (broadcast to the scores) is false, -inf.
Value hide(OpBuilder &b, Location loc, Value scores, Value keep) {
  ArrayRef<int64_t> shape = tensorType(scores).getShape();
  return select(b, loc, broadcast(b, loc, keep, shape), scores,
                splatLike(b, loc, scores, -kInfinity));
}

/// The f32 scores scale * q k^T, masked.
Value scores(OpBuilder &b, const Problem &p) {
  Location loc = p.loc;
  Value key = repeatHeads(b, loc, p.key, p.group);
  Value s =
      scale(b, loc, matmulF32(b, loc, p.query, key, false, true), p.scale);
  if (p.mask && tensorType(p.mask).getElementType().isInteger(1))
    s = hide(b, loc, s, p.mask);
  else if (p.mask)
    s = add(b, loc, s,
            broadcast(b, loc, castElement(b, loc, p.mask, b.getF32Type()),
                      p.scores));
  if (p.causal)
    s = hide(b, loc, s, causalKeep(b, loc, p.scores[2], p.scores[3]));
  return s;
}

/// `stat` [B, Hq, Sq, 1] with -inf (a row with every key hidden) as 0, so
/// that exp(s - stat) is 0 there instead of NaN.
Value finiteOrZero(OpBuilder &b, Location loc, Value stat) {
  Value hidden = compare(b, loc, CompareDirection::EQ, stat,
                         splatLike(b, loc, stat, -kInfinity));
  return select(b, loc, hidden, splatLike(b, loc, stat, 0.0), stat);
}

/// Probabilities with dropout applied (the kept ones scaled), and the keep
/// mask (null without dropout).
std::pair<Value, Value> dropped(OpBuilder &b, const Problem &p, Value probs) {
  if (p.dropout == 0)
    return {probs, Value()};
  auto op = DropoutOp::create(b, p.loc, probs.getType(),
                              tensorType(probs).clone(b.getI1Type()), probs,
                              p.seed, b.getF64FloatAttr(p.dropout));
  return {op.getOutput(), op.getMask()};
}

Value rounded(OpBuilder &b, Location loc, Value value, Value like) {
  return castLike(b, loc, value, like);
}
} // namespace

SmallVector<Value> mlir::amp::decomposeAttention(OpBuilder &b, AttentionOp op) {
  Problem p = problemOf(op);
  Location loc = p.loc;
  Value s = scores(b, p);
  Shape rows = p.scores;
  Value max = rowMax(b, loc, s);
  Value safeMax = finiteOrZero(b, loc, max);
  Value e =
      ExpOp::create(b, loc, sub(b, loc, s, broadcast(b, loc, safeMax, rows)));
  Value sum = reduceSum(b, loc, e, {3}, /*keepDims=*/true, b.getF32Type());
  // 1 / sum, and 0 for a hidden row (its e is all 0).
  Value empty =
      compare(b, loc, CompareDirection::EQ, sum, splatLike(b, loc, sum, 0.0));
  Value inverse = select(b, loc, empty, splatLike(b, loc, sum, 0.0),
                         div(b, loc, splatLike(b, loc, sum, 1.0), sum));
  Value probs = mul(b, loc, e, broadcast(b, loc, inverse, rows));
  probs = dropped(b, p, probs).first;
  Value value = repeatHeads(b, loc, p.value, p.group);
  Value output =
      matmul(b, loc, rounded(b, loc, probs, p.value), value, false, false);
  Value lse = add(b, loc, safeMax, LogOp::create(b, loc, sum));
  lse = reshape(b, loc, lse, {rows[0], rows[1], rows[2]});
  return {output, lse};
}

SmallVector<Value> mlir::amp::decomposeAttentionGrad(OpBuilder &b,
                                                     AttentionGradOp op) {
  Problem p = problemOf(op);
  Location loc = p.loc;
  Shape rows = p.scores;
  Value s = scores(b, p);
  Value lse = finiteOrZero(
      b, loc, reshape(b, loc, op.getLse(), {rows[0], rows[1], rows[2], 1}));
  Value probs =
      ExpOp::create(b, loc, sub(b, loc, s, broadcast(b, loc, lse, rows)));
  auto [kept, keep] = dropped(b, p, probs);
  Value grad = op.getGrad();
  Value key = repeatHeads(b, loc, p.key, p.group);
  Value value = repeatHeads(b, loc, p.value, p.group);
  // dv = dropped(p)^T dout; dp = dout v^T, through the same keep mask.
  Value dv = matmulF32(b, loc, rounded(b, loc, kept, grad), grad, true, false);
  Value dp = matmulF32(b, loc, grad, value, false, true);
  if (keep)
    dp = DropoutGradOp::create(b, loc, dp.getType(), dp, keep,
                               b.getF64FloatAttr(p.dropout));
  // D = rowsum(dout * out) in f32 from the stored output.
  Type f32 = b.getF32Type();
  Value d = reduceSum(b, loc,
                      mul(b, loc, castElement(b, loc, grad, f32),
                          castElement(b, loc, op.getOutput(), f32)),
                      {3}, /*keepDims=*/true, f32);
  Value ds = mul(b, loc, probs, sub(b, loc, dp, broadcast(b, loc, d, rows)));
  Value dsLow = rounded(b, loc, ds, p.query);
  Value dq =
      scale(b, loc, matmulF32(b, loc, dsLow, key, false, false), p.scale);
  Value dk =
      scale(b, loc, matmulF32(b, loc, dsLow, p.query, true, false), p.scale);
  return {castLike(b, loc, dq, p.query),
          castLike(b, loc, sumHeads(b, loc, dk, p.group), p.key),
          castLike(b, loc, sumHeads(b, loc, dv, p.group), p.value)};
}

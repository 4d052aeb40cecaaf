//===- ApproximateMath.cpp - vectorizable f32 transcendental functions ----===//
//
// The amp-cpu-approximate-math pass: f32 erf, exp, log, tanh, ... become
// MLIR's polynomial approximations instead of calls to libm, so that the
// loops computing GELU, softmax or cross-entropy vectorize; math.fma (which
// the approximations are made of) becomes LLVM's fma intrinsic.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/StringSet.h"

#include <cmath>

namespace mlir::amp {
#define GEN_PASS_DEF_CPUAPPROXIMATEMATHPASS
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {
/// The math ops upstream has polynomial approximations for, by mnemonic.
/// (The rsqrt one needs AVX2 intrinsics and is far less accurate.)
constexpr llvm::StringLiteral kApproximable[] = {
    "acos", "asin",  "atan", "atan2", "cbrt", "cos", "erf", "erfc",
    "exp",  "expm1", "log",  "log1p", "log2", "sin", "tanh"};

/// The ops the training graphs' lowering uses whose approximations stay
/// within about 2 f32 ulps of the exact result, with the subnormal ranges
/// rewritten below (docs/Lowering.md has the measurements).
constexpr llvm::StringLiteral kDefaultOps[] = {"erf", "exp", "log", "tanh"};

/// Whether `type` is a scalar or vector float, the types upstream's
/// approximations build (tensors are not lowered here).
bool isScalarOrVector(Type type) { return isa<FloatType, VectorType>(type); }

/// `SourceOp` becomes the LLVM intrinsic `TargetOp` with the same operands:
/// math.fma (one vfmadd instruction) and math.floor (one vroundps), which
/// the approximations are made of. The later convert-math-to-libm would
/// make them calls to libm's fmaf and floorf: a call per fma is slower than
/// the libm function the approximation replaces, and a call keeps loops
/// from vectorizing unless LLVM recognizes it.
template <typename SourceOp, typename TargetOp>
struct ToLLVMIntrinsic : OpRewritePattern<SourceOp> {
  using OpRewritePattern<SourceOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(SourceOp op,
                                PatternRewriter &rewriter) const override {
    if (!isScalarOrVector(op.getType()))
      return failure();
    rewriter.replaceOpWithNewOp<TargetOp>(op, op.getType(), op->getOperands());
    return success();
  }
};

/// f32 (or splat f32 vector) constant of `type`.
Value constantLike(OpBuilder &b, Location loc, Type type, float value) {
  return createScalarOrSplatConstant(b, loc, type, APFloat(value));
}

/// 64 ln 2: exp and log move arguments and results by 2^64 through it.
constexpr float kLn2Times64 = 64 * M_LN2;

/// An arith op of a value and a constant of its type.
using WithConstant = function_ref<Value(OpBuilder &, Location, Value)>;

/// Rewrites `op(x)` as `x < limit ? after(op(before(x))) : op(x)` with one
/// evaluation of the op: selects pick its argument and its result.
template <typename OpTy>
void rewriteBelow(OpTy op, float limit, WithConstant before,
                  WithConstant after) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value x = op.getOperand();
  Value below = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                      constantLike(b, loc, x.getType(), limit));
  Value argument = arith::SelectOp::create(b, loc, below, before(b, loc, x), x);
  Value full = OpTy::create(b, loc, argument);
  Value result =
      arith::SelectOp::create(b, loc, below, after(b, loc, full), full);
  op.replaceAllUsesWith(result);
  op.erase();
}

/// `value <op> constant`, as a WithConstant.
template <typename ArithOp>
Value withConstant(OpBuilder &b, Location loc, Value value, float constant) {
  return ArithOp::create(b, loc, value,
                         constantLike(b, loc, value.getType(), constant));
}

/// Rewrites f32 `exp(x)` as
/// `x < ln FLT_MIN ? exp(x + 64 ln 2) * 2^-64 (1 - 2^-23) : exp(x)`.
/// Upstream's approximation flushes results below about exp(-87.68) to zero,
/// where libm and PyTorch return subnormals (softmax of far-apart logits,
/// softplus of very negative inputs). The shifted argument keeps the result
/// normal (x + 64 ln 2 is exact there), and the scaling rounds it once into
/// the subnormal range. 64 ln 2 in f32 is 1.22e-7 above the real one, which
/// multiplies the result by exp(1.22e-7); the scale's factor (1 - 2^-23)
/// takes that back to within 3e-9.
void keepSubnormalResults(math::ExpOp exp) {
  rewriteBelow(
      exp, -87.33654f,
      [](OpBuilder &b, Location loc, Value x) {
        return withConstant<arith::AddFOp>(b, loc, x, kLn2Times64);
      },
      [](OpBuilder &b, Location loc, Value y) {
        return withConstant<arith::MulFOp>(b, loc, y, 0x1.fffffcp-65f);
      });
}

/// Rewrites f32 `log(x)` as `x < FLT_MIN ? log(x * 2^64) - 64 ln 2 : log(x)`.
/// Upstream's approximation reads the exponent field as if every input were
/// normal and is wrong by up to 10^6 ulps on subnormal inputs; x * 2^64 is
/// exact and normal, and 64 ln 2's rounding in f32 (1.22e-7) is a relative
/// 1.3e-9 of results below -87.
void acceptSubnormalArguments(math::LogOp log) {
  rewriteBelow(
      log, 0x1p-126f,
      [](OpBuilder &b, Location loc, Value x) {
        return withConstant<arith::MulFOp>(b, loc, x, 0x1p64f);
      },
      [](OpBuilder &b, Location loc, Value y) {
        return withConstant<arith::SubFOp>(b, loc, y, kLn2Times64);
      });
}

/// Applies `rewrite` to every f32 (or f32 vector) `OpTy` under `root`.
template <typename OpTy>
void rewriteF32(Operation *root, void (*rewrite)(OpTy)) {
  SmallVector<OpTy> ops;
  root->walk([&](OpTy op) {
    if (isScalarOrVector(op.getType()) &&
        getElementTypeOrSelf(op.getType()).isF32())
      ops.push_back(op);
  });
  for (OpTy op : ops)
    rewrite(op);
}

struct CPUApproximateMathPass
    : amp::impl::CPUApproximateMathPassBase<CPUApproximateMathPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    if (ops.empty())
      ops = llvm::to_vector(
          llvm::map_range(kDefaultOps, [](StringRef op) { return op.str(); }));
    for (const std::string &op : ops) {
      if (!llvm::is_contained(kApproximable, op))
        return emitError(UnknownLoc::get(context))
               << "amp-cpu-approximate-math: no approximation of 'math." << op
               << "' (ops=" << llvm::join(ops, ",") << "); choose from "
               << llvm::join(ArrayRef(kApproximable), ", ");
      names.insert("math." + op);
    }
    return success();
  }

  void runOnOperation() override {
    // The ranges upstream's approximations get wrong, first.
    if (names.contains("math.exp"))
      rewriteF32(getOperation(), keepSubnormalResults);
    if (names.contains("math.log"))
      rewriteF32(getOperation(), acceptSubnormalArguments);
    // Upstream's patterns match any float type, tensors included (where
    // they build invalid IR) and f16 (computed in f16): only scalar and
    // vector f32 ops are given to them, and the ops they create.
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (op->getNumResults() != 1 ||
          !isScalarOrVector(op->getResultTypes()[0]))
        return;
      if (isa<math::FmaOp, math::FloorOp>(op) ||
          (names.contains(op->getName().getStringRef()) &&
           getElementTypeOrSelf(op->getResultTypes()[0]).isF32()))
        ops.push_back(op);
    });
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(
        patterns, [&](StringRef name) { return names.contains(name); });
    patterns.add<ToLLVMIntrinsic<math::FmaOp, LLVM::FMAOp>,
                 ToLLVMIntrinsic<math::FloorOp, LLVM::FFloorOp>>(&getContext());
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    if (failed(applyOpPatternsGreedily(ops, std::move(patterns), config)))
      signalPassFailure();
  }

private:
  llvm::StringSet<> names;
};
} // namespace

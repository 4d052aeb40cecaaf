//===- ApproximateMath.cpp - vectorizable f32 transcendental functions ----===//
//
// The amp-cpu-approximate-math pass: f32 erf, exp, log, tanh, ... become
// MLIR's polynomial approximations instead of calls to libm, so that the
// loops computing GELU, softmax or cross-entropy vectorize; math.fma (which
// the approximations are made of) becomes LLVM's fma intrinsic.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"

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
#include "amp/Conversion/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {
/// The math ops upstream has polynomial approximations for, by mnemonic.
/// (The rsqrt one needs AVX2 intrinsics and is far less accurate.)
constexpr llvm::StringLiteral kApproximable[] = {
    "acos", "asin",  "atan", "atan2", "cbrt", "cos", "erf", "erfc",
    "exp",  "expm1", "log",  "log1p", "log2", "sin", "tanh"};

/// The ops the training graphs' lowering uses whose approximations stay
/// within 2.3 f32 ulps of the exact result, with the subnormal ranges
/// rewritten below (docs/Lowering.md has the measurements).
constexpr llvm::StringLiteral kDefaultOps[] = {"erf", "exp", "log", "tanh"};

/// math.fma becomes LLVM's fma intrinsic (one vfmadd instruction), since the
/// later convert-math-to-libm would make it a call to libm's fmaf: the
/// approximations are chains of fmas, and a call per fma is slower than the
/// libm function they replace and keeps loops from vectorizing.
struct FmaToLLVMIntrinsic : OpRewritePattern<math::FmaOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::FmaOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::FMAOp>(op, op.getA(), op.getB(),
                                             op.getC());
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

/// Rewrites f32 `exp(x)` as `x < -87 ? exp(x + 64 ln 2) * 2^-64 : exp(x)`.
/// Upstream's approximation flushes results below FLT_MIN (x < -87.3) to
/// zero, where libm and PyTorch return subnormals (softmax of far-apart
/// logits, softplus of very negative inputs). The shifted argument keeps the
/// result normal until the exact scaling by 2^-64 rounds it once into the
/// subnormal range; the rounding of x + 64 ln 2 costs a relative 1e-5 at
/// most there, far below a subnormal's spacing.
void keepSubnormalResults(math::ExpOp exp) {
  rewriteBelow(
      exp, -87.0f,
      [](OpBuilder &b, Location loc, Value x) {
        return withConstant<arith::AddFOp>(b, loc, x, kLn2Times64);
      },
      [](OpBuilder &b, Location loc, Value y) {
        return withConstant<arith::MulFOp>(b, loc, y, 0x1p-64f);
      });
}

/// Rewrites f32 `log(x)` as `x < FLT_MIN ? log(x * 2^64) - 64 ln 2 : log(x)`.
/// Upstream's approximation reads the exponent field as if every input were
/// normal and is wrong by up to 10^6 ulps on subnormal inputs; x * 2^64 is
/// exact and normal, and the subtraction costs a relative 2e-8.
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
    if (getElementTypeOrSelf(op.getType()).isF32())
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
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(
        patterns, [&](StringRef name) { return names.contains(name); });
    patterns.add<FmaToLLVMIntrinsic>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }

private:
  llvm::StringSet<> names;
};
} // namespace

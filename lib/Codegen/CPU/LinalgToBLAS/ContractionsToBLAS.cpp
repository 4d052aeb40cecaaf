//===- ContractionsToBLAS.cpp - f32 matrix products to sgemm calls --------===//
//
// The amp-cpu-contractions-to-blas pass: the CPU counterpart of
// amp-contractions-to-gemm-calls. Matrix products matched by
// amp::matchGemm on f32 buffers (or f16/bf16/FP8 ones accumulating in f32,
// widened first) become calls to amp_cpu_sgemm (amp/Runtime/CPUGemm.h: the
// BLAS's cblas_sgemm on the model runtime's threads, OpenBLAS linked into
// model libraries); everything else is left for convert-linalg-to-loops.
//
//===----------------------------------------------------------------------===//

#include "SgemmCalls.h"

#include "amp/Codegen/CPU/Passes.h"
#include "amp/Conversion/GemmMatch.h"
#include "amp/Runtime/CPUGemm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

#include <limits>

namespace mlir::amp {
#define GEN_PASS_DEF_CPUCONTRACTIONSTOBLASPASS
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {
// CBLAS enum values (cblas.h).
constexpr int32_t kRowMajor = 101, kNoTrans = 111, kTrans = 112;

func::FuncOp getOrDeclareSgemm(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  Builder b(ctx);
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  // void amp_cpu_sgemm(order, trans_a, trans_b, int m, int n, int k,
  //   float alpha, const float *a, int lda, const float *b, int ldb,
  //   float beta, float *c, int ldc)
  auto type = b.getFunctionType(
      {i32, i32, i32, i32, i32, i32, f32, ptr, i32, ptr, i32, f32, ptr, i32},
      {});
  return amp::getOrDeclareLibraryFunc(module, kCPUSgemmFunc, type);
}

/// Whether the BLAS's 32-bit integers hold every size and leading dimension.
bool fitsBlasInt(const amp::GemmShape &shape) {
  constexpr int64_t max = std::numeric_limits<int32_t>::max();
  return shape.m <= max && shape.n <= max && shape.k <= max;
}

/// The plan of a product matchGemm found: dense operands in place, the
/// batches (if any) one outer loop; beta = 0 after a zero fill.
amp::SgemmPlan planOf(const amp::GemmMatch &match, linalg::FillOp zeroFill) {
  const amp::GemmShape &shape = match.shape;
  amp::SgemmPlan plan;
  plan.m = shape.m;
  plan.n = shape.n;
  plan.k = shape.k;
  // Row-major leading dimensions: the row length of each stored matrix.
  plan.a = {match.a, 0, shape.transA ? shape.m : shape.k, shape.transA, {}};
  plan.b = {match.b, 0, shape.transB ? shape.k : shape.n, shape.transB, {}};
  plan.c = {match.c, 0, shape.n, false, {}};
  plan.overwrite = bool(zeroFill);
  if (shape.batch != 1) {
    plan.outerSizes = {shape.batch};
    plan.a.outerStrides = {shape.strideA};
    plan.b.outerStrides = {shape.strideB};
    plan.c.outerStrides = {shape.m * shape.n};
  }
  return plan;
}

/// Whether sgemm can compute a product of `match`'s element types: f32
/// operands, or f16/bf16/FP8 operands widened to f32 first (their products
/// and sums are the f32 arithmetic the loops would do), accumulating in f32.
bool isSgemmProduct(const amp::GemmMatch &match) {
  auto isFp8 = [](Type type) {
    return isa<Float8E4M3FNType, Float8E5M2Type>(type);
  };
  Type a = match.aType, b = match.bType;
  bool sameKind = a == b || (isFp8(a) && isFp8(b));
  return match.cType.isF32() && sameKind &&
         (a.isF32() || a.isF16() || a.isBF16() || isFp8(a));
}

/// Points `plan`'s A and B at f32 copies of narrower operands (one copy when
/// both are the same buffer), freed after the calls. Debian's OpenBLAS has
/// no sbgemm, so 16-bit and FP8 products widen each operand once and call
/// sgemm: O(size) conversions for O(m n k) arithmetic.
void widenOperands(OpBuilder &b, Location loc, amp::SgemmPlan &plan) {
  auto widened = [&](Value buffer) {
    if (cast<MemRefType>(buffer.getType()).getElementType().isF32())
      return buffer;
    Value copy = amp::convertedCopy(b, loc, buffer, b.getF32Type());
    plan.temporaries.push_back(copy);
    return copy;
  };
  Value a = widened(plan.a.buffer);
  Value bWide = plan.b.buffer == plan.a.buffer ? a : widened(plan.b.buffer);
  plan.a.buffer = a;
  plan.b.buffer = bWide;
}

struct CPUContractionsToBLASPass
    : public amp::impl::CPUContractionsToBLASPassBase<
          CPUContractionsToBLASPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto &[op, match] : amp::collectGemms(module)) {
      if (!isSgemmProduct(match) || !fitsBlasInt(match.shape))
        continue;
      linalg::FillOp zeroFill = amp::findZeroFill(op, match.c);
      amp::SgemmPlan plan = planOf(match, zeroFill);
      OpBuilder builder(op);
      widenOperands(builder, op.getLoc(), plan);
      replace(module, op, plan, zeroFill);
    }
    // What is left: windows and permuted operands, through packed copies.
    SmallVector<linalg::LinalgOp> rest;
    module.walk([&](linalg::LinalgOp op) { rest.push_back(op); });
    for (linalg::LinalgOp op : rest) {
      if (op.getNumDpsInits() != 1)
        continue;
      // Before the copies go in between.
      linalg::FillOp zeroFill =
          amp::findZeroFill(op, op.getDpsInitOperand(0)->get());
      OpBuilder builder(op);
      if (std::optional<amp::SgemmPlan> plan =
              amp::planPackedGemm(builder, op, bool(zeroFill)))
        replace(module, op, *plan, zeroFill);
    }
  }

  /// Replaces `op` by the calls of `plan` and drops the zero fill of its
  /// output that `plan` accounts for.
  void replace(ModuleOp module, linalg::LinalgOp op, const amp::SgemmPlan &plan,
               linalg::FillOp zeroFill) {
    OpBuilder builder(op);
    amp::emitSgemmCalls(builder, op.getLoc(), module, plan);
    op->erase();
    if (zeroFill)
      zeroFill->erase();
  }
};
} // namespace

void mlir::amp::emitSgemmCalls(OpBuilder &builder, Location loc,
                               ModuleOp module, const SgemmPlan &plan) {
  func::FuncOp sgemm = getOrDeclareSgemm(module);
  Type ptrType = LLVM::LLVMPointerType::get(builder.getContext());
  Value a = bufferPointer(builder, loc, plan.a.buffer);
  Value b = bufferPointer(builder, loc, plan.b.buffer);
  Value c = bufferPointer(builder, loc, plan.c.buffer);
  auto call = [&](OpBuilder &nb, Location l, ValueRange outer) {
    auto i32 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(nb, l, v, 32);
    };
    auto f32 = [&](float v) -> Value {
      return arith::ConstantFloatOp::create(nb, l, nb.getF32Type(), APFloat(v));
    };
    // The matrix of this iteration: `base` advanced by the offset and the
    // outer strides.
    auto at = [&](Value base, const BlasMatrix &m) -> Value {
      Value offset;
      auto add = [&](Value term) {
        offset = offset ? arith::AddIOp::create(nb, l, offset, term) : term;
      };
      if (m.offset)
        add(arith::ConstantIntOp::create(nb, l, m.offset, 64));
      for (auto [iv, stride] : llvm::zip(outer, m.outerStrides)) {
        if (!stride)
          continue;
        Value index = arith::IndexCastOp::create(nb, l, nb.getI64Type(), iv);
        add(arith::MulIOp::create(
            nb, l, index, arith::ConstantIntOp::create(nb, l, stride, 64)));
      }
      if (!offset)
        return base;
      return LLVM::GEPOp::create(nb, l, ptrType, nb.getF32Type(), base,
                                 ValueRange{offset});
    };
    func::CallOp::create(
        nb, l, sgemm,
        ValueRange{i32(kRowMajor), i32(plan.a.trans ? kTrans : kNoTrans),
                   i32(plan.b.trans ? kTrans : kNoTrans), i32(plan.m),
                   i32(plan.n), i32(plan.k), f32(1.0f), at(a, plan.a),
                   i32(plan.a.ld), at(b, plan.b), i32(plan.b.ld),
                   f32(plan.overwrite ? 0.0f : 1.0f), at(c, plan.c),
                   i32(plan.c.ld)});
  };
  if (plan.outerSizes.empty()) {
    call(builder, loc, {});
  } else {
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t size : plan.outerSizes) {
      lbs.push_back(arith::ConstantIndexOp::create(builder, loc, 0));
      ubs.push_back(arith::ConstantIndexOp::create(builder, loc, size));
      steps.push_back(arith::ConstantIndexOp::create(builder, loc, 1));
    }
    scf::buildLoopNest(builder, loc, lbs, ubs, steps, call);
  }
  for (Value temporary : plan.temporaries)
    memref::DeallocOp::create(builder, loc, temporary);
}

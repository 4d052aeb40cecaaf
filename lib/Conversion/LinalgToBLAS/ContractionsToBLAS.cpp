//===- ContractionsToBLAS.cpp - f32 matrix products to cblas_sgemm --------===//
//
// The amp-cpu-contractions-to-blas pass: the CPU counterpart of
// amp-contractions-to-gemm-calls. Matrix products matched by
// amp::matchGemm on f32 buffers become calls to the BLAS's cblas_sgemm
// (OpenBLAS, linked into model libraries); everything else is left for
// convert-linalg-to-loops.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/GemmMatch.h"
#include "amp/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

#include <limits>

namespace mlir::amp {
#define GEN_PASS_DEF_CPUCONTRACTIONSTOBLASPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {
constexpr StringLiteral kSgemmFunc = "cblas_sgemm";
// CBLAS enum values (cblas.h).
constexpr int32_t kRowMajor = 101, kNoTrans = 111, kTrans = 112;

func::FuncOp getOrDeclareSgemm(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  Builder b(ctx);
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  // void cblas_sgemm(order, trans_a, trans_b, int m, int n, int k,
  //   float alpha, const float *a, int lda, const float *b, int ldb,
  //   float beta, float *c, int ldc)
  auto type = b.getFunctionType(
      {i32, i32, i32, i32, i32, i32, f32, ptr, i32, ptr, i32, f32, ptr, i32},
      {});
  return amp::getOrDeclareLibraryFunc(module, kSgemmFunc, type);
}

/// Whether the BLAS's 32-bit integers hold every size and leading dimension.
bool fitsBlasInt(const amp::GemmShape &shape) {
  constexpr int64_t max = std::numeric_limits<int32_t>::max();
  return shape.m <= max && shape.n <= max && shape.k <= max;
}

struct CPUContractionsToBLASPass
    : public amp::impl::CPUContractionsToBLASPassBase<
          CPUContractionsToBLASPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto &[op, match] : amp::collectGemms(module))
      rewrite(module, op, match);
  }

  void rewrite(ModuleOp module, linalg::LinalgOp op,
               const amp::GemmMatch &match) {
    if (!match.aType.isF32() || !match.cType.isF32() ||
        !fitsBlasInt(match.shape))
      return;
    const amp::GemmShape &shape = match.shape;
    linalg::FillOp zeroFill = amp::findZeroFill(op, match.c);
    OpBuilder builder(op);
    Location loc = op.getLoc();
    auto i32 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(builder, loc, v, 32);
    };
    auto f32 = [&](float v) -> Value {
      return arith::ConstantFloatOp::create(builder, loc, builder.getF32Type(),
                                            APFloat(v));
    };
    // Row-major leading dimensions: the row length of each stored matrix.
    int64_t lda = shape.transA ? shape.m : shape.k;
    int64_t ldb = shape.transB ? shape.k : shape.n;
    SmallVector<Value> args = {i32(kRowMajor),
                               i32(shape.transA ? kTrans : kNoTrans),
                               i32(shape.transB ? kTrans : kNoTrans),
                               i32(shape.m),
                               i32(shape.n),
                               i32(shape.k),
                               f32(1.0f),
                               amp::bufferPointer(builder, loc, match.a),
                               i32(lda),
                               amp::bufferPointer(builder, loc, match.b),
                               i32(ldb),
                               f32(zeroFill ? 0.0f : 1.0f),
                               amp::bufferPointer(builder, loc, match.c),
                               i32(shape.n)};
    func::FuncOp sgemm = getOrDeclareSgemm(module);
    if (shape.batch == 1) {
      func::CallOp::create(builder, loc, sgemm, args);
    } else {
      // One call per matrix: the pointers step by each operand's stride.
      Value lb = arith::ConstantIndexOp::create(builder, loc, 0);
      Value ub = arith::ConstantIndexOp::create(builder, loc, shape.batch);
      Value step = arith::ConstantIndexOp::create(builder, loc, 1);
      auto loop = scf::ForOp::create(builder, loc, lb, ub, step);
      builder.setInsertionPoint(loop.getBody()->getTerminator());
      Value iv = arith::IndexCastOp::create(builder, loc, builder.getI64Type(),
                                            loop.getInductionVar());
      auto offset = [&](unsigned arg, int64_t stride) {
        if (stride == 0)
          return;
        Value scaled = arith::MulIOp::create(
            builder, loc, iv,
            arith::ConstantIntOp::create(builder, loc, stride, 64));
        args[arg] = LLVM::GEPOp::create(builder, loc, args[arg].getType(),
                                        builder.getF32Type(), args[arg],
                                        ValueRange{scaled});
      };
      offset(7, shape.strideA);
      offset(9, shape.strideB);
      offset(12, shape.m * shape.n);
      func::CallOp::create(builder, loc, sgemm, args);
    }
    op->erase();
    if (zeroFill)
      zeroFill->erase();
  }
};
} // namespace

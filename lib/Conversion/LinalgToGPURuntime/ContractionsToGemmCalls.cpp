//===- ContractionsToGemmCalls.cpp - matrix products to amp_gpu_gemm ------===//
//
// The amp-contractions-to-gemm-calls pass: on bufferized IR, linalg ops that
// are (batched, possibly transposed) matrix products accumulating in f32 are
// replaced by calls to the runtime's amp_gpu_gemm (cuBLASLt; see
// include/amp/Runtime/CUDAKernels.h). Everything else is left for the loop
// and kernel lowering of the GPU pipeline.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/GemmMatch.h"
#include "amp/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

#include <optional>

namespace mlir::amp {
#define GEN_PASS_DEF_CONTRACTIONSTOGEMMCALLSPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {
constexpr StringLiteral kGemmFunc = "amp_gpu_gemm";

/// amp_dtype (include/amp/Runtime/ModelABI.h) of a GEMM operand.
std::optional<int32_t> gemmDType(Type type) {
  if (type.isF32())
    return 0;
  if (type.isF16())
    return 1;
  if (type.isBF16())
    return 2;
  return std::nullopt;
}

func::FuncOp getOrDeclareGemm(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  Builder b(ctx);
  Type i32 = b.getI32Type(), i64 = b.getI64Type(), f32 = b.getF32Type();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  // void amp_gpu_gemm(int32_t a_dtype, int32_t c_dtype, int64_t batch,
  //   int64_t m, int64_t n, int64_t k, int32_t trans_a, int32_t trans_b,
  //   const void *a, int64_t stride_a, const void *b, int64_t stride_b,
  //   void *c, float alpha, float beta, int32_t allow_tf32, void *stream)
  auto type = b.getFunctionType({i32, i32, i64, i64, i64, i64, i32, i32, ptr,
                                 i64, ptr, i64, ptr, f32, f32, i32, ptr},
                                {});
  return amp::getOrDeclareLibraryFunc(module, kGemmFunc, type);
}

/// The aligned pointer of a dense buffer as `!llvm.ptr`.
Value bufferPointer(OpBuilder &b, Location loc, Value buffer) {
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), i64);
}

struct ContractionsToGemmCallsPass
    : public amp::impl::ContractionsToGemmCallsPassBase<
          ContractionsToGemmCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto &[op, match] : amp::collectGemms(module))
      rewrite(module, op, match);
  }

  void rewrite(ModuleOp module, linalg::LinalgOp op,
               const amp::GemmMatch &match) {
    Value a = match.a, b = match.b, c = match.c;
    Type aType = match.aType, cType = match.cType;
    std::optional<int32_t> aCode = gemmDType(aType);
    std::optional<int32_t> cCode = gemmDType(cType);
    if (!aCode || !cCode || (!cType.isF32() && cType != aType))
      return;
    const amp::GemmShape *shape = &match.shape;

    linalg::FillOp zeroFill = amp::findZeroFill(op, c);
    OpBuilder builder(op);
    Location loc = op.getLoc();
    auto i32 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(builder, loc, v, 32);
    };
    auto i64 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(builder, loc, v, 64);
    };
    auto f32 = [&](float v) -> Value {
      return arith::ConstantFloatOp::create(builder, loc, builder.getF32Type(),
                                            APFloat(v));
    };
    func::FuncOp gemm = getOrDeclareGemm(module);
    SmallVector<Value> args = {i32(*aCode),
                               i32(*cCode),
                               i64(shape->batch),
                               i64(shape->m),
                               i64(shape->n),
                               i64(shape->k),
                               i32(shape->transA),
                               i32(shape->transB),
                               amp::bufferPointer(builder, loc, a),
                               i64(shape->strideA),
                               amp::bufferPointer(builder, loc, b),
                               i64(shape->strideB),
                               amp::bufferPointer(builder, loc, c),
                               f32(1.0f),
                               f32(zeroFill ? 0.0f : 1.0f),
                               i32(allowTF32 && aType.isF32())};
    // The stream: null (the runtime's) until amp-gemm-calls-on-stream gives
    // the call the step's.
    args.push_back(LLVM::ZeroOp::create(
        builder, loc, LLVM::LLVMPointerType::get(builder.getContext())));
    func::CallOp::create(builder, loc, gemm, args);
    op->erase();
    if (zeroFill)
      zeroFill->erase();
  }
};
} // namespace

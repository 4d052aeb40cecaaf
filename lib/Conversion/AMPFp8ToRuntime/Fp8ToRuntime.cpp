//===- Fp8ToRuntime.cpp - amp.fp8_matmul to cuBLASLt's FP8 GEMM -----------===//
//
// The convert-amp-fp8-to-runtime pass (Passes.td): on tensors, before
// convert-amp-to-linalg, each amp.fp8_matmul that cuBLASLt runs
// (CublasLtFp8Rules.h, for the sm_90 target) becomes one call of
// amp_gpu_gemm_fp8 (CUDAKernels.h) in the TN layout cuBLASLt requires, the
// operands that are not stored with k contiguous first copied transposed.
// Inputs are read through read-only bufferization.to_buffer; the result is a
// fresh buffer the call writes, so no buffer is shared with the runtime
// across calls.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/GemmMatch.h"
#include "amp/Conversion/Passes.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Runtime/CUDAKernels.h"
#include "amp/Runtime/CublasLtFp8Rules.h"
#include "amp/Runtime/ModelABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::amp {
#define GEN_PASS_DEF_CONVERTAMPFP8TORUNTIMEPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {
/// The compute capability the GPU target is compiled for (amp-gpu-pipeline's
/// default chip); the runtime checks the device it runs on against the same
/// rules.
constexpr int kTargetSM = 90;
constexpr StringLiteral kGemmFp8Func = ::kGPUGemmFp8Func;

int32_t dtypeOf(Type element) {
  if (isa<Float8E4M3FNType>(element))
    return AMP_DTYPE_F8E4M3FN;
  if (isa<Float8E5M2Type>(element))
    return AMP_DTYPE_F8E5M2;
  if (element.isF16())
    return AMP_DTYPE_F16;
  if (element.isBF16())
    return AMP_DTYPE_BF16;
  return AMP_DTYPE_F32;
}

/// Whether the op's bias is added after the call instead of by cuBLASLt:
/// an f32 bias beside an f32 result, which cuBLASLt's FP8 GEMMs do not take
/// (CublasLtFp8Rules.h, F6). The call writes the scaled product in f32 and
/// an elementwise add rounds the sum to f32: the op's one rounding, since
/// the product is f32 either way.
bool biasApart(Fp8MatmulOp op) {
  Value bias = op.getBias();
  return bias &&
         cast<RankedTensorType>(bias.getType()).getElementType().isF32() &&
         cast<RankedTensorType>(op.getResult().getType())
             .getElementType()
             .isF32();
}

/// The call's problem, in amp's row-major terms after the transposed copies:
/// lhs m x k, rhs n x k (TN).
::amp::Fp8GemmConfig configOf(Fp8MatmulOp op) {
  auto lhs = cast<RankedTensorType>(op.getLhs().getType());
  auto rhs = cast<RankedTensorType>(op.getRhs().getType());
  auto result = cast<RankedTensorType>(op.getResult().getType());
  ::amp::Fp8GemmConfig config;
  config.aType = dtypeOf(lhs.getElementType());
  config.bType = dtypeOf(rhs.getElementType());
  config.dType = dtypeOf(result.getElementType());
  config.m = result.getDimSize(0);
  config.n = result.getDimSize(1);
  config.k = lhs.getDimSize(op.getTransposeLhs() ? 0 : 1);
  config.transA = false;
  config.transB = true;
  if (Value bias = op.getBias(); bias && !biasApart(op))
    config.biasType =
        dtypeOf(cast<RankedTensorType>(bias.getType()).getElementType());
  return config;
}

/// Null when the op becomes a call; else why it is left for the linalg
/// lowering.
const char *refusal(Fp8MatmulOp op) {
  for (Value v : {op.getLhs(), op.getRhs(), op.getResult()})
    if (!cast<RankedTensorType>(v.getType()).hasStaticShape())
      return "dynamic shapes (the call's sizes are compile-time constants)";
  return ::amp::cublasLtFp8Refusal(configOf(op), kTargetSM);
}

struct Fp8Calls {
  Fp8Calls(ModuleOp module) : module(module), b(module.getContext()) {}

  void lower(Fp8MatmulOp op);

private:
  Value i32(Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 32);
  }
  Value i64(Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  }
  Value null(Location loc) {
    return LLVM::ZeroOp::create(b, loc,
                                LLVM::LLVMPointerType::get(b.getContext()));
  }
  /// `tensor` (2-D) copied transposed: one-byte elements, so the copy costs
  /// a fraction of the GEMM it feeds.
  Value transposed(Location loc, Value tensor);
  /// `product` (m x n, f32) plus `bias` (n, f32) broadcast over the rows.
  Value addBias(Location loc, Value product, Value bias);
  Value readPointer(Location loc, Value tensor);

  ModuleOp module;
  OpBuilder b;
};

Value Fp8Calls::transposed(Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Value init = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{type.getDimSize(1), type.getDimSize(0)},
      type.getElementType());
  MLIRContext *context = b.getContext();
  AffineMap swap =
      AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0}, context);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, context);
  auto copy = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{tensor}, ValueRange{init},
      ArrayRef<AffineMap>{swap, identity},
      ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                    utils::IteratorType::parallel},
      [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc, args[0]);
      });
  return copy.getResult(0);
}

Value Fp8Calls::addBias(Location loc, Value product, Value bias) {
  auto type = cast<RankedTensorType>(product.getType());
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  MLIRContext *context = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, context);
  AffineMap column = AffineMap::get(2, 0, b.getAffineDimExpr(1), context);
  auto add = linalg::GenericOp::create(
      b, loc, type, ValueRange{product, bias}, ValueRange{init},
      ArrayRef<AffineMap>{identity, column, identity},
      ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                    utils::IteratorType::parallel},
      [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value sum = arith::AddFOp::create(nested, nestedLoc, args[0], args[1]);
        linalg::YieldOp::create(nested, nestedLoc, sum);
      });
  return add.getResult(0);
}

Value Fp8Calls::readPointer(Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  // A scale inverse is an element of the step's vector of inverses: its
  // buffer is a view at an offset, passed as such rather than copied.
  MemRefLayoutAttrInterface layout;
  if (type.getRank() == 0)
    layout = StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, {});
  auto buffer = bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType(), layout),
      tensor);
  buffer.setReadOnly(true);
  if (!layout)
    return bufferPointer(b, loc, buffer);
  // The element's address: the aligned pointer plus the view's offset.
  Value address =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  Value bytes =
      arith::MulIOp::create(b, loc, metadata.getOffset(),
                            arith::ConstantIndexOp::create(
                                b, loc, type.getElementTypeBitWidth() / 8));
  address = arith::AddIOp::create(b, loc, address, bytes);
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), i64);
}

void Fp8Calls::lower(Fp8MatmulOp op) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  ::amp::Fp8GemmConfig config = configOf(op);
  // cuBLASLt's TN: lhs stored m x k, rhs stored n x k.
  Value lhs = op.getTransposeLhs() ? transposed(loc, op.getLhs()) : op.getLhs();
  Value rhs = op.getTransposeRhs() ? op.getRhs() : transposed(loc, op.getRhs());
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  Value result = memref::AllocOp::create(
      b, loc,
      MemRefType::get(resultType.getShape(), resultType.getElementType()));
  SmallVector<Value> args = {
      i32(loc, config.aType),
      i32(loc, config.bType),
      i32(loc, config.dType),
      i64(loc, config.m),
      i64(loc, config.n),
      i64(loc, config.k),
      i32(loc, 0),
      i32(loc, 1),
      readPointer(loc, lhs),
      readPointer(loc, rhs),
      readPointer(loc, op.getLhsScaleInv()),
      readPointer(loc, op.getRhsScaleInv()),
      op.getBias() && !biasApart(op) ? readPointer(loc, op.getBias())
                                     : null(loc),
      i32(loc, op.getFastAccumulation() ? 1 : 0),
      bufferPointer(b, loc, result),
      null(loc)}; // the step's stream, from amp-gemm-calls-on-stream
  auto type = b.getFunctionType(ValueRange(args).getTypes(), {});
  func::FuncOp callee = getOrDeclareLibraryFunc(module, kGemmFp8Func, type);
  func::CallOp::create(b, loc, callee, args);
  auto tensor = bufferization::ToTensorOp::create(b, loc, resultType, result);
  // The buffer is fresh and only this tensor reads it.
  tensor.setRestrict(true);
  tensor.setWritable(true);
  Value replacement = tensor.getResult();
  if (biasApart(op))
    replacement = addBias(loc, replacement, op.getBias());
  op.getResult().replaceAllUsesWith(replacement);
  op.erase();
}

struct ConvertAMPFp8ToRuntimePass
    : public mlir::amp::impl::ConvertAMPFp8ToRuntimePassBase<
          ConvertAMPFp8ToRuntimePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Fp8MatmulOp> ops;
    module.walk([&](Fp8MatmulOp op) { ops.push_back(op); });
    Fp8Calls calls(module);
    for (Fp8MatmulOp op : ops) {
      if (const char *reason = refusal(op)) {
        if (remarks)
          op.emitRemark() << "amp.fp8_matmul left for the linalg lowering "
                             "(cuBLASLt on sm_90 does not run it): "
                          << reason;
        continue;
      }
      calls.lower(op);
    }
  }
};
} // namespace

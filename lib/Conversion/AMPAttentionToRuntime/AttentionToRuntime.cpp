//===- AttentionToRuntime.cpp - fused attention to runtime calls ----------===//
//
// The convert-amp-attention-to-runtime pass (Passes.td): on tensors, before
// convert-amp-to-linalg, each amp.attention and amp.attention_grad becomes
// one call of the runtime's fused attention (include/amp/Runtime/
// Attention.h): on the CPU the flash-style kernel, on the GPU cuDNN's fused
// attention where cuDNN runs the configuration (CudnnAttentionRules.h, for
// the sm_90 target and the toolkit's cuDNN), else the unfused amp ops of
// AttentionDecomposition.cpp (with `remarks`, a remark says why). Inputs are
// read through read-only bufferization.to_buffer; each result is a fresh buffer
// the call writes, so no buffer is shared with the runtime across calls.
//
//===----------------------------------------------------------------------===//

#include "AttentionDecomposition.h"

#include "amp/Conversion/GemmMatch.h"
#include "amp/Conversion/Passes.h"
#include "amp/Dialect/AMP/IR/AMPBuilders.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Runtime/Attention.h"
#include "amp/Runtime/CudnnAttentionRules.h"
#include "amp/Runtime/ModelABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

namespace mlir::amp {
#define GEN_PASS_DEF_CONVERTAMPATTENTIONTORUNTIMEPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {
/// The compute capability and cuDNN version the GPU target is compiled for:
/// sm_90 (amp-gpu-pipeline's default chip) and the toolkit's cuDNN 9.19.
/// The runtime checks the library it loads against the same rules.
constexpr int kTargetSM = 90;
constexpr int kTargetCudnnVersion = 91900;

int32_t dtypeOf(Type element) {
  if (element.isF16())
    return AMP_DTYPE_F16;
  if (element.isBF16())
    return AMP_DTYPE_BF16;
  return AMP_DTYPE_F32;
}

/// Builds the calls of one module's attention ops.
class AttentionCalls {
public:
  AttentionCalls(ModuleOp module, bool gpu)
      : module(module), b(module.getContext()), gpu(gpu) {}

  /// The mask as the runtime takes it: a boolean keep mask as is on the
  /// CPU and as an additive 0 / -inf one on the GPU (cuDNN takes no
  /// boolean bias); an additive mask in f32.
  Value runtimeMask(Location loc, Value mask);
  /// The shared leading arguments: dtype and dimensions, then q, k, v.
  SmallVector<Value> problem(Location loc, Value q, Value k, Value v);
  /// The mask arguments (kind, pointer, batch, heads) and the attributes
  /// (scale, causal[, dropout, seed]).
  template <typename OpTy>
  void maskAndAttributes(OpTy op, Value mask, SmallVectorImpl<Value> &args);
  void lower(AttentionOp op);
  void lower(AttentionGradOp op);

  /// The configuration cuDNN would get for `op`.
  template <typename OpTy>::amp::AttentionConfig config(OpTy op, bool backward);

private:
  Value i32(Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 32);
  }
  Value i64(Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  }
  Value f32(Location loc, double v) {
    return arith::ConstantFloatOp::create(b, loc, b.getF32Type(),
                                          APFloat(static_cast<float>(v)));
  }
  Value null(Location loc) {
    return LLVM::ZeroOp::create(b, loc,
                                LLVM::LLVMPointerType::get(b.getContext()));
  }
  Value readPointer(Location loc, Value tensor);
  /// A fresh buffer of `type` and its pointer.
  std::pair<Value, Value> freshBuffer(Location loc, Type type);
  Value asTensor(Location loc, Value buffer, Type type);
  void call(Location loc, StringRef name, SmallVector<Value> args);

  ModuleOp module;
  OpBuilder b;
  bool gpu;
};

Value AttentionCalls::readPointer(Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto buffer = bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()), tensor);
  buffer.setReadOnly(true);
  return bufferPointer(b, loc, buffer);
}

std::pair<Value, Value> AttentionCalls::freshBuffer(Location loc, Type type) {
  auto tensor = cast<RankedTensorType>(type);
  Value buffer = memref::AllocOp::create(
      b, loc, MemRefType::get(tensor.getShape(), tensor.getElementType()));
  return {buffer, bufferPointer(b, loc, buffer)};
}

Value AttentionCalls::asTensor(Location loc, Value buffer, Type type) {
  auto tensor = bufferization::ToTensorOp::create(b, loc, type, buffer);
  // The buffer is fresh and only this tensor reads it.
  tensor.setRestrict(true);
  tensor.setWritable(true);
  return tensor;
}

void AttentionCalls::call(Location loc, StringRef name,
                          SmallVector<Value> args) {
  if (gpu) // The step's stream, from amp-gemm-calls-on-stream.
    args.push_back(null(loc));
  auto type = b.getFunctionType(ValueRange(args).getTypes(), {});
  func::FuncOp callee = getOrDeclareLibraryFunc(module, name, type);
  func::CallOp::create(b, loc, callee, args);
}

Value AttentionCalls::runtimeMask(Location loc, Value mask) {
  if (!mask)
    return mask;
  auto type = cast<RankedTensorType>(mask.getType());
  if (type.getElementType().isInteger(1) && !gpu)
    return mask;
  if (!type.getElementType().isInteger(1))
    return build::castElement(b, loc, mask, b.getF32Type());
  RankedTensorType additive = type.clone(b.getF32Type());
  return build::select(
      b, loc, mask, build::splat(b, loc, additive, 0.0),
      build::splat(b, loc, additive, -std::numeric_limits<double>::infinity()));
}

SmallVector<Value> AttentionCalls::problem(Location loc, Value q, Value k,
                                           Value v) {
  ArrayRef<int64_t> qs = build::tensorType(q).getShape();
  ArrayRef<int64_t> ks = build::tensorType(k).getShape();
  int64_t dv = build::tensorType(v).getDimSize(3);
  SmallVector<Value> args = {i32(loc, dtypeOf(build::elementType(q)))};
  for (int64_t dim : {qs[0], qs[1], ks[1], qs[2], ks[2], qs[3], dv})
    args.push_back(i64(loc, dim));
  for (Value operand : {q, k, v})
    args.push_back(readPointer(loc, operand));
  return args;
}

template <typename OpTy>
void AttentionCalls::maskAndAttributes(OpTy op, Value mask,
                                       SmallVectorImpl<Value> &args) {
  Location loc = op.getLoc();
  if (!mask) {
    args.append({i32(loc, AMP_ATTENTION_MASK_NONE), null(loc), i64(loc, 1),
                 i64(loc, 1)});
  } else {
    ArrayRef<int64_t> shape = build::tensorType(mask).getShape();
    bool keep = build::elementType(mask).isInteger(1);
    args.append(
        {i32(loc, keep ? AMP_ATTENTION_MASK_KEEP : AMP_ATTENTION_MASK_ADD),
         readPointer(loc, mask), i64(loc, shape[0]), i64(loc, shape[1])});
  }
  args.append(
      {f32(loc, op.getScale().convertToDouble()), i32(loc, op.getCausal())});
  if (gpu) // amp never sends dropout to cuDNN.
    return;
  args.push_back(f32(loc, op.getDropout().convertToDouble()));
  args.push_back(op.getSeed() ? tensor::ExtractOp::create(b, loc, op.getSeed(),
                                                          ValueRange{})
                                    .getResult()
                              : i64(loc, 0));
}

void AttentionCalls::lower(AttentionOp op) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Value mask = runtimeMask(loc, op.getMask());
  SmallVector<Value> args =
      problem(loc, op.getQuery(), op.getKey(), op.getValue());
  maskAndAttributes(op, mask, args);
  auto [output, outputPointer] = freshBuffer(loc, op.getOutput().getType());
  auto [lse, lsePointer] = freshBuffer(loc, op.getLse().getType());
  args.append({outputPointer, lsePointer});
  call(loc, gpu ? kGPUAttentionFwdFunc : kCPUAttentionFwdFunc, args);
  op.replaceAllUsesWith(
      ValueRange{asTensor(loc, output, op.getOutput().getType()),
                 asTensor(loc, lse, op.getLse().getType())});
  op.erase();
}

void AttentionCalls::lower(AttentionGradOp op) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Value mask = runtimeMask(loc, op.getMask());
  SmallVector<Value> args =
      problem(loc, op.getQuery(), op.getKey(), op.getValue());
  for (Value operand : {op.getOutput(), op.getGrad(), op.getLse()})
    args.push_back(readPointer(loc, operand));
  maskAndAttributes(op, mask, args);
  SmallVector<Value> results;
  SmallVector<Value> buffers;
  for (Type type : op.getResultTypes()) {
    auto [buffer, pointer] = freshBuffer(loc, type);
    buffers.push_back(buffer);
    args.push_back(pointer);
  }
  call(loc, gpu ? kGPUAttentionBwdFunc : kCPUAttentionBwdFunc, args);
  for (auto [buffer, type] : llvm::zip_equal(buffers, op.getResultTypes()))
    results.push_back(asTensor(loc, buffer, type));
  op.replaceAllUsesWith(results);
  op.erase();
}

template <typename OpTy>
::amp::AttentionConfig AttentionCalls::config(OpTy op, bool backward) {
  ArrayRef<int64_t> q = build::tensorType(op.getQuery()).getShape();
  ArrayRef<int64_t> k = build::tensorType(op.getKey()).getShape();
  ::amp::AttentionConfig config{};
  config.dtype = dtypeOf(build::elementType(op.getQuery()));
  config.batch = q[0];
  config.headsQ = q[1];
  config.headsKV = k[1];
  config.seqQ = q[2];
  config.seqKV = k[2];
  config.headDim = q[3];
  config.headDimV = build::tensorType(op.getValue()).getDimSize(3);
  // The GPU call gets a keep mask as an additive one (runtimeMask).
  config.maskKind =
      op.getMask() ? AMP_ATTENTION_MASK_ADD : AMP_ATTENTION_MASK_NONE;
  config.maskBatch =
      op.getMask() ? build::tensorType(op.getMask()).getDimSize(0) : 1;
  config.maskHeads =
      op.getMask() ? build::tensorType(op.getMask()).getDimSize(1) : 1;
  config.causal = op.getCausal();
  config.dropout = op.getDropout().convertToDouble();
  config.backward = backward;
  return config;
}

struct ConvertAMPAttentionToRuntimePass
    : public mlir::amp::impl::ConvertAMPAttentionToRuntimePassBase<
          ConvertAMPAttentionToRuntimePass> {
  using Base::Base;

  /// Why `op` stays unfused on the GPU (null when cuDNN runs it): both
  /// directions must be fused, so that the statistics cuDNN writes are what
  /// the backward reads.
  template <typename OpTy>
  const char *cudnnRefusal(AttentionCalls &calls, OpTy op) {
    for (bool backward : {false, true})
      if (const char *reason = ::amp::cudnnAttentionRefusal(
              calls.config(op, backward), kTargetSM, kTargetCudnnVersion))
        return reason;
    return nullptr;
  }

  template <typename OpTy> bool runFused(AttentionCalls &calls, OpTy op) {
    if (decompose)
      return false;
    if (!gpu)
      return true;
    if (const char *reason = cudnnRefusal(calls, op)) {
      if (remarks)
        op.emitRemark() << "unfused attention (the scores materialized): "
                        << reason;
      return false;
    }
    return true;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    AttentionCalls calls(module, gpu);
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<AttentionOp, AttentionGradOp>(op))
        ops.push_back(op);
    });
    OpBuilder b(module.getContext());
    for (Operation *op : ops) {
      b.setInsertionPoint(op);
      if (auto forward = dyn_cast<AttentionOp>(op)) {
        if (runFused(calls, forward)) {
          calls.lower(forward);
          continue;
        }
        op->replaceAllUsesWith(decomposeAttention(b, forward));
      } else {
        auto backward = cast<AttentionGradOp>(op);
        if (runFused(calls, backward)) {
          calls.lower(backward);
          continue;
        }
        op->replaceAllUsesWith(decomposeAttentionGrad(b, backward));
      }
      op->erase();
    }
  }
};
} // namespace

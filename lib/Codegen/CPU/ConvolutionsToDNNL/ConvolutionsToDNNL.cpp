//===- ConvolutionsToDNNL.cpp - f32 convolutions to oneDNN runtime calls --===//
//
// The amp-cpu-convolutions-to-dnnl pass (Passes.td): on tensors, before
// convert-amp-to-linalg, each f32 amp.conv2d, amp.conv2d_input_grad and
// (weight-gradients=true) amp.conv2d_weight_grad becomes one call of the
// runtime's oneDNN
// convolution (include/amp/Runtime/CPUConvolution.h). Inputs are read
// through read-only bufferization.to_buffer; the result is a fresh buffer
// the call writes, as convert-amp-attention-to-runtime does.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"
#include "amp/Conversion/GemmMatch.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Runtime/CPUConvolution.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::amp {
#define GEN_PASS_DEF_CPUCONVOLUTIONSTODNNLPASS
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// Whether `op`'s operands and results are static f32 tensors with the
/// window attributes oneDNN takes (the verifier has checked the shapes);
/// anything else stays for convert-amp-to-linalg.
template <typename OpTy> bool runsOnDNNL(OpTy op) {
  auto isStaticF32 = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.hasStaticShape() && tensor.getElementType().isF32();
  };
  if (!llvm::all_of(op->getOperandTypes(), isStaticF32) ||
      !isStaticF32(op.getResult().getType()))
    return false;
  return llvm::all_of(op.getStride(), [](int64_t s) { return s >= 1; }) &&
         llvm::all_of(op.getPadding(), [](int64_t p) { return p >= 0; }) &&
         llvm::all_of(op.getDilation(), [](int64_t d) { return d >= 1; }) &&
         op.getGroups() >= 1;
}

/// Builds the calls of one module's convolutions.
class ConvolutionCalls {
public:
  explicit ConvolutionCalls(ModuleOp module)
      : module(module), b(module.getContext()) {}

  void lower(Conv2DOp op);
  void lower(Conv2DInputGradOp op);
  void lower(Conv2DWeightGradOp op);

private:
  /// The geometry arguments of CPUConvolution.h from the shapes of the
  /// input, weight and output (or their gradients) and `op`'s attributes.
  template <typename OpTy>
  SmallVector<Value> geometry(OpTy op, Type input, Type weight, Type output);
  Value readPointer(Location loc, Value tensor);
  /// Calls `name` with `args` and a fresh result buffer of `op`'s result
  /// type, which then replaces `op`.
  void callAndReplace(Operation *op, StringRef name, SmallVector<Value> args);

  ModuleOp module;
  OpBuilder b;
};

template <typename OpTy>
SmallVector<Value> ConvolutionCalls::geometry(OpTy op, Type input, Type weight,
                                              Type output) {
  Location loc = op.getLoc();
  ArrayRef<int64_t> x = cast<RankedTensorType>(input).getShape();
  ArrayRef<int64_t> w = cast<RankedTensorType>(weight).getShape();
  ArrayRef<int64_t> y = cast<RankedTensorType>(output).getShape();
  SmallVector<int64_t> values = {x[0], x[1], x[2], x[3], w[0],
                                 w[2], w[3], y[2], y[3]};
  llvm::append_range(values, op.getStride());
  llvm::append_range(values, op.getPadding());
  llvm::append_range(values, op.getDilation());
  values.push_back(op.getGroups());
  SmallVector<Value> args;
  for (int64_t value : values)
    args.push_back(arith::ConstantIntOp::create(b, loc, value, 64));
  return args;
}

Value ConvolutionCalls::readPointer(Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto buffer = bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()), tensor);
  buffer.setReadOnly(true);
  return bufferPointer(b, loc, buffer);
}

void ConvolutionCalls::callAndReplace(Operation *op, StringRef name,
                                      SmallVector<Value> args) {
  Location loc = op->getLoc();
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  Value buffer = memref::AllocOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()));
  args.push_back(bufferPointer(b, loc, buffer));
  auto callee = getOrDeclareLibraryFunc(
      module, name, b.getFunctionType(ValueRange(args).getTypes(), {}));
  func::CallOp::create(b, loc, callee, args);
  auto result = bufferization::ToTensorOp::create(b, loc, type, buffer);
  // The buffer is fresh and only this tensor reads it.
  result.setRestrict(true);
  result.setWritable(true);
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

void ConvolutionCalls::lower(Conv2DOp op) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  SmallVector<Value> args =
      geometry(op, op.getInput().getType(), op.getWeight().getType(),
               op.getResult().getType());
  args.push_back(readPointer(loc, op.getInput()));
  args.push_back(readPointer(loc, op.getWeight()));
  args.push_back(op.getBias()
                     ? readPointer(loc, op.getBias())
                     : LLVM::ZeroOp::create(
                           b, loc, LLVM::LLVMPointerType::get(b.getContext()))
                           .getResult());
  callAndReplace(op, kCPUConvForwardFunc, args);
}

void ConvolutionCalls::lower(Conv2DInputGradOp op) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  SmallVector<Value> args =
      geometry(op, op.getResult().getType(), op.getWeight().getType(),
               op.getGrad().getType());
  args.push_back(readPointer(loc, op.getGrad()));
  args.push_back(readPointer(loc, op.getWeight()));
  callAndReplace(op, kCPUConvBackwardDataFunc, args);
}

void ConvolutionCalls::lower(Conv2DWeightGradOp op) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  SmallVector<Value> args =
      geometry(op, op.getInput().getType(), op.getResult().getType(),
               op.getGrad().getType());
  args.push_back(readPointer(loc, op.getGrad()));
  args.push_back(readPointer(loc, op.getInput()));
  callAndReplace(op, kCPUConvBackwardWeightsFunc, args);
}

struct CPUConvolutionsToDNNLPass
    : public mlir::amp::impl::CPUConvolutionsToDNNLPassBase<
          CPUConvolutionsToDNNLPass> {
  using CPUConvolutionsToDNNLPassBase::CPUConvolutionsToDNNLPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    ConvolutionCalls calls(module);
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (auto conv = dyn_cast<Conv2DOp>(op); conv && runsOnDNNL(conv))
        ops.push_back(op);
      else if (auto grad = dyn_cast<Conv2DInputGradOp>(op);
               grad && runsOnDNNL(grad))
        ops.push_back(op);
      else if (auto grad = dyn_cast<Conv2DWeightGradOp>(op);
               grad && weightGradients && runsOnDNNL(grad))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      if (auto conv = dyn_cast<Conv2DOp>(op))
        calls.lower(conv);
      else if (auto grad = dyn_cast<Conv2DInputGradOp>(op))
        calls.lower(grad);
      else
        calls.lower(cast<Conv2DWeightGradOp>(op));
    }
  }
};

} // namespace

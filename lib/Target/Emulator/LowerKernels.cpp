//===- LowerKernels.cpp - gpu.module kernels for the emulated device ------===//
//
// amp-emulator-lower-kernels (Passes.td): the emulated device's counterpart
// of convert-gpu-to-nvvm. GPU-specific ops become calls to `__amp_emu_*`
// functions that the target defines when it serializes the module
// (EmulatorTarget.cpp), so that everything else is lowered by upstream's
// host LLVM conversions.
//
//===----------------------------------------------------------------------===//

#include "amp/Target/Emulator/EmulatorTarget.h"

#include "amp/Runtime/EmulatorABI.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace amp {
namespace emulator {
#define GEN_PASS_DEF_EMULATORLOWERKERNELSPASS
#include "amp/Target/Emulator/Passes.h.inc"
} // namespace emulator
} // namespace amp
} // namespace mlir

using namespace mlir;

namespace {

/// Shared memory (attributions, then the dynamic part) is 16-byte aligned.
constexpr uint64_t kSharedAlignment = 16;

func::FuncOp declareHelper(gpu::GPUModuleOp module, StringRef name,
                           FunctionType type) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto helper = func::FuncOp::create(b, module.getLoc(), name, type);
  helper.setPrivate();
  return helper;
}

Value callHelper(OpBuilder &b, Location loc, gpu::GPUModuleOp module,
                 StringRef name, TypeRange results, ValueRange operands) {
  FunctionType type = b.getFunctionType(operands.getTypes(), results);
  func::FuncOp helper = declareHelper(module, name, type);
  auto call = func::CallOp::create(b, loc, helper, operands);
  return call.getNumResults() ? call.getResult(0) : Value();
}

MemRefType sharedBytesType(MLIRContext *ctx) {
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  return MemRefType::get({ShapedType::kDynamic}, IntegerType::get(ctx, 8),
                         MemRefLayoutAttrInterface(), workgroup);
}

/// The block's shared memory from byte `offset` on, as memref<?xi8>.
Value sharedMemory(OpBuilder &b, Location loc, gpu::GPUModuleOp module,
                   uint64_t offset) {
  Value at = arith::ConstantIntOp::create(b, loc, offset, 64);
  return callHelper(b, loc, module, "__amp_emu_shared_memory",
                    sharedBytesType(b.getContext()), at);
}

uint64_t alignTo(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

/// Replaces workgroup attributions with views of shared memory and private
/// ones with allocas; returns the static shared bytes, or failure.
FailureOr<uint64_t> lowerAttributions(gpu::GPUFuncOp func,
                                      gpu::GPUModuleOp module, OpBuilder &b) {
  uint64_t offset = 0;
  Location loc = func.getLoc();
  for (BlockArgument attribution : func.getWorkgroupAttributions()) {
    auto type = cast<MemRefType>(attribution.getType());
    if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
        !type.getElementType().isIntOrFloat())
      return func.emitError("workgroup attribution of type ")
             << type << " is not supported by the emulated device";
    uint64_t bytes =
        type.getNumElements() * alignTo(type.getElementTypeBitWidth(), 8) / 8;
    offset = alignTo(offset, kSharedAlignment);
    Value base = sharedMemory(b, loc, module, offset);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value view = memref::ViewOp::create(b, loc, type, base, zero, ValueRange());
    attribution.replaceAllUsesWith(view);
    offset += bytes;
  }
  for (BlockArgument attribution : func.getPrivateAttributions()) {
    auto type = cast<MemRefType>(attribution.getType());
    Value local = memref::AllocaOp::create(b, loc, type);
    attribution.replaceAllUsesWith(local);
  }
  return alignTo(offset, kSharedAlignment);
}

/// Whether the function's threads must run as fibers: it synchronizes, or
/// calls something that may.
bool usesSync(gpu::GPUFuncOp func) {
  WalkResult result = func.walk([](Operation *op) {
    if (isa<gpu::BarrierOp, gpu::ShuffleOp, CallOpInterface>(op))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

int64_t shuffleMode(gpu::ShuffleMode mode) {
  switch (mode) {
  case gpu::ShuffleMode::XOR:
    return AMP_EMU_SHUFFLE_XOR;
  case gpu::ShuffleMode::DOWN:
    return AMP_EMU_SHUFFLE_DOWN;
  case gpu::ShuffleMode::UP:
    return AMP_EMU_SHUFFLE_UP;
  case gpu::ShuffleMode::IDX:
    return AMP_EMU_SHUFFLE_IDX;
  }
  llvm_unreachable("unknown shuffle mode");
}

Value dimension(OpBuilder &b, Location loc, gpu::Dimension dim) {
  return arith::ConstantIntOp::create(b, loc, static_cast<int64_t>(dim), 32);
}

/// gpu ops to helper calls; an op the host cannot run is an error.
LogicalResult lowerGpuOps(func::FuncOp func, gpu::GPUModuleOp module,
                          uint64_t staticShared) {
  OpBuilder b(func.getContext());
  Type index = b.getIndexType();
  Type i32 = b.getI32Type();
  WalkResult result = func.walk([&](Operation *op) {
    if (op->getDialect() == nullptr || !isa<gpu::GPUDialect>(op->getDialect()))
      return WalkResult::advance();
    b.setInsertionPoint(op);
    Location loc = op->getLoc();
    Value replacement;
    if (auto id = dyn_cast<gpu::ThreadIdOp>(op))
      replacement = callHelper(b, loc, module, "__amp_emu_thread_id", index,
                               dimension(b, loc, id.getDimension()));
    else if (auto id = dyn_cast<gpu::BlockIdOp>(op))
      replacement = callHelper(b, loc, module, "__amp_emu_block_id", index,
                               dimension(b, loc, id.getDimension()));
    else if (auto dim = dyn_cast<gpu::BlockDimOp>(op))
      replacement = callHelper(b, loc, module, "__amp_emu_block_dim", index,
                               dimension(b, loc, dim.getDimension()));
    else if (auto dim = dyn_cast<gpu::GridDimOp>(op))
      replacement = callHelper(b, loc, module, "__amp_emu_grid_dim", index,
                               dimension(b, loc, dim.getDimension()));
    else if (isa<gpu::LaneIdOp>(op))
      replacement =
          callHelper(b, loc, module, "__amp_emu_lane_id", index, ValueRange());
    else if (isa<gpu::SubgroupSizeOp>(op))
      replacement = arith::ConstantIndexOp::create(b, loc, AMP_EMU_WARP_SIZE);
    else if (isa<gpu::DynamicSharedMemoryOp>(op))
      replacement = sharedMemory(b, loc, module, staticShared);
    else if (isa<gpu::BarrierOp>(op))
      callHelper(b, loc, module, "__amp_emu_barrier", {}, ValueRange());
    else if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op)) {
      Value value = shuffle.getValue();
      Type type = value.getType();
      if (type.isF32())
        value = arith::BitcastOp::create(b, loc, i32, value);
      else if (!type.isInteger(32)) {
        op->emitError("gpu.shuffle of ")
            << type << " is not supported by the emulated device";
        return WalkResult::interrupt();
      }
      Value mode = arith::ConstantIntOp::create(
          b, loc, shuffleMode(shuffle.getMode()), 32);
      FunctionType fnType =
          b.getFunctionType({i32, i32, i32, i32}, {i32, b.getI1Type()});
      func::FuncOp helper = declareHelper(module, "__amp_emu_shuffle", fnType);
      auto call = func::CallOp::create(
          b, loc, helper,
          ValueRange{value, shuffle.getOffset(), shuffle.getWidth(), mode});
      Value shuffled = call.getResult(0);
      if (type.isF32())
        shuffled = arith::BitcastOp::create(b, loc, type, shuffled);
      op->getResult(0).replaceAllUsesWith(shuffled);
      op->getResult(1).replaceAllUsesWith(call.getResult(1));
      op->erase();
      return WalkResult::advance();
    } else {
      op->emitError("'") << op->getName()
                         << "' is not supported by the emulated device";
      return WalkResult::interrupt();
    }
    if (replacement)
      op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

struct KernelInfo {
  std::string name;
  uint64_t staticShared;
  uint64_t flags;
};

/// gpu.func -> func.func with the same parameters; records kernels.
LogicalResult lowerFunction(gpu::GPUFuncOp func, gpu::GPUModuleOp module,
                            SmallVectorImpl<KernelInfo> &kernels) {
  OpBuilder b(func);
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  FailureOr<uint64_t> staticShared = lowerAttributions(func, module, b);
  if (failed(staticShared))
    return failure();
  if (func.isKernel())
    kernels.push_back({func.getName().str(), *staticShared,
                       usesSync(func) ? AMP_EMU_USES_SYNC : 0u});
  unsigned arguments = func.getNumArguments();
  entry.eraseArguments(arguments, entry.getNumArguments() - arguments);
  b.setInsertionPoint(func);
  auto lowered = func::FuncOp::create(b, func.getLoc(), func.getName(),
                                      func.getFunctionType());
  lowered.getBody().takeBody(func.getBody());
  func.erase();
  lowered.walk([&](gpu::ReturnOp ret) {
    OpBuilder rb(ret);
    func::ReturnOp::create(rb, ret.getLoc(), ret.getOperands());
    ret.erase();
  });
  return lowerGpuOps(lowered, module, *staticShared);
}

LogicalResult convertToLLVM(gpu::GPUModuleOp module) {
  MLIRContext *ctx = module.getContext();
  {
    RewritePatternSet libm(ctx);
    // libm has no rsqrtf (the device's __nv_rsqrtf): 1 / sqrt(x), as the
    // CPU pipeline computes it.
    math::populateExpansionPatterns(libm, {"rsqrt"});
    populateMathToLibmConversionPatterns(libm);
    if (failed(applyPatternsGreedily(module, std::move(libm))))
      return failure();
  }
  LowerToLLVMOptions options(ctx);
  LLVMTypeConverter converter(ctx, options);
  // The host has one address space.
  populateGpuMemorySpaceAttributeConversions(
      converter, [](gpu::AddressSpace) { return 0u; });
  RewritePatternSet patterns(ctx);
  populateFuncToLLVMConversionPatterns(converter, patterns);
  arith::populateArithToLLVMConversionPatterns(converter, patterns);
  cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
  populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
  index::populateIndexToLLVMConversionPatterns(converter, patterns);
  populateMathToLLVMConversionPatterns(converter, patterns);
  populateVectorToLLVMConversionPatterns(converter, patterns);
  ub::populateUBToLLVMConversionPatterns(converter, patterns);
  LLVMConversionTarget target(*ctx);
  // NVVM intrinsics have no host lowering.
  target.addIllegalDialect<gpu::GPUDialect, NVVM::NVVMDialect>();
  target.addLegalOp<gpu::GPUModuleOp>();
  return applyPartialConversion(module, target, std::move(patterns));
}

/// Marks kernels for launches (gpu.kernel) and the target (info globals).
void recordKernels(gpu::GPUModuleOp module, ArrayRef<KernelInfo> kernels) {
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Type i64 = b.getI64Type();
  auto arrayType = LLVM::LLVMArrayType::get(i64, 2);
  for (const KernelInfo &kernel : kernels) {
    if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(kernel.name))
      fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    auto value = DenseElementsAttr::get(
        RankedTensorType::get({2}, i64),
        ArrayRef<int64_t>{int64_t(kernel.staticShared), int64_t(kernel.flags)});
    LLVM::GlobalOp::create(
        b, module.getLoc(), arrayType, /*isConstant=*/true,
        LLVM::Linkage::Internal,
        (amp::emulator::kKernelInfoPrefix + kernel.name).str(), value);
  }
}

struct EmulatorLowerKernelsPass
    : amp::emulator::impl::EmulatorLowerKernelsPassBase<
          EmulatorLowerKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    RewritePatternSet rewrites(ctx);
    populateGpuRewritePatterns(rewrites);
    if (failed(applyPatternsGreedily(module, std::move(rewrites))))
      return signalPassFailure();
    SmallVector<KernelInfo> kernels;
    for (gpu::GPUFuncOp func :
         llvm::make_early_inc_range(module.getOps<gpu::GPUFuncOp>()))
      if (failed(lowerFunction(func, module, kernels)))
        return signalPassFailure();
    if (failed(convertToLLVM(module)))
      return signalPassFailure();
    recordKernels(module, kernels);
    auto target = amp::emulator::TargetAttr::get(ctx, optLevel, linker);
    module.setTargetsAttr(ArrayAttr::get(ctx, {target}));
  }
};

} // namespace

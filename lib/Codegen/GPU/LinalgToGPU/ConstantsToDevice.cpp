//===- ConstantsToDevice.cpp - device buffers for bufferized constants ----===//
//
// The amp-gpu-constants-to-device pass. Bufferized tensor constants are
// memref.global in host memory; each use (memref.get_global) becomes a
// fresh buffer (gpu.alloc later, freed by the deallocation pipeline, which
// runs after this): a splat is filled by a kernel (linalg.fill), anything
// else is copied from the host global once per step (gpu.memcpy
// host-to-device). Generating splats on the device costs one tiny kernel
// and no transfer; non-splat constants are rare in training steps (the amp
// lowering folds scalars into kernel bodies), so a copy is simplest.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::amp {
#define GEN_PASS_DEF_GPUCONSTANTSTODEVICEPASS
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {
struct GPUConstantsToDevicePass
    : amp::impl::GPUConstantsToDevicePassBase<GPUConstantsToDevicePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<memref::GetGlobalOp> uses;
    module.walk([&](memref::GetGlobalOp op) {
      if (!op->getParentOfType<gpu::GPUModuleOp>())
        uses.push_back(op);
    });
    for (memref::GetGlobalOp use : uses) {
      auto global = symbols.lookup<memref::GlobalOp>(use.getName());
      if (!global)
        continue;
      auto type = cast<MemRefType>(use.getType());
      if (!type.getLayout().isIdentity())
        continue;
      OpBuilder b(use);
      b.setInsertionPointAfter(use);
      Location loc = use.getLoc();
      Value buffer = memref::AllocOp::create(b, loc, type);
      Operation *copy = nullptr;
      auto init = dyn_cast_or_null<DenseElementsAttr>(
          global.getInitialValue().value_or(Attribute()));
      if (init && init.isSplat()) {
        Value scalar = arith::ConstantOp::create(
            b, loc, cast<TypedAttr>(init.getSplatValue<Attribute>()));
        linalg::FillOp::create(b, loc, scalar, buffer);
      } else {
        copy = memref::CopyOp::create(b, loc, use.getResult(), buffer);
      }
      use.getResult().replaceUsesWithIf(buffer, [&](OpOperand &operand) {
        return operand.getOwner() != copy &&
               operand.getOwner() != buffer.getDefiningOp();
      });
      if (use->use_empty())
        use->erase();
    }
  }
};
} // namespace

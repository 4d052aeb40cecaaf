//===- CollectiveCalls.h - what both collective lowerings share -*- C++ -*-===//
//
// convert-amp-collectives-to-runtime (MPI, the CPU) and
// convert-amp-collectives-to-nccl (the GPU) both turn collectives into calls
// of C functions that take buffer pointers and AMP_DTYPE_* codes.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_CONVERSION_AMPCOLLECTIVESTORUNTIME_COLLECTIVECALLS_H
#define AMP_LIB_CONVERSION_AMPCOLLECTIVESTORUNTIME_COLLECTIVECALLS_H

#include "amp/Conversion/GemmMatch.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Runtime/ModelABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::amp {

/// What the builders of both lowerings share: the module, a builder, the
/// constants they pass and the calls of the runtime's C functions.
class CollectiveBuilder {
protected:
  explicit CollectiveBuilder(ModuleOp module)
      : module(module), b(module.getContext()) {}

  Value i32(Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 32);
  }
  Value i64(Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  }
  /// Calls the C function `name`, declaring it in the module on first use.
  func::CallOp call(Location loc, StringRef name, ValueRange args,
                    TypeRange results = {}) {
    auto type = b.getFunctionType(args.getTypes(), results);
    func::FuncOp callee = getOrDeclareLibraryFunc(module, name, type);
    return func::CallOp::create(b, loc, callee, args);
  }

  ModuleOp module;
  OpBuilder b;
};

/// The runtime's code of a collective's float element type.
inline int32_t collectiveDtype(Type element) {
  if (element.isF16())
    return AMP_DTYPE_F16;
  if (element.isBF16())
    return AMP_DTYPE_BF16;
  return AMP_DTYPE_F32;
}

/// Lowers every collective of `module`, in program order: `bucket` for each
/// all-reduce start with its wait (the start is erased after it), `any` for
/// each all_reduce_any.
inline void
lowerCollectives(ModuleOp module,
                 function_ref<void(AllReduceStartOp, AllReduceWaitOp)> bucket,
                 function_ref<void(AllReduceAnyOp)> any) {
  SmallVector<Operation *> collectives;
  module.walk([&](Operation *op) {
    if (isa<AllReduceStartOp, AllReduceAnyOp>(op))
      collectives.push_back(op);
  });
  for (Operation *op : collectives) {
    if (auto flag = dyn_cast<AllReduceAnyOp>(op)) {
      any(flag);
      continue;
    }
    auto start = cast<AllReduceStartOp>(op);
    bucket(start, start.getWait());
    start.erase();
  }
}

} // namespace mlir::amp

#endif // AMP_LIB_CONVERSION_AMPCOLLECTIVESTORUNTIME_COLLECTIVECALLS_H

//===- CollectivesToRuntime.cpp - collectives to data-parallel calls ------===//
//
// The convert-amp-collectives-to-runtime pass (Passes.td): the collectives
// amp-data-parallel places become calls into the data-parallel runtime
// (include/amp/Runtime/DataParallel.h). The runtime copies each bucket into
// its own f32 buffer when it starts and out of it when it is waited for, so
// the compiled step lends it buffers only for the duration of a call.
//
//===----------------------------------------------------------------------===//

#include "CollectiveCalls.h"

#include "amp/Conversion/Passes.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Runtime/DataParallel.h"
#include "amp/Runtime/ModelABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::amp {
#define GEN_PASS_DEF_CONVERTAMPCOLLECTIVESTORUNTIMEPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// Builds the runtime calls of one module's collectives.
class RuntimeCalls : CollectiveBuilder {
public:
  explicit RuntimeCalls(ModuleOp module) : CollectiveBuilder(module) {}

  Value lowerStart(AllReduceStartOp start);
  void lowerWait(AllReduceWaitOp wait, Value handle);
  void lowerAny(AllReduceAnyOp any);

private:
  /// A 0-d i1 tensor's flag as the runtime's i32 (0 or 1).
  Value flagOf(Location loc, Value tensor);
  /// The flag of an optional `active` operand (1 when absent).
  Value activeFlag(Location loc, Value active);
  /// Calls `name`(handle, offset, pointer, elements, dtype) for every
  /// tensor of a bucket, `buffers` giving each one's buffer.
  void forEachTensor(Location loc, StringRef name, Value handle,
                     TypeRange types, function_ref<Value(unsigned)> buffers);
};

Value RuntimeCalls::flagOf(Location loc, Value tensor) {
  Value bit = tensor::ExtractOp::create(b, loc, tensor, ValueRange{});
  return arith::ExtUIOp::create(b, loc, b.getI32Type(), bit);
}

Value RuntimeCalls::activeFlag(Location loc, Value active) {
  return active ? flagOf(loc, active) : i32(loc, 1);
}

void RuntimeCalls::forEachTensor(Location loc, StringRef name, Value handle,
                                 TypeRange types,
                                 function_ref<Value(unsigned)> buffers) {
  int64_t offset = 0;
  for (auto [index, type] : llvm::enumerate(types)) {
    auto tensor = cast<RankedTensorType>(type);
    Value pointer = bufferPointer(b, loc, buffers(index));
    call(loc, name,
         {handle, i64(loc, offset), pointer, i64(loc, tensor.getNumElements()),
          i32(loc, collectiveDtype(tensor.getElementType()))});
    offset += tensor.getNumElements();
  }
}

Value RuntimeCalls::lowerStart(AllReduceStartOp start) {
  Location loc = start.getLoc();
  b.setInsertionPoint(start);
  int64_t elements = 0;
  for (Type type : start.getInputs().getTypes())
    elements += cast<RankedTensorType>(type).getNumElements();
  Value handle = call(loc, kDPBucketBegin,
                      {i64(loc, elements), i32(loc, int64_t(start.getKind())),
                       activeFlag(loc, start.getActive())},
                      b.getI64Type())
                     .getResult(0);
  forEachTensor(loc, kDPBucketPack, handle, start.getInputs().getTypes(),
                [&](unsigned i) -> Value {
                  Value input = start.getInputs()[i];
                  auto type = cast<RankedTensorType>(input.getType());
                  auto buffer = bufferization::ToBufferOp::create(
                      b, loc,
                      MemRefType::get(type.getShape(), type.getElementType()),
                      input);
                  buffer.setReadOnly(true);
                  return buffer.getResult();
                });
  call(loc, kDPBucketStart, handle);
  return handle;
}

void RuntimeCalls::lowerWait(AllReduceWaitOp wait, Value handle) {
  Location loc = wait.getLoc();
  b.setInsertionPoint(wait);
  call(loc, kDPBucketWait, handle);
  SmallVector<Value> buffers;
  for (Type type : wait.getResultTypes()) {
    auto tensor = cast<RankedTensorType>(type);
    buffers.push_back(memref::AllocOp::create(
        b, loc, MemRefType::get(tensor.getShape(), tensor.getElementType())));
  }
  forEachTensor(loc, kDPBucketUnpack, handle, wait.getResultTypes(),
                [&](unsigned i) { return buffers[i]; });
  SmallVector<Value> results;
  for (auto [buffer, type] : llvm::zip_equal(buffers, wait.getResultTypes())) {
    auto tensor = bufferization::ToTensorOp::create(b, loc, type, buffer);
    // The buffer is fresh and only this tensor reads it.
    tensor.setRestrict(true);
    tensor.setWritable(true);
    results.push_back(tensor);
  }
  wait->replaceAllUsesWith(results);
  wait.erase();
}

void RuntimeCalls::lowerAny(AllReduceAnyOp any) {
  Location loc = any.getLoc();
  b.setInsertionPoint(any);
  Value flag = flagOf(loc, any.getFlag());
  Value reduced = call(loc, kDPAny, {flag, activeFlag(loc, any.getActive())},
                       b.getI32Type())
                      .getResult(0);
  Value result = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                       reduced, i32(loc, 0));
  Value flagTensor =
      tensor::FromElementsOp::create(b, loc, any.getType(), ValueRange{result});
  any.getResult().replaceAllUsesWith(flagTensor);
  any.erase();
}

struct ConvertAMPCollectivesToRuntimePass
    : amp::impl::ConvertAMPCollectivesToRuntimePassBase<
          ConvertAMPCollectivesToRuntimePass> {
  void runOnOperation() override {
    RuntimeCalls calls(getOperation());
    lowerCollectives(
        getOperation(),
        [&](AllReduceStartOp start, AllReduceWaitOp wait) {
          Value handle = calls.lowerStart(start);
          calls.lowerWait(wait, handle);
        },
        [&](AllReduceAnyOp any) { calls.lowerAny(any); });
  }
};

} // namespace

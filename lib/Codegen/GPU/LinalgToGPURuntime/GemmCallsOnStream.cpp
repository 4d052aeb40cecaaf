//===- GemmCallsOnStream.cpp - amp_gpu_gemm on the step's stream ----------===//
//
// The amp-gemm-calls-on-stream pass: after gpu-async-region, an amp_gpu_gemm
// call takes the stream of the async token before it instead of the host
// waiting for that token, and the work after the call continues on the same
// token. See the pass description in include/amp/Codegen/GPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "GemmCall.h"

#include "amp/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::amp {
#define GEN_PASS_DEF_GEMMCALLSONSTREAMPASS
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using mlir::amp::isStreamCall;

namespace {

/// The nearest operation before (or after) `op` in its block that is not
/// free of memory effects (constants and pointer arithmetic are skipped).
Operation *previousEffect(Operation *op) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode())
    if (!isMemoryEffectFree(prev))
      return prev;
  return nullptr;
}
Operation *nextEffect(Operation *op) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (!isMemoryEffectFree(next))
      return next;
  return nullptr;
}

/// A blocking wait for exactly one token: what gpu-async-region puts before
/// a host side effect.
gpu::WaitOp hostWaitForOneToken(Operation *op) {
  auto wait = dyn_cast_or_null<gpu::WaitOp>(op);
  if (!wait || wait.getAsyncToken() || wait.getAsyncDependencies().size() != 1)
    return nullptr;
  return wait;
}

/// A wait that starts a new stream: `gpu.wait async` without dependencies.
gpu::WaitOp newStream(Operation *op) {
  auto wait = dyn_cast_or_null<gpu::WaitOp>(op);
  if (!wait || !wait.getAsyncToken() || !wait.getAsyncDependencies().empty())
    return nullptr;
  return wait;
}

struct GemmCallsOnStreamPass
    : public amp::impl::GemmCallsOnStreamPassBase<GemmCallsOnStreamPass> {
  void runOnOperation() override {
    SmallVector<func::CallOp> calls;
    getOperation().walk([&](func::CallOp call) {
      if (isStreamCall(call))
        calls.push_back(call);
    });
    // The token each rewritten call runs on, for the calls that follow it.
    DenseMap<Operation *, Value> tokens;
    for (func::CallOp call : calls)
      if (Value token = streamToken(call, tokens))
        tokens[call] = token;
  }

  /// Gives `call` the stream of the token the host waited for before it;
  /// returns that token, or null when the call is left as it is.
  Value streamToken(func::CallOp call,
                    const DenseMap<Operation *, Value> &tokens) {
    if (call.getNumOperands() == 0 ||
        !isa<LLVM::LLVMPointerType>(call.getOperands().back().getType()))
      return nullptr;
    Operation *before = previousEffect(call);
    Value token;
    if (gpu::WaitOp wait = hostWaitForOneToken(before)) {
      token = wait.getAsyncDependencies().front();
      wait->erase();
    } else if (isStreamCall(before) && tokens.count(before)) {
      token = tokens.lookup(before);
    } else {
      return nullptr;
    }
    OpBuilder builder(call);
    Location loc = call.getLoc();
    Value stream =
        UnrealizedConversionCastOp::create(
            builder, loc, LLVM::LLVMPointerType::get(&getContext()), token)
            .getResult(0);
    call->setOperand(call.getNumOperands() - 1, stream);

    // The work after the call continues on the token; a following GEMM call
    // takes it over; anything else still needs the host to wait.
    Operation *after = nextEffect(call);
    if (gpu::WaitOp fresh = newStream(after)) {
      fresh.getAsyncToken().replaceAllUsesWith(token);
      fresh->erase();
    } else if (!isStreamCall(after)) {
      builder.setInsertionPointAfter(call);
      gpu::WaitOp::create(builder, loc, Type(), ValueRange{token});
    }
    return token;
  }
};
} // namespace

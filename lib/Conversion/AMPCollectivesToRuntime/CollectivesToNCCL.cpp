//===- CollectivesToNCCL.cpp - collectives to NCCL calls on the GPU -------===//
//
// The convert-amp-collectives-to-nccl pass (Passes.td): on the GPU, each
// bucket of amp-data-parallel becomes one NCCL group of out-of-place
// all-reduces queued on the step's stream (include/amp/Runtime/
// DataParallel.h, lib/Runtime/CUDACollectives.cpp). The host never reads
// device memory inside the step, so choices the CPU lowering makes on the
// host (an inactive micro-step, the overflow flag) are made on the device.
//
//===----------------------------------------------------------------------===//

#include "CollectiveCalls.h"

#include "amp/Conversion/Passes.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Runtime/DataParallel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::amp {
#define GEN_PASS_DEF_CONVERTAMPCOLLECTIVESTONCCLPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// Builds the NCCL calls of one module's collectives.
class NCCLCalls : CollectiveBuilder {
public:
  explicit NCCLCalls(ModuleOp module) : CollectiveBuilder(module) {}

  /// Queues the bucket's group where it starts; returns its output buffers.
  SmallVector<Value> lowerStart(AllReduceStartOp start);
  void lowerWait(AllReduceWaitOp wait, AllReduceStartOp start,
                 ArrayRef<Value> outputs);
  void lowerAny(AllReduceAnyOp any);

private:
  /// The stream operand: null, the runtime's stream, until
  /// amp-gemm-calls-on-stream gives the call the step's token.
  Value nullStream(Location loc) {
    return LLVM::ZeroOp::create(b, loc, LLVM::LLVMPointerType::get(ctx()));
  }
  MLIRContext *ctx() { return module.getContext(); }

  /// A tensor's buffer, only read by the runtime.
  Value readOnlyBuffer(Location loc, Value tensor);
  /// A fresh buffer the size of `tensor`.
  Value freshBuffer(Location loc, Type tensor);
  /// `buffer` as the tensor of type `type` nothing else aliases.
  Value asTensor(Location loc, Value buffer, Type type);
  /// A linalg.generic of type `type` over `inputs` (each of that shape or
  /// 0-d, broadcast) whose body `body` builds from the inputs' elements:
  /// work on the device, where the host must not touch the tensors.
  Value
  elementwise(Location loc, RankedTensorType type, ValueRange inputs,
              function_ref<Value(OpBuilder &, Location, ValueRange)> body);
  Value widened(Location loc, Value tensor);
  /// `active ? reduced : input`, element by element, on the device.
  Value selectActive(Location loc, Value active, Value reduced, Value input);
  /// amp_gpu_dp_all_reduce(in, out, n, dtype, op, null).
  void allReduce(Location loc, Value in, Value out, Type tensor,
                 amp_gpu_dp_op op);
};

Value NCCLCalls::readOnlyBuffer(Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto buffer = bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()), tensor);
  buffer.setReadOnly(true);
  return buffer;
}

Value NCCLCalls::freshBuffer(Location loc, Type tensor) {
  auto type = cast<RankedTensorType>(tensor);
  return memref::AllocOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()));
}

Value NCCLCalls::asTensor(Location loc, Value buffer, Type type) {
  auto tensor = bufferization::ToTensorOp::create(b, loc, type, buffer);
  // The buffer is fresh and only this tensor reads it.
  tensor.setRestrict(true);
  tensor.setWritable(true);
  return tensor;
}

Value NCCLCalls::elementwise(
    Location loc, RankedTensorType type, ValueRange inputs,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  unsigned rank = type.getRank();
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(cast<RankedTensorType>(input.getType()).getRank() == 0
                       ? AffineMap::get(rank, 0, {}, ctx())
                       : identity);
  maps.push_back(identity);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = body(nested, nestedLoc, args.drop_back());
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

Value NCCLCalls::selectActive(Location loc, Value active, Value reduced,
                              Value input) {
  return elementwise(
      loc, cast<RankedTensorType>(input.getType()), {active, reduced, input},
      [](OpBuilder &nested, Location nestedLoc, ValueRange args) -> Value {
        return arith::SelectOp::create(nested, nestedLoc, args[0], args[1],
                                       args[2]);
      });
}

void NCCLCalls::allReduce(Location loc, Value in, Value out, Type tensor,
                          amp_gpu_dp_op op) {
  auto type = cast<RankedTensorType>(tensor);
  call(loc, kGPUDPAllReduce,
       {bufferPointer(b, loc, in), bufferPointer(b, loc, out),
        i64(loc, type.getNumElements()),
        i32(loc, collectiveDtype(type.getElementType())), i32(loc, op),
        nullStream(loc)});
}

/// `tensor` in f32: the all-reduce's operand (a widening kernel for f16
/// and bf16, which NCCL would reduce in their own precision).
Value NCCLCalls::widened(Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (type.getElementType().isF32())
    return tensor;
  return elementwise(
      loc, type.clone(b.getF32Type()), tensor,
      [](OpBuilder &nested, Location nestedLoc, ValueRange args) -> Value {
        return arith::ExtFOp::create(nested, nestedLoc, nested.getF32Type(),
                                     args[0]);
      });
}

SmallVector<Value> NCCLCalls::lowerStart(AllReduceStartOp start) {
  Location loc = start.getLoc();
  b.setInsertionPoint(start);
  // Buffers first, so that the group's calls follow each other and share
  // the step's stream (amp-gemm-calls-on-stream).
  SmallVector<Value> operands, inputs, outputs;
  for (Value input : start.getInputs()) {
    operands.push_back(widened(loc, input));
    inputs.push_back(readOnlyBuffer(loc, operands.back()));
    outputs.push_back(freshBuffer(loc, operands.back().getType()));
  }
  amp_gpu_dp_op op =
      start.getKind() == ReductionKind::Mean ? AMP_GPU_DP_MEAN : AMP_GPU_DP_SUM;
  call(loc, kGPUDPGroupBegin, nullStream(loc));
  for (auto [in, out, operand] : llvm::zip_equal(inputs, outputs, operands))
    allReduce(loc, in, out, operand.getType(), op);
  call(loc, kGPUDPGroupEnd, nullStream(loc));
  return outputs;
}

void NCCLCalls::lowerWait(AllReduceWaitOp wait, AllReduceStartOp start,
                          ArrayRef<Value> outputs) {
  Location loc = wait.getLoc();
  b.setInsertionPoint(wait);
  SmallVector<Value> results;
  for (auto [buffer, type, input] :
       llvm::zip_equal(outputs, wait.getResultTypes(), start.getInputs())) {
    auto resultType = cast<RankedTensorType>(type);
    Value reduced = asTensor(loc, buffer, resultType.clone(b.getF32Type()));
    // Rounded once to the gradient's type, as the CPU's runtime does.
    if (!resultType.getElementType().isF32())
      reduced = elementwise(
          loc, resultType, reduced,
          [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
            return arith::TruncFOp::create(nested, nestedLoc,
                                           resultType.getElementType(), args[0])
                .getResult();
          });
    // Every rank has the same `active`: all reduce, the device chooses.
    if (Value active = start.getActive())
      reduced = selectActive(loc, active, reduced, input);
    results.push_back(reduced);
  }
  wait->replaceAllUsesWith(results);
  wait.erase();
}

void NCCLCalls::lowerAny(AllReduceAnyOp any) {
  Location loc = any.getLoc();
  b.setInsertionPoint(any);
  auto f32Scalar = RankedTensorType::get({}, b.getF32Type());
  Value flag = any.getFlag();
  Value input = elementwise(
      loc, f32Scalar, flag,
      [](OpBuilder &nested, Location nestedLoc, ValueRange args) -> Value {
        return arith::UIToFPOp::create(nested, nestedLoc, nested.getF32Type(),
                                       args[0]);
      });
  Value out = freshBuffer(loc, f32Scalar);
  allReduce(loc, readOnlyBuffer(loc, input), out, f32Scalar, AMP_GPU_DP_MAX);
  SmallVector<Value> operands = {asTensor(loc, out, f32Scalar), flag};
  if (Value active = any.getActive())
    operands.push_back(active);
  // The flag is set on some rank when the maximum is not 0; a rank that
  // is not active keeps its own.
  Value result = elementwise(
      loc, cast<RankedTensorType>(any.getType()), operands,
      [](OpBuilder &nested, Location nestedLoc, ValueRange args) -> Value {
        Value zero = arith::ConstantOp::create(nested, nestedLoc,
                                               nested.getF32FloatAttr(0));
        Value set = arith::CmpFOp::create(
            nested, nestedLoc, arith::CmpFPredicate::UNE, args[0], zero);
        if (args.size() < 3)
          return set;
        return arith::SelectOp::create(nested, nestedLoc, args[2], set,
                                       args[1]);
      });
  any.getResult().replaceAllUsesWith(result);
  any.erase();
}

struct ConvertAMPCollectivesToNCCLPass
    : amp::impl::ConvertAMPCollectivesToNCCLPassBase<
          ConvertAMPCollectivesToNCCLPass> {
  void runOnOperation() override {
    NCCLCalls calls(getOperation());
    lowerCollectives(
        getOperation(),
        [&](AllReduceStartOp start, AllReduceWaitOp wait) {
          SmallVector<Value> outputs = calls.lowerStart(start);
          calls.lowerWait(wait, start, outputs);
        },
        [&](AllReduceAnyOp any) { calls.lowerAny(any); });
  }
};

} // namespace

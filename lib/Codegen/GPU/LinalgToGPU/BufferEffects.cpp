//===- BufferEffects.cpp - which buffers ops touch, which may alias -------===//
//
// Shared by the LinalgToGPU passes that move or merge work on bufferized IR
// (amp-gpu-parallel-reductions, amp-gpu-prepare-linalg,
// amp-gpu-batch-loops): the buffer a view is of, whether two buffers may
// share memory, the buffers an op reads and writes, and the constant a
// fresh buffer was filled with (LinalgToGPUUtils.h).
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPUUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::amp::gpu_lowering {

/// The buffer `v` is a view of.
Value rootOf(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>()) {
    if (view.getViewDest() != v)
      break;
    v = view.getViewSource();
  }
  return v;
}

/// The elements of its buffer that the view `v` reaches, [first, last], when
/// it is a chain of subviews, reshapes and casts (offsets in the buffer's
/// elements) with a static shape, strides and offset; none otherwise.
static std::optional<std::pair<int64_t, int64_t>> staticSpan(Value v) {
  for (Value at = v; Operation *op = at.getDefiningOp();) {
    if (!isa<ViewLikeOpInterface>(op))
      break;
    if (!isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
             memref::CastOp>(op))
      return std::nullopt;
    at = cast<ViewLikeOpInterface>(op).getViewSource();
  }
  auto type = dyn_cast<MemRefType>(v.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type || !type.hasStaticShape() || type.getNumElements() == 0 ||
      failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  int64_t first = offset, last = offset;
  for (auto [size, stride] : llvm::zip(type.getShape(), strides))
    (stride < 0 ? first : last) += (size - 1) * stride;
  return std::make_pair(first, last);
}

/// Whether two memrefs may share memory: views of the same buffer over
/// elements that may overlap, or neither a fresh allocation.
bool mayAlias(Value a, Value c) {
  Value ra = rootOf(a), rc = rootOf(c);
  if (ra == rc) {
    // Views of the same buffer over disjoint elements (the slots of a
    // vector that separate loops fill) do not share memory.
    auto spanA = staticSpan(a), spanC = staticSpan(c);
    return !spanA || !spanC ||
           !(spanA->second < spanC->first || spanC->second < spanA->first);
  }
  auto fresh = [](Value v) {
    return v.getDefiningOp<memref::AllocOp>() ||
           v.getDefiningOp<memref::AllocaOp>();
  };
  return !fresh(ra) && !fresh(rc);
}

bool mayAliasAny(Value v, ArrayRef<Value> buffers) {
  return llvm::any_of(buffers, [&](Value other) { return mayAlias(v, other); });
}

// The pointers amp-contractions-to-gemm-calls and
// convert-amp-fp8-to-runtime pass (LinalgToGPUUtils.h).
FailureOr<Value> pointerBuffer(Value pointer) {
  if (pointer.getDefiningOp<LLVM::ZeroOp>())
    return Value();
  auto toPointer = pointer.getDefiningOp<LLVM::IntToPtrOp>();
  auto cast = toPointer ? toPointer.getArg().getDefiningOp<arith::IndexCastOp>()
                        : nullptr;
  Value address = cast ? cast.getIn() : Value();
  // A view's address adds its offset to the aligned pointer.
  if (auto offset = address ? address.getDefiningOp<arith::AddIOp>() : nullptr)
    address = offset.getLhs();
  auto extract =
      address ? address.getDefiningOp<memref::ExtractAlignedPointerAsIndexOp>()
              : nullptr;
  if (!extract)
    return failure();
  return extract.getSource();
}

namespace {

/// The buffers a call of the runtime's GEMM or attention entry points
/// (amp_gpu_gemm*, amp_gpu_attention_*) reads or writes: those its pointer
/// arguments were taken from. False for any other call, or a pointer of
/// unknown origin.
bool gemmCallBuffers(func::CallOp call, SmallVectorImpl<Value> &buffers) {
  if (!call.getCallee().starts_with("amp_gpu_gemm") &&
      !call.getCallee().starts_with("amp_gpu_attention_"))
    return false;
  for (Value operand : call.getArgOperands()) {
    if (!isa<LLVM::LLVMPointerType>(operand.getType()))
      continue;
    FailureOr<Value> buffer = pointerBuffer(operand);
    if (failed(buffer))
      return false;
    if (*buffer)
      buffers.push_back(*buffer);
  }
  return true;
}
} // namespace

/// Appends the buffers `op` (and what it contains) accesses to `touched`,
/// those it writes or frees to `written`; false when some are unknown.
/// Block-level collectives and barriers in a launch (gpu.all_reduce,
/// gpu.barrier) exchange values through workgroup memory only; a GEMM or
/// attention call of the runtime touches the buffers whose pointers it
/// takes.
bool collectEffects(Operation *op, SmallVectorImpl<Value> &touched,
                    SmallVectorImpl<Value> &written) {
  WalkResult result = op->walk<WalkOrder::PreOrder>([&](Operation *nested) {
    if (isa<gpu::AllReduceOp, gpu::BarrierOp>(nested))
      return WalkResult::skip();
    // A GEMM or attention call may read and write every buffer it was
    // given.
    if (auto call = dyn_cast<func::CallOp>(nested)) {
      SmallVector<Value> buffers;
      if (!gemmCallBuffers(call, buffers))
        return WalkResult::interrupt();
      llvm::append_range(touched, buffers);
      llvm::append_range(written, buffers);
      return WalkResult::skip();
    }
    auto effecting = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!effecting)
      return nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> effects;
    effecting.getEffects(effects);
    for (MemoryEffects::EffectInstance &effect : effects) {
      Value value = effect.getValue();
      if (!value)
        return WalkResult::interrupt();
      touched.push_back(value);
      if (!isa<MemoryEffects::Read>(effect.getEffect()))
        written.push_back(value);
    }
    return nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
               ? WalkResult::advance()
               : WalkResult::skip();
  });
  return !result.wasInterrupted();
}

/// mayAlias, but distinct arguments of the function are distinct buffers:
/// the step's arguments and its results (out-parameters after
/// buffer-results-to-out-params) are values of a tensor program, which the
/// runtime passes in buffers of their own.
bool mayAliasInStep(Value a, Value c) {
  Value ra = rootOf(a), rc = rootOf(c);
  auto isArgument = [](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && isa<func::FuncOp>(arg.getOwner()->getParentOp());
  };
  if (ra != rc && isArgument(ra) && isArgument(rc))
    return false;
  return mayAlias(a, c);
}

bool mayAliasAnyInStep(Value v, ArrayRef<Value> buffers) {
  return llvm::any_of(buffers,
                      [&](Value other) { return mayAliasInStep(v, other); });
}

/// The constant the fresh buffer `out` was filled with, if that fill is its
/// only use before `reader` (the fill then goes: `reader` starts from the
/// constant instead), else null. A result buffer of the function (an
/// argument of its entry block, used only in `reader`'s block) counts as
/// fresh: a reduction's flag returned as it is (amp.check_indices's) kept a
/// one-thread launch for its fill.
Value takeFillConstant(Value out, Operation *reader) {
  auto arg = dyn_cast<BlockArgument>(out);
  bool resultBuffer = arg && arg.getOwner() == reader->getBlock() &&
                      isa<func::FuncOp>(arg.getOwner()->getParentOp()) &&
                      llvm::all_of(out.getUsers(), [&](Operation *user) {
                        return user->getBlock() == reader->getBlock();
                      });
  if (!out.getDefiningOp<memref::AllocOp>() && !resultBuffer)
    return nullptr;
  linalg::FillOp fill;
  for (Operation *user : out.getUsers()) {
    if (user == reader || user->getBlock() != reader->getBlock() ||
        reader->isBeforeInBlock(user))
      continue;
    auto userFill = dyn_cast<linalg::FillOp>(user);
    if (!userFill || fill)
      return nullptr;
    fill = userFill;
  }
  if (!fill)
    return nullptr;
  Value constant = fill.getInputs().front();
  fill->erase();
  return constant;
}

} // namespace mlir::amp::gpu_lowering

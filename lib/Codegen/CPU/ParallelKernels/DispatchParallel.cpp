//===- DispatchParallel.cpp - range calls to amp_cpu_parallel_for ---------===//
//
// The amp-cpu-dispatch-parallel pass (Passes.td): on the LLVM dialect, each
// call of a range function of amp-cpu-parallel-kernels becomes a call of
// the runtime's amp_cpu_parallel_for (include/amp/Runtime/ParallelFor.h)
// with a task function that unpacks the arguments from a context of 64-bit
// slots.
//
//===----------------------------------------------------------------------===//

#include "ParallelTasks.h"

#include "amp/Codegen/CPU/Passes.h"
#include "amp/Runtime/ParallelFor.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::amp {
#define GEN_PASS_DEF_CPUDISPATCHPARALLELPASS
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using mlir::amp::kParallelTasksAttr;

namespace {

/// Whether a value of `type` fits a 64-bit slot of the context.
bool fitsSlot(Type type) {
  if (isa<LLVM::LLVMPointerType>(type))
    return true;
  if (auto integer = dyn_cast<IntegerType>(type))
    return integer.getWidth() <= 64;
  if (auto real = dyn_cast<FloatType>(type))
    return real.getWidth() <= 64;
  return false;
}

/// Whether `range` takes slot-sized arguments and ends with (i64 lo, i64 hi).
bool isDispatchable(LLVM::LLVMFuncOp range) {
  ArrayRef<Type> params = range.getFunctionType().getParams();
  if (params.size() < 2 || !range.getFunctionType().getReturnType() ||
      !isa<LLVM::LLVMVoidType>(range.getFunctionType().getReturnType()))
    return false;
  for (Type bound : params.take_back(2))
    if (!bound.isInteger(64))
      return false;
  return llvm::all_of(params.drop_back(2), fitsSlot);
}

Value slot(OpBuilder &b, Location loc, Value context, unsigned index) {
  return LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                             b.getI64Type(), context,
                             ArrayRef<LLVM::GEPArg>{int32_t(index)});
}

/// `void <range>.task(ptr context, i64 lo, i64 hi)`: loads the arguments
/// and calls the range function.
LLVM::LLVMFuncOp buildTask(LLVM::LLVMFuncOp range, SymbolTable &symbols) {
  MLIRContext *context = range.getContext();
  auto ptr = LLVM::LLVMPointerType::get(context);
  auto i64 = IntegerType::get(context, 64);
  auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context),
                                          {ptr, i64, i64});
  OpBuilder b(range);
  b.setInsertionPointAfter(range);
  Location loc = range.getLoc();
  auto task = LLVM::LLVMFuncOp::create(
      b, loc, (range.getName() + ".task").str(), type, LLVM::Linkage::Internal);
  symbols.insert(task);
  Block *entry = task.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  ArrayRef<Type> params = range.getFunctionType().getParams();
  SmallVector<Value> arguments;
  for (auto [index, param] : llvm::enumerate(params.drop_back(2)))
    arguments.push_back(LLVM::LoadOp::create(
        b, loc, param, slot(b, loc, entry->getArgument(0), index)));
  arguments.append({entry->getArgument(1), entry->getArgument(2)});
  LLVM::CallOp::create(b, loc, range, arguments);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  return task;
}

LLVM::LLVMFuncOp declareParallelFor(ModuleOp module) {
  if (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(kParallelForFunc))
    return existing;
  MLIRContext *context = module.getContext();
  auto ptr = LLVM::LLVMPointerType::get(context);
  auto i64 = IntegerType::get(context, 64);
  auto b = OpBuilder::atBlockEnd(module.getBody());
  return LLVM::LLVMFuncOp::create(
      b, module.getLoc(), kParallelForFunc,
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context),
                                  {ptr, ptr, i64, i64}));
}

/// Replaces `call` by amp_cpu_parallel_for(task, context, lo, hi); the
/// context is an alloca in the caller's entry block.
void dispatch(LLVM::CallOp call, LLVM::LLVMFuncOp task,
              LLVM::LLVMFuncOp parallelFor) {
  Location loc = call.getLoc();
  auto caller = call->getParentOfType<LLVM::LLVMFuncOp>();
  OpBuilder b(call);
  unsigned slots = call.getNumOperands() - 2;
  b.setInsertionPointToStart(&caller.getBody().front());
  Value count = LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                         b.getI64IntegerAttr(slots));
  Value context =
      LLVM::AllocaOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                             b.getI64Type(), count, /*alignment=*/8);
  b.setInsertionPoint(call);
  for (unsigned i = 0; i < slots; ++i)
    LLVM::StoreOp::create(b, loc, call.getOperand(i), slot(b, loc, context, i));
  Value taskAddress = LLVM::AddressOfOp::create(b, loc, task);
  LLVM::CallOp::create(b, loc, parallelFor,
                       ValueRange{taskAddress, context, call.getOperand(slots),
                                  call.getOperand(slots + 1)});
  call.erase();
}

struct CPUDispatchParallelPass
    : amp::impl::CPUDispatchParallelPassBase<CPUDispatchParallelPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    DenseMap<Operation *, LLVM::LLVMFuncOp> tasks;
    for (auto range : llvm::to_vector(module.getOps<LLVM::LLVMFuncOp>()))
      if (range->hasAttr(kParallelTasksAttr) && isDispatchable(range))
        tasks[range] = buildTask(range, symbols);
    if (tasks.empty())
      return;
    LLVM::LLVMFuncOp parallelFor = declareParallelFor(module);
    SmallVector<std::pair<LLVM::CallOp, LLVM::LLVMFuncOp>> calls;
    module.walk([&](LLVM::CallOp call) {
      std::optional<StringRef> callee = call.getCallee();
      if (!callee)
        return;
      Operation *target = symbols.lookup(*callee);
      auto task = tasks.find(target);
      // The task functions call the range functions themselves.
      if (task != tasks.end() &&
          call->getParentOfType<LLVM::LLVMFuncOp>() != task->second)
        calls.emplace_back(call, task->second);
    });
    for (auto [call, task] : calls)
      dispatch(call, task, parallelFor);
  }
};

} // namespace

//===- OutlineKernels.cpp - loop nests into functions of their own --------===//
//
// The amp-cpu-outline-kernels pass. A lowered training step is one function
// with hundreds of loop nests; LLVM's optimization and code generation of a
// function take time that grows faster than the function (register
// allocation, GVN, scheduling over huge CFGs) and cannot be split over
// threads. Moving every loop nest into a private, noinline function makes
// the step a short sequence of calls, lets the library builder compile the
// functions in parallel, and compiles a nest that repeats (same shapes in
// another block of layers) once.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::amp {
#define GEN_PASS_DEF_CPUOUTLINEKERNELSPASS
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {
/// Whether `value` is defined in `op` (a result of a nested op or an
/// argument of one of its blocks) rather than above it.
bool isDefinedIn(Value value, Operation *op) {
  return op->isAncestor(value.getParentRegion()->getParentOp());
}

/// Whether a value of `type` can be an argument of an outlined function
/// under any calling convention of func-to-llvm: a memref must have a bare
/// pointer (a static shape, offset and strides).
bool isPassable(Type type) {
  if (isa<UnrankedMemRefType>(type))
    return false;
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return true;
  if (!memref.hasStaticShape())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)))
    return false;
  return !ShapedType::isDynamic(offset) &&
         llvm::none_of(strides, ShapedType::isDynamic);
}

/// Whether `op` frees memory: a buffer freed in the outlined function
/// would be freed through its aligned pointer, which is not always the
/// one malloc returned.
bool freesMemory(Operation *op) {
  WalkResult walk = op->walk([](Operation *nested) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (effects && effects.hasEffect<MemoryEffects::Free>())
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// Whether `op` is a nest of buffer computations worth its own function.
bool isKernel(Operation *op) {
  if (op->getNumResults() != 0 || op->hasTrait<OpTrait::IsTerminator>() ||
      op->hasTrait<OpTrait::IsIsolatedFromAbove>())
    return false;
  return isa<linalg::LinalgOp>(op) || op->getNumRegions() != 0;
}

/// The values `op` uses from above, in order of first use, split into
/// constants (cloned into the kernel) and arguments. Fails when one cannot
/// be an argument.
LogicalResult collectCaptures(Operation *op, SmallVectorImpl<Value> &arguments,
                              SmallVectorImpl<Operation *> &constants) {
  llvm::SetVector<Value> seen;
  op->walk<WalkOrder::PreOrder>([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (!isDefinedIn(operand, op))
        seen.insert(operand);
  });
  for (Value value : seen) {
    Operation *producer = value.getDefiningOp();
    if (producer && producer->getNumResults() == 1 &&
        producer->hasTrait<OpTrait::ConstantLike>()) {
      constants.push_back(producer);
      continue;
    }
    if (!isPassable(value.getType()))
      return failure();
    arguments.push_back(value);
  }
  return success();
}

/// Outlines the kernels of the functions of one module, sharing a function
/// among identical kernels.
class KernelOutliner {
public:
  explicit KernelOutliner(ModuleOp module)
      : module(module), symbols(module) {}

  void outlineKernelsOf(func::FuncOp caller);

private:
  func::FuncOp buildKernel(Operation *op, ArrayRef<Value> arguments,
                           ArrayRef<Operation *> constants);
  func::FuncOp uniqueKernel(func::FuncOp kernel, StringRef callerName);

  ModuleOp module;
  SymbolTable symbols;
  /// Kernels by their printed body (generic form, no locations).
  llvm::StringMap<func::FuncOp> kernelsByBody;
};
} // namespace

/// A detached function `@kernel` whose body is a clone of `op` reading
/// `arguments` from its block arguments, with `constants` cloned in front.
func::FuncOp KernelOutliner::buildKernel(Operation *op,
                                         ArrayRef<Value> arguments,
                                         ArrayRef<Operation *> constants) {
  SmallVector<Type> types = llvm::to_vector(
      llvm::map_range(arguments, [](Value value) { return value.getType(); }));
  OpBuilder builder(op->getContext());
  auto kernel = func::FuncOp::create(
      op->getLoc(), "kernel", builder.getFunctionType(types, {}));
  kernel.setPrivate();
  // LLVM must not merge the kernels back into the step.
  kernel->setAttr("passthrough", builder.getStrArrayAttr({"noinline"}));
  Block *body = kernel.addEntryBlock();
  builder.setInsertionPointToStart(body);
  IRMapping mapping;
  mapping.map(arguments, body->getArguments());
  for (Operation *constant : constants)
    builder.clone(*constant, mapping);
  builder.clone(*op, mapping);
  func::ReturnOp::create(builder, op->getLoc());
  return kernel;
}

/// `kernel` itself, named after `callerName` and added to the module, or
/// the function already there with the same body (`kernel` is erased).
func::FuncOp KernelOutliner::uniqueKernel(func::FuncOp kernel,
                                          StringRef callerName) {
  std::string body;
  llvm::raw_string_ostream os(body);
  kernel->print(os, OpPrintingFlags().printGenericOpForm());
  auto [it, inserted] = kernelsByBody.try_emplace(body, kernel);
  if (!inserted) {
    kernel.erase();
    return it->second;
  }
  kernel.setName((callerName + "_kernel").str());
  // Renamed with a unique suffix: <caller>_kernel_<N>.
  symbols.insert(kernel);
  return kernel;
}

void KernelOutliner::outlineKernelsOf(func::FuncOp caller) {
  SmallVector<Operation *> candidates;
  for (Block &block : caller.getBody())
    for (Operation &op : block)
      if (isKernel(&op) && !freesMemory(&op))
        candidates.push_back(&op);
  llvm::SetVector<Operation *> cloned;
  for (Operation *op : candidates) {
    SmallVector<Value> arguments;
    SmallVector<Operation *> constants;
    if (failed(collectCaptures(op, arguments, constants)))
      continue;
    func::FuncOp kernel =
        uniqueKernel(buildKernel(op, arguments, constants), caller.getName());
    OpBuilder builder(op);
    func::CallOp::create(builder, op->getLoc(), kernel, arguments);
    op->erase();
    cloned.insert(constants.begin(), constants.end());
  }
  // Constants only the kernels used now live there.
  for (Operation *constant : cloned)
    if (constant->use_empty())
      constant->erase();
}

namespace {
struct CPUOutlineKernelsPass
    : public amp::impl::CPUOutlineKernelsPassBase<CPUOutlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The functions there were before: kernels are not outlined again.
    SmallVector<func::FuncOp> callers;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        callers.push_back(func);
    KernelOutliner outliner(module);
    for (func::FuncOp caller : callers)
      outliner.outlineKernelsOf(caller);
  }
};
} // namespace

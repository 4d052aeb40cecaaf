//===- MergeKernelModules.cpp - one gpu.module per target -----------------===//
//
// Kernel outlining makes a gpu.module per kernel and gpu-module-to-binary
// compiles each alone: per kernel one NVPTX code generation with libdevice
// linked, one ptxas and one fatbinary process (or, for the emulated device,
// one link by the C++ compiler). Merged, a step's kernels compile once.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_GPUMERGEKERNELMODULESPASS
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;

namespace {

bool isDeclaration(Operation &op) {
  if (auto fn = dyn_cast<LLVM::LLVMFuncOp>(op))
    return fn.isExternal();
  if (auto fn = dyn_cast<gpu::GPUFuncOp>(op))
    return fn.isExternal();
  return false;
}

bool isKernel(Operation &op) {
  return op.hasAttr(gpu::GPUDialect::getKernelFuncAttrName());
}

StringAttr symbolName(Operation &op) {
  return op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
}

/// Renames every symbol `module` defines: the kernel of a module with one
/// kernel (what kernel outlining makes) takes the module's name, which is
/// unique at the top level; other symbols are prefixed with it
/// (`<module>__<symbol>`); a `<companionPrefix><symbol>` global follows its
/// symbol. Returns the old -> new names of the symbols that were renamed.
FailureOr<llvm::StringMap<std::string>>
renameSymbols(gpu::GPUModuleOp module, StringRef companionPrefix) {
  auto isCompanion = [&](StringRef symbol) {
    return !companionPrefix.empty() && symbol.starts_with(companionPrefix);
  };
  std::string prefix = (module.getName() + "__").str();
  Block *body = module.getBody();
  bool oneKernel = llvm::count_if(*body, isKernel) == 1;
  llvm::StringMap<std::string> renamed;
  for (Operation &op : *body)
    if (StringAttr name = symbolName(op);
        name && !isDeclaration(op) && !isCompanion(name.getValue()))
      renamed[name.getValue()] = oneKernel && isKernel(op)
                                     ? module.getName().str()
                                     : prefix + name.getValue().str();
  SmallVector<std::pair<Operation *, std::string>> renames;
  for (Operation &op : *body) {
    StringAttr name = symbolName(op);
    if (!name || isDeclaration(op))
      continue;
    StringRef symbol = name.getValue();
    if (isCompanion(symbol))
      renames.push_back(
          {&op, (companionPrefix +
                 renamed.lookup(symbol.drop_front(companionPrefix.size())))
                    .str()});
    else
      renames.push_back({&op, renamed.lookup(symbol)});
  }
  SymbolTable table(module);
  for (auto &[op, to] : renames)
    if (symbolName(*op).getValue() != to && failed(table.rename(op, to)))
      return failure();
  return renamed;
}

struct GPUMergeKernelModulesPass
    : amp::impl::GPUMergeKernelModulesPassBase<GPUMergeKernelModulesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp top = getOperation();
    if (name.empty()) {
      top.emitError("amp-gpu-merge-kernel-modules: the option 'name' is "
                    "empty; the merged gpu.module needs a symbol name");
      return signalPassFailure();
    }
    // The modules of each target list, in the order they appear.
    llvm::MapVector<Attribute, SmallVector<gpu::GPUModuleOp>> groups;
    for (auto module : top.getOps<gpu::GPUModuleOp>())
      groups[module.getTargetsAttr()].push_back(module);
    DenseMap<Attribute, Attribute> launches;
    for (auto [index, group] : llvm::enumerate(groups)) {
      std::string mergedName = name;
      if (index > 0)
        mergedName += "_" + std::to_string(index);
      if (failed(merge(group.second, mergedName, launches)))
        return signalPassFailure();
    }
    if (failed(redirectLaunches(launches)))
      return signalPassFailure();
  }

  /// Moves the bodies of `modules` into a new module `mergedName` where the
  /// first of them was, recording each old @module::@symbol ->
  /// @mergedName::@newSymbol in `launches`.
  LogicalResult merge(MutableArrayRef<gpu::GPUModuleOp> modules,
                      StringRef mergedName,
                      DenseMap<Attribute, Attribute> &launches) {
    Operation *taken = SymbolTable::lookupSymbolIn(getOperation(), mergedName);
    if (taken && !llvm::is_contained(modules, taken))
      return taken->emitError("cannot merge the kernel modules into '")
             << mergedName << "': the name is taken";
    OpBuilder b(modules.front());
    auto merged =
        gpu::GPUModuleOp::create(b, modules.front().getLoc(), mergedName,
                                 modules.front().getTargetsAttr());
    llvm::StringSet<> defined;
    for (gpu::GPUModuleOp module : modules) {
      if (failed(moveInto(module, merged, defined, launches)))
        return failure();
      module.erase();
    }
    return success();
  }

  /// Renames `module`'s symbols and moves its body to the end of `merged`.
  LogicalResult moveInto(gpu::GPUModuleOp module, gpu::GPUModuleOp merged,
                         llvm::StringSet<> &defined,
                         DenseMap<Attribute, Attribute> &launches) {
    Block *body = merged.getBody();
    FailureOr<llvm::StringMap<std::string>> renamed =
        renameSymbols(module, companionPrefix);
    if (failed(renamed))
      return module.emitError(
          "cannot rename the symbols of the module to merge it");
    for (auto &[from, to] : *renamed)
      launches[SymbolRefAttr::get(
          module.getNameAttr(),
          {FlatSymbolRefAttr::get(&getContext(), from)})] =
          SymbolRefAttr::get(merged.getNameAttr(),
                             {FlatSymbolRefAttr::get(&getContext(), to)});
    for (Operation &op :
         llvm::make_early_inc_range(module.getBody()->getOperations())) {
      StringAttr name = symbolName(op);
      if (name && !defined.insert(name.getValue()).second) {
        if (isDeclaration(op))
          continue; // declared by an earlier module
        return op.emitError("two merged modules define ") << name;
      }
      op.moveBefore(body, body->end());
    }
    return success();
  }

  LogicalResult redirectLaunches(const DenseMap<Attribute, Attribute> &to) {
    WalkResult walk = getOperation().walk([&](gpu::LaunchFuncOp launch) {
      Attribute target = to.lookup(launch.getKernel());
      if (!target) {
        if (SymbolTable::lookupNearestSymbolFrom(launch, launch.getKernel()))
          return WalkResult::advance(); // a module that was not merged
        launch.emitError("launches a kernel the merged modules do not have");
        return WalkResult::interrupt();
      }
      launch.setKernelAttr(cast<SymbolRefAttr>(target));
      return WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }
};

} // namespace

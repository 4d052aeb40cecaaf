//===- MergeModules.cpp - one gpu.module for the emulated device ----------===//
//
// Linking a kernel object runs the C++ compiler once per gpu.module (the CNN
// example has over a hundred); merged, a library's kernels are one object
// and one link.
//
//===----------------------------------------------------------------------===//

#include "amp/Target/Emulator/EmulatorTarget.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

namespace mlir {
namespace amp {
namespace emulator {
#define GEN_PASS_DEF_EMULATORMERGEMODULESPASS
#include "amp/Target/Emulator/Passes.h.inc"
} // namespace emulator
} // namespace amp
} // namespace mlir

using namespace mlir;

namespace {

/// Where the target records a kernel's shared bytes and flags (as in
/// LowerKernels.cpp and EmulatorTarget.cpp).
constexpr StringLiteral kInfoPrefix = "__amp_emu_info_";
constexpr StringLiteral kMergedName = "amp_emu_kernels";

bool isEmulated(gpu::GPUModuleOp module) {
  ArrayAttr targets = module.getTargetsAttr();
  return targets && targets.size() == 1 &&
         isa<amp::emulator::TargetAttr>(targets[0]);
}

bool isDeclaration(Operation &op) {
  auto fn = dyn_cast<LLVM::LLVMFuncOp>(op);
  return fn && fn.isExternal();
}

bool isKernel(Operation &op) {
  return isa<LLVM::LLVMFuncOp>(op) &&
         op.hasAttr(gpu::GPUDialect::getKernelFuncAttrName());
}

/// Renames every symbol `module` defines: the kernel of a module with one
/// kernel (what kernel outlining makes) takes the module's name, which is
/// unique; other symbols are prefixed with it (`<module>__<symbol>`); a
/// kernel's info global follows its kernel. Returns the new names.
FailureOr<llvm::StringMap<std::string>> renameSymbols(gpu::GPUModuleOp module) {
  SymbolTable table(module);
  std::string prefix = (module.getName() + "__").str();
  Block *body = module.getBody();
  bool oneKernel = llvm::count_if(*body, isKernel) == 1;
  llvm::StringMap<std::string> renamed;
  for (Operation &op : *body) {
    auto name = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    if (name && !isDeclaration(op) && !name.getValue().starts_with(kInfoPrefix))
      renamed[name.getValue()] = oneKernel && isKernel(op)
                                     ? module.getName().str()
                                     : prefix + name.getValue().str();
  }
  SmallVector<std::pair<Operation *, std::string>> renames;
  for (Operation &op : *body) {
    auto name = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    if (!name || isDeclaration(op))
      continue;
    StringRef symbol = name.getValue();
    if (symbol.consume_front(kInfoPrefix))
      renames.push_back({&op, (kInfoPrefix + renamed.lookup(symbol)).str()});
    else
      renames.push_back({&op, renamed.lookup(symbol)});
  }
  for (auto &[op, to] : renames)
    if (failed(table.rename(op, to)))
      return failure();
  return renamed;
}

struct EmulatorMergeModulesPass
    : amp::emulator::impl::EmulatorMergeModulesPassBase<
          EmulatorMergeModulesPass> {
  void runOnOperation() override {
    ModuleOp top = getOperation();
    SmallVector<gpu::GPUModuleOp> modules;
    for (auto module : top.getOps<gpu::GPUModuleOp>())
      if (isEmulated(module))
        modules.push_back(module);
    if (modules.size() < 2)
      return;
    SymbolTable topTable(top);
    OpBuilder b(modules.front());
    auto merged =
        gpu::GPUModuleOp::create(b, modules.front().getLoc(), kMergedName,
                                 modules.front().getTargetsAttr());
    topTable.insert(merged);
    Block *body = merged.getBody();
    llvm::StringSet<> names;
    // Old @module::@kernel -> new @amp_emu_kernels::@module__kernel.
    DenseMap<Attribute, Attribute> launches;
    for (gpu::GPUModuleOp module : modules) {
      FailureOr<llvm::StringMap<std::string>> renamed = renameSymbols(module);
      if (failed(renamed)) {
        module.emitError("cannot rename the symbols of the module to merge it");
        return signalPassFailure();
      }
      for (auto &[from, to] : *renamed)
        launches[SymbolRefAttr::get(
            module.getNameAttr(),
            {FlatSymbolRefAttr::get(&getContext(), from)})] =
            SymbolRefAttr::get(merged.getNameAttr(),
                               {FlatSymbolRefAttr::get(&getContext(), to)});
      for (Operation &op :
           llvm::make_early_inc_range(module.getBody()->getOperations())) {
        auto name =
            op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
        if (name && !names.insert(name.getValue()).second) {
          if (isDeclaration(op))
            continue; // declared by an earlier module
          op.emitError("two merged modules define ") << name;
          return signalPassFailure();
        }
        op.moveBefore(body, body->end());
      }
    }
    WalkResult walk = top.walk([&](gpu::LaunchFuncOp launch) {
      Attribute to = launches.lookup(launch.getKernel());
      if (!to) {
        launch.emitError("launches a kernel the merged modules do not have");
        return WalkResult::interrupt();
      }
      launch.setKernelAttr(cast<SymbolRefAttr>(to));
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    for (gpu::GPUModuleOp module : modules)
      module.erase();
  }
};

} // namespace

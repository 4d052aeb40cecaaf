//===- EmulatorTarget.h - the emulated CUDA device's target -----*- C++ -*-===//
//
// #amp_emu.target and amp-emulator-lower-kernels: gpu.module kernels
// compiled for the host CPU into kernel objects of the emulated CUDA device
// (amp/Runtime/EmulatorABI.h, docs/GPU.md "Emulated device").
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TARGET_EMULATOR_EMULATORTARGET_H
#define AMP_TARGET_EMULATOR_EMULATORTARGET_H

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Dialect.h"
#include "mlir/Pass/Pass.h"

#include "amp/Target/Emulator/EmulatorDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "amp/Target/Emulator/EmulatorAttrs.h.inc"

namespace mlir {
class DialectRegistry;
namespace amp {
namespace emulator {

#define GEN_PASS_DECL
#include "amp/Target/Emulator/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "amp/Target/Emulator/Passes.h.inc"

/// What the target needs to know about each kernel, beside it in its
/// gpu.module: an `__amp_emu_info_<kernel>` global holding {static shared
/// bytes, flags}.
constexpr llvm::StringLiteral kKernelInfoPrefix = "__amp_emu_info_";

/// The gpu.module that holds all of a library's emulated kernels.
constexpr llvm::StringLiteral kKernelModuleName = "amp_emu_kernels";

/// Registers the amp_emu dialect (and with it the target attribute).
void registerEmulatorTarget(DialectRegistry &registry);

} // namespace emulator
} // namespace amp
} // namespace mlir

#endif // AMP_TARGET_EMULATOR_EMULATORTARGET_H

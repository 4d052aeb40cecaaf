//===- EmulatorTarget.td - the emulated CUDA device's target ---*- tablegen -*-===//
//
// #amp_emu.target: a GPU compilation target (gpu::TargetAttrInterface) whose
// binaries are kernel objects of the emulated CUDA device
// (amp/Runtime/EmulatorABI.h): gpu-module-to-binary turns each gpu.module
// (already lowered for the host by amp-emulator-lower-kernels) into a host
// shared object with the kernel table, behind the kernel object header.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TARGET_EMULATOR_TD
#define AMP_TARGET_EMULATOR_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/DialectBase.td"
include "mlir/Dialect/GPU/IR/CompilationAttrInterfaces.td"

def AMPEmulator_Dialect : Dialect {
  let name = "amp_emu";
  let cppNamespace = "::mlir::amp::emulator";
  let summary = "The compilation target of amp's emulated CUDA device";
  let useDefaultAttributePrinterParser = 1;
}

def AMPEmulator_TargetAttr
    : AttrDef<AMPEmulator_Dialect, "Target",
              [DeclareAttrInterfaceMethods<GPUTargetAttrInterface>]> {
  let mnemonic = "target";
  let summary = "Compile gpu.module kernels for the host CPU, to run on the "
                "emulated CUDA device";
  let description = [{
    Attached to a gpu.module (by `amp-emulator-lower-kernels`), it makes
    `gpu-module-to-binary` compile the module's host LLVM code at `O`,
    add the kernel table and entry points of the emulated device's ABI,
    link it into a shared object with the host's C++ compiler `linker`,
    and embed it behind the kernel object header (format `bin`).
  }];
  let parameters = (ins
    DefaultValuedParameter<"int", "2", "optimization level">:$O,
    StringRefParameter<"program that links the shared object",
                       "\"c++\"">:$linker
  );
  let assemblyFormat = "(`<` struct(params)^ `>`)?";
}

#endif // AMP_TARGET_EMULATOR_TD

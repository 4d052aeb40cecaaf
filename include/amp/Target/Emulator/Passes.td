//===- Passes.td - lowering kernels for the emulated device ---*- tablegen -*-===//

#ifndef AMP_TARGET_EMULATOR_PASSES_TD
#define AMP_TARGET_EMULATOR_PASSES_TD

include "mlir/Pass/PassBase.td"

def EmulatorLowerKernelsPass
    : Pass<"amp-emulator-lower-kernels", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower a gpu.module's kernels to host LLVM code for the "
                "emulated CUDA device and attach #amp_emu.target";
  let description = [{
    The emulator's counterpart of convert-gpu-to-nvvm (it runs at the same
    point of the GPU pipeline): after upstream's GPU rewrites (all-reduce to
    shuffles and workgroup memory, 64-bit shuffles to 32-bit ones), each
    gpu.func becomes an llvm.func for the host with the same parameters,
    kernels keeping `gpu.kernel` so that launches still verify:
      - thread, block, grid and lane ids and dims, gpu.barrier and
        gpu.shuffle become calls to `__amp_emu_*` functions, which the
        target defines when it serializes the module (they read the
        emulated thread, amp/Runtime/EmulatorABI.h);
      - workgroup attributions and dynamic shared memory are views of the
        block's shared memory (attributions first, in order, 16-byte
        aligned; the total is the kernel's static shared size);
      - math functions the host has no instruction for call libm.
    Ops the host cannot run (NVVM intrinsics, other address spaces) are
    errors naming the op.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::amp::emulator::AMPEmulatorDialect"];
  let options = [
    Option<"optLevel", "O", "int", "2", "optimization level of the kernels">,
    Option<"linker", "linker", "std::string", "\"c++\"",
           "program that links the kernels' shared object">
  ];
}

#endif // AMP_TARGET_EMULATOR_PASSES_TD

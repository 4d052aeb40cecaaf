//===- Pipelines.h - amp pass pipelines -------------------------*- C++ -*-===//

#ifndef AMP_PIPELINES_PIPELINES_H
#define AMP_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mlir::amp {

struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  PassOptions::Option<bool> modelABI{
      *this, "model-abi",
      llvm::cl::desc(
          "Lower public functions for the model ABI of amp-compile: results "
          "become out-parameters and every memref a bare pointer"),
      llvm::cl::init(false)};
};

/// The CPU reference backend: amp -> linalg on tensors -> bufferized loops
/// -> the LLVM dialect, ready for mlir-translate or an execution engine.
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

struct GPUPipelineOptions : public PassPipelineOptions<GPUPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("The NVIDIA GPU architecture"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features (sm_90 needs PTX ISA 8.0 or newer)"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Kernel binary format: isa (PTX text), bin (cubin) or "
                     "fatbin (cubin and PTX; ptxas and fatbinary from the "
                     "CUDA toolkit)"),
      llvm::cl::init("fatbin")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit root with bin/ptxas, bin/fatbinary and "
                     "nvvm/libdevice (default: the one amp was built with)"),
      llvm::cl::init("")};
  PassOptions::Option<bool> modelABI{
      *this, "model-abi",
      llvm::cl::desc(
          "Lower public functions for the model ABI of amp-compile: results "
          "are out-parameters and every memref a bare (device) pointer"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> allowTF32{
      *this, "allow-tf32",
      llvm::cl::desc("Let f32 GEMMs (amp_gpu_gemm) use TF32 tensor cores"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> emulator{
      *this, "emulator",
      llvm::cl::desc("Compile the kernels for the emulated CUDA device "
                     "(#amp_emu.target, host code in kernel objects) instead "
                     "of NVVM; chip, features and toolkit are then unused"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> emulatorLinker{
      *this, "emulator-linker",
      llvm::cl::desc("With emulator: the C++ compiler that links each "
                     "gpu.module's kernel object (amp-compile's --cxx)"),
      llvm::cl::init("c++")};
};

/// The GPU backend (issue 8): amp training steps -> fused elementwise
/// kernels, cuBLASLt GEMM calls (amp_gpu_gemm), kernels for reductions and
/// single-thread kernels for scalar state, all on device memory -> NVVM ->
/// PTX or a fatbin embedded in gpu.binary; host code in the LLVM dialect
/// with gpu.launch_func, mgpu* calls and amp_gpu_gemm calls.
void buildGPUPipeline(OpPassManager &pm, const GPUPipelineOptions &options);

/// Registers `amp-cpu-pipeline` and `amp-gpu-pipeline` with the pass
/// registry.
void registerAMPPipelines();

} // namespace mlir::amp

#endif // AMP_PIPELINES_PIPELINES_H

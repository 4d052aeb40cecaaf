//===- Pipelines.h - amp pass pipelines -------------------------*- C++ -*-===//

#ifndef AMP_PIPELINES_PIPELINES_H
#define AMP_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

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

/// Registers `amp-cpu-pipeline` with the pass registry.
void registerAMPPipelines();

} // namespace mlir::amp

#endif // AMP_PIPELINES_PIPELINES_H

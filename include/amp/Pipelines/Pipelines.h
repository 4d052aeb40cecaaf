//===- Pipelines.h - amp pass pipelines -------------------------*- C++ -*-===//

#ifndef AMP_PIPELINES_PIPELINES_H
#define AMP_PIPELINES_PIPELINES_H

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mlir::amp {

/// The CPU reference backend: amp -> linalg on tensors -> bufferized loops
/// -> the LLVM dialect, ready for mlir-translate or an execution engine.
void buildCPUPipeline(OpPassManager &pm);

/// Registers `amp-cpu-pipeline` with the pass registry.
void registerAMPPipelines();

} // namespace mlir::amp

#endif // AMP_PIPELINES_PIPELINES_H

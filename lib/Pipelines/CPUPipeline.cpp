//===- CPUPipeline.cpp - the CPU reference pipeline -----------------------===//

#include "amp/Codegen/CPU/Passes.h"
#include "amp/Codegen/Common/Passes.h"
#include "amp/Conversion/Passes.h"
#include "amp/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::amp::buildCPUPipeline(OpPassManager &pm,
                                 const CPUPipelineOptions &options) {
  // Data-parallel collectives become runtime calls first, on tensors.
  pm.addPass(amp::createConvertAMPCollectivesToRuntimePass());
  // Attention becomes the runtime's flash kernel, on tensors too.
  pm.addPass(amp::createConvertAMPAttentionToRuntimePass());
  // f32 convolutions become oneDNN calls (library calls, as with the BLAS).
  if (options.blas && options.dnnlConvolutions)
    pm.addPass(amp::createCPUConvolutionsToDNNLPass());
  ConvertAMPToLinalgPassOptions toLinalg;
  toLinalg.stateUpdates = options.modelABI;
  pm.addNestedPass<func::FuncOp>(createConvertAMPToLinalgPass(toLinalg));
  // Sums accumulate in f64, as PyTorch's CPU batch norm does: f32 sums of
  // many cancelling terms (normalization gradients) lose digits.
  pm.addNestedPass<func::FuncOp>(amp::createCPUWideSumsPass());
  pm.addPass(createCanonicalizerPass());
  if (options.fuseElementwise) {
    // Not into reductions: convolutions must keep operands of their own to
    // become im2col + OpenBLAS calls. Reshapes stay put: state updates
    // keep their buffers' shapes and are done in place.
    FuseElementwisePassOptions fuse;
    fuse.fuseIntoReductions = false;
    fuse.propagateReshapes = false;
    pm.addNestedPass<func::FuncOp>(amp::createFuseElementwisePass(fuse));
  }

  buildStepBufferization(pm, options.modelABI,
                         /*resultsToOutParams=*/options.modelABI);
  bufferization::buildBufferDeallocationPipeline(pm);
  // Deallocation clones buffers a function returns without owning them.
  pm.addPass(createConvertBufferizationToMemRefPass());

  if (options.blas)
    pm.addPass(amp::createCPUContractionsToBLASPass());
  pm.addNestedPass<func::FuncOp>(amp::createCPUStridedCopiesToLoopsPass());
  pm.addNestedPass<func::FuncOp>(amp::createCPUCollapseLoopsPass());
  if (options.outlineKernels)
    pm.addPass(amp::createCPUOutlineKernelsPass());
  if (options.outlineKernels && options.parallelKernels)
    pm.addPass(amp::createCPUParallelKernelsPass());
  pm.addNestedPass<func::FuncOp>(amp::createCPUTileTransposesPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  // f8 <-> wider float conversions become integer code (LLVM has no f8
  // types; loads and stores of f8 are of i8). Before the bf16 expansion and
  // arith-to-llvm.
  pm.addPass(amp::createExpandFloat8Pass());
  // bf16 arithmetic (a clamp of hardsigmoid, say) runs in f32 between
  // explicit conversions: LLVM would otherwise round its results with
  // calls to __truncsfbf2 on CPUs without AVX512-BF16 (x86-64-v3, the
  // default --cpu), which libgcc 12 does not have. The rounding is the
  // same (to nearest even).
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  // bf16 <-> f32 conversions become integer code: x86 has no instructions
  // for them and libgcc 12 no helpers.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  // Vectorizable polynomials instead of one libm call per element.
  if (options.approximateMath)
    pm.addPass(amp::createCPUApproximateMathPass());
  // libm has no rsqrtf: compute 1 / sqrt(x).
  math::MathExpandOpsPassOptions expandMath;
  expandMath.opMnemonics = {"rsqrt"};
  pm.addPass(math::createMathExpandOpsPass(expandMath));
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  // In model libraries, buffers come from the runtime's pool
  // (lib/Runtime/StepBuffers.cpp), kept from one step to the next.
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = options.modelABI;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  ConvertFuncToLLVMPassOptions funcToLLVM;
  funcToLLVM.useBarePtrCallConv = options.modelABI;
  pm.addPass(createConvertFuncToLLVMPass(funcToLLVM));
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  if (options.outlineKernels && options.parallelKernels)
    pm.addPass(amp::createCPUDispatchParallelPass());
}

void mlir::amp::registerAMPPipelines() {
  PassPipelineRegistration<CPUPipelineOptions>(
      "amp-cpu-pipeline",
      "Lower amp training graphs to the LLVM dialect for the host CPU",
      buildCPUPipeline);
  PassPipelineRegistration<GPUPipelineOptions>(
      "amp-gpu-pipeline",
      "Lower elementwise amp training graphs to NVVM kernels (PTX or a "
      "fatbin) and host code in the LLVM dialect",
      buildGPUPipeline);
  registerAMPTrainingPipeline();
}

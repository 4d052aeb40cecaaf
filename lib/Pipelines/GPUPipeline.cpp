//===- GPUPipeline.cpp - the NVVM (sm_90) pipeline ------------------------===//
//
// The GPU pipeline (issue 8): whole training steps become host code that
// only launches kernels, calls amp_gpu_gemm (cuBLASLt) and allocates device
// memory, plus kernels lowered to NVVM and serialized to PTX (format=isa) or
// a fatbin through ptxas. Elementwise chains are fused into one kernel each;
// matrix products go to cuBLASLt; chains of row-wise ops (softmax,
// LayerNorm) become one launch with a block per row; the other row and
// full reductions become block and grid reductions; everything else is linalg
// lowered to parallel loops mapped to blocks and threads, and what cannot be
// mapped (0-d state updates) runs in single-thread kernels. See docs/GPU.md for
// the steps and what is slow. The amp-specific steps are the amp-gpu-* passes
// of lib/Codegen/GPU/LinalgToGPU; this file only composes them with upstream
// passes.
//
//===----------------------------------------------------------------------===//

#include "amp/Analysis/Passes.h"
#include "amp/Codegen/Common/Passes.h"
#include "amp/Codegen/GPU/Passes.h"
#include "amp/Conversion/Passes.h"
#include "amp/Pipelines/Pipelines.h"
#include "amp/Target/Emulator/EmulatorTarget.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/OptimizeForNVVM.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"

using namespace mlir;

#ifndef AMP_CUDA_TOOLKIT_PATH
#define AMP_CUDA_TOOLKIT_PATH ""
#endif

namespace {
/// Threads per block: the innermost parallel dimension is tiled by this and
/// the tile mapped to threadIdx.x, the tiles to blockIdx.
constexpr int64_t kThreadsPerBlock = 256;

/// The toolkit that provides ptxas, fatbinary and libdevice: the option,
/// else the one the build was configured with while it exists, else none
/// (MLIR then searches CUDA_HOME, CUDA_ROOT, CUDA_PATH and PATH).
std::string resolveToolkit(const amp::GPUPipelineOptions &options) {
  if (!options.toolkit.empty())
    return options.toolkit;
  StringRef configured = AMP_CUDA_TOOLKIT_PATH;
  if (!configured.empty() && llvm::sys::fs::is_directory(configured))
    return configured.str();
  return "";
}

/// Host and kernels to the LLVM and NVVM dialects, kernels serialized into
/// gpu.binary. The steps of MLIR's gpu-lower-to-nvvm-pipeline, which does
/// not let the caller name the toolkit.
void buildNVVMLowering(OpPassManager &pm,
                       const amp::GPUPipelineOptions &options) {
  // f8 <-> wider float conversions, in host code and kernels, become
  // integer code before arith-to-llvm and the NVVM (or emulated device)
  // conversion of kernels: LLVM has no f8 types.
  pm.addPass(amp::createExpandFloat8Pass());
  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  // model-abi: public functions take bare pointers (the driver calls
  // `void amp_train_step_impl(void *arg0, ..., void *out0, ...)` with
  // device pointers); otherwise memref descriptors, as MLIR's runners use.
  ConvertFuncToLLVMPassOptions funcToLLVM;
  funcToLLVM.useBarePtrCallConv = options.modelABI;
  pm.addPass(createConvertFuncToLLVMPass(funcToLLVM));
  pm.addPass(memref::createExpandStridedMetadataPass());
  if (!options.emulator) {
    GpuNVVMAttachTargetOptions target;
    target.chip = options.chip;
    target.features = options.features;
    pm.addPass(createGpuNVVMAttachTarget(target));
  }
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createStripDebugInfoPass());
  if (options.emulator) {
    // Host code for the emulated device; attaches #amp_emu.target.
    amp::emulator::EmulatorLowerKernelsPassOptions lower;
    lower.linker = options.emulatorLinker;
    kernels.addPass(amp::emulator::createEmulatorLowerKernelsPass(lower));
  } else {
    kernels.addPass(createConvertGpuOpsToNVVMOps());
    kernels.addPass(LLVM::createNVVMOptimizeForTargetPass());
  }
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());

  // Launches pass memref descriptors, as the kernels take them. Only the
  // public host functions use bare pointers (func-to-llvm above): with
  // gpu-to-llvm's bare-pointer host convention every launch would pass one
  // pointer per memref while the kernel reads a whole descriptor, and
  // cuLaunchKernel would read past the parameter array.
  pm.addPass(createGpuToLLVMConversionPass());
  // The step's kernels compile as one: one NVPTX code generation and one
  // ptxas run (on every core), or one link for the emulated device.
  amp::GPUMergeKernelModulesPassOptions merge;
  if (options.emulator) {
    merge.name = amp::emulator::kKernelModuleName.str();
    merge.companionPrefix = amp::emulator::kKernelInfoPrefix.str();
  }
  pm.addPass(amp::createGPUMergeKernelModulesPass(merge));
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath = resolveToolkit(options);
  // ptxas optimizes the merged module's functions on all cores.
  if (!options.emulator)
    binary.cmdOptions = "--split-compile=0";
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}
} // namespace

void mlir::amp::buildGPUPipeline(OpPassManager &pm,
                                 const GPUPipelineOptions &options) {
  amp::GPUCheckTargetPassOptions target;
  target.chip = options.chip;
  target.toolkit = options.toolkit;
  pm.addPass(amp::createGPUCheckTargetPass(target));
  // Data-parallel collectives become NCCL calls first, on tensors.
  pm.addPass(amp::createConvertAMPCollectivesToNCCLPass());
  // Attention becomes cuDNN's fused attention where cuDNN runs it, else
  // unfused amp ops, on tensors too.
  ConvertAMPAttentionToRuntimePassOptions attention;
  attention.gpu = true;
  pm.addPass(amp::createConvertAMPAttentionToRuntimePass(attention));
  // FP8 products become cuBLASLt's FP8 GEMMs where it runs them
  // (CublasLtFp8Rules.h); the rest stay for convert-amp-to-linalg.
  pm.addPass(amp::createConvertAMPFp8ToRuntimePass());
  // 1. amp -> linalg on tensors; one kernel per elementwise chain (each op
  // still rounds to its own result type, as on the CPU); contractions are
  // kept apart for cuBLASLt.
  ConvertAMPToLinalgPassOptions toLinalg;
  toLinalg.stateUpdates = options.modelABI;
  pm.addNestedPass<func::FuncOp>(createConvertAMPToLinalgPass(toLinalg));
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(amp::createFuseElementwisePass());

  // 2. Buffers. Results become out-parameters (public functions too):
  // buffers the caller provides in device memory. Constants get device
  // buffers; the deallocation pipeline frees every temporary.
  buildStepBufferization(pm, options.modelABI, /*resultsToOutParams=*/true);
  pm.addPass(amp::createGPUConstantsToDevicePass());
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createCanonicalizerPass());

  // 3. Matrix products -> amp_gpu_gemm (cuBLASLt); strided copies ->
  // linalg; parallel loops outermost.
  amp::ContractionsToGemmCallsPassOptions gemm;
  gemm.allowTF32 = options.allowTF32;
  pm.addPass(amp::createContractionsToGemmCallsPass(gemm));
  // Chains of row-wise ops (softmax, LayerNorm, cross-entropy rows and
  // their backward) -> one launch each, a block per row with the per-row
  // scalars in registers; the remaining row and full reductions ->
  // launches reducing in parallel (block per row, two-stage grid
  // reduction); see docs/GPU.md.
  pm.addNestedPass<func::FuncOp>(amp::createGPUFuseRowsPass());
  pm.addNestedPass<func::FuncOp>(amp::createGPUParallelReductionsPass());
  pm.addNestedPass<func::FuncOp>(amp::createGPUPrepareLinalgPass());
  // Each temporary is freed after its last use, not at the step's end.
  pm.addNestedPass<func::FuncOp>(amp::createGPUFreeEarlyPass());

  // 4. linalg -> scf.parallel; tile the innermost dimension by the block
  // size (guards instead of min bounds keep the launch sizes constant); the
  // outer loops go to blocks and the tiles to threads. Reductions the
  // reduction pass left (column sums, short rows) keep one thread per
  // output with a sequential loop inside.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  // Those sequential loops keep their output element in a register.
  pm.addNestedPass<func::FuncOp>(amp::createGPURegisterAccumulatorsPass());
  // Elementwise loops take 16 bytes per thread and access.
  pm.addNestedPass<func::FuncOp>(amp::createGPUVectorizeElementwisePass());
  // One dimension per loop, the innermost fastest: coalesced threads.
  pm.addNestedPass<func::FuncOp>(amp::createGPUCoalesceParallelLoopsPass());
  // Independent loops side by side: one launch (the optimizer's updates).
  pm.addNestedPass<func::FuncOp>(amp::createGPUBatchLoopsPass());
  pm.addNestedPass<func::FuncOp>(createParallelLoopTilingPass(
      {kThreadsPerBlock}, /*noMinMaxBounds=*/true));
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());

  // 5. What is left on the host runs in single-thread kernels; buffers go
  // to device memory; then nothing may touch memory on the host.
  pm.addNestedPass<func::FuncOp>(amp::createGPUWrapHostCodePass());
  pm.addNestedPass<func::FuncOp>(amp::createGPUDeviceBuffersPass());
  pm.addPass(amp::createGPUCheckMappablePass());

  // 6. Kernels outlined; allocations, copies and launches chained with
  // async tokens (gpu-to-llvm lowers only asynchronous gpu.alloc); the GEMM
  // calls take the step's stream, so the host waits only at the end.
  pm.addNestedPass<func::FuncOp>(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addNestedPass<func::FuncOp>(amp::createGemmCallsOnStreamPass());
  // The kernels' bodies are still visible here (docs/CostModel.md).
  if (!options.costReport.empty()) {
    amp::GPUCostReportPassOptions cost;
    cost.output = options.costReport;
    cost.device = options.costDevice;
    pm.addPass(amp::createGPUCostReportPass(cost));
  }

  buildNVVMLowering(pm, options);
}

//===- GPUPipeline.cpp - the NVVM (sm_90) pipeline ------------------------===//
//
// A first GPU pipeline (issue 8): elementwise training graphs become one
// fused kernel per chain, mapped to blocks of 256 threads, lowered to NVVM
// and serialized to PTX (cubin-format=isa) or a fatbin through ptxas. GEMMs
// (cuBLASLt), reductions with their own kernels and a runtime are next; see
// docs/GPU.md.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"
#include "amp/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/OptimizeForNVVM.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
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

/// The pipeline so far handles what maps to one kernel per elementwise chain
/// reading and writing the function's own buffers. Host code that allocates
/// a buffer (a temporary between two kernels, the accumulator of a
/// reduction or GEMM) would get host memory the kernels cannot use, and
/// loops left on the host would run on the CPU over device pointers: both
/// are reported here, on the op, before anything is lowered further.
struct CheckGPUMappable
    : public PassWrapper<CheckGPUMappable, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CheckGPUMappable)

  StringRef getArgument() const final { return "amp-gpu-check-mappable"; }
  StringRef getDescription() const final {
    return "Reject host code the GPU pipeline cannot run yet";
  }

  void runOnOperation() override {
    bool failed = false;
    getOperation().walk([&](func::FuncOp func) {
      func.walk([&](Operation *op) {
        if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
          op->emitError()
              << "amp-gpu-pipeline: this graph needs an intermediate "
                 "buffer (a temporary between kernels or the accumulator of "
                 "a reduction or matmul), which needs device memory: not "
                 "supported yet; the GPU pipeline lowers elementwise graphs "
                 "only";
          failed = true;
        } else if (isa<scf::ParallelOp, scf::ForOp>(op) &&
                   !op->getParentOfType<gpu::LaunchOp>()) {
          op->emitError() << "amp-gpu-pipeline: a loop could not be mapped "
                             "to GPU blocks and threads";
          failed = true;
        }
      });
    });
    if (failed)
      signalPassFailure();
  }
};
/// MLIR's serializer reports a missing toolkit but still succeeds, with
/// kernels that lack libdevice; a named toolkit is checked up front instead.
struct CheckCUDAToolkit
    : public PassWrapper<CheckCUDAToolkit, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CheckCUDAToolkit)

  explicit CheckCUDAToolkit(std::string toolkit) : toolkit(std::move(toolkit)) {}

  StringRef getArgument() const final { return "amp-gpu-check-toolkit"; }
  StringRef getDescription() const final {
    return "Check the CUDA toolkit the GPU pipeline was given";
  }

  void runOnOperation() override {
    std::string libdevice = toolkit + "/nvvm/libdevice/libdevice.10.bc";
    if (!llvm::sys::fs::is_directory(toolkit)) {
      getOperation().emitError()
          << "amp-gpu-pipeline: the CUDA toolkit '" << toolkit
          << "' (option toolkit) is not a directory";
      return signalPassFailure();
    }
    if (!llvm::sys::fs::exists(libdevice)) {
      getOperation().emitError()
          << "amp-gpu-pipeline: the CUDA toolkit '" << toolkit
          << "' has no libdevice (" << libdevice << ")";
      return signalPassFailure();
    }
  }

  std::string toolkit;
};

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
  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createStripDebugInfoPass());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(LLVM::createNVVMOptimizeForTargetPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());

  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath = resolveToolkit(options);
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}
} // namespace

void mlir::amp::buildGPUPipeline(OpPassManager &pm,
                                 const GPUPipelineOptions &options) {
  if (!options.toolkit.empty())
    pm.addPass(std::make_unique<CheckCUDAToolkit>(options.toolkit));
  pm.addNestedPass<func::FuncOp>(createConvertAMPToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  // One kernel per elementwise chain. Each op still rounds to its own
  // result type (extf/truncf pairs stay), as on the CPU.
  pm.addNestedPass<func::FuncOp>(createLinalgElementwiseOpFusionPass());

  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Results become out-parameters: every buffer a kernel touches is one the
  // caller passes (device memory, allocated by the runtime).
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.modifyPublicFunctions = true;
  outParams.hoistStaticAllocs = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addPass(createCanonicalizerPass());

  // linalg -> scf.parallel; tile the innermost dimension by the block size
  // (guards instead of min bounds keep the launch sizes constant); the
  // outer loops go to blocks and the tiles to threads.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(
      createParallelLoopTilingPass({kThreadsPerBlock}, /*noMinMaxBounds=*/true));
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  pm.addPass(std::make_unique<CheckGPUMappable>());
  pm.addNestedPass<func::FuncOp>(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createCanonicalizerPass());

  buildNVVMLowering(pm, options);
}

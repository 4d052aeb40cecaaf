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
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

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
} // namespace

void mlir::amp::buildGPUPipeline(OpPassManager &pm,
                                 const GPUPipelineOptions &options) {
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

  gpu::GPUToNVVMPipelineOptions nvvm;
  nvvm.cubinChip = options.chip.getValue();
  nvvm.cubinFeatures = options.features.getValue();
  nvvm.cubinFormat = options.format.getValue();
  gpu::buildLowerToNVVMPassPipeline(pm, nvvm);
}

//===- GPUPipeline.cpp - the NVVM (sm_90) pipeline ------------------------===//
//
// The GPU pipeline (issue 8): whole training steps become host code that
// only launches kernels, calls amp_gpu_gemm (cuBLASLt) and allocates device
// memory, plus kernels lowered to NVVM and serialized to PTX (format=isa) or
// a fatbin through ptxas. Elementwise chains are fused into one kernel each;
// matrix products go to cuBLASLt; everything else is linalg lowered to
// parallel loops mapped to blocks and threads, and what cannot be mapped
// (full reductions, 0-d state updates) runs in single-thread kernels. See
// docs/GPU.md for the steps and what is slow.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"
#include "amp/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/OptimizeForNVVM.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
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

/// linalg-fuse-elementwise-ops with one restriction: nothing is fused into
/// or out of a contraction (nor a reshape propagated through one), so that
/// matrix products keep the plain `out + ext(a) * ext(b)` form that
/// amp-contractions-to-gemm-calls turns into cuBLASLt calls. A cast of a
/// weight fused into its GEMM would otherwise make a loop nest of it.
struct FuseElementwiseKeepingContractions
    : public PassWrapper<FuseElementwiseKeepingContractions,
                         OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(
      FuseElementwiseKeepingContractions)

  StringRef getArgument() const final {
    return "amp-gpu-fuse-elementwise";
  }
  StringRef getDescription() const final {
    return "Fuse elementwise linalg ops, leaving contractions alone";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<linalg::LinalgDialect, affine::AffineDialect,
                    tensor::TensorDialect, memref::MemRefDialect>();
  }

  static bool isContraction(Operation *op) {
    auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
    return linalgOp && linalg::isaContractionOpInterface(linalgOp);
  }

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    linalg::ControlFusionFn control = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse() && !isContraction(producer) &&
             !isContraction(fused->getOwner());
    };
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, control);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(
        patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, control);
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      return signalPassFailure();
  }
};

/// Constants live in device memory. Bufferized tensor constants are
/// memref.global in host memory; each use (memref.get_global) becomes a
/// fresh buffer (gpu.alloc later, freed by the deallocation pipeline, which
/// runs after this): a splat is filled by a kernel (linalg.fill), anything
/// else is copied from the host global once per step (gpu.memcpy
/// host-to-device). Generating splats on the device costs one tiny kernel
/// and no transfer; non-splat constants are rare in training steps (the
/// amp lowering folds scalars into kernel bodies), so a copy is simplest.
struct MaterializeConstantsOnDevice
    : public PassWrapper<MaterializeConstantsOnDevice,
                         OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MaterializeConstantsOnDevice)

  StringRef getArgument() const final { return "amp-gpu-device-constants"; }
  StringRef getDescription() const final {
    return "Copy bufferized constants into device buffers";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<linalg::LinalgDialect, memref::MemRefDialect,
                    arith::ArithDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<memref::GetGlobalOp> uses;
    module.walk([&](memref::GetGlobalOp op) {
      if (!op->getParentOfType<gpu::GPUModuleOp>())
        uses.push_back(op);
    });
    for (memref::GetGlobalOp use : uses) {
      auto global = symbols.lookup<memref::GlobalOp>(use.getName());
      if (!global)
        continue;
      auto type = cast<MemRefType>(use.getType());
      if (!type.getLayout().isIdentity())
        continue;
      OpBuilder b(use);
      b.setInsertionPointAfter(use);
      Location loc = use.getLoc();
      Value buffer = memref::AllocOp::create(b, loc, type);
      Operation *copy = nullptr;
      auto init = dyn_cast_or_null<DenseElementsAttr>(
          global.getInitialValue().value_or(Attribute()));
      if (init && init.isSplat()) {
        Value scalar = arith::ConstantOp::create(
            b, loc, cast<TypedAttr>(init.getSplatValue<Attribute>()));
        linalg::FillOp::create(b, loc, scalar, buffer);
      } else {
        copy = memref::CopyOp::create(b, loc, use.getResult(), buffer);
      }
      use.getResult().replaceUsesWithIf(buffer, [&](OpOperand &operand) {
        return operand.getOwner() != copy &&
               operand.getOwner() != buffer.getDefiningOp();
      });
      if (use->use_empty())
        use->erase();
    }
  }
};

/// Prepares bufferized linalg for the loop mapping:
/// - memref.copy into or out of a strided view (the padding of a
///   convolution's input, a slice) becomes linalg.copy, so that a kernel
///   does it; copies between dense buffers stay and become gpu.memcpy;
/// - a linalg.generic whose reduction loops come before parallel ones (a
///   sum over the rows, e.g. a bias gradient) is interchanged to put the
///   parallel loops outermost: they become threads, and each thread runs
///   the reduction sequentially, instead of a host loop of launches.
struct PrepareLinalgForGPU
    : public PassWrapper<PrepareLinalgForGPU, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PrepareLinalgForGPU)

  StringRef getArgument() const final { return "amp-gpu-prepare-linalg"; }
  StringRef getDescription() const final {
    return "Strided copies to linalg.copy, parallel loops outermost";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<linalg::LinalgDialect>();
  }

  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](Operation *op) {
      if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        auto dense = [](Value v) {
          auto type = dyn_cast<MemRefType>(v.getType());
          return type && type.getLayout().isIdentity();
        };
        if (!dense(copy.getSource()) || !dense(copy.getTarget()))
          copies.push_back(copy);
      } else if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
        generics.push_back(generic);
      }
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy->erase();
    }
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp generic : generics) {
      SmallVector<unsigned> parallel, reduction;
      for (auto [i, type] : llvm::enumerate(generic.getIteratorTypesArray()))
        (type == utils::IteratorType::parallel ? parallel : reduction)
            .push_back(i);
      if (parallel.empty() || reduction.empty() ||
          reduction.front() > parallel.back())
        continue;
      SmallVector<unsigned> order(parallel);
      order.append(reduction);
      rewriter.setInsertionPoint(generic);
      (void)linalg::interchangeGenericOp(rewriter, generic, order);
    }
  }
};

bool isInsideKernel(Operation *op) {
  return op->getParentOfType<gpu::LaunchOp>() ||
         op->getParentOfType<gpu::GPUModuleOp>();
}

/// Whether `op` (with its regions) contains something that must stay on the
/// host: a launch, a call, an allocation.
bool containsHostOnlyOps(Operation *op) {
  return op
      ->walk([](Operation *inner) {
        if (isa<gpu::LaunchOp, func::CallOp, memref::AllocOp,
                memref::DeallocOp, memref::CopyOp, gpu::AllocOp,
                gpu::DeallocOp, gpu::MemcpyOp>(inner))
          return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// After the parallel loops are mapped to blocks and threads, what is left
/// on the host and touches memory (a loop: a reduction of a whole tensor to
/// a scalar such as the mean loss, the global gradient norm or the overflow
/// check; a memref.load/store: a 0-d update of the loss scale, its trackers
/// or the optimizer step) is moved into a gpu.launch of one block of one
/// thread. Consecutive such ops share one launch: views and index
/// arithmetic in between are hoisted in front of it, allocations in front
/// and deallocations behind it.
///
/// Correct but slow: one thread reads a whole gradient for the norm or the
/// overflow check. Tree reductions (a block per slice, then a second pass)
/// are the next step (docs/GPU.md).
struct WrapHostCodeInSingleThreadLaunches
    : public PassWrapper<WrapHostCodeInSingleThreadLaunches,
                         OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(
      WrapHostCodeInSingleThreadLaunches)

  StringRef getArgument() const final {
    return "amp-gpu-wrap-host-code";
  }
  StringRef getDescription() const final {
    return "Run host loops and memref loads/stores in single-thread kernels";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<gpu::GPUDialect, arith::ArithDialect>();
  }

  enum class Kind { Device, Hoist, Sink, Barrier };

  static Kind classify(Operation *op) {
    if (op->hasTrait<OpTrait::IsTerminator>() ||
        isa<gpu::LaunchOp, func::CallOp>(op))
      return Kind::Barrier;
    if (isa<memref::DeallocOp>(op))
      return Kind::Sink;
    if (auto alloc = dyn_cast<memref::AllocOp>(op))
      return alloc->getNumOperands() == 0 ? Kind::Hoist : Kind::Barrier;
    if (op->getNumRegions() > 0)
      return containsHostOnlyOps(op) ? Kind::Barrier : Kind::Device;
    if (isa<memref::LoadOp, memref::StoreOp, affine::AffineLoadOp,
            affine::AffineStoreOp>(op))
      return Kind::Device;
    if (isMemoryEffectFree(op))
      return Kind::Hoist;
    return Kind::Barrier;
  }

  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *block) {
      Operation *parent = block->getParentOp();
      if (parent && !isa<gpu::LaunchOp>(parent) && !isInsideKernel(parent))
        blocks.push_back(block);
    });
    for (Block *block : blocks) {
      // Only blocks of the function body or of host ops we did not wrap.
      Operation *parent = block->getParentOp();
      if (parent != getOperation() && classify(parent) == Kind::Device)
        continue;
      wrapBlock(block);
    }
  }

  void wrapBlock(Block *block) {
    SmallVector<Operation *> group;
    auto flush = [&]() {
      // Trim ops after the last device op: they stay where they are.
      while (!group.empty() && classify(group.back()) != Kind::Device)
        group.pop_back();
      if (!group.empty())
        wrapGroup(group);
      group.clear();
    };
    for (Operation &op : llvm::make_early_inc_range(*block)) {
      Kind kind = classify(&op);
      if (kind == Kind::Barrier) {
        flush();
        continue;
      }
      if (kind == Kind::Device || !group.empty())
        group.push_back(&op);
    }
    flush();
  }

  void wrapGroup(ArrayRef<Operation *> group) {
    Operation *first = group.front();
    Operation *last = group.back();
    llvm::SmallPtrSet<Operation *, 16> inside;
    SmallVector<Operation *> kept, sunk;
    for (Operation *op : group) {
      Kind kind = classify(op);
      bool dependsOnKept = llvm::any_of(op->getOperands(), [&](Value v) {
        return inside.contains(v.getDefiningOp());
      });
      if (kind == Kind::Hoist && !dependsOnKept) {
        op->moveBefore(first);
      } else if (kind == Kind::Sink && !dependsOnKept) {
        sunk.push_back(op);
      } else {
        kept.push_back(op);
        inside.insert(op);
      }
    }
    // A value computed in the group and used by host code after it would
    // need to come back from the device: leave the group on the host, the
    // final check reports it.
    for (Operation *op : kept)
      for (Operation *user : op->getUsers())
        if (!inside.contains(user) &&
            !llvm::any_of(kept, [&](Operation *k) {
              return k->isProperAncestor(user);
            }))
          return;
    Operation *insertAfter = last;
    for (Operation *op : sunk) {
      op->moveAfter(insertAfter);
      insertAfter = op;
    }

    OpBuilder b(kept.front());
    Location loc = kept.front()->getLoc();
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto launch = gpu::LaunchOp::create(b, loc, one, one, one, one, one, one);
    Block &body = launch.getBody().front();
    b.setInsertionPointToEnd(&body);
    auto terminator = gpu::TerminatorOp::create(b, loc);
    for (Operation *op : kept)
      op->moveBefore(terminator);
  }
};

/// Host buffers become device buffers: memref.alloc/dealloc outside kernels
/// become gpu.alloc/gpu.dealloc (device memory, not host-shared; gpu-to-llvm
/// calls mgpuMemAlloc/mgpuMemFree, which amp's runtime serves from a pool),
/// memref.copy becomes gpu.memcpy. They are made asynchronous and ordered
/// with the launches later by gpu-async-region.
struct HostBuffersToDevice
    : public PassWrapper<HostBuffersToDevice, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(HostBuffersToDevice)

  StringRef getArgument() const final { return "amp-gpu-device-buffers"; }
  StringRef getDescription() const final {
    return "Allocate host-side buffers in device memory";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<gpu::GPUDialect>();
  }

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::DeallocOp, memref::CopyOp>(op) &&
          !isInsideKernel(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        if (!alloc.getSymbolOperands().empty())
          continue;
        auto gpuAlloc = gpu::AllocOp::create(
            b, loc, alloc.getType(), /*asyncToken=*/Type(), ValueRange(),
            alloc.getDynamicSizes(), ValueRange(), /*hostShared=*/false);
        alloc.replaceAllUsesWith(gpuAlloc.getMemref());
        alloc->erase();
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        gpu::DeallocOp::create(b, loc, Type(), ValueRange(),
                               dealloc.getMemref());
        dealloc->erase();
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        auto dense = [](Value v) {
          return cast<MemRefType>(v.getType()).getLayout().isIdentity();
        };
        if (!dense(copy.getSource()) || !dense(copy.getTarget()))
          continue;
        gpu::MemcpyOp::create(b, loc, Type(), ValueRange(), copy.getTarget(),
                              copy.getSource());
        copy->erase();
      }
    }
  }
};

/// Nothing may touch memory on the host: the host code the pipeline emits
/// only allocates device buffers, launches kernels, copies between buffers
/// and calls the runtime. Anything else left on the host (a loop, a load or
/// store, a linalg op, a host allocation) would read device pointers on the
/// CPU: it is reported here, on the op, before anything is lowered further.
struct CheckGPUMappable
    : public PassWrapper<CheckGPUMappable, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CheckGPUMappable)

  StringRef getArgument() const final { return "amp-gpu-check-mappable"; }
  StringRef getDescription() const final {
    return "Reject host code that would touch device memory on the CPU";
  }

  void runOnOperation() override {
    bool failed = false;
    getOperation().walk([&](func::FuncOp func) {
      func.walk([&](Operation *op) {
        if (isInsideKernel(op))
          return WalkResult::skip();
        if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
          op->emitError() << "amp-gpu-pipeline: a host buffer is left that "
                             "could not be moved to device memory";
          failed = true;
        } else if (isa<scf::ParallelOp, scf::ForOp, scf::WhileOp>(op)) {
          op->emitError() << "amp-gpu-pipeline: a loop is left on the host "
                             "that could not be mapped to GPU blocks and "
                             "threads";
          failed = true;
        } else if (isa<memref::LoadOp, memref::StoreOp, memref::CopyOp,
                       affine::AffineLoadOp, affine::AffineStoreOp>(op) ||
                   isa<linalg::LinalgDialect>(op->getDialect())) {
          op->emitError() << "amp-gpu-pipeline: this op would access device "
                             "memory from the host";
          failed = true;
        }
        return WalkResult::advance();
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
  // model-abi: public functions take bare pointers (the driver calls
  // `void amp_train_step_impl(void *arg0, ..., void *out0, ...)` with
  // device pointers); otherwise memref descriptors, as MLIR's runners use.
  ConvertFuncToLLVMPassOptions funcToLLVM;
  funcToLLVM.useBarePtrCallConv = options.modelABI;
  pm.addPass(createConvertFuncToLLVMPass(funcToLLVM));
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

  GpuToLLVMConversionPassOptions gpuToLLVM;
  gpuToLLVM.hostBarePtrCallConv = options.modelABI;
  pm.addPass(createGpuToLLVMConversionPass(gpuToLLVM));
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
  // 1. amp -> linalg on tensors; one kernel per elementwise chain (each op
  // still rounds to its own result type, as on the CPU); contractions are
  // kept apart for cuBLASLt.
  pm.addNestedPass<func::FuncOp>(createConvertAMPToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(
      std::make_unique<FuseElementwiseKeepingContractions>());

  // 2. Buffers. Results become out-parameters (public functions too):
  // buffers the caller provides in device memory. Constants get device
  // buffers; the deallocation pipeline frees every temporary.
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.modifyPublicFunctions = true;
  outParams.hoistStaticAllocs = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addPass(std::make_unique<MaterializeConstantsOnDevice>());
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createCanonicalizerPass());

  // 3. Matrix products -> amp_gpu_gemm (cuBLASLt); strided copies ->
  // linalg; parallel loops outermost.
  amp::ContractionsToGemmCallsPassOptions gemm;
  gemm.allowTF32 = options.allowTF32;
  pm.addPass(amp::createContractionsToGemmCallsPass(gemm));
  // Row and full reductions -> launches reducing in parallel (block per
  // row, two-stage grid reduction); see docs/GPU.md.
  pm.addNestedPass<func::FuncOp>(amp::createGPUParallelReductionsPass());
  pm.addNestedPass<func::FuncOp>(std::make_unique<PrepareLinalgForGPU>());

  // 4. linalg -> scf.parallel; tile the innermost dimension by the block
  // size (guards instead of min bounds keep the launch sizes constant); the
  // outer loops go to blocks and the tiles to threads. Reductions along a
  // dimension keep one thread per row with a sequential loop inside.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(
      createParallelLoopTilingPass({kThreadsPerBlock}, /*noMinMaxBounds=*/true));
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());

  // 5. What is left on the host runs in single-thread kernels; buffers go
  // to device memory; then nothing may touch memory on the host.
  pm.addNestedPass<func::FuncOp>(
      std::make_unique<WrapHostCodeInSingleThreadLaunches>());
  pm.addNestedPass<func::FuncOp>(std::make_unique<HostBuffersToDevice>());
  pm.addPass(std::make_unique<CheckGPUMappable>());

  // 6. Kernels outlined; allocations, copies and launches chained with
  // async tokens (gpu-to-llvm lowers only asynchronous gpu.alloc); the host
  // waits before its own side effects (the GEMM calls) and at the end.
  pm.addNestedPass<func::FuncOp>(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());

  buildNVVMLowering(pm, options);
}

//===- TrainingPipeline.cpp - the whole compile flow ----------------------===//
//
// amp-training-pipeline: a forward model or a training step in the amp
// dialect -> the training step (amp-autodiff) -> mixed precision
// (amp-assign-precision, amp-insert-casts) -> loss scaling and master
// weights -> gradient accumulation -> the forward model in evaluation mode
// -> the CPU or GPU pipeline. amp-compile, amp-opt and the Python package build
// it from TrainingPipelineOptions, checked once by
// TrainingPipelineOptions::verify.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/GPU/Passes.h"
#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/TrainingStep.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"
#include "amp/Dialect/AMP/Transforms/PrecisionPipeline.h"
#include "amp/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::amp;

std::string mlir::amp::unknownOptionValueMessage(
    StringRef name, const llvm::cl::generic_parser_base &parser, StringRef text,
    StringRef optionPrefix) {
  std::string message;
  llvm::raw_string_ostream os(message);
  os << optionPrefix << name << "=" << text << " is not one of ";
  llvm::interleave(
      llvm::seq(parser.getNumOptions()), os,
      [&](unsigned i) { os << parser.getOption(i); }, ", ");
  return message;
}

//===----------------------------------------------------------------------===//
// Checking the options
//===----------------------------------------------------------------------===//

namespace {
/// Checks the options one by one; the first failure leaves its message.
class OptionChecker {
public:
  OptionChecker(StringRef prefix, std::string &message)
      : prefix(prefix), message(message) {}

  /// `value` must be finite and within [low, high]: a non-finite value
  /// would reach the generated code.
  OptionChecker &range(StringRef name, double value, double low, double high,
                       StringRef expected) {
    if (failed || (std::isfinite(value) && value >= low && value <= high))
      return *this;
    char text[40];
    snprintf(text, sizeof(text), "%g", value);
    return fail(Twine(prefix) + name + "=" + text +
                " is out of range: expected " + expected);
  }

  OptionChecker &atLeastOne(StringRef name, int64_t value) {
    if (failed || value >= 1)
      return *this;
    return fail(Twine(prefix) + name + "=" + Twine(value) +
                " is out of range: expected at least 1");
  }

  OptionChecker &fail(const Twine &text) {
    if (!failed)
      message = text.str();
    failed = true;
    return *this;
  }

  bool failed = false;
  StringRef prefix;

private:
  std::string &message;
};

/// `chip` must name an architecture that LLVM's NVPTX backend knows (an
/// unknown one crashes its code generator) and that CUDA 13 still builds
/// for (sm_75 and newer).
void checkChip(OptionChecker &check, StringRef chip) {
  unsigned number = 0;
  std::string option = (check.prefix + "chip=" + chip).str();
  if (!chip.starts_with("sm_") || chip.drop_front(3).getAsInteger(10, number))
    check.fail(option + " is not an NVIDIA architecture such as sm_90");
  else if (!isNVPTXChip(chip))
    check.fail(option + " is not an architecture LLVM " + LLVM_VERSION_STRING +
               " can generate code for");
  else if (number < 75)
    check.fail(option + " is older than the CUDA 13 toolkit supports (sm_75 "
                        "and newer)");
}
} // namespace

/// Micro-batches an f32 counter still counts exactly.
constexpr int64_t kMaxAccumulate = int64_t(1) << 24;

LogicalResult TrainingPipelineOptions::verify(StringRef optionPrefix,
                                              std::string &message) const {
  OptionChecker check(optionPrefix, message);
  checkChip(check, chip);
  // --chip is the GPU's; the emulated device takes --allow-tf32 only.
  bool chipGiven = chip.hasValue();
  if (target != TrainingTarget::CUDA && (chipGiven || allowTF32) &&
      !(target == TrainingTarget::CUDAEmulator && !chipGiven)) {
    std::string p = optionPrefix.str();
    check.fail(p + "chip and " + p + "allow-tf32 apply to " + p +
               "target=cuda only (" + p + "allow-tf32 also to cuda-emulator)");
  }
  if (target == TrainingTarget::CPU && !costReport.empty())
    check.fail(optionPrefix.str() +
               "cost-report applies to the GPU targets (cuda, cuda-emulator)");
  // Hyper-parameters and the loss scale are f32 tensors in the model.
  constexpr double kMaxF32 = std::numeric_limits<float>::max();
  constexpr double kMinF32 = std::numeric_limits<float>::denorm_min();
  constexpr StringLiteral kNonNegative = "a finite f32 value >= 0";
  check.range("lr", learningRate, 0, kMaxF32, kNonNegative)
      .range("momentum", momentum, 0, kMaxF32, kNonNegative)
      .range("weight-decay", weightDecay, 0, kMaxF32, kNonNegative)
      .range("max-grad-norm", maxGradNorm, 0, kMaxF32,
             "a finite f32 value >= 0 (0: no clipping)")
      .range("init-scale", initScale, kMinF32, kMaxF32,
             "a positive, finite f32 value")
      .range("bucket-cap-mb", bucketCapMB, 1e-6, 1e6,
             "a number of MiB in (0, 1e6]")
      .atLeastOne("accumulate", accumulate)
      .atLeastOne("growth-interval", growthInterval)
      .atLeastOne("hysteresis", hysteresis);
  if (fp8History < 1)
    check.fail(optionPrefix.str() +
               "fp8-history=" + std::to_string(int64_t(fp8History)) +
               " is out of range: expected at least 1");
  if (fp8Margin < 0 || fp8Margin > 64)
    check.fail(optionPrefix.str() +
               "fp8-margin=" + std::to_string(int64_t(fp8Margin)) +
               " is out of range: expected 0 to 64");
  // Each rank would scale by its own amaxes and quantize differently: the
  // replicas would drift apart. Refused until the amaxes are max-reduced.
  if (dataParallel && precision == TrainingPrecision::FP8)
    check.fail(optionPrefix.str() + "precision=fp8 does not support " +
               optionPrefix.str() +
               "data-parallel yet (the FP8 scaling "
               "state is not reduced across ranks)");
  // The micro-batch counter of amp-accumulate-gradients is an f32.
  if (accumulate > kMaxAccumulate)
    check.fail(optionPrefix.str() +
               "accumulate=" + std::to_string(int64_t(accumulate)) +
               " is out of range: expected at most 16777216 (2^24)");
#ifndef AMP_HAS_MPI
  if (dataParallel)
    check.fail(optionPrefix.str() +
               "data-parallel needs MPI, and amp was built without it "
               "(install libopenmpi-dev and reconfigure)");
#endif
  return failure(check.failed);
}

//===----------------------------------------------------------------------===//
// The training step
//===----------------------------------------------------------------------===//

namespace {
/// Runs amp-autodiff on the forward model when the module has no training
/// step yet (a module with a step keeps it as written).
struct EnsureTrainingStepPass
    : public PassWrapper<EnsureTrainingStepPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(EnsureTrainingStepPass)

  explicit EnsureTrainingStepPass(const AMPAutodiffPassOptions &options)
      : autodiff(ModuleOp::getOperationName()) {
    autodiff.addPass(createAMPAutodiffPass(options));
  }

  StringRef getArgument() const override { return "amp-ensure-training-step"; }
  StringRef getDescription() const override {
    return "Run amp-autodiff when the module has no training step";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    autodiff.getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (findTrainingStep(module))
      return;
    if (!findForward(module)) {
      module.emitError() << "the module " << kNoTrainingGraphMessage;
      return signalPassFailure();
    }
    if (failed(runPipeline(autodiff, module)))
      return signalPassFailure();
    if (!findTrainingStep(module)) {
      module.emitError() << "amp-autodiff made no training step";
      return signalPassFailure();
    }
  }

  OpPassManager autodiff;
};

void addAutodiff(OpPassManager &pm, const TrainingPipelineOptions &options) {
  AMPAutodiffPassOptions autodiff;
  autodiff.optimizer = options.optimizer;
  autodiff.loss = options.loss;
  autodiff.momentum = options.momentum;
  autodiff.weightDecay = options.weightDecay;
  autodiff.maxGradNorm = options.maxGradNorm;
  pm.addPass(std::make_unique<EnsureTrainingStepPass>(autodiff));
}

/// fp32 steps are scaled only when asked to (loss-scale=dynamic|static);
/// fp16 and bf16 go through amp-pipeline at the options' Apex level.
void addPrecision(OpPassManager &pm, const TrainingPipelineOptions &options) {
  if (options.precision == TrainingPrecision::FP32) {
    if (options.lossScale != LossScalingMode::Dynamic &&
        options.lossScale != LossScalingMode::Static)
      return;
    AMPLossScalingPassOptions scaling;
    scaling.mode = options.lossScale;
    scaling.initScale = options.initScale;
    scaling.growthInterval = options.growthInterval;
    scaling.hysteresis = options.hysteresis;
    scaling.errorAtMin = options.errorAtMin;
    pm.addPass(createAMPLossScalingPass(scaling));
    return;
  }
  AMPPipelineOptions amp;
  amp.optLevel = options.optLevel;
  amp.precision =
      options.precision == TrainingPrecision::FP16  ? LowPrecision::FP16
      : options.precision == TrainingPrecision::FP8 ? LowPrecision::FP8
                                                    : LowPrecision::BF16;
  amp.fp8History = options.fp8History;
  amp.fp8Margin = options.fp8Margin;
  amp.fp8Select = options.fp8Select;
  amp.policy = options.policy;
  amp.lossScaling = options.lossScale;
  amp.initScale = options.initScale;
  amp.growthInterval = options.growthInterval;
  amp.hysteresis = options.hysteresis;
  amp.errorAtMin = options.errorAtMin;
  // O2 is Apex's fp32 master weights with a low-precision model: the
  // optimizer updates also write the low-precision copies, which the
  // runtime initialises from the parameters (AMP_INIT_COPY_OF).
  amp.masterWeights = options.optLevel == OptLevel::O2;
  buildAMPPrecisionPipeline(pm, amp);
}
} // namespace

void mlir::amp::buildTrainingStepPipeline(
    OpPassManager &pm, const TrainingPipelineOptions &options) {
  // Before autodiff: the step then keeps the attention's statistics, not
  // its scores.
  pm.addPass(createAMPRaiseAttentionPass());
  addAutodiff(pm, options);
  addPrecision(pm, options);
  // After loss scaling: the sums are taken before the unscale and the
  // overflow check, as GradScaler sees accumulated gradients.
  if (options.accumulate > 1) {
    AMPAccumulateGradientsPassOptions accumulation;
    accumulation.microBatches = options.accumulate;
    pm.addPass(createAMPAccumulateGradientsPass(accumulation));
  }
  // After accumulation: the accumulated sums are reduced once per update.
  if (options.dataParallel) {
    AMPDataParallelPassOptions dataParallel;
    dataParallel.bucketCapMB = options.bucketCapMB;
    dataParallel.reduction = options.dpReduction;
    pm.addPass(createAMPDataParallelPass(dataParallel));
  }
  AMPEvalModePassOptions evalMode;
  evalMode.loss = options.loss;
  pm.addPass(createAMPEvalModePass(evalMode));
  // Last: the step and the forward model in evaluation mode are final.
  pm.addPass(createAMPCheckIndicesPass());
}

void mlir::amp::buildTargetPipeline(OpPassManager &pm,
                                    const TrainingPipelineOptions &options) {
  if (options.target == TrainingTarget::CPU) {
    CPUPipelineOptions cpu;
    cpu.modelABI = options.modelABI;
    // Model libraries link the runtime's threads (amp_cpu_parallel_for).
    cpu.parallelKernels = options.modelABI;
    buildCPUPipeline(pm, cpu);
    return;
  }
  GPUPipelineOptions gpu;
  gpu.modelABI = options.modelABI;
  gpu.emulator = options.target == TrainingTarget::CUDAEmulator;
  gpu.emulatorLinker = options.linker;
  gpu.chip = options.chip;
  gpu.allowTF32 = options.allowTF32;
  gpu.costReport = options.costReport;
  gpu.costDevice = options.costDevice;
  buildGPUPipeline(pm, gpu);
}

void mlir::amp::buildTrainingPipeline(OpPassManager &pm,
                                      const TrainingPipelineOptions &options) {
  buildTrainingStepPipeline(pm, options);
  if (options.lower)
    buildTargetPipeline(pm, options);
}

void mlir::amp::registerAMPTrainingPipeline() {
  registerPassPipeline(
      "amp-training-pipeline",
      "The whole compile flow: training step, mixed precision, loss scaling, "
      "evaluation mode and lowering for a target",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        TrainingPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        std::string message;
        if (failed(options.verify("", message)))
          return errorHandler("amp-training-pipeline: " + message);
        buildTrainingPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> printOptions) {
        printOptions(TrainingPipelineOptions());
      });
}

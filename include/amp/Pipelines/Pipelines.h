//===- Pipelines.h - amp pass pipelines -------------------------*- C++ -*-===//

#ifndef AMP_PIPELINES_PIPELINES_H
#define AMP_PIPELINES_PIPELINES_H

#include "amp/Dialect/AMP/IR/AMPEnums.h"
#include "amp/Dialect/AMP/Transforms/OptionKinds.h"

#include "mlir/Pass/PassOptions.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/CommandLine.h"

#include <cstdio>
#include <string>
#include <type_traits>

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
  PassOptions::Option<bool> blas{
      *this, "blas",
      llvm::cl::desc("Call the BLAS's sgemm for f32 matrix products "
                     "(amp-cpu-contractions-to-blas, amp_cpu_sgemm); the "
                     "lowered code then needs amp's model runtime and OpenBLAS "
                     "linked or loaded"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> dnnlConvolutions{
      *this, "dnnl-convolutions",
      llvm::cl::desc("With blas: f32 convolutions and their input "
                     "gradients as oneDNN calls (amp-cpu-convolutions-to-dnnl;"
                     " off: on AVX2 CPUs a model drifted from PyTorch, "
                     "docs/Lowering.md)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fuse chains of elementwise ops into one loop nest "
                     "(amp-fuse-elementwise with fuse-into-reductions=false): "
                     "one pass over memory instead of one per op, the same "
                     "arithmetic"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> outlineKernels{
      *this, "outline-kernels",
      llvm::cl::desc("Move each loop nest into its own function, one per "
                     "distinct nest (amp-cpu-outline-kernels), so LLVM "
                     "compiles many small functions instead of one huge one"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> parallelKernels{
      *this, "parallel-kernels",
      llvm::cl::desc("Split large kernels' outermost parallel dimension into "
                     "tasks run by the model runtime's threads "
                     "(amp-cpu-parallel-kernels, amp-cpu-dispatch-parallel; "
                     "needs outline-kernels and the runtime's "
                     "amp_cpu_parallel_for, which model libraries link)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("Compute f32 erf, exp, log and tanh with polynomial "
                     "approximations (amp-cpu-approximate-math, about 2 "
                     "ulps) that loops vectorize, instead of calls to libm"),
      llvm::cl::init(true)};
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
  PassOptions::Option<std::string> costReport{
      *this, "cost-report",
      llvm::cl::desc("Write the step's static cost report (JSON, modeled "
                     "times; docs/CostModel.md) to this file"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> costDevice{
      *this, "cost-device",
      llvm::cl::desc("Device model of the cost report (data/devices.json)"),
      llvm::cl::init("h200")};
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

/// Tensors to buffers, as both backends do it: one-shot bufferization with
/// function boundaries and identity layouts; with `modelABI`, state updated
/// in place around it (amp-state-update-destinations before,
/// amp-state-updates-in-place after); with `resultsToOutParams`, the
/// remaining results (public functions too) become out-parameters.
void buildStepBufferization(OpPassManager &pm, bool modelABI,
                            bool resultsToOutParams);

/// Where the training step runs.
enum class TrainingTarget { CPU, CUDA, CUDAEmulator };
/// The precision the step computes in (fp32: no mixed precision).
enum class TrainingPrecision { FP32, FP16, BF16, FP8 };

/// One option of TrainingPipelineOptions whatever its type, as a command
/// line or the Python package sees it: amp-compile makes its flags and the
/// Python extension its keywords' choices and defaults from these, so that
/// each option's name, choices and default are written once, in
/// TrainingPipelineOptions.
class TrainingOptionBase {
public:
  enum class Kind { Flag, Integer, Number, Text, Choice };

  virtual ~TrainingOptionBase() = default;
  virtual llvm::cl::Option &getOption() = 0;
  virtual Kind getKind() const = 0;
  /// The names a Choice option takes, in declaration order.
  virtual SmallVector<StringRef> getChoices() = 0;
  /// The value as text that parses back to it: true or false, a choice's
  /// name, a number with all its digits.
  virtual std::string getValueText() = 0;
  /// Sets the value from `text` (parseOptionValue).
  virtual LogicalResult parse(StringRef text, StringRef optionPrefix,
                              std::string &message) = 0;
};

/// A pass pipeline option that TrainingPipelineOptions lists
/// (getOptionList) in declaration order.
template <typename T>
class TrainingOption : public mlir::detail::PassOptions::Option<T>,
                       public TrainingOptionBase {
  using Base = mlir::detail::PassOptions::Option<T>;

public:
  template <typename ParentT, typename... Args>
  TrainingOption(ParentT &parent, StringRef arg, Args &&...args)
      : Base(parent, arg, std::forward<Args>(args)...) {
    parent.optionList.push_back(this);
  }
  using Base::operator=;

  llvm::cl::Option &getOption() override { return *this; }
  Kind getKind() const override {
    if constexpr (std::is_same_v<T, bool>)
      return Kind::Flag;
    else if constexpr (std::is_enum_v<T>)
      return Kind::Choice;
    else if constexpr (std::is_floating_point_v<T>)
      return Kind::Number;
    else if constexpr (std::is_integral_v<T>)
      return Kind::Integer;
    else
      return Kind::Text;
  }
  SmallVector<StringRef> getChoices() override {
    SmallVector<StringRef> choices;
    if constexpr (std::is_enum_v<T>) {
      auto &parser = this->getParser();
      for (unsigned i = 0, e = parser.getNumOptions(); i != e; ++i)
        choices.push_back(parser.getOption(i));
    }
    return choices;
  }
  std::string getValueText() override {
    const T &value = this->getValue();
    if constexpr (std::is_same_v<T, bool>) {
      return value ? "true" : "false";
    } else if constexpr (std::is_enum_v<T>) {
      return this->getParser().findArgStrForValue(value).value_or("").str();
    } else if constexpr (std::is_floating_point_v<T>) {
      // 17 digits: the value reads back exactly.
      char text[40];
      snprintf(text, sizeof(text), "%.17g", double(value));
      return text;
    } else if constexpr (std::is_integral_v<T>) {
      return std::to_string(value);
    } else {
      return value;
    }
  }
  LogicalResult parse(StringRef text, StringRef optionPrefix,
                      std::string &message) override;
};

/// The options of the whole compile flow: import -> training step ->
/// precision -> loss scaling -> lowering for a target. amp-compile's flags,
/// amp-opt's `amp-training-pipeline` and the Python package set these; each
/// checks them once with verify(). Each option is written here only: its
/// name, choices, default and description (getOptionList gives them to
/// amp-compile's flags and the Python package's keywords).
struct TrainingPipelineOptions
    : public PassPipelineOptions<TrainingPipelineOptions> {
  /// Every option below, in declaration order (TrainingOption adds itself).
  ArrayRef<TrainingOptionBase *> getOptionList() const { return optionList; }

private:
  template <typename T> friend class TrainingOption;
  SmallVector<TrainingOptionBase *> optionList;

public:
  TrainingOption<TrainingTarget> target{
      *this, "target", llvm::cl::desc("Where the training step runs"),
      llvm::cl::init(TrainingTarget::CPU),
      llvm::cl::values(
          clEnumValN(TrainingTarget::CPU, "cpu", "the host CPU"),
          clEnumValN(TrainingTarget::CUDA, "cuda", "an NVIDIA GPU"),
          clEnumValN(TrainingTarget::CUDAEmulator, "cuda-emulator",
                     "the GPU code on an emulated CUDA device"))};
  TrainingOption<std::string> chip{
      *this, "chip", llvm::cl::desc("GPU architecture for target=cuda"),
      llvm::cl::init("sm_90")};
  TrainingOption<bool> allowTF32{
      *this, "allow-tf32",
      llvm::cl::desc("Let fp32 GEMMs use TF32 tensor cores (target=cuda)"),
      llvm::cl::init(false)};
  TrainingOption<std::string> costReport{
      *this, "cost-report",
      llvm::cl::desc("target=cuda or cuda-emulator: write the step's static "
                     "cost report (JSON, modeled times) to this file"),
      llvm::cl::value_desc("FILE"), llvm::cl::init("")};
  TrainingOption<std::string> costDevice{
      *this, "cost-device",
      llvm::cl::desc("Device model of the cost report (data/devices.json)"),
      llvm::cl::init("h200")};
  TrainingOption<std::string> cpu{
      *this, "cpu",
      llvm::cl::desc("CPU the library's code (for GPU targets its host code) "
                     "is compiled for: empty for a portable level "
                     "(x86-64-v3: AVX2 and FMA), native for this machine, "
                     "or an LLVM CPU name (x86-64-v2, skylake, znver3...)"),
      llvm::cl::value_desc("NAME"), llvm::cl::init("")};
  TrainingOption<std::string> linker{
      *this, "cxx",
      llvm::cl::desc("C++ compiler that links (the emulated device's kernel "
                     "objects, amp-compile's library)"),
      llvm::cl::init("c++")};
  TrainingOption<TrainingPrecision> precision{
      *this, "precision", llvm::cl::desc("The precision the step computes in"),
      llvm::cl::init(TrainingPrecision::FP32),
      llvm::cl::values(
          clEnumValN(TrainingPrecision::FP32, "fp32", "float32"),
          clEnumValN(TrainingPrecision::FP16, "fp16", "float16"),
          clEnumValN(TrainingPrecision::BF16, "bf16", "bfloat16"),
          clEnumValN(TrainingPrecision::FP8, "fp8",
                     "bfloat16 with contractions on FP8 (e4m3 forward, e5m2 "
                     "gradients, delayed scaling)"))};
  TrainingOption<int64_t> fp8History{
      *this, "fp8-history",
      llvm::cl::desc("fp8: steps of amax history per quantized tensor"),
      llvm::cl::init(1024)};
  TrainingOption<Fp8Selection> fp8Select{
      *this, "fp8-select",
      llvm::cl::desc("fp8: cost (the contractions the cost model says run "
                     "faster in FP8) or all (every one whose sizes fit)"),
      llvm::cl::init(Fp8Selection::Cost), fp8SelectionValues()};
  TrainingOption<int64_t> fp8Margin{
      *this, "fp8-margin",
      llvm::cl::desc("fp8: scales are divided by 2^margin"), llvm::cl::init(0)};
  TrainingOption<OptLevel> optLevel{
      *this, "opt-level", llvm::cl::desc("Apex-style AMP level for fp16/bf16"),
      llvm::cl::init(OptLevel::O1), optLevelValues()};
  TrainingOption<OptimizerKind> optimizer{
      *this, "optimizer", llvm::cl::desc("Optimizer for a forward model"),
      llvm::cl::init(OptimizerKind::SGD),
      optimizerKindValues(/*withNone=*/false)};
  TrainingOption<LossKind> loss{
      *this, "loss",
      llvm::cl::desc("Loss to append to a model that returns logits"),
      llvm::cl::init(LossKind::None), lossKindValues()};
  TrainingOption<std::string> policy{
      *this, "policy",
      llvm::cl::desc("Precision policy file (JSON or YAML: lists, pins, level, "
                     "lp-norm; docs/Precision.md section 6) for fp16/bf16"),
      llvm::cl::value_desc("FILE"), llvm::cl::init("")};
  TrainingOption<double> learningRate{*this, "lr",
                                      llvm::cl::desc("Initial learning rate"),
                                      llvm::cl::init(0.01)};
  TrainingOption<double> momentum{
      *this, "momentum", llvm::cl::desc("SGD momentum"), llvm::cl::init(0.0)};
  TrainingOption<double> weightDecay{*this, "weight-decay",
                                     llvm::cl::desc("Weight decay"),
                                     llvm::cl::init(0.0)};
  TrainingOption<double> maxGradNorm{
      *this, "max-grad-norm",
      llvm::cl::desc("Clip gradients to this global norm (0: no clipping)"),
      llvm::cl::init(0.0)};
  TrainingOption<int64_t> accumulate{
      *this, "accumulate",
      llvm::cl::desc("Micro-batches per optimizer update: gradients are "
                     "accumulated inside the step (amp-accumulate-gradients; "
                     "1: none)"),
      llvm::cl::init(1)};
  TrainingOption<bool> dataParallel{
      *this, "data-parallel",
      llvm::cl::desc("Data-parallel training: gradients and found_inf "
                     "all-reduced across MPI ranks (amp-data-parallel; run "
                     "with mpirun -np N amp-run; docs/DataParallel.md)"),
      llvm::cl::init(false)};
  TrainingOption<double> bucketCapMB{
      *this, "bucket-cap-mb",
      llvm::cl::desc("With data-parallel: the largest bucket of gradients "
                     "per all-reduce, in MiB"),
      llvm::cl::init(25.0)};
  TrainingOption<ReductionKind> dpReduction{
      *this, "dp-reduction",
      llvm::cl::desc("With data-parallel: how the ranks' gradients combine"),
      llvm::cl::init(ReductionKind::Mean),
      llvm::cl::values(clEnumValN(ReductionKind::Mean, "mean", "mean, as DDP"),
                       clEnumValN(ReductionKind::Sum, "sum", "sum"))};
  TrainingOption<LossScalingMode> lossScale{
      *this, "loss-scale", llvm::cl::desc("Loss scaling"),
      llvm::cl::init(LossScalingMode::Auto), lossScalingModeValues()};
  TrainingOption<double> initScale{
      *this, "init-scale", llvm::cl::desc("Initial (or static) loss scale"),
      llvm::cl::init(65536.0)};
  TrainingOption<int64_t> growthInterval{
      *this, "growth-interval",
      llvm::cl::desc("Clean steps before the dynamic scale grows"),
      llvm::cl::init(2000)};
  TrainingOption<int64_t> hysteresis{
      *this, "hysteresis",
      llvm::cl::desc("Overflows before the scale backs off"),
      llvm::cl::init(1)};
  TrainingOption<bool> errorAtMin{
      *this, "error-at-min",
      llvm::cl::desc("Fail a step when the scale is stuck at its minimum"),
      llvm::cl::init(false)};
  TrainingOption<bool> modelABI{
      *this, "model-abi",
      llvm::cl::desc("Lower public functions for the model ABI of "
                     "amp-compile (bare pointers, results as out-parameters)"),
      llvm::cl::init(false)};
  TrainingOption<bool> lower{
      *this, "lower",
      llvm::cl::desc("Lower to the LLVM dialect for the target (false: stop "
                     "at the training step in the amp dialect)"),
      llvm::cl::init(true)};

  /// Checks the values together (ranges, the chip, options that apply to
  /// one target only); on failure `message` names the option, spelled with
  /// `optionPrefix` ("--" for a command line).
  LogicalResult verify(StringRef optionPrefix, std::string &message) const;
};

/// "NAME=TEXT is not one of A, B, C" for the names `parser` knows.
std::string
unknownOptionValueMessage(StringRef name,
                          const llvm::cl::generic_parser_base &parser,
                          StringRef text, StringRef optionPrefix);

/// Sets `option` from `text` as a command line or a pipeline string would
/// (hasValue() is then true). Fails with "NAME=TEXT is not one of A, B, C"
/// in `message` for a name an enum option does not know, NAME spelled with
/// `optionPrefix`.
template <typename OptionT>
LogicalResult parseOptionValue(OptionT &option, StringRef text,
                               StringRef optionPrefix, std::string &message) {
  auto &parser = option.getParser();
  if constexpr (std::is_base_of_v<llvm::cl::generic_parser_base,
                                  std::decay_t<decltype(parser)>>) {
    if (parser.findOption(text) == parser.getNumOptions()) {
      message =
          unknownOptionValueMessage(option.ArgStr, parser, text, optionPrefix);
      return failure();
    }
  }
  if (llvm::cl::ProvidePositionalOption(&option, text, 0)) {
    message =
        (optionPrefix + option.ArgStr + "=" + text + " is not a valid value")
            .str();
    return failure();
  }
  return success();
}

template <typename T>
LogicalResult TrainingOption<T>::parse(StringRef text, StringRef optionPrefix,
                                       std::string &message) {
  return parseOptionValue(*this, text, optionPrefix, message);
}

/// The training step and the target lowering, the two halves of
/// buildTrainingPipeline for callers that work between them (amp-compile
/// describes the model for its ABI there).
void buildTrainingStepPipeline(OpPassManager &pm,
                               const TrainingPipelineOptions &options);
void buildTargetPipeline(OpPassManager &pm,
                         const TrainingPipelineOptions &options);

/// The whole flow, for verified options: a training step (amp-autodiff of
/// the forward model unless the module has a step), mixed precision (assign,
/// casts), loss scaling and master weights, the forward model in evaluation
/// mode, then (with `lower`) the CPU or GPU pipeline.
void buildTrainingPipeline(OpPassManager &pm,
                           const TrainingPipelineOptions &options);

/// What the training-step stage reports for a module with no graph to train,
/// after the module's name.
inline constexpr StringLiteral kNoTrainingGraphMessage =
    "has neither a training step (amp.graph = #amp.graph<training_step>) nor "
    "a forward model (#amp.graph<forward>)";

/// Registers `amp-cpu-pipeline` and `amp-gpu-pipeline`, then
/// `amp-training-pipeline` (registerAMPTrainingPipeline), with the pass
/// registry.
void registerAMPPipelines();
void registerAMPTrainingPipeline();

} // namespace mlir::amp

#endif // AMP_PIPELINES_PIPELINES_H

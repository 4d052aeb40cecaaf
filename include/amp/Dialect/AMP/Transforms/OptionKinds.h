//===- OptionKinds.h - the choices of the amp passes' options ---*- C++ -*-===//
//
// The enums behind the choice-valued options of the amp passes and
// pipelines, and their names: each list of names is written here once and
// used by the passes' options (the .td files), amp-pipeline and
// amp-training-pipeline (Pipelines.h), so that a pipeline hands a choice to
// a pass as the value itself, never as text to parse again.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_OPTIONKINDS_H
#define AMP_DIALECT_AMP_TRANSFORMS_OPTIONKINDS_H

#include "llvm/Support/CommandLine.h"

namespace mlir::amp {

/// The optimizer that updates the parameters; None returns the gradients.
enum class OptimizerKind { SGD, AdamW, None };
/// The loss amp-autodiff appends to a forward model that returns logits.
enum class LossKind { None, CrossEntropy, MSE };
/// Auto: dynamic when the step computes in f16, none otherwise.
enum class LossScalingMode { Auto, Dynamic, Static, None };
/// The low precision of amp-assign-precision; Auto: the policy file's, else
/// bf16. FP8 (amp-pipeline only): bf16, with the contractions on FP8
/// operands (amp-fp8).
enum class LowPrecision { Auto, FP16, BF16, FP8 };
/// The level of amp-assign-precision (PrecisionPolicy.h's PrecisionLevel);
/// Auto: the policy file's, else default.
enum class LevelChoice {
  Auto,
  Default,
  TensorCoresOnly,
  UnsafeForceAll,
  InferAsDeny
};
/// Which contractions amp-fp8 runs in FP8: those the cost model says gain,
/// or all that fit.
enum class Fp8Selection { Cost, All };
/// Apex's optimization levels (docs/Precision.md, section 7).
enum class OptLevel { O0, O1, O2, O3 };
/// The precision report's format; None: no report.
enum class ReportFormat { None, Text, JSON, Dot };

/// sgd, adamw and (`withNone`: gradients only) none.
inline llvm::cl::ValuesClass optimizerKindValues(bool withNone) {
  llvm::cl::OptionEnumValue sgd = clEnumValN(OptimizerKind::SGD, "sgd", "SGD");
  llvm::cl::OptionEnumValue adamw = clEnumValN(
      OptimizerKind::AdamW, "adamw", "AdamW (decoupled weight decay)");
  llvm::cl::OptionEnumValue none =
      clEnumValN(OptimizerKind::None, "none", "gradients only");
  return withNone ? llvm::cl::ValuesClass({sgd, adamw, none})
                  : llvm::cl::ValuesClass({sgd, adamw});
}

inline llvm::cl::ValuesClass lossKindValues() {
  return llvm::cl::values(
      clEnumValN(LossKind::None, "none", "the model returns its loss"),
      clEnumValN(LossKind::CrossEntropy, "cross_entropy",
                 "integer labels, mean"),
      clEnumValN(LossKind::MSE, "mse", "mean squared error"));
}

inline llvm::cl::ValuesClass lossScalingModeValues() {
  return llvm::cl::values(
      clEnumValN(LossScalingMode::Auto, "auto",
                 "dynamic for fp16, none otherwise"),
      clEnumValN(LossScalingMode::Dynamic, "dynamic", "dynamic"),
      clEnumValN(LossScalingMode::Static, "static", "static"),
      clEnumValN(LossScalingMode::None, "none", "none"));
}

/// auto, fp16, bf16 and (`withFP8`: amp-pipeline) fp8.
inline llvm::cl::ValuesClass lowPrecisionValues(bool withFP8) {
  llvm::cl::OptionEnumValue automatic =
      clEnumValN(LowPrecision::Auto, "auto", "the policy file's, else bf16");
  llvm::cl::OptionEnumValue fp16 =
      clEnumValN(LowPrecision::FP16, "fp16", "float16");
  llvm::cl::OptionEnumValue bf16 =
      clEnumValN(LowPrecision::BF16, "bf16", "bfloat16");
  llvm::cl::OptionEnumValue fp8 = clEnumValN(
      LowPrecision::FP8, "fp8", "bf16 with contractions on FP8 (amp-fp8)");
  return withFP8 ? llvm::cl::ValuesClass({automatic, fp16, bf16, fp8})
                 : llvm::cl::ValuesClass({automatic, fp16, bf16});
}

inline llvm::cl::ValuesClass fp8SelectionValues() {
  return llvm::cl::values(
      clEnumValN(Fp8Selection::Cost, "cost",
                 "where the cost model says FP8 is faster"),
      clEnumValN(Fp8Selection::All, "all", "every contraction that fits"));
}

inline llvm::cl::ValuesClass levelChoiceValues() {
  return llvm::cl::values(
      clEnumValN(LevelChoice::Auto, "auto", "the policy file's, else default"),
      clEnumValN(LevelChoice::Default, "default", "the lists as they are"),
      clEnumValN(LevelChoice::TensorCoresOnly, "tensor-cores-only",
                 "only tensor-core ops low"),
      clEnumValN(LevelChoice::UnsafeForceAll, "unsafe-force-all",
                 "every op low"),
      clEnumValN(LevelChoice::InferAsDeny, "infer-as-deny", "INFER ops f32"));
}

inline llvm::cl::ValuesClass optLevelValues() {
  return llvm::cl::values(
      clEnumValN(OptLevel::O0, "O0", "fp32"),
      clEnumValN(OptLevel::O1, "O1", "autocast"),
      clEnumValN(OptLevel::O2, "O2",
                 "low-precision model, fp32 master weights"),
      clEnumValN(OptLevel::O3, "O3", "everything low"));
}

/// text, json and dot; with `withNone`, none (no report) first.
inline llvm::cl::ValuesClass reportFormatValues(bool withNone) {
  llvm::cl::OptionEnumValue none =
      clEnumValN(ReportFormat::None, "none", "no report");
  llvm::cl::OptionEnumValue text =
      clEnumValN(ReportFormat::Text, "text", "text");
  llvm::cl::OptionEnumValue json =
      clEnumValN(ReportFormat::JSON, "json", "JSON");
  llvm::cl::OptionEnumValue dot =
      clEnumValN(ReportFormat::Dot, "dot", "Graphviz dot");
  return withNone ? llvm::cl::ValuesClass({none, text, json, dot})
                  : llvm::cl::ValuesClass({text, json, dot});
}

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_TRANSFORMS_OPTIONKINDS_H

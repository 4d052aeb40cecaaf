//===- PrecisionPipeline.h - amp-pipeline (Apex O0-O3) ----------*- C++ -*-===//
//
// `--amp-pipeline="opt-level=O0|O1|O2|O3 precision=fp16|bf16 policy=FILE
// report=none|text|json|dot report-output=-"` runs the mixed-precision passes
// at Apex's optimization levels (docs/Precision.md, section 7):
//
//   O0  fp32: nothing changes.
//   O1  autocast: ALLOW ops low, DENY ops f32, INFER/CLEAR painted and
//       chosen by the min-cut; f32 weights cast once per step.
//   O2  low-precision model with f32 master weights and f32 batch norm:
//       every op low except batch_norm (and its gradient) and the losses;
//       the f32 parameters are cast once per step and updated in f32.
//   O3  everything low (level unsafe-force-all); statistics and the loss
//       value stay f32 by type.
//
// `precision=fp8` is bf16 with the contractions on FP8 operands (`amp-fp8`,
// options `fp8-history` and `fp8-margin`). Then loss scaling
// (`amp-loss-scaling`, docs/LossScaling.md): `loss-scaling=auto` (the
// default) scales dynamically when the step computes in f16 or fp8 (the
// scaler's skip on non-finite gradients is FP8's overflow handling) and not
// at all in bf16; `init-scale`, `growth-factor`,
// `backoff-factor`, `growth-interval`, `hysteresis`, `min-scale`,
// `max-scale` and `error-at-min` are the pass's options. With
// `master-weights=true` the optimizer updates also produce the
// low-precision copies of f32 master weights for the next step
// (`amp-master-weights`).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_PRECISIONPIPELINE_H
#define AMP_DIALECT_AMP_TRANSFORMS_PRECISIONPIPELINE_H

#include "amp/Dialect/AMP/Transforms/OptionKinds.h"

#include "mlir/Pass/PassOptions.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mlir::amp {

struct AMPPipelineOptions : public PassPipelineOptions<AMPPipelineOptions> {
  Option<OptLevel> optLevel{*this, "opt-level",
                            llvm::cl::desc("O0, O1, O2 or O3 (Apex)"),
                            llvm::cl::init(OptLevel::O1), optLevelValues()};
  Option<LowPrecision> precision{
      *this, "precision",
      llvm::cl::desc("fp16, bf16, fp8 (bf16 with FP8 contractions) or auto "
                     "(the policy file's, else bf16)"),
      llvm::cl::init(LowPrecision::Auto), lowPrecisionValues(/*withFP8=*/true)};
  Option<int64_t> fp8History{
      *this, "fp8-history",
      llvm::cl::desc("fp8: steps of amax history per quantized tensor"),
      llvm::cl::init(1024)};
  Option<Fp8Selection> fp8Select{
      *this, "fp8-select",
      llvm::cl::desc("fp8: cost (contractions the cost model says gain) or "
                     "all"),
      llvm::cl::init(Fp8Selection::Cost), fp8SelectionValues()};
  Option<int64_t> fp8Margin{
      *this, "fp8-margin",
      llvm::cl::desc("fp8: scales are divided by 2^margin"), llvm::cl::init(0)};
  Option<std::string> policy{
      *this, "policy", llvm::cl::desc("Precision policy file (JSON or YAML)"),
      llvm::cl::init("")};
  Option<ReportFormat> report{*this, "report",
                              llvm::cl::desc("none, text, json or dot"),
                              llvm::cl::init(ReportFormat::None),
                              reportFormatValues(/*withNone=*/true)};
  Option<std::string> reportOutput{
      *this, "report-output",
      llvm::cl::desc("Where to write the report (- for stderr)"),
      llvm::cl::init("-")};
  Option<LossScalingMode> lossScaling{
      *this, "loss-scaling",
      llvm::cl::desc("auto (dynamic for fp16, none for bf16), dynamic, "
                     "static or none"),
      llvm::cl::init(LossScalingMode::Auto), lossScalingModeValues()};
  Option<double> initScale{*this, "init-scale",
                           llvm::cl::desc("Initial (or static) loss scale"),
                           llvm::cl::init(65536.0)};
  Option<double> growthFactor{*this, "growth-factor",
                              llvm::cl::desc("Loss-scale growth factor"),
                              llvm::cl::init(2.0)};
  Option<double> backoffFactor{*this, "backoff-factor",
                               llvm::cl::desc("Loss-scale back-off factor"),
                               llvm::cl::init(0.5)};
  Option<int64_t> growthInterval{
      *this, "growth-interval",
      llvm::cl::desc("Clean steps before the loss scale grows"),
      llvm::cl::init(2000)};
  Option<int64_t> hysteresis{
      *this, "hysteresis",
      llvm::cl::desc("Overflows before the loss scale backs off"),
      llvm::cl::init(1)};
  Option<double> minScale{*this, "min-scale",
                          llvm::cl::desc("Lowest loss scale"),
                          llvm::cl::init(1.0)};
  Option<double> maxScale{*this, "max-scale",
                          llvm::cl::desc("Highest loss scale"),
                          llvm::cl::init(16777216.0)};
  Option<bool> errorAtMin{
      *this, "error-at-min",
      llvm::cl::desc("Record an overflow at the minimum loss scale for the "
                     "runtime to report"),
      llvm::cl::init(false)};
  Option<bool> masterWeights{
      *this, "master-weights",
      llvm::cl::desc("Optimizer updates produce the low-precision copies of "
                     "f32 master weights for the next step"),
      llvm::cl::init(false)};
};

/// Adds the passes of `options.optLevel` to `pm`.
void buildAMPPrecisionPipeline(OpPassManager &pm,
                               const AMPPipelineOptions &options);

/// Registers `amp-pipeline`.
void registerAMPPrecisionPipelines();

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_TRANSFORMS_PRECISIONPIPELINE_H

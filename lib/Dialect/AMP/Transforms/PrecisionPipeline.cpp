//===- PrecisionPipeline.cpp - amp-pipeline (Apex O0-O3) ------------------===//

#include "amp/Dialect/AMP/Transforms/PrecisionPipeline.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::amp;

void mlir::amp::buildAMPPrecisionPipeline(OpPassManager &pm,
                                          const AMPPipelineOptions &options) {
  OptLevel level = options.optLevel;
  bool fp8 = options.precision == LowPrecision::FP8;
  if (level != OptLevel::O0) {
    AMPAssignPrecisionPassOptions assign;
    assign.precision =
        fp8 ? LowPrecision::BF16 : LowPrecision(options.precision);
    assign.policyFile = options.policy;
    if (level == OptLevel::O2) {
      // Apex O2: model.half() except batch norm (keep_batchnorm_fp32), f32
      // master weights, model outputs cast to f32 for the loss.
      assign.levelChoice = LevelChoice::UnsafeForceAll;
      assign.denyAdd = {"amp.batch_norm",    "amp.batch_norm_grad",
                        "amp.cross_entropy", "amp.cross_entropy_grad",
                        "amp.mse_loss",      "amp.mse_loss_grad"};
    } else if (level == OptLevel::O3) {
      assign.levelChoice = LevelChoice::UnsafeForceAll;
    }
    pm.addPass(createAMPAssignPrecisionPass(assign));
    pm.addPass(createAMPInsertCastsPass());
    if (fp8) {
      AMPFp8PassOptions fp8Options;
      fp8Options.history = options.fp8History;
      fp8Options.margin = options.fp8Margin;
      fp8Options.select = options.fp8Select;
      pm.addPass(createAMPFp8Pass(fp8Options));
    }
  }
  LossScalingMode lossScaling = options.lossScaling;
  // FP8's overflow (a non-finite amax reaching the gradients) skips the
  // step and backs off like fp16's.
  if (fp8 && lossScaling == LossScalingMode::Auto)
    lossScaling = LossScalingMode::Dynamic;
  // O0 is fp32: it scales only when asked to explicitly.
  if (lossScaling != LossScalingMode::None &&
      (level != OptLevel::O0 || lossScaling != LossScalingMode::Auto)) {
    AMPLossScalingPassOptions scaling;
    scaling.mode = lossScaling;
    scaling.initScale = options.initScale;
    scaling.growthFactor = options.growthFactor;
    scaling.backoffFactor = options.backoffFactor;
    scaling.growthInterval = options.growthInterval;
    scaling.hysteresis = options.hysteresis;
    scaling.minScale = options.minScale;
    scaling.maxScale = options.maxScale;
    scaling.errorAtMin = options.errorAtMin;
    pm.addPass(createAMPLossScalingPass(scaling));
  }
  if (options.masterWeights && level != OptLevel::O0)
    pm.addPass(createAMPMasterWeightsPass());
  if (options.report != ReportFormat::None) {
    AMPReportPassOptions reportOptions;
    reportOptions.format = options.report;
    reportOptions.output = options.reportOutput;
    pm.addPass(createAMPReportPass(reportOptions));
  }
}

void mlir::amp::registerAMPPrecisionPipelines() {
  registerPassPipeline(
      "amp-pipeline",
      "Automatic mixed precision at Apex's levels: opt-level=O0|O1|O2|O3 "
      "precision=fp16|bf16|fp8 policy=FILE report=none|text|json|dot "
      "loss-scaling=auto|dynamic|static|none master-weights=false",
      [](OpPassManager &pm, StringRef optionsText,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        AMPPipelineOptions options;
        if (failed(options.parseFromString(optionsText)))
          return failure();
        buildAMPPrecisionPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> printOptions) {
        printOptions(AMPPipelineOptions());
      });
}

//===- PrecisionPipeline.cpp - amp-pipeline (Apex O0-O3) ------------------===//

#include "amp/Dialect/AMP/Transforms/PrecisionPipeline.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::amp;

LogicalResult mlir::amp::buildAMPPrecisionPipeline(
    OpPassManager &pm, const AMPPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  StringRef level = options.optLevel;
  if (level != "O0" && level != "O1" && level != "O2" && level != "O3")
    return errorHandler("amp-pipeline: unknown opt-level '" + level +
                        "'; expected O0, O1, O2 or O3");
  StringRef report = options.report;
  if (report != "none" && report != "text" && report != "json" &&
      report != "dot")
    return errorHandler("amp-pipeline: unknown report '" + report +
                        "'; expected none, text, json or dot");

  if (level != "O0") {
    AMPAssignPrecisionPassOptions assign;
    assign.precision = options.precision;
    assign.policyFile = options.policy;
    if (level == "O2") {
      // Apex O2: model.half() except batch norm (keep_batchnorm_fp32), f32
      // master weights, model outputs cast to f32 for the loss.
      assign.levelName = "unsafe-force-all";
      assign.denyAdd = {"amp.batch_norm",    "amp.batch_norm_grad",
                        "amp.cross_entropy", "amp.cross_entropy_grad",
                        "amp.mse_loss",      "amp.mse_loss_grad"};
    } else if (level == "O3") {
      assign.levelName = "unsafe-force-all";
    }
    pm.addPass(createAMPAssignPrecisionPass(assign));
    pm.addPass(createAMPInsertCastsPass());
  }
  StringRef lossScaling = options.lossScaling;
  if (lossScaling != "auto" && lossScaling != "dynamic" &&
      lossScaling != "static" && lossScaling != "none")
    return errorHandler("amp-pipeline: unknown loss-scaling '" + lossScaling +
                        "'; expected auto, dynamic, static or none");
  // O0 is fp32: it scales only when asked to explicitly.
  if (lossScaling != "none" && (level != "O0" || lossScaling != "auto")) {
    AMPLossScalingPassOptions scaling;
    scaling.mode = options.lossScaling;
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
  if (options.masterWeights && level != "O0")
    pm.addPass(createAMPMasterWeightsPass());
  if (report != "none") {
    AMPReportPassOptions reportOptions;
    reportOptions.format = options.report;
    reportOptions.output = options.reportOutput;
    pm.addPass(createAMPReportPass(reportOptions));
  }
  return success();
}

void mlir::amp::registerAMPPrecisionPipelines() {
  registerPassPipeline(
      "amp-pipeline",
      "Automatic mixed precision at Apex's levels: opt-level=O0|O1|O2|O3 "
      "precision=fp16|bf16 policy=FILE report=none|text|json|dot "
      "loss-scaling=auto|dynamic|static|none master-weights=false",
      [](OpPassManager &pm, StringRef optionsText,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        AMPPipelineOptions options;
        if (failed(options.parseFromString(optionsText)))
          return failure();
        return buildAMPPrecisionPipeline(pm, options, errorHandler);
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> printOptions) {
        printOptions(AMPPipelineOptions());
      });
}

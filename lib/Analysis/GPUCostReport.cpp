//===- GPUCostReport.cpp - the amp-gpu-cost-report pass -------------------===//
//
// Runs the static cost analysis of GPUCost.h alone (amp-opt, lit tests) on
// GPU pipeline output that still has kernel bodies; the IR is unchanged.
//
//===----------------------------------------------------------------------===//

#include "amp/Analysis/GPUCost.h"
#include "amp/Analysis/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::amp {
#define GEN_PASS_DEF_GPUCOSTREPORTPASS
#include "amp/Analysis/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {
struct GPUCostReportPass
    : public amp::impl::GPUCostReportPassBase<GPUCostReportPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(amp::writeGPUCostReport(getOperation(), device, devices, output,
                                       summary)))
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace

//===- StepBufferization.cpp - tensors to buffers for both backends -------===//

#include "amp/Dialect/AMP/Transforms/Passes.h"
#include "amp/Pipelines/Pipelines.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

void mlir::amp::buildStepBufferization(OpPassManager &pm, bool modelABI,
                                       bool resultsToOutParams) {
  // A model library's step updates its state in place where bufferization
  // finds that safe: no second set of state buffers, and nothing to copy or
  // swap after the step.
  if (modelABI)
    pm.addNestedPass<func::FuncOp>(amp::createAMPStateUpdateDestinationsPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  if (modelABI)
    pm.addPass(amp::createAMPStateUpdatesInPlacePass());
  if (!resultsToOutParams)
    return;
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.modifyPublicFunctions = true;
  outParams.hoistStaticAllocs = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
}

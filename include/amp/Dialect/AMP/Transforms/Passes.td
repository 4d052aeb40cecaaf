//===- Passes.td - amp dialect passes ----------------------*- tablegen -*-===//
//
// One file per pass family, so that each can evolve on its own.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_PASSES_TD
#define AMP_DIALECT_AMP_TRANSFORMS_PASSES_TD

include "amp/Dialect/AMP/Transforms/AttentionPasses.td"
include "amp/Dialect/AMP/Transforms/AutodiffPasses.td"
include "amp/Dialect/AMP/Transforms/DataParallelPasses.td"
include "amp/Dialect/AMP/Transforms/EvalModePasses.td"
include "amp/Dialect/AMP/Transforms/Fp8Passes.td"
include "amp/Dialect/AMP/Transforms/LossScalingPasses.td"
include "amp/Dialect/AMP/Transforms/NonfinitePasses.td"
include "amp/Dialect/AMP/Transforms/PrecisionPasses.td"
include "amp/Dialect/AMP/Transforms/StateInPlacePasses.td"

#endif // AMP_DIALECT_AMP_TRANSFORMS_PASSES_TD

//===- AMPToLinalg.h - amp to linalg conversion -----------------*- C++ -*-===//

#ifndef AMP_CONVERSION_AMPTOLINALG_AMPTOLINALG_H
#define AMP_CONVERSION_AMPTOLINALG_AMPTOLINALG_H

#include <memory>

namespace mlir {
class Pass;
class RewritePatternSet;
} // namespace mlir

namespace mlir::amp {

// The populate functions add OpConversionPatterns for one dialect conversion
// in which amp is illegal. They read operands through the adaptor and need
// no type converter (tensor types are unchanged). They assume static shapes:
// convert-amp-to-linalg checks that once, for every amp op, before it runs
// them.

/// Elementwise ops (arithmetic, activations and their gradients, compare,
/// where, cast, dropout_grad) to linalg.generic. Each float elementwise op is
/// one entry of the table in ElementwiseToLinalg.cpp.
void populateAMPElementwiseToLinalgPatterns(RewritePatternSet &patterns);

/// Contractions, reductions, softmax, losses and data movement to linalg and
/// tensor ops.
void populateAMPStructuredToLinalgPatterns(RewritePatternSet &patterns);

/// Normalizations and their gradients, softmax and loss gradients.
void populateAMPNormalizationToLinalgPatterns(RewritePatternSet &patterns);

/// Convolutions, pooling, gather, slice_grad and dropout, with gradients.
void populateAMPConvolutionToLinalgPatterns(RewritePatternSet &patterns);

/// Loss scaling (scale_seed, unscale_grads, update_scale) and the optimizer
/// ops (clip_grad_norm, sgd_update, adamw_update).
void populateAMPOptimizerToLinalgPatterns(RewritePatternSet &patterns);

/// All amp-to-linalg patterns.
void populateAMPToLinalgConversionPatterns(RewritePatternSet &patterns);

} // namespace mlir::amp

#endif // AMP_CONVERSION_AMPTOLINALG_AMPTOLINALG_H

//===- AttentionDecomposition.h - attention as unfused amp ops --*- C++ -*-===//

#ifndef AMP_LIB_CONVERSION_AMPATTENTIONTORUNTIME_ATTENTIONDECOMPOSITION_H
#define AMP_LIB_CONVERSION_AMPATTENTIONTORUNTIME_ATTENTIONDECOMPOSITION_H

#include "amp/Dialect/AMP/IR/AMPOps.h"

namespace mlir::amp {

/// The values of `op`'s results (output, lse) computed by unfused amp ops
/// built at `b`'s insertion point.
SmallVector<Value> decomposeAttention(OpBuilder &b, AttentionOp op);

/// The values of `op`'s results (query, key and value gradients) likewise.
SmallVector<Value> decomposeAttentionGrad(OpBuilder &b, AttentionGradOp op);

} // namespace mlir::amp

#endif // AMP_LIB_CONVERSION_AMPATTENTIONTORUNTIME_ATTENTIONDECOMPOSITION_H

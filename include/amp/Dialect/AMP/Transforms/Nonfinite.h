//===- Nonfinite.h - the instrumented step's site table ---------*- C++ -*-===//
//
// amp-instrument-nonfinite lists the ops it checks in a function attribute
// of the training step, which the model description embeds in the library
// (include/amp/Runtime/NonfiniteABI.h, docs/Debugging.md).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_NONFINITE_H
#define AMP_DIALECT_AMP_TRANSFORMS_NONFINITE_H

#include "llvm/ADT/StringRef.h"

namespace mlir::amp {

/// The training step's attribute listing the checked ops in program order:
/// an array of {kind, name, location, precision} string dictionaries.
inline constexpr llvm::StringLiteral kNonfiniteSitesAttrName =
    "amp_nonfinite_sites";

/// The attribute of a training step or forward model that amp-check-indices
/// checked: per row of its index-range result, "kind<TAB>location" of the
/// op reading through those indices.
inline constexpr llvm::StringLiteral kIndexSitesAttrName = "amp_index_sites";

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_TRANSFORMS_NONFINITE_H

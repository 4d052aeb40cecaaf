//===- Passes.h - amp analysis passes ---------------------------*- C++ -*-===//

#ifndef AMP_ANALYSIS_PASSES_H
#define AMP_ANALYSIS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::amp {

#define GEN_PASS_DECL
#include "amp/Analysis/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "amp/Analysis/Passes.h.inc"

} // namespace mlir::amp

#endif // AMP_ANALYSIS_PASSES_H

//===- Passes.h - amp conversion passes -------------------------*- C++ -*-===//

#ifndef AMP_CONVERSION_PASSES_H
#define AMP_CONVERSION_PASSES_H

#include "amp/Conversion/AMPToLinalg/AMPToLinalg.h"
#include "mlir/Pass/Pass.h"

namespace mlir::amp {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "amp/Conversion/Passes.h.inc"

} // namespace mlir::amp

#endif // AMP_CONVERSION_PASSES_H

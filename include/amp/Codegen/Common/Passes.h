//===- Passes.h - passes of both targets ------------------------*- C++ -*-===//

#ifndef AMP_CODEGEN_COMMON_PASSES_H
#define AMP_CODEGEN_COMMON_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::amp {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "amp/Codegen/Common/Passes.h.inc"

} // namespace mlir::amp

#endif // AMP_CODEGEN_COMMON_PASSES_H

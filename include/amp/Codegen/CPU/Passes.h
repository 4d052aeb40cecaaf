//===- Passes.h - amp CPU code generation passes ----------------*- C++ -*-===//

#ifndef AMP_CODEGEN_CPU_PASSES_H
#define AMP_CODEGEN_CPU_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::amp {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "amp/Codegen/CPU/Passes.h.inc"

} // namespace mlir::amp

#endif // AMP_CODEGEN_CPU_PASSES_H

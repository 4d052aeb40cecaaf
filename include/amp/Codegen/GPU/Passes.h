//===- Passes.h - amp GPU code generation passes ----------------*- C++ -*-===//

#ifndef AMP_CODEGEN_GPU_PASSES_H
#define AMP_CODEGEN_GPU_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::amp {

/// Whether LLVM's NVPTX backend can generate code for `chip` (e.g. sm_90).
bool isNVPTXChip(llvm::StringRef chip);

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "amp/Codegen/GPU/Passes.h.inc"

} // namespace mlir::amp

#endif // AMP_CODEGEN_GPU_PASSES_H

//===- Passes.h - amp dialect passes ----------------------------*- C++ -*-===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_PASSES_H
#define AMP_DIALECT_AMP_TRANSFORMS_PASSES_H

#include "amp/Dialect/AMP/IR/AMPEnums.h"
#include "amp/Dialect/AMP/Transforms/OptionKinds.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::amp {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "amp/Dialect/AMP/Transforms/Passes.h.inc"

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_TRANSFORMS_PASSES_H

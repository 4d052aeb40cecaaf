//===- AMPOps.h - amp dialect operations ------------------------*- C++ -*-===//

#ifndef AMP_DIALECT_AMP_IR_AMPOPS_H
#define AMP_DIALECT_AMP_IR_AMPOPS_H

#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/AMPEnums.h"
#include "amp/Dialect/AMP/IR/AMPInterfaces.h"
#include "amp/Dialect/AMP/IR/AMPTraits.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_TYPEDEF_CLASSES
#include "amp/Dialect/AMP/IR/AMPOpsTypes.h.inc"

namespace mlir::amp {
// The collectives name each other in their accessors.
class AllReduceStartOp;
class AllReduceWaitOp;
} // namespace mlir::amp

#define GET_OP_CLASSES
#include "amp/Dialect/AMP/IR/AMPOps.h.inc"

#endif // AMP_DIALECT_AMP_IR_AMPOPS_H

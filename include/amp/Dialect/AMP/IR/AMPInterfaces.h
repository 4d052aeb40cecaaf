//===- AMPInterfaces.h - precision and gradient interfaces ------*- C++ -*-===//

#ifndef AMP_DIALECT_AMP_IR_AMPINTERFACES_H
#define AMP_DIALECT_AMP_IR_AMPINTERFACES_H

#include "amp/Dialect/AMP/IR/AMPEnums.h"
#include "amp/Dialect/AMP/IR/AMPTraits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"

#include "amp/Dialect/AMP/IR/AMPInterfaces.h.inc"

#endif // AMP_DIALECT_AMP_IR_AMPINTERFACES_H

//===- AMPEnums.h - amp dialect enums and attributes ------------*- C++ -*-===//

#ifndef AMP_DIALECT_AMP_IR_AMPENUMS_H
#define AMP_DIALECT_AMP_IR_AMPENUMS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "amp/Dialect/AMP/IR/AMPEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "amp/Dialect/AMP/IR/AMPAttrs.h.inc"

#endif // AMP_DIALECT_AMP_IR_AMPENUMS_H

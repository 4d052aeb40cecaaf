//===- AMPDialect.h - amp dialect -------------------------------*- C++ -*-===//

#ifndef AMP_DIALECT_AMP_IR_AMPDIALECT_H
#define AMP_DIALECT_AMP_IR_AMPDIALECT_H

#include "mlir/IR/Dialect.h"

#include "amp/Dialect/AMP/IR/AMPOpsDialect.h.inc"

#endif // AMP_DIALECT_AMP_IR_AMPDIALECT_H

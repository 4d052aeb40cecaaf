//===- TrainingGraph.h - former home of the contract helpers ----*- C++ -*-===//
//
// The contract helpers moved to TrainingStep.h; this header remains for the
// files that still include it.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_TRAININGGRAPH_H
#define AMP_DIALECT_AMP_IR_TRAININGGRAPH_H

#include "amp/Dialect/AMP/IR/TrainingStep.h"

#endif // AMP_DIALECT_AMP_IR_TRAININGGRAPH_H

//===- AMPInterfaces.cpp - precision and gradient interfaces --------------===//

#include "amp/Dialect/AMP/IR/AMPInterfaces.h"

#include "amp/Dialect/AMP/IR/AMPInterfaces.cpp.inc"

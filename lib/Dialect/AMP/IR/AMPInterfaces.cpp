//===- AMPInterfaces.cpp - precision and gradient interfaces --------------===//

#include "amp/Dialect/AMP/IR/AMPInterfaces.h"

using namespace mlir;
using namespace mlir::amp;

bool mlir::amp::detail::isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor &&
         isa<Float32Type, Float16Type, BFloat16Type>(tensor.getElementType());
}

int64_t mlir::amp::detail::getNumElements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return 0;
  int64_t count = 1;
  for (int64_t dim : tensor.getShape())
    if (!ShapedType::isDynamic(dim))
      count *= dim;
  return count;
}

double mlir::amp::detail::estimateElementwiseFlops(Operation *op) {
  int64_t largest = 0;
  auto visit = [&](Type type) {
    if (isFloatTensor(type))
      largest = std::max(largest, getNumElements(type));
  };
  llvm::for_each(op->getOperandTypes(), visit);
  llvm::for_each(op->getResultTypes(), visit);
  return static_cast<double>(largest);
}

#include "amp/Dialect/AMP/IR/AMPInterfaces.cpp.inc"

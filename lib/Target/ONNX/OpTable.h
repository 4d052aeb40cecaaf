//===- OpTable.h - ONNX op handlers by op type and opset --------*- C++ -*-===//
//
// Private to the ONNX importer. Each op group registers its handlers in an
// OpTable under the ONNX op type and the opset version from which the
// handler applies (ONNX's `since_version`), in the manner of torch-mlir's
// OnnxCustomOpConversionPattern::onOp. The importer asks the table for the
// handler of each node's op type at the model's opset: the registration
// with the highest since-version not above it.
//
// Adding an op: write its handler in the file of its group and add one
// `table.onOp(...)` line to that group's register*Handlers function.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_TARGET_ONNX_OPTABLE_H
#define AMP_LIB_TARGET_ONNX_OPTABLE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <cstdint>
#include <functional>

namespace mlir {
namespace amp {
namespace onnx_import {

class Importer;

/// Imports the importer's current node (reporting its errors at the node).
using OpHandler = std::function<LogicalResult(Importer &)>;

class OpTable {
public:
  /// Registers `handler` for `opType` from opset `sinceVersion` on; a later
  /// registration with a higher since-version takes over from its opset.
  void onOp(StringRef opType, int64_t sinceVersion, OpHandler handler);
  /// The same for a handler that is an Importer method without arguments.
  void onOp(StringRef opType, int64_t sinceVersion,
            LogicalResult (Importer::*handler)());

  /// The handler for `opType` at `opset`, or null when there is none (an
  /// unknown op, or one known only from a later opset).
  const OpHandler *lookup(StringRef opType, int64_t opset) const;

  /// The handlers of the default ONNX domain (built once).
  static const OpTable &defaultDomain();

private:
  struct Registration {
    int64_t sinceVersion;
    OpHandler handler;
  };
  /// Per op type, sorted by decreasing since-version.
  llvm::StringMap<SmallVector<Registration, 1>> handlers;
};

/// The op groups, each in its own file.
void registerElementwiseHandlers(OpTable &table);
void registerContractionHandlers(OpTable &table);
void registerNormalizationHandlers(OpTable &table);
void registerConstantHandlers(OpTable &table);
void registerShapeHandlers(OpTable &table);
void registerIndexingHandlers(OpTable &table);
void registerResamplingHandlers(OpTable &table);
void registerOpset18Handlers(OpTable &table);
void registerRandomHandlers(OpTable &table);

} // namespace onnx_import
} // namespace amp
} // namespace mlir

#endif // AMP_LIB_TARGET_ONNX_OPTABLE_H

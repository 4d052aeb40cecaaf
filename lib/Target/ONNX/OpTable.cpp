//===- OpTable.cpp - ONNX op handlers by op type and opset ----------------===//

#include "OpTable.h"

#include "ImporterImpl.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::amp::onnx_import;

void OpTable::onOp(StringRef opType, int64_t sinceVersion, OpHandler handler) {
  SmallVector<Registration, 1> &list = handlers[opType];
  auto *position = llvm::find_if(list, [&](const Registration &r) {
    return r.sinceVersion < sinceVersion;
  });
  assert((position == list.begin() ||
          std::prev(position)->sinceVersion != sinceVersion) &&
         "an op registered twice for the same opset");
  list.insert(position, Registration{sinceVersion, std::move(handler)});
}

void OpTable::onOp(StringRef opType, int64_t sinceVersion,
                   LogicalResult (Importer::*handler)()) {
  onOp(opType, sinceVersion,
       [handler](Importer &im) { return (im.*handler)(); });
}

const OpHandler *OpTable::lookup(StringRef opType, int64_t opset) const {
  auto it = handlers.find(opType);
  if (it == handlers.end())
    return nullptr;
  for (const Registration &r : it->second)
    if (r.sinceVersion <= opset)
      return &r.handler;
  return nullptr;
}

const OpTable &OpTable::defaultDomain() {
  static const OpTable table = [] {
    OpTable t;
    registerElementwiseHandlers(t);
    registerContractionHandlers(t);
    registerNormalizationHandlers(t);
    registerConstantHandlers(t);
    registerShapeHandlers(t);
    registerIndexingHandlers(t);
    registerResamplingHandlers(t);
    registerOpset18Handlers(t);
    registerRandomHandlers(t);
    return t;
  }();
  return table;
}

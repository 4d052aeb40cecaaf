//===- ImportOptions.cpp - parsing the ONNX import options ----------------===//
//
// What amp-translate and amp-compile share of the importer's command-line
// options: the static shapes given for graph inputs with dynamic dimensions.
//
//===----------------------------------------------------------------------===//

#include "amp/Target/ONNX/ONNXImporter.h"

using namespace mlir;

LogicalResult mlir::amp::addInputShape(StringRef option, StringRef entry,
                                       ONNXImportOptions &options,
                                       std::string &error) {
  size_t eq = entry.rfind('=');
  if (eq == StringRef::npos || eq == 0) {
    error = (option + " '" + entry + "' is not NAME=D0xD1x...").str();
    return failure();
  }
  StringRef name = entry.take_front(eq), dims = entry.drop_front(eq + 1);
  SmallVector<StringRef> parts;
  if (!dims.empty())
    dims.split(parts, 'x');
  SmallVector<int64_t> shape;
  for (StringRef part : parts) {
    int64_t dim;
    if (part.trim().getAsInteger(10, dim) || dim < 0) {
      error = (option + " '" + entry + "': '" + part +
               "' is not a non-negative dimension")
                  .str();
      return failure();
    }
    shape.push_back(dim);
  }
  if (!options.inputShapes.try_emplace(name, shape).second) {
    error = (option + " gives '" + name + "' twice").str();
    return failure();
  }
  return success();
}

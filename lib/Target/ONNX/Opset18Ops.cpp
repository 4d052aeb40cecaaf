//===- Opset18Ops.cpp - ONNX ops as opsets 18 to 21 changed them ----------===//
//
// Opset 18 made Split's equal parts an attribute (num_outputs) and gave Pad
// an axes input; they import through the handlers of their earlier form
// (IndexingOps.cpp) on a rewritten node. Gelu (opset 20) is amp.gelu.
// GroupNormalization (18, 21) and the reductions' axes inputs (18) are in
// NormalizationOps.cpp, Resize's new attributes in ResamplingOps.cpp;
// every other change up to opset 21 adds element types amp does not
// compute with, so the earlier handlers apply.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"
#include "OpTable.h"

#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "onnx/onnx_pb.h"

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::onnx_import;

LogicalResult
Importer::importRewritten(ArrayRef<std::string> inputs,
                          ArrayRef<std::pair<std::string, HostTensor>> known,
                          function_ref<LogicalResult()> handler) {
  for (const auto &[name, tensor] : known) {
    if (entries.count(name)) {
      error() << "the graph already has a value named '" << name
              << "', which amp needs for this node";
      return failure();
    }
    Entry e;
    e.host = std::make_shared<HostTensor>(tensor);
    entries[name] = std::move(e);
  }
  onnx::NodeProto rewritten = *node;
  rewritten.clear_input();
  for (const std::string &input : inputs)
    rewritten.add_input(input);
  const onnx::NodeProto *original = node;
  node = &rewritten;
  LogicalResult result = handler();
  node = original;
  for (const auto &entry : known)
    entries.erase(entry.first);
  return result;
}

LogicalResult Importer::importSplit18() {
  if (failed(checkArity(1, 2)))
    return failure();
  FailureOr<int64_t> parts = intAttr("num_outputs", 0);
  if (failed(parts))
    return failure();
  if (!attr("num_outputs"))
    return importSplit();
  if (hasInput(1)) {
    error() << "has both the split input and the num_outputs attribute";
    return failure();
  }
  FailureOr<int64_t> axisAttr = intAttr("axis", 0);
  FailureOr<Shape> in = inputShape(0);
  if (failed(axisAttr) || failed(in))
    return failure();
  FailureOr<int64_t> axis = normalizeAxis(*axisAttr, in->size());
  if (failed(axis))
    return failure();
  int64_t dim = (*in)[*axis];
  if (*parts < 1 || *parts != node->output_size()) {
    error() << "num_outputs " << *parts << " does not match its "
            << node->output_size() << " outputs";
    return failure();
  }
  // Equal parts of ceil(dim / n), the last one smaller.
  int64_t part = llvm::divideCeil(dim, *parts);
  int64_t last = dim - part * (*parts - 1);
  if (last < 1) {
    error() << "cannot split size " << dim << " into " << *parts << " parts of "
            << part << " and a smaller last one";
    return failure();
  }
  SmallVector<int64_t> sizes(*parts, part);
  sizes.back() = last;
  std::string name = "num_outputs = " + std::to_string(*parts);
  return importRewritten({node->input(0), name},
                         {{name, HostTensor::vectorInt(sizes)}},
                         [&] { return importSplit(); });
}

LogicalResult Importer::importPad18() {
  if (failed(checkArity(2, 4)))
    return failure();
  if (!hasInput(3))
    return importPad();
  FailureOr<Shape> in = inputShape(0);
  FailureOr<SmallVector<int64_t>> axesList = requireInts(3, "axes");
  FailureOr<SmallVector<int64_t>> pads = requireInts(1, "pads");
  if (failed(in) || failed(axesList) || failed(pads))
    return failure();
  int64_t rank = in->size();
  FailureOr<SmallVector<int64_t>> axes = normalizeAxes(*axesList, rank);
  if (failed(axes))
    return failure();
  if (pads->size() != 2 * axes->size()) {
    error() << "pads has " << pads->size() << " entries for " << axes->size()
            << " axes (it needs two per axis)";
    return failure();
  }
  SmallVector<int64_t> full(2 * rank, 0);
  for (auto [j, axis] : llvm::enumerate(*axes)) {
    full[axis] = (*pads)[j];
    full[rank + axis] = (*pads)[axes->size() + j];
  }
  std::string name = node->input(1) + " over all axes";
  SmallVector<std::string> inputs = {node->input(0), name};
  if (hasInput(2))
    inputs.push_back(node->input(2));
  return importRewritten(inputs, {{name, HostTensor::vectorInt(full)}},
                         [&] { return importPad(); });
}

LogicalResult Importer::importGelu() {
  if (failed(checkArity(1, 1)))
    return failure();
  FailureOr<std::string> approximate = stringAttr("approximate", "none");
  if (failed(approximate))
    return failure();
  if (*approximate != "none" && *approximate != "tanh") {
    error() << "unknown approximate '" << *approximate
            << "' (none and tanh are)";
    return failure();
  }
  FailureOr<Value> x = floatValue(0, "X");
  if (failed(x))
    return failure();
  return setValue(0, GeluOp::create(builder, loc, x->getType(), *x,
                                    *approximate == "tanh"
                                        ? GeluApproximation::Tanh
                                        : GeluApproximation::None));
}

void mlir::amp::onnx_import::registerOpset18Handlers(OpTable &table) {
  table.onOp("Split", 18, &Importer::importSplit18);
  table.onOp("Pad", 18, &Importer::importPad18);
  table.onOp("Gelu", 20, &Importer::importGelu);
}

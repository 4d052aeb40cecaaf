//===- AMPFolders.cpp - Constant folding of amp ops -----------------------===//
//
// Folders that evaluate amp ops on constant operands. Canonicalization uses
// them on any amp IR, and the ONNX importer folds the ops of a model whose
// inputs are known at import time through them (lib/Target/ONNX,
// Importer::foldWithAMP) instead of evaluating them a second time.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMPOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <vector>

using namespace mlir;
using namespace mlir::amp;

namespace {
/// The most elements a folder creates beyond the size of its constant input,
/// so that folding (an index list repeating one large row) cannot turn a
/// small program into gigabytes of constants.
constexpr int64_t kMaxFoldGrowth = int64_t(1) << 22;

/// The constant of `type` whose row-major element k is element `source(k)` of
/// `input` (same element type): every data-movement fold is such a map.
DenseElementsAttr moveElements(DenseElementsAttr input, ShapedType type,
                               function_ref<int64_t(int64_t)> source) {
  if (input.isSplat())
    return DenseElementsAttr::get(type, input.getSplatValue<Attribute>());
  int64_t count = type.getNumElements();
  if (type.getElementType().isInteger(1)) {
    auto in = input.getValues<bool>();
    SmallVector<bool> values;
    values.reserve(count);
    for (int64_t k = 0; k < count; ++k)
      values.push_back(in[source(k)]);
    return DenseElementsAttr::get(type, values);
  }
  // Other element types are stored densely, one element every `width` bytes.
  size_t width = type.getElementType().getIntOrFloatBitWidth() / 8;
  ArrayRef<char> raw = input.getRawData();
  std::vector<char> bytes(static_cast<size_t>(count) * width);
  for (int64_t k = 0; k < count; ++k)
    std::memcpy(bytes.data() + k * width, raw.data() + source(k) * width,
                width);
  return DenseElementsAttr::getFromRawBuffer(type, bytes);
}
} // namespace

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  auto input = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  auto indices = dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getIndices());
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!input || !indices || !type || !type.hasStaticShape() ||
      !input.getType().hasStaticShape() ||
      type.getNumElements() > std::max(input.getNumElements(), kMaxFoldGrowth))
    return {};
  ArrayRef<int64_t> shape = input.getType().getShape();
  int64_t rank = shape.size();
  int64_t axis = getAxis() < 0 ? getAxis() + rank : getAxis();
  if (axis < 0 || axis >= rank)
    return {};
  int64_t dim = shape[axis];
  // An index out of range has no value to fold to; it stays a run-time
  // gather.
  SmallVector<int64_t> rows;
  for (const APInt &index : indices.getValues<APInt>()) {
    rows.push_back(index.getSExtValue());
    if (rows.back() < 0 || rows.back() >= dim)
      return {};
  }
  ArrayRef<int64_t> trailing = shape.drop_front(axis + 1);
  int64_t inner = std::accumulate(trailing.begin(), trailing.end(), int64_t(1),
                                  std::multiplies<int64_t>());
  int64_t count = rows.size();
  return moveElements(input, type, [&](int64_t k) {
    int64_t outer = k / (inner * count), row = (k / inner) % count;
    return (outer * dim + rows[row]) * inner + k % inner;
  });
}

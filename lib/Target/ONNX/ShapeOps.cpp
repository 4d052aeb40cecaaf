//===- ShapeOps.cpp - ONNX shape-changing ops -----------------------------===//
//
// Reshape, Flatten, Squeeze, Unsqueeze, Transpose and Expand.
//
// On tensors known at import time they only relabel or move host elements
// (gatherElements): amp.reshape's folder would do the former, and
// amp.transpose and amp.broadcast fold only identities and splats, so going
// through amp would build and fold scratch ops for no gain.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"
#include "OpTable.h"

#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "onnx/onnx_pb.h"

#include <cmath>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::onnx_import;

/// Reshapes input `input` (known or not) to `shape` as output 0.
LogicalResult Importer::reshapeOutput(unsigned input, ArrayRef<int64_t> shape) {
  if (failed(checkShape(shape)))
    return failure();
  FailureOr<const HostTensor *> known = hostOf(input);
  if (failed(known))
    return failure();
  if (*known) {
    HostTensor out = **known;
    out.shape.assign(shape.begin(), shape.end());
    return setHost(0, std::move(out));
  }
  FailureOr<Value> v = value(input);
  if (failed(v))
    return failure();
  return setValue(0, reshapeTo(*v, shape));
}

LogicalResult Importer::importReshape() {
  if (failed(checkArity(2, 2)))
    return failure();
  FailureOr<int64_t> allowZero = intAttr("allowzero", 0);
  FailureOr<Shape> in = inputShape(0);
  FailureOr<SmallVector<int64_t>> requested = requireInts(1, "shape");
  if (failed(allowZero) || failed(in) || failed(requested))
    return failure();
  if (static_cast<int64_t>(requested->size()) > kMaxRank) {
    error() << "the requested shape has rank " << requested->size();
    return failure();
  }
  int64_t total = *numElements(*in);
  Shape shape;
  int64_t inferred = -1, known = 1;
  for (auto [d, dim] : llvm::enumerate(*requested)) {
    if (dim == 0 && !*allowZero) {
      if (d >= in->size()) {
        error() << "shape entry " << d
                << " is 0 (copy the input dimension) but the input has rank "
                << in->size();
        return failure();
      }
      dim = (*in)[d];
    }
    if (dim == -1) {
      if (inferred >= 0) {
        error() << "the shape " << formatShape(*requested)
                << " has more than one -1";
        return failure();
      }
      inferred = d;
      shape.push_back(1);
      continue;
    }
    if (dim < 0 || dim > kMaxTensorElements) {
      error() << "the shape " << formatShape(*requested)
              << " has an invalid entry " << dim;
      return failure();
    }
    shape.push_back(dim);
    if (dim != 0 && known > kMaxTensorElements / dim) {
      error() << "the shape " << formatShape(*requested) << " is too large";
      return failure();
    }
    known *= dim;
  }
  if (inferred >= 0) {
    if (known == 0 || total % known != 0) {
      error() << "cannot reshape " << formatShape(*in) << " (" << total
              << " elements) to " << formatShape(*requested);
      return failure();
    }
    shape[inferred] = total / known;
  } else if (known != total) {
    error() << "cannot reshape " << formatShape(*in) << " (" << total
            << " elements) to " << formatShape(shape) << " (" << known
            << " elements)";
    return failure();
  }
  return reshapeOutput(0, shape);
}

LogicalResult Importer::importFlatten() {
  if (failed(checkArity(1, 1)))
    return failure();
  FailureOr<int64_t> axisAttr = intAttr("axis", 1);
  FailureOr<Shape> in = inputShape(0);
  if (failed(axisAttr) || failed(in))
    return failure();
  FailureOr<int64_t> axis =
      normalizeAxis(*axisAttr, in->size(), "axis", /*inclusive=*/true);
  if (failed(axis))
    return failure();
  int64_t outer = *numElements(ArrayRef<int64_t>(*in).take_front(*axis));
  int64_t inner = *numElements(ArrayRef<int64_t>(*in).drop_front(*axis));
  return reshapeOutput(0, {outer, inner});
}

LogicalResult Importer::importSqueeze(bool unsqueeze) {
  if (failed(checkArity(unsqueeze ? 2 : 1, 2)))
    return failure();
  FailureOr<Shape> in = inputShape(0);
  if (failed(in))
    return failure();
  SmallVector<int64_t> axes;
  bool haveAxes = hasInput(1);
  if (haveAxes) {
    FailureOr<SmallVector<int64_t>> given = requireInts(1, "axes");
    if (failed(given))
      return failure();
    axes = *given;
  }
  Shape shape;
  if (unsqueeze) {
    int64_t rank = in->size() + axes.size();
    if (rank > kMaxRank) {
      error() << "the result would have rank " << rank;
      return failure();
    }
    FailureOr<SmallVector<int64_t>> normalized = normalizeAxes(axes, rank);
    if (failed(normalized))
      return failure();
    auto it = in->begin();
    for (int64_t d = 0; d < rank; ++d)
      shape.push_back(llvm::is_contained(*normalized, d) ? 1 : *it++);
  } else {
    FailureOr<SmallVector<int64_t>> normalized =
        normalizeAxes(axes, in->size());
    if (failed(normalized))
      return failure();
    for (auto [d, dim] : llvm::enumerate(*in)) {
      bool listed = llvm::is_contained(*normalized, static_cast<int64_t>(d));
      if (listed && dim != 1) {
        error() << "cannot squeeze dimension " << d << " of size " << dim;
        return failure();
      }
      if (listed || (!haveAxes && dim == 1))
        continue;
      shape.push_back(dim);
    }
  }
  return reshapeOutput(0, shape);
}

LogicalResult Importer::importTranspose() {
  if (failed(checkArity(1, 1)))
    return failure();
  FailureOr<Shape> in = inputShape(0);
  FailureOr<std::optional<SmallVector<int64_t>>> permAttr = intsAttr("perm");
  if (failed(in) || failed(permAttr))
    return failure();
  int64_t rank = in->size();
  SmallVector<int64_t> perm;
  if (*permAttr)
    perm = **permAttr;
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  SmallVector<bool> seen(rank, false);
  bool valid = static_cast<int64_t>(perm.size()) == rank;
  for (int64_t p : perm) {
    if (!valid || p < 0 || p >= rank || seen[p]) {
      valid = false;
      break;
    }
    seen[p] = true;
  }
  if (!valid) {
    error() << "perm " << formatShape(perm)
            << " is not a permutation of the input's " << rank << " dimensions";
    return failure();
  }
  Shape shape;
  for (int64_t p : perm)
    shape.push_back((*in)[p]);
  if (std::optional<LogicalResult> folded = foldStridedOnHost(
          shape, [&](ArrayRef<int64_t> inStrides, int64_t d, int64_t index) {
            return index * inStrides[perm[d]];
          }))
    return *folded;
  FailureOr<Value> v = value(0);
  if (failed(v))
    return failure();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, rank)))
    return setValue(0, *v);
  return setValue(0, TransposeOp::create(builder, loc,
                                         tensorType(shape, elementOf(*v)), *v,
                                         perm));
}

LogicalResult Importer::importExpand() {
  if (failed(checkArity(2, 2)))
    return failure();
  FailureOr<Shape> in = inputShape(0);
  FailureOr<SmallVector<int64_t>> requested = requireInts(1, "shape");
  if (failed(in) || failed(requested))
    return failure();
  for (int64_t d : *requested)
    if (d < 0) {
      error() << "the shape " << formatShape(*requested)
              << " has a negative entry";
      return failure();
    }
  FailureOr<Shape> shape = broadcastShapes({*in, Shape(*requested)});
  if (failed(shape) || failed(checkShape(*shape)))
    return failure();
  FailureOr<const HostTensor *> known = hostOf(0);
  if (failed(known))
    return failure();
  if (*known) {
    if (failed(checkFoldSize(*shape)))
      return failure();
    const HostTensor &t = **known;
    Shape os = stridesOf(*shape), is = stridesOf(t.shape);
    return setHost(0, gatherElements(t, *shape, [&](int64_t k) {
                     return broadcastSourceIndex(k, *shape, os, t.shape, is);
                   }));
  }
  FailureOr<Value> v = value(0);
  if (failed(v))
    return failure();
  return setValue(0, broadcastTo(*v, *shape));
}

void mlir::amp::onnx_import::registerShapeHandlers(OpTable &table) {
  table.onOp("Reshape", kMinOpset, &Importer::importReshape);
  table.onOp("Flatten", kMinOpset, &Importer::importFlatten);
  table.onOp("Squeeze", kMinOpset, [](Importer &im) {
    return im.importSqueeze(/*unsqueeze=*/false);
  });
  table.onOp("Unsqueeze", kMinOpset,
             [](Importer &im) { return im.importSqueeze(/*unsqueeze=*/true); });
  table.onOp("Transpose", kMinOpset, &Importer::importTranspose);
  table.onOp("Expand", kMinOpset, &Importer::importExpand);
}

//===- ResamplingOps.cpp - ONNX Resize ------------------------------------===//
//
// Resize in nearest and linear modes, as nn.Upsample and F.interpolate
// export them, lowered as the torch.export importer lowers upsampling
// (python/amp/fx/ops/resampling.py): nearest as a gather of rows or
// columns per resized axis, linear as a product with a constant [out, in]
// interpolation matrix per resized axis. Both are linear in the input, so
// their gradients (a scatter-add, a product with the transposed matrix)
// are PyTorch's backward exactly. Source coordinates are computed in f32
// the way PyTorch computes them (a step of 1 / scale, or in / out when
// the sizes are given), so that the chosen rows and weights are
// PyTorch's.
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

namespace {
/// How output position d maps to a source coordinate along one axis.
struct AxisMap {
  int64_t in, out;
  /// 1 / scale (or in / out with sizes), in f32 as PyTorch's
  /// compute_scales_value.
  float step;
  double scale;
  StringRef transform;

  float source(int64_t d) const {
    float x = static_cast<float>(d);
    if (transform == "asymmetric")
      return x * step;
    if (transform == "align_corners") {
      if (out <= 1)
        return 0.0f;
      return x * (static_cast<float>(in - 1) / static_cast<float>(out - 1));
    }
    if (transform == "pytorch_half_pixel" && out <= 1)
      return 0.0f;
    if (transform == "half_pixel_symmetric") {
      double adjustment = double(out) / (scale * double(in));
      double center = double(in) / 2;
      double offset = center * (1 - adjustment);
      return static_cast<float>(offset + (double(d) + 0.5) / scale - 0.5);
    }
    return step * (x + 0.5f) - 0.5f; // half_pixel, pytorch_half_pixel
  }
};
} // namespace

/// The known contents of input `i` of Resize when it is given and not
/// empty (exporters pass an empty tensor for an unused scales input).
static FailureOr<const HostTensor *> optionalList(Importer &im, unsigned i,
                                                  StringRef what) {
  if (!im.hasInput(i))
    return static_cast<const HostTensor *>(nullptr);
  FailureOr<const HostTensor *> t = im.requireHost(i, what);
  if (failed(t))
    return failure();
  if ((*t)->size() == 0)
    return static_cast<const HostTensor *>(nullptr);
  if ((*t)->rank() != 1) {
    im.error() << im.inputLabel(i) << " (" << what << ") must be 1-d, got "
               << formatShape((*t)->shape);
    return failure();
  }
  return t;
}

LogicalResult Importer::importResize() {
  if (failed(checkArity(1, 4)))
    return failure();
  FailureOr<std::string> mode = stringAttr("mode", "nearest");
  FailureOr<std::string> transform =
      stringAttr("coordinate_transformation_mode", "half_pixel");
  FailureOr<std::string> nearestMode =
      stringAttr("nearest_mode", "round_prefer_floor");
  FailureOr<int64_t> antialias = intAttr("antialias", 0);
  FailureOr<std::string> policy =
      stringAttr("keep_aspect_ratio_policy", "stretch");
  FailureOr<std::optional<SmallVector<int64_t>>> axesAttr = intsAttr("axes");
  if (failed(mode) || failed(transform) || failed(nearestMode) ||
      failed(antialias) || failed(policy) || failed(axesAttr))
    return failure();
  if (*mode != "nearest" && *mode != "linear") {
    error() << "mode '" << *mode
            << "' is not supported (nearest and linear are: nn.Upsample's "
               "nearest, bilinear and linear)";
    return failure();
  }
  static const char *const kTransforms[] = {"half_pixel", "pytorch_half_pixel",
                                            "align_corners", "asymmetric",
                                            "half_pixel_symmetric"};
  if (!llvm::is_contained(kTransforms, StringRef(*transform))) {
    error() << "coordinate_transformation_mode '" << *transform
            << "' is not supported (half_pixel, pytorch_half_pixel, "
               "align_corners, asymmetric and half_pixel_symmetric are)";
    return failure();
  }
  static const char *const kNearestModes[] = {
      "round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  if (*mode == "nearest" &&
      !llvm::is_contained(kNearestModes, StringRef(*nearestMode))) {
    error() << "unknown nearest_mode '" << *nearestMode << "'";
    return failure();
  }
  if (*antialias != 0 && *antialias != 1) {
    error() << "antialias must be 0 or 1, got " << *antialias;
    return failure();
  }
  FailureOr<Value> input = floatValue(0, "X");
  if (failed(input))
    return failure();
  Value x = *input;
  Type element = elementOf(x);
  int64_t rank = shapeOf(x).size();
  if (llvm::is_contained(shapeOf(x), 0)) {
    error() << "X of shape " << formatShape(shapeOf(x))
            << " has no elements; amp does not support empty tensors";
    return failure();
  }
  SmallVector<int64_t> axes;
  if (*axesAttr) {
    FailureOr<SmallVector<int64_t>> normalized =
        normalizeAxes(**axesAttr, rank);
    if (failed(normalized))
      return failure();
    axes = *normalized;
  } else {
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
  FailureOr<const HostTensor *> scales = optionalList(*this, 2, "scales");
  FailureOr<const HostTensor *> sizes = optionalList(*this, 3, "sizes");
  if (failed(scales) || failed(sizes))
    return failure();
  if (bool(*scales) == bool(*sizes)) {
    error() << "needs exactly one of the scales and sizes inputs, got "
            << (*scales ? "both" : "neither");
    return failure();
  }
  const HostTensor &given = *scales ? **scales : **sizes;
  if (given.size() != static_cast<int64_t>(axes.size())) {
    error() << (*scales ? "scales" : "sizes") << " has " << given.size()
            << " elements for " << axes.size() << " axes";
    return failure();
  }
  if (*sizes && *policy != "stretch") {
    error() << "keep_aspect_ratio_policy '" << *policy
            << "' is not supported (stretch is)";
    return failure();
  }
  Shape shape(shapeOf(x));
  SmallVector<std::pair<int64_t, AxisMap>> maps;
  for (auto [j, axis] : llvm::enumerate(axes)) {
    AxisMap map;
    map.in = shape[axis];
    map.transform = *transform;
    if (*scales) {
      double scale = given.getDouble(j);
      if (!(scale > 0) || !std::isfinite(scale)) {
        error() << "scales must be positive and finite, got " << scale
                << " for axis " << axis;
        return failure();
      }
      map.scale = static_cast<float>(scale);
      map.out = static_cast<int64_t>(std::floor(double(map.in) * map.scale));
      map.step = static_cast<float>(1.0 / map.scale);
    } else {
      map.out = given.getInt(j);
      if (map.out < 1) {
        error() << "sizes must be positive, got " << formatShape(given.ints);
        return failure();
      }
      map.scale = double(map.out) / double(map.in);
      map.step = static_cast<float>(map.in) / static_cast<float>(map.out);
    }
    if (map.out < 1 || map.out > kMaxTensorElements) {
      error() << "the output size " << map.out << " of axis " << axis
              << " is not positive (or too large)";
      return failure();
    }
    if (*antialias && map.out < map.in) {
      error() << "antialias=1 when downsampling (axis " << axis << ": "
              << map.in << " to " << map.out << ") is not supported";
      return failure();
    }
    shape[axis] = map.out;
    maps.push_back({axis, map});
  }
  if (failed(checkShape(shape)))
    return failure();
  for (auto &[axis, map] : maps) {
    Shape current(shapeOf(x));
    if (failed(checkFoldSize({map.out, map.in})))
      return failure();
    if (*mode == "nearest") {
      HostTensor indices = HostTensor::zeros(kInt64, {map.out});
      bool identity = map.out == map.in;
      for (int64_t d = 0; d < map.out; ++d) {
        float src = map.source(d);
        double index = *nearestMode == "floor"  ? std::floor(src)
                       : *nearestMode == "ceil" ? std::ceil(src)
                       : *nearestMode == "round_prefer_ceil"
                           ? std::floor(double(src) + 0.5)
                           : std::ceil(double(src) - 0.5);
        int64_t i =
            std::clamp<int64_t>(static_cast<int64_t>(index), 0, map.in - 1);
        indices.setInt(d, i);
        identity &= i == d;
      }
      if (identity)
        continue;
      current[axis] = map.out;
      x = GatherOp::create(
          builder, loc, tensorType(current, element), x,
          constant(indices, tensorType({map.out}, builder.getI64Type())), axis,
          IntegerAttr());
      continue;
    }
    // Linear: row d of the matrix holds the weights of output position d.
    HostTensor matrix = HostTensor::zeros(kFloat, {map.out, map.in});
    bool identity = map.out == map.in;
    for (int64_t d = 0; d < map.out; ++d) {
      float src = std::clamp(map.source(d), 0.0f, float(map.in - 1));
      int64_t low = std::min<int64_t>(static_cast<int64_t>(src), map.in - 1);
      int64_t high = low + 1 < map.in ? low + 1 : low;
      float weight = src - static_cast<float>(low);
      matrix.floats[d * map.in + low] += 1.0f - weight;
      matrix.floats[d * map.in + high] += weight;
      identity &= low == d && weight == 0.0f;
    }
    if (identity)
      continue;
    // Along the last axis, x [..., in] times the transposed matrix; along
    // the one before, the matrix times x [..., in, W] (amp.matmul shares a
    // side without batch dimensions); any other axis is moved last.
    SmallVector<int64_t> order;
    bool last = axis == rank - 1, beforeLast = rank >= 2 && axis == rank - 2;
    Value moved = x;
    if (!last && !beforeLast) {
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis)
          order.push_back(d);
      order.push_back(axis);
      moved = transposed(x, order);
    }
    Shape result(shapeOf(moved));
    int64_t resized = beforeLast ? rank - 2 : rank - 1;
    result[resized] = map.out;
    if (beforeLast) {
      x = MatmulOp::create(
          builder, loc, tensorType(result, element),
          constant(matrix, tensorType({map.out, map.in}, element)), moved);
      continue;
    }
    HostTensor transposedMatrix = HostTensor::zeros(kFloat, {map.in, map.out});
    for (int64_t d = 0; d < map.out; ++d)
      for (int64_t i = 0; i < map.in; ++i)
        transposedMatrix.floats[i * map.out + d] =
            matrix.floats[d * map.in + i];
    Value product = rank == 1 ? reshapeTo(moved, {1, map.in}) : moved;
    Shape productShape(shapeOf(product));
    productShape.back() = map.out;
    product = MatmulOp::create(
        builder, loc, tensorType(productShape, element), product,
        constant(transposedMatrix, tensorType({map.in, map.out}, element)));
    product = reshapeTo(product, result);
    if (!order.empty()) {
      SmallVector<int64_t> inverse(order.size());
      for (auto [position, d] : llvm::enumerate(order))
        inverse[d] = position;
      product = transposed(product, inverse);
    }
    x = product;
  }
  return setValue(0, x);
}

void mlir::amp::onnx_import::registerResamplingHandlers(OpTable &table) {
  table.onOp("Resize", kMinOpset, &Importer::importResize);
}

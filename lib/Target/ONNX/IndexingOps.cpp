//===- IndexingOps.cpp - ONNX indexing ops --------------------------------===//
//
// Concat, Slice, Gather, GatherElements, Split, Pad and Trilu.
//
// A Gather of known tensors folds through amp.gather's folder
// (Importer::foldWithAMP). Slice keeps its host fold: ONNX slices with
// negative steps, which amp.slice (positive strides) cannot express; Concat,
// Split and Pad have no constant folder among the amp ops they become.
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

LogicalResult Importer::importConcat() {
  if (failed(checkArity(1, ~0u)))
    return failure();
  FailureOr<int64_t> axisAttr = intAttr("axis", 0);
  if (failed(axisAttr))
    return failure();
  if (!attr("axis")) {
    error() << "has no 'axis' attribute";
    return failure();
  }
  SmallVector<Shape> shapes;
  bool allKnown;
  if (failed(inputShapes(numInputs(), shapes, allKnown)))
    return failure();
  int64_t rank = shapes[0].size();
  FailureOr<int64_t> axis = normalizeAxis(*axisAttr, rank);
  if (failed(axis))
    return failure();
  Shape shape = shapes[0];
  shape[*axis] = 0;
  for (auto [i, s] : llvm::enumerate(shapes)) {
    bool compatible = static_cast<int64_t>(s.size()) == rank;
    for (int64_t d = 0; compatible && d < rank; ++d)
      compatible = d == *axis || s[d] == shapes[0][d];
    if (!compatible) {
      error() << "input #" << i << " of shape " << formatShape(s)
              << " does not match input #0 of shape " << formatShape(shapes[0])
              << " outside axis " << *axis;
      return failure();
    }
    shape[*axis] += s[*axis];
  }
  if (failed(checkShape(shape)))
    return failure();
  if (allKnown) {
    if (failed(checkFoldSize(shape)))
      return failure();
    const HostTensor &first = **hostOf(0);
    HostTensor out = HostTensor::zeros(first.dtype, shape);
    int64_t outer = *numElements(ArrayRef<int64_t>(shape).take_front(*axis));
    int64_t inner =
        *numElements(ArrayRef<int64_t>(shape).drop_front(*axis + 1));
    int64_t offset = 0;
    for (unsigned i = 0; i < numInputs(); ++i) {
      const HostTensor &t = **hostOf(i);
      if (t.isFloat() != out.isFloat()) {
        error() << "inputs have different element types";
        return failure();
      }
      int64_t along = t.shape[*axis];
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t a = 0; a < along; ++a)
          for (int64_t n = 0; n < inner; ++n) {
            int64_t src = (o * along + a) * inner + n;
            int64_t dst = (o * shape[*axis] + offset + a) * inner + n;
            if (out.isFloat())
              out.setDouble(dst, t.floats[src]);
            else
              out.setInt(dst, t.ints[src]);
          }
      offset += along;
    }
    return setHost(0, std::move(out));
  }
  FailureOr<Type> runtimeType = firstRuntimeElement(0, numInputs());
  if (failed(runtimeType))
    return failure();
  Type element = *runtimeType;
  SmallVector<Value> values;
  for (unsigned i = 0; i < numInputs(); ++i) {
    FailureOr<Value> v = value(i, element);
    if (failed(v))
      return failure();
    if (elementOf(*v) != element) {
      error() << "inputs have different element types (" << typeName(element)
              << " and " << typeName(elementOf(*v)) << ")";
      return failure();
    }
    if (shapes[i][*axis] != 0)
      values.push_back(*v);
  }
  if (values.empty())
    return setValue(0, *value(0, element));
  if (values.size() == 1)
    return setValue(0, values.front());
  return setValue(0, ConcatOp::create(builder, loc, tensorType(shape, element),
                                      values, *axis));
}

LogicalResult Importer::importSlice() {
  if (failed(checkArity(3, 5)))
    return failure();
  FailureOr<Shape> in = inputShape(0);
  FailureOr<SmallVector<int64_t>> starts = requireInts(1, "starts");
  FailureOr<SmallVector<int64_t>> ends = requireInts(2, "ends");
  if (failed(in) || failed(starts) || failed(ends))
    return failure();
  int64_t rank = in->size();
  SmallVector<int64_t> axes, steps;
  if (hasInput(3)) {
    FailureOr<SmallVector<int64_t>> a = requireInts(3, "axes");
    if (failed(a))
      return failure();
    axes = *a;
  } else {
    axes = llvm::to_vector(llvm::seq<int64_t>(0, starts->size()));
  }
  if (hasInput(4)) {
    FailureOr<SmallVector<int64_t>> s = requireInts(4, "steps");
    if (failed(s))
      return failure();
    steps = *s;
  } else {
    steps.assign(starts->size(), 1);
  }
  if (ends->size() != starts->size() || axes.size() != starts->size() ||
      steps.size() != starts->size()) {
    error() << "starts, ends, axes and steps must have the same length";
    return failure();
  }
  FailureOr<SmallVector<int64_t>> normalized = normalizeAxes(axes, rank);
  if (failed(normalized))
    return failure();
  SmallVector<int64_t> begin(rank, 0), step(rank, 1);
  Shape shape(*in);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t d = (*normalized)[i], dim = (*in)[d], s = steps[i];
    if (s == 0) {
      error() << "step 0 on axis " << axes[i];
      return failure();
    }
    auto clampIndex = [&](int64_t v, int64_t lo, int64_t hi) {
      if (v < 0)
        v = v < -dim ? -1 : v + dim; // saturate very negative values
      return std::clamp(v, lo, hi);
    };
    int64_t b, e;
    if (s > 0) {
      b = clampIndex((*starts)[i], 0, dim);
      e = clampIndex((*ends)[i], 0, dim);
      shape[d] = e > b ? (e - b - 1) / s + 1 : 0;
    } else {
      b = clampIndex((*starts)[i], -1, dim - 1);
      e = clampIndex((*ends)[i], -1, dim - 1);
      int64_t negStep = s == std::numeric_limits<int64_t>::min()
                            ? std::numeric_limits<int64_t>::max()
                            : -s;
      shape[d] = b > e ? (b - e - 1) / negStep + 1 : 0;
    }
    begin[d] = b;
    step[d] = s;
  }
  if (std::optional<LogicalResult> folded = foldStridedOnHost(
          shape, [&](ArrayRef<int64_t> inStrides, int64_t d, int64_t index) {
            return (begin[d] + index * step[d]) * inStrides[d];
          }))
    return *folded;
  FailureOr<Value> v = value(0);
  if (failed(v))
    return failure();
  if (shape == *in && llvm::all_of(step, [](int64_t s) { return s == 1; }))
    return setValue(0, *v);
  SmallVector<int64_t> limits(rank);
  for (int64_t d = 0; d < rank; ++d) {
    if (step[d] < 0) {
      error() << "negative steps are only supported on tensors known at "
                 "import time";
      return failure();
    }
    limits[d] =
        shape[d] == 0 ? begin[d] : begin[d] + (shape[d] - 1) * step[d] + 1;
  }
  return setValue(0, SliceOp::create(builder, loc,
                                     tensorType(shape, elementOf(*v)), *v,
                                     begin, limits, step));
}

/// The operands of Gather and GatherElements: data of rank 1 or more, its
/// shape, INT64 or INT32 indices and their shape, and the axis counted
/// from the front.
LogicalResult Importer::gatherOperands(Shape &data, Shape &indices,
                                       int64_t &axis) {
  if (failed(checkArity(2, 2)))
    return failure();
  FailureOr<int64_t> axisAttr = intAttr("axis", 0);
  FailureOr<Shape> in = inputShape(0);
  FailureOr<Shape> indicesShape = inputShape(1);
  FailureOr<int32_t> indicesType = inputDType(1);
  if (failed(axisAttr) || failed(in) || failed(indicesShape) ||
      failed(indicesType))
    return failure();
  if (*indicesType != kInt64 && *indicesType != kInt32) {
    error() << "indices must be INT64 or INT32, got "
            << dtypeName(*indicesType);
    return failure();
  }
  int64_t rank = in->size();
  if (rank == 0) {
    error() << "data must have rank 1 or more";
    return failure();
  }
  FailureOr<int64_t> normalized = normalizeAxis(*axisAttr, rank);
  if (failed(normalized))
    return failure();
  data = std::move(*in);
  indices = std::move(*indicesShape);
  axis = *normalized;
  return success();
}

LogicalResult Importer::importGather() {
  Shape in, indicesShape;
  int64_t axis;
  if (failed(gatherOperands(in, indicesShape, axis)))
    return failure();
  Shape shape(ArrayRef<int64_t>(in).take_front(axis));
  shape.append(indicesShape.begin(), indicesShape.end());
  shape.append(in.begin() + axis + 1, in.end());
  if (failed(checkShape(shape)))
    return failure();
  FailureOr<const HostTensor *> data = hostOf(0), indices = hostOf(1);
  if (failed(data) || failed(indices))
    return failure();
  int64_t dim = in[axis];
  // Normalized indices, when known.
  std::optional<HostTensor> idx;
  if (*indices) {
    idx = **indices;
    idx->dtype = kInt64;
    for (int64_t &i : idx->ints) {
      if (i < -dim || i >= dim) {
        error() << "index " << i << " is out of range for axis " << axis
                << " of size " << dim;
        return failure();
      }
      if (i < 0)
        i += dim;
    }
  }
  // Known data and indices fold through amp.gather's folder; it declines
  // only a gather growing past its limit (--max-folded-elements raised
  // beyond it), which then stays a run-time gather.
  if (*data && idx) {
    if (failed(checkFoldSize(shape)))
      return failure();
    std::optional<HostTensor> folded = foldWithAMP(
        {*data, &*idx}, (*data)->dtype, [&](OpBuilder &b, ValueRange operands) {
          return GatherOp::create(b, loc,
                                  tensorType(shape, elementOf(operands[0])),
                                  operands[0], operands[1], axis,
                                  /*padding_idx=*/nullptr);
        });
    if (folded)
      return setHost(0, std::move(*folded));
  }
  FailureOr<IntegerAttr> padding = paddingIndexOf(axis, dim);
  if (failed(padding))
    return failure();
  FailureOr<Value> input = value(0);
  if (failed(input))
    return failure();
  Value indexValue;
  if (idx) {
    indexValue = constant(*idx, tensorType(idx->shape, builder.getI64Type()));
  } else {
    FailureOr<Value> v = value(1);
    if (failed(v))
      return failure();
    indexValue = *v;
  }
  return setValue(0, GatherOp::create(builder, loc,
                                      tensorType(shape, elementOf(*input)),
                                      *input, indexValue, axis, *padding));
}

/// GatherElements (torch.gather's export): amp.gather_elements. Indices
/// known at import time are checked here; the others by the step
/// (amp-check-indices).
LogicalResult Importer::importGatherElements() {
  Shape in, indicesShape;
  int64_t axis;
  if (failed(gatherOperands(in, indicesShape, axis)))
    return failure();
  int64_t rank = in.size();
  if (static_cast<int64_t>(indicesShape.size()) != rank) {
    error() << "indices of shape " << formatShape(indicesShape)
            << " must have the rank of the data, of shape " << formatShape(in);
    return failure();
  }
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && indicesShape[d] > in[d]) {
      error() << "indices of shape " << formatShape(indicesShape)
              << " are longer than the data, of shape " << formatShape(in)
              << ", in dimension " << d << " (only axis " << axis
              << " may differ that way)";
      return failure();
    }
  if (failed(checkShape(indicesShape)))
    return failure();
  FailureOr<const HostTensor *> indices = hostOf(1);
  FailureOr<Value> input = value(0);
  if (failed(indices) || failed(input))
    return failure();
  int64_t dim = in[axis];
  Value indexValue;
  if (*indices) {
    HostTensor idx = **indices;
    idx.dtype = kInt64;
    for (int64_t &i : idx.ints) {
      if (i < -dim || i >= dim) {
        error() << "index " << i << " is out of range for axis " << axis
                << " of size " << dim;
        return failure();
      }
      if (i < 0)
        i += dim;
    }
    indexValue = constant(idx, tensorType(idx.shape, builder.getI64Type()));
  } else {
    FailureOr<Value> v = value(1);
    if (failed(v))
      return failure();
    indexValue = *v;
  }
  return setValue(
      0, GatherElementsOp::create(builder, loc,
                                  tensorType(indicesShape, elementOf(*input)),
                                  *input, indexValue, axis));
}

/// The padding_idx of a Gather along `axis` from a table of `rows` rows:
/// the caller's (ONNXImportOptions::paddingIndices) when the data is a
/// floating-point initializer named there, null otherwise. A negative index
/// counts from the end, as in PyTorch's nn.Embedding.
FailureOr<IntegerAttr> Importer::paddingIndexOf(int64_t axis, int64_t rows) {
  FailureOr<Entry *> data = entry(0);
  if (failed(data))
    return failure();
  const onnx::TensorProto *init = (*data)->initializer;
  if (!init || !isFloatDType(init->data_type()))
    return IntegerAttr();
  auto it = options.paddingIndices.find(init->name());
  if (it == options.paddingIndices.end())
    return IntegerAttr();
  int64_t index = it->second;
  if (axis != 0) {
    error() << "the data, initializer '" << init->name()
            << "', has a padding index (" << index
            << "), but the Gather is along axis " << axis
            << "; a padding index needs an embedding lookup (axis 0)";
    return failure();
  }
  if (index < -rows || index >= rows) {
    error() << "the padding index " << index << " of initializer '"
            << init->name() << "' is out of range for its " << rows << " rows";
    return failure();
  }
  paddedTables.insert(init->name());
  return builder.getI64IntegerAttr(index < 0 ? index + rows : index);
}

LogicalResult Importer::importSplit() {
  if (failed(checkArity(1, 2)))
    return failure();
  FailureOr<int64_t> axisAttr = intAttr("axis", 0);
  FailureOr<Shape> in = inputShape(0);
  if (failed(axisAttr) || failed(in))
    return failure();
  FailureOr<int64_t> axis = normalizeAxis(*axisAttr, in->size());
  if (failed(axis))
    return failure();
  int64_t outputs = node->output_size(), dim = (*in)[*axis];
  SmallVector<int64_t> sizes;
  if (hasInput(1)) {
    FailureOr<SmallVector<int64_t>> given = requireInts(1, "split");
    if (failed(given))
      return failure();
    sizes = *given;
  } else {
    if (outputs < 1 || dim % outputs != 0) {
      error() << "cannot split size " << dim << " into " << outputs
              << " equal parts";
      return failure();
    }
    sizes.assign(outputs, dim / outputs);
  }
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0 || s > dim) {
      error() << "invalid split size " << s;
      return failure();
    }
    total += s;
  }
  if (static_cast<int64_t>(sizes.size()) != outputs || total != dim) {
    error() << "split sizes " << formatShape(sizes) << " do not divide size "
            << dim << " into " << outputs << " outputs";
    return failure();
  }
  FailureOr<const HostTensor *> known = hostOf(0);
  if (failed(known))
    return failure();
  int64_t rank = in->size(), offset = 0;
  for (int64_t o = 0; o < outputs; ++o) {
    Shape shape(*in);
    shape[*axis] = sizes[o];
    if (*known) {
      const HostTensor &t = **known;
      HostTensor out = HostTensor::zeros(t.dtype, shape);
      int64_t outer = *numElements(ArrayRef<int64_t>(*in).take_front(*axis));
      int64_t inner =
          *numElements(ArrayRef<int64_t>(*in).drop_front(*axis + 1));
      for (int64_t a = 0; a < outer; ++a)
        for (int64_t b = 0; b < sizes[o]; ++b)
          for (int64_t n = 0; n < inner; ++n) {
            int64_t src = (a * dim + offset + b) * inner + n;
            int64_t dst = (a * sizes[o] + b) * inner + n;
            copyElement(out, dst, t, src);
          }
      if (hasOutput(o) && failed(setHost(o, std::move(out))))
        return failure();
    } else if (hasOutput(o)) {
      FailureOr<Value> v = value(0);
      if (failed(v))
        return failure();
      SmallVector<int64_t> starts(rank, 0), limits(*in), strides(rank, 1);
      starts[*axis] = offset;
      limits[*axis] = offset + sizes[o];
      Value slice =
          SliceOp::create(builder, loc, tensorType(shape, elementOf(*v)), *v,
                          starts, limits, strides);
      Entry e;
      e.value = slice;
      if (failed(defineOutput(o, std::move(e))))
        return failure();
    }
    offset += sizes[o];
  }
  return success();
}

LogicalResult Importer::importPad() {
  if (failed(checkArity(2, 3)))
    return failure();
  FailureOr<std::string> mode = stringAttr("mode", "constant");
  FailureOr<Shape> in = inputShape(0);
  FailureOr<SmallVector<int64_t>> pads = requireInts(1, "pads");
  if (failed(mode) || failed(in) || failed(pads))
    return failure();
  if (*mode != "constant") {
    error() << "mode '" << *mode << "' is not supported (only 'constant')";
    return failure();
  }
  int64_t rank = in->size();
  if (static_cast<int64_t>(pads->size()) != 2 * rank) {
    error() << "pads has " << pads->size() << " entries but the input has "
            << "rank " << rank;
    return failure();
  }
  double fill = 0.0;
  if (hasInput(2)) {
    FailureOr<double> v = requireScalar(2, "constant_value");
    if (failed(v))
      return failure();
    fill = *v;
  }
  Shape shape(*in);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t begin = (*pads)[d], end = (*pads)[rank + d];
    if (begin < -kMaxTensorElements || begin > kMaxTensorElements ||
        end < -kMaxTensorElements || end > kMaxTensorElements ||
        shape[d] + begin + end < 0) {
      error() << "pads " << formatShape(*pads) << " do not fit the input "
              << formatShape(*in);
      return failure();
    }
    shape[d] += begin + end;
  }
  if (failed(checkShape(shape)))
    return failure();
  FailureOr<const HostTensor *> known = hostOf(0);
  if (failed(known))
    return failure();
  if (*known) {
    if (failed(checkFoldSize(shape)))
      return failure();
    const HostTensor &t = **known;
    HostTensor out = HostTensor::zeros(t.dtype, shape);
    Shape outStrides = stridesOf(shape), inStrides = stridesOf(t.shape);
    for (int64_t k = 0; k < out.size(); ++k) {
      int64_t rest = k, src = 0;
      bool inside = true;
      for (int64_t d = 0; d < rank; ++d) {
        int64_t index = rest / outStrides[d] - (*pads)[d];
        rest %= outStrides[d];
        inside &= index >= 0 && index < (*in)[d];
        src += index * inStrides[d];
      }
      out.setDouble(k, inside ? t.getDouble(src) : fill);
      if (!out.isFloat())
        out.setInt(k, inside ? t.getInt(src) : saturatingToInt64(fill));
    }
    return setHost(0, std::move(out));
  }
  FailureOr<Value> input = value(0);
  if (failed(input))
    return failure();
  // Negative pads crop (a slice); positive ones concatenate constant slabs
  // along each padded dimension.
  Value x = *input;
  Type element = elementOf(x);
  SmallVector<int64_t> starts(rank, 0), limits(*in), strides(rank, 1);
  bool crop = false;
  for (int64_t d = 0; d < rank; ++d) {
    if ((*pads)[d] < 0) {
      starts[d] = -(*pads)[d];
      crop = true;
    }
    if ((*pads)[rank + d] < 0) {
      limits[d] += (*pads)[rank + d];
      crop = true;
    }
  }
  if (crop) {
    Shape cropped;
    for (int64_t d = 0; d < rank; ++d)
      cropped.push_back(limits[d] - starts[d]);
    x = SliceOp::create(builder, loc, tensorType(cropped, element), x, starts,
                        limits, strides);
  }
  for (int64_t d = 0; d < rank; ++d) {
    int64_t begin = std::max<int64_t>((*pads)[d], 0);
    int64_t end = std::max<int64_t>((*pads)[rank + d], 0);
    if (!begin && !end)
      continue;
    Shape current(shapeOf(x));
    SmallVector<Value> parts;
    HostTensor fillTensor = HostTensor::zeros(kDouble, {});
    fillTensor.floats[0] = fill;
    auto slab = [&](int64_t size) {
      Shape slabShape = current;
      slabShape[d] = size;
      return constant(fillTensor, tensorType(slabShape, element));
    };
    if (begin)
      parts.push_back(slab(begin));
    parts.push_back(x);
    if (end)
      parts.push_back(slab(end));
    Shape padded = current;
    padded[d] += begin + end;
    x = ConcatOp::create(builder, loc, tensorType(padded, element), parts, d);
  }
  return setValue(0, x);
}

/// Trilu keeps the upper (j - i >= k) or lower (j - i <= k) triangle of the
/// last two dimensions and zeroes the rest. A known input folds; otherwise
/// the kept elements are a constant i1 mask of the last two dimensions and
/// the op is amp.where(mask, x, 0), through which gradients already flow.
LogicalResult Importer::importTrilu() {
  if (failed(checkArity(1, 2)))
    return failure();
  FailureOr<int64_t> upper = intAttr("upper", 1);
  FailureOr<Shape> shape = inputShape(0);
  if (failed(upper) || failed(shape))
    return failure();
  if (*upper != 0 && *upper != 1) {
    error() << "attribute 'upper' must be 0 or 1, got " << *upper;
    return failure();
  }
  int64_t rank = shape->size();
  if (rank < 2) {
    error() << "the input must have rank 2 or more, got rank " << rank;
    return failure();
  }
  int64_t diagonal = 0;
  if (hasInput(1)) {
    FailureOr<SmallVector<int64_t>> k = requireInts(1, "k");
    if (failed(k))
      return failure();
    if (k->size() != 1) {
      error() << inputLabel(1) << " (k) must have one element, got "
              << k->size();
      return failure();
    }
    diagonal = k->front();
  }
  int64_t rows = (*shape)[rank - 2], cols = (*shape)[rank - 1];
  auto kept = [&](int64_t i, int64_t j) {
    int64_t offset = j - i;
    return *upper ? offset >= diagonal : offset <= diagonal;
  };
  FailureOr<const HostTensor *> known = hostOf(0);
  if (failed(known))
    return failure();
  if (*known) {
    if (failed(checkFoldSize(*shape)))
      return failure();
    const HostTensor &x = **known;
    HostTensor out = HostTensor::zeros(x.dtype, *shape);
    for (int64_t e = 0; e < out.size(); ++e)
      if (kept((e / cols) % rows, e % cols))
        copyElement(out, e, x, e);
    return setHost(0, std::move(out));
  }
  FailureOr<Value> x = value(0);
  if (failed(x))
    return failure();
  Shape maskShape = {rows, cols};
  if (failed(checkFoldSize(maskShape)))
    return failure();
  HostTensor mask = HostTensor::zeros(kBool, maskShape);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      mask.ints[i * cols + j] = kept(i, j);
  Value condition = broadcastTo(
      constant(mask, tensorType(maskShape, builder.getI1Type())), *shape);
  RankedTensorType type = tensorType(*shape, elementOf(*x));
  return setValue(
      0, WhereOp::create(builder, loc, type, condition, *x, splat(0, type)));
}

void mlir::amp::onnx_import::registerIndexingHandlers(OpTable &table) {
  table.onOp("Concat", kMinOpset, &Importer::importConcat);
  table.onOp("Slice", kMinOpset, &Importer::importSlice);
  table.onOp("Gather", kMinOpset, &Importer::importGather);
  table.onOp("GatherElements", kMinOpset, &Importer::importGatherElements);
  table.onOp("Split", kMinOpset, &Importer::importSplit);
  table.onOp("Pad", kMinOpset, &Importer::importPad);
  table.onOp("Trilu", 14, &Importer::importTrilu);
}

//===- ConstantOps.cpp - ONNX constants and shape queries -----------------===//
//
// Constant, Identity, Shape, Size, ConstantOfShape and Range: values known at
// import time (host tensors), which the shape arithmetic of exporters
// consumes.
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

LogicalResult Importer::importConstant() {
  if (failed(checkArity(0, 0)))
    return failure();
  if (node->attribute_size() != 1) {
    error() << "must have exactly one attribute, has "
            << node->attribute_size();
    return failure();
  }
  const onnx::AttributeProto &a = node->attribute(0);
  HostTensor tensor;
  if (a.name() == "value" && a.type() == onnx::AttributeProto::TENSOR) {
    std::string message;
    if (!decodeTensor(a.t(), source, tensor, message,
                      options.maxFoldedElements)) {
      error() << "its value " << message;
      return failure();
    }
  } else if (a.name() == "value_float" &&
             a.type() == onnx::AttributeProto::FLOAT) {
    tensor = HostTensor::zeros(kFloat, {});
    tensor.setDouble(0, a.f());
  } else if (a.name() == "value_floats" &&
             a.type() == onnx::AttributeProto::FLOATS) {
    tensor = HostTensor::zeros(kFloat, {a.floats_size()});
    for (int i = 0; i < a.floats_size(); ++i)
      tensor.setDouble(i, a.floats(i));
  } else if (a.name() == "value_int" && a.type() == onnx::AttributeProto::INT) {
    tensor = HostTensor::scalarInt(a.i());
  } else if (a.name() == "value_ints" &&
             a.type() == onnx::AttributeProto::INTS) {
    tensor = HostTensor::vectorInt(
        SmallVector<int64_t>(a.ints().begin(), a.ints().end()));
  } else {
    error() << "attribute '" << a.name()
            << "' is not supported (value, value_float(s) and value_int(s) "
               "are)";
    return failure();
  }
  return setHost(0, std::move(tensor));
}

LogicalResult Importer::importIdentity() {
  if (failed(checkArity(1, 1)))
    return failure();
  FailureOr<Entry *> e = entry(0);
  if (failed(e))
    return failure();
  Entry &src = **e;
  Entry alias;
  alias.host = src.host;
  alias.value = src.value;
  if (src.initializer && !alias.host) {
    // The alias refers to the same parameter argument (or constant), never
    // to a second copy of the initializer.
    if (isFloatDType(src.initializer->data_type())) {
      FailureOr<Value> v = valueOf(src, node->input(0));
      if (failed(v))
        return failure();
      alias.value = *v;
    } else {
      FailureOr<std::shared_ptr<HostTensor>> t = decodeInitializer(src);
      if (failed(t))
        return failure();
      alias.host = *t;
    }
  }
  return defineOutput(0, std::move(alias));
}

LogicalResult Importer::importShape() {
  if (failed(checkArity(1, 1)))
    return failure();
  FailureOr<Shape> shape = inputShape(0);
  FailureOr<int64_t> start = intAttr("start", 0);
  FailureOr<int64_t> end = intAttr("end", std::numeric_limits<int64_t>::max());
  if (failed(shape) || failed(start) || failed(end))
    return failure();
  int64_t rank = shape->size();
  auto clamp = [&](int64_t v) {
    if (v < 0)
      v = std::max<int64_t>(v + rank, 0);
    return std::min(v, rank);
  };
  int64_t b = clamp(*start), e = clamp(*end);
  SmallVector<int64_t> dims;
  for (int64_t d = b; d < e; ++d)
    dims.push_back((*shape)[d]);
  return setHost(0, HostTensor::vectorInt(dims));
}

LogicalResult Importer::importSize() {
  if (failed(checkArity(1, 1)))
    return failure();
  FailureOr<Shape> shape = inputShape(0);
  if (failed(shape))
    return failure();
  return setHost(0, HostTensor::scalarInt(*numElements(*shape)));
}

LogicalResult Importer::importConstantOfShape() {
  if (failed(checkArity(1, 1)))
    return failure();
  FailureOr<SmallVector<int64_t>> shape = requireInts(0, "shape");
  if (failed(shape) || failed(checkFoldSize(*shape)))
    return failure();
  HostTensor fill = HostTensor::zeros(kFloat, {});
  if (const onnx::AttributeProto *a = attr("value")) {
    std::string message;
    if (a->type() != onnx::AttributeProto::TENSOR ||
        !decodeTensor(a->t(), source, fill, message, 1) || fill.size() != 1) {
      error() << "attribute 'value' must be a one-element tensor"
              << (message.empty() ? "" : ": ") << message;
      return failure();
    }
  }
  HostTensor out = HostTensor::zeros(fill.dtype, *shape);
  for (int64_t k = 0; k < out.size(); ++k) {
    if (out.isFloat())
      out.floats[k] = fill.floats[0];
    else
      out.ints[k] = fill.ints[0];
  }
  return setHost(0, std::move(out));
}

LogicalResult Importer::importRange() {
  if (failed(checkArity(3, 3)))
    return failure();
  FailureOr<const HostTensor *> start = requireHost(0, "start");
  FailureOr<const HostTensor *> limit = requireHost(1, "limit");
  FailureOr<const HostTensor *> delta = requireHost(2, "delta");
  if (failed(start) || failed(limit) || failed(delta))
    return failure();
  if ((*start)->size() != 1 || (*limit)->size() != 1 || (*delta)->size() != 1) {
    error() << "start, limit and delta must be scalars";
    return failure();
  }
  double s = (*start)->getDouble(0), l = (*limit)->getDouble(0),
         d = (*delta)->getDouble(0);
  if (d == 0 || !std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d)) {
    error() << "delta must be non-zero and the bounds finite";
    return failure();
  }
  double count = std::max(0.0, std::ceil((l - s) / d));
  if (count > static_cast<double>(options.maxFoldedElements)) {
    error() << "would fold a range of " << count << " elements";
    return failure();
  }
  HostTensor out =
      HostTensor::zeros((*start)->dtype, {static_cast<int64_t>(count)});
  for (int64_t k = 0; k < out.size(); ++k) {
    if (out.isFloat())
      out.setDouble(k, s + k * d);
    else
      out.setInt(k, static_cast<int64_t>(
                        static_cast<uint64_t>((*start)->getInt(0)) +
                        static_cast<uint64_t>(k) *
                            static_cast<uint64_t>((*delta)->getInt(0))));
  }
  return setHost(0, std::move(out));
}

void mlir::amp::onnx_import::registerConstantHandlers(OpTable &table) {
  table.onOp("Constant", kMinOpset, &Importer::importConstant);
  table.onOp("Identity", kMinOpset, &Importer::importIdentity);
  table.onOp("Shape", kMinOpset, &Importer::importShape);
  table.onOp("Size", kMinOpset, &Importer::importSize);
  table.onOp("ConstantOfShape", kMinOpset, &Importer::importConstantOfShape);
  table.onOp("Range", kMinOpset, &Importer::importRange);
}

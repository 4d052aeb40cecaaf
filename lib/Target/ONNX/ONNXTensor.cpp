//===- ONNXTensor.cpp - ONNX tensors known at import time -----------------===//
//
// Element types, host tensors and the checked decoding of TensorProto
// payloads for the ONNX importer.
//
//===----------------------------------------------------------------------===//

#include "ONNXTensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "onnx/onnx_pb.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace mlir {
namespace amp {
namespace onnx_import {

std::string dtypeName(int32_t dtype) {
  switch (dtype) {
  case kUndefined:
    return "UNDEFINED";
  case kFloat:
    return "FLOAT";
  case kUInt8:
    return "UINT8";
  case kInt8:
    return "INT8";
  case kUInt16:
    return "UINT16";
  case kInt16:
    return "INT16";
  case kInt32:
    return "INT32";
  case kInt64:
    return "INT64";
  case kString:
    return "STRING";
  case kBool:
    return "BOOL";
  case kFloat16:
    return "FLOAT16";
  case kDouble:
    return "DOUBLE";
  case kUInt32:
    return "UINT32";
  case kUInt64:
    return "UINT64";
  case kComplex64:
    return "COMPLEX64";
  case kComplex128:
    return "COMPLEX128";
  case kBFloat16:
    return "BFLOAT16";
  default:
    return "data type " + std::to_string(dtype);
  }
}

bool isFloatDType(int32_t dtype) {
  return dtype == kFloat || dtype == kFloat16 || dtype == kBFloat16 ||
         dtype == kDouble;
}

bool isIntegralDType(int32_t dtype) {
  switch (dtype) {
  case kUInt8:
  case kInt8:
  case kUInt16:
  case kInt16:
  case kInt32:
  case kInt64:
  case kBool:
  case kUInt32:
  case kUInt64:
    return true;
  default:
    return false;
  }
}

int64_t dtypeSize(int32_t dtype) {
  switch (dtype) {
  case kFloat:
  case kInt32:
  case kUInt32:
    return 4;
  case kUInt8:
  case kInt8:
  case kBool:
    return 1;
  case kUInt16:
  case kInt16:
  case kFloat16:
  case kBFloat16:
    return 2;
  case kInt64:
  case kDouble:
  case kUInt64:
    return 8;
  default:
    return 0;
  }
}

Type runtimeElementType(int32_t dtype, MLIRContext *context) {
  switch (dtype) {
  case kFloat:
    return Float32Type::get(context);
  case kFloat16:
    return Float16Type::get(context);
  case kBFloat16:
    return BFloat16Type::get(context);
  case kInt64:
    return IntegerType::get(context, 64);
  case kInt32:
    return IntegerType::get(context, 32);
  case kBool:
    return IntegerType::get(context, 1);
  default:
    return {};
  }
}

int32_t dtypeOf(Type type) {
  if (type.isF32())
    return kFloat;
  if (type.isF16())
    return kFloat16;
  if (type.isBF16())
    return kBFloat16;
  if (type.isInteger(64))
    return kInt64;
  if (type.isInteger(32))
    return kInt32;
  if (type.isInteger(1))
    return kBool;
  return kUndefined;
}

std::optional<int64_t> numElements(ArrayRef<int64_t> shape) {
  // The product of the non-zero dimensions is bounded too, so that strides
  // never overflow even for an empty tensor.
  int64_t product = 1;
  bool empty = false;
  for (int64_t dim : shape) {
    if (dim < 0)
      return std::nullopt;
    if (dim == 0) {
      empty = true;
      continue;
    }
    if (product > kMaxTensorElements / dim)
      return std::nullopt;
    product *= dim;
  }
  return empty ? 0 : product;
}

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (auto [i, dim] : llvm::enumerate(shape)) {
    if (i)
      text += ", ";
    text += std::to_string(dim);
  }
  return text + "]";
}

namespace {
const llvm::fltSemantics &semanticsOf(int32_t dtype) {
  switch (dtype) {
  case kFloat16:
    return llvm::APFloat::IEEEhalf();
  case kBFloat16:
    return llvm::APFloat::BFloat();
  case kDouble:
    return llvm::APFloat::IEEEdouble();
  default:
    return llvm::APFloat::IEEEsingle();
  }
}

double bitsToDouble(uint64_t bits, int32_t dtype) {
  const llvm::fltSemantics &semantics = semanticsOf(dtype);
  llvm::APFloat value(
      semantics, llvm::APInt(llvm::APFloat::getSizeInBits(semantics), bits));
  bool losesInfo = false;
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToDouble();
}
} // namespace

double roundToFloatDType(double value, int32_t dtype) {
  if (dtype == kDouble || std::isnan(value))
    return value;
  llvm::APFloat rounded(value);
  bool losesInfo = false;
  rounded.convert(semanticsOf(dtype), llvm::APFloat::rmNearestTiesToEven,
                  &losesInfo);
  rounded.convert(llvm::APFloat::IEEEdouble(),
                  llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return rounded.convertToDouble();
}

int64_t wrapToIntegralDType(int64_t value, int32_t dtype) {
  uint64_t bits = static_cast<uint64_t>(value);
  switch (dtype) {
  case kBool:
    return value != 0;
  case kInt8:
    return static_cast<int8_t>(static_cast<uint8_t>(bits));
  case kUInt8:
    return static_cast<uint8_t>(bits);
  case kInt16:
    return static_cast<int16_t>(static_cast<uint16_t>(bits));
  case kUInt16:
    return static_cast<uint16_t>(bits);
  case kInt32:
    return static_cast<int32_t>(static_cast<uint32_t>(bits));
  case kUInt32:
    return static_cast<uint32_t>(bits);
  default:
    return value;
  }
}

int64_t saturatingToInt64(double value) {
  if (std::isnan(value))
    return 0;
  if (value >= 9.2233720368547758e18)
    return std::numeric_limits<int64_t>::max();
  if (value <= -9.2233720368547758e18)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(value);
}

void HostTensor::setDouble(int64_t index, double value) {
  if (isFloat())
    floats[index] = roundToFloatDType(value, dtype);
  else
    ints[index] = wrapToIntegralDType(saturatingToInt64(value), dtype);
}

void HostTensor::setInt(int64_t index, int64_t value) {
  if (isFloat())
    floats[index] = roundToFloatDType(static_cast<double>(value), dtype);
  else
    ints[index] = wrapToIntegralDType(value, dtype);
}

bool HostTensor::isSplat() const {
  if (isFloat()) {
    for (double v : floats)
      if (!(v == floats.front()) &&
          !(std::isnan(v) && std::isnan(floats.front())))
        return false;
    return true;
  }
  for (int64_t v : ints)
    if (v != ints.front())
      return false;
  return true;
}

HostTensor HostTensor::zeros(int32_t dtype, ArrayRef<int64_t> shape) {
  HostTensor tensor;
  tensor.dtype = dtype;
  tensor.shape.assign(shape.begin(), shape.end());
  int64_t count = numElements(shape).value_or(0);
  if (tensor.isFloat())
    tensor.floats.assign(count, 0.0);
  else
    tensor.ints.assign(count, 0);
  return tensor;
}

HostTensor HostTensor::scalarInt(int64_t value, int32_t dtype) {
  HostTensor tensor = zeros(dtype, {});
  tensor.setInt(0, value);
  return tensor;
}

HostTensor HostTensor::vectorInt(ArrayRef<int64_t> values) {
  HostTensor tensor = zeros(kInt64, {static_cast<int64_t>(values.size())});
  tensor.ints.assign(values.begin(), values.end());
  return tensor;
}

Shape stridesOf(ArrayRef<int64_t> shape) {
  Shape strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * std::max<int64_t>(shape[i + 1], 1);
  return strides;
}

int64_t broadcastSourceIndex(int64_t linear, ArrayRef<int64_t> out,
                             ArrayRef<int64_t> outStrides, ArrayRef<int64_t> in,
                             ArrayRef<int64_t> inStrides) {
  int64_t source = 0;
  size_t offset = out.size() - in.size();
  for (size_t d = 0; d < out.size(); ++d) {
    int64_t index = linear / outStrides[d];
    linear %= outStrides[d];
    if (d >= offset && in[d - offset] != 1)
      source += index * inStrides[d - offset];
  }
  return source;
}

void copyElement(HostTensor &to, int64_t dst, const HostTensor &from,
                 int64_t src) {
  if (to.isFloat())
    to.floats[dst] = from.floats[src];
  else
    to.ints[dst] = from.ints[src];
}

HostTensor gatherElements(const HostTensor &t, ArrayRef<int64_t> shape,
                          function_ref<int64_t(int64_t)> source) {
  HostTensor out = HostTensor::zeros(t.dtype, shape);
  for (int64_t k = 0; k < out.size(); ++k)
    copyElement(out, k, t, source(k));
  return out;
}

int64_t stridedSource(int64_t k, ArrayRef<int64_t> outStrides,
                      function_ref<int64_t(int64_t, int64_t)> share) {
  int64_t rest = k, src = 0;
  for (int64_t d = 0, rank = outStrides.size(); d < rank; ++d) {
    int64_t index = rest / outStrides[d];
    rest %= outStrides[d];
    src += share(d, index);
  }
  return src;
}

DenseElementsAttr toDenseAttr(const HostTensor &tensor, RankedTensorType type) {
  Type element = type.getElementType();
  auto floatAt = [&](int64_t i) {
    llvm::APFloat value(tensor.getDouble(i));
    bool losesInfo = false;
    value.convert(cast<FloatType>(element).getFloatSemantics(),
                  llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    return value;
  };
  auto intAt = [&](int64_t i) {
    unsigned width = element.getIntOrFloatBitWidth();
    return llvm::APInt(width, static_cast<uint64_t>(tensor.getInt(i)),
                       /*isSigned=*/width > 1, /*implicitTrunc=*/true);
  };
  bool splat = tensor.size() > 0 && tensor.isSplat();
  if (isa<FloatType>(element)) {
    if (splat)
      return DenseElementsAttr::get(type, floatAt(0));
    SmallVector<llvm::APFloat> values;
    values.reserve(tensor.size());
    for (int64_t i = 0; i < tensor.size(); ++i)
      values.push_back(floatAt(i));
    return DenseElementsAttr::get(type, values);
  }
  if (element.isInteger(1)) {
    if (splat)
      return DenseElementsAttr::get(type, tensor.getInt(0) != 0);
    SmallVector<bool> values;
    values.reserve(tensor.size());
    for (int64_t i = 0; i < tensor.size(); ++i)
      values.push_back(tensor.getInt(i) != 0);
    return DenseElementsAttr::get(type, values);
  }
  if (splat)
    return DenseElementsAttr::get(type, intAt(0));
  SmallVector<llvm::APInt> values;
  values.reserve(tensor.size());
  for (int64_t i = 0; i < tensor.size(); ++i)
    values.push_back(intAt(i));
  return DenseElementsAttr::get(type, values);
}

HostTensor fromDenseAttr(DenseElementsAttr attr, int32_t dtype) {
  HostTensor tensor;
  tensor.dtype = dtype;
  tensor.shape.assign(attr.getType().getShape().begin(),
                      attr.getType().getShape().end());
  if (tensor.isFloat())
    llvm::append_range(tensor.floats, attr.getValues<double>());
  else
    llvm::append_range(tensor.ints, attr.getValues<int64_t>());
  return tensor;
}

//===----------------------------------------------------------------------===//
// TensorProto decoding
//===----------------------------------------------------------------------===//

bool readTensorShape(const onnx::TensorProto &proto, Shape &shape,
                     std::string &error) {
  if (proto.dims_size() > kMaxRank) {
    error = "has rank " + std::to_string(proto.dims_size()) +
            ", more than the supported " + std::to_string(kMaxRank);
    return false;
  }
  shape.assign(proto.dims().begin(), proto.dims().end());
  if (!numElements(shape)) {
    error = "has an invalid or too large shape " + formatShape(shape);
    return false;
  }
  return true;
}

namespace {
/// Whether `path` is `directory` or inside it (both absolute and real).
bool isWithin(StringRef path, StringRef directory) {
  auto part = llvm::sys::path::begin(path), end = llvm::sys::path::end(path);
  for (StringRef expected : llvm::make_range(llvm::sys::path::begin(directory),
                                             llvm::sys::path::end(directory))) {
    if (part == end || *part != expected)
      return false;
    ++part;
  }
  return true;
}

/// The real path of the external data file `location`: a relative path
/// that, once every symbolic link is resolved, names a regular file inside
/// the real model directory. Links are resolved here so that the file read
/// is the file checked.
bool resolveExternalPath(const TensorSource &source, StringRef location,
                         std::string &resolved, std::string &error) {
  if (llvm::sys::path::is_absolute(location) ||
      llvm::any_of(llvm::make_range(llvm::sys::path::begin(location),
                                    llvm::sys::path::end(location)),
                   [](StringRef part) { return part == ".."; })) {
    error = "has external data location '" + location.str() +
            "', which is not a relative path inside the model's directory";
    return false;
  }
  llvm::SmallString<256> given(source.modelDirectory);
  llvm::sys::path::append(given, location);
  llvm::SmallString<256> directory, path;
  if (std::error_code ec =
          llvm::sys::fs::real_path(source.modelDirectory, directory)) {
    error = "is stored in the external data file '" + location.str() +
            "', but the model's directory '" + source.modelDirectory +
            "' cannot be read: " + ec.message();
    return false;
  }
  if (std::error_code ec = llvm::sys::fs::real_path(given, path)) {
    error = "is stored in the external data file '" + location.str() +
            "' (looked for at '" + std::string(given) +
            "'), which cannot be read: " + ec.message();
    return false;
  }
  if (!isWithin(path, directory)) {
    error = "has external data location '" + location.str() +
            "', which leads through a symbolic link to '" + std::string(path) +
            "', outside the model's directory '" + std::string(directory) + "'";
    return false;
  }
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status)) {
    error = "is stored in the external data file '" + std::string(path) +
            "', which cannot be read: " + ec.message();
    return false;
  }
  if (!llvm::sys::fs::is_regular_file(status)) {
    error = "is stored in the external data file '" + location.str() + "' ('" +
            std::string(path) + "'), which is not a regular file";
    return false;
  }
  resolved = std::string(path);
  return true;
}

/// Reads the bytes of an external-data tensor: `location` relative to the
/// model's directory, optional `offset` and `length`.
bool readExternalData(const onnx::TensorProto &proto,
                      const TensorSource &source, int64_t expectedBytes,
                      std::string &bytes, std::string &error) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const onnx::StringStringEntryProto &entry : proto.external_data()) {
    auto parse = [&](int64_t &out) {
      StringRef text(entry.value());
      unsigned long long parsed = 0;
      if (text.getAsInteger(10, parsed) ||
          parsed > static_cast<unsigned long long>(kMaxTensorElements) * 8) {
        error = "has an invalid external data " + entry.key() + " '" +
                entry.value() + "'";
        return false;
      }
      out = static_cast<int64_t>(parsed);
      return true;
    };
    if (entry.key() == "location")
      location = entry.value();
    else if (entry.key() == "offset" && !parse(offset))
      return false;
    else if (entry.key() == "length" && !parse(length))
      return false;
  }
  if (location.empty()) {
    error = "is stored as external data but has no 'location'";
    return false;
  }
  if (source.modelDirectory.empty()) {
    error = "is stored in the external data file '" + location +
            "', but the model was not read from a file, so there is no "
            "directory to find it in";
    return false;
  }
  std::string path;
  if (!resolveExternalPath(source, location, path, error))
    return false;
  uint64_t fileSize = 0;
  if (std::error_code ec = llvm::sys::fs::file_size(path, fileSize)) {
    error = "is stored in the external data file '" + location +
            "' (looked for at '" + path +
            "'), which cannot be read: " + ec.message();
    return false;
  }
  if (static_cast<uint64_t>(offset) > fileSize) {
    error = "has external data offset " + std::to_string(offset) +
            " beyond the end of '" + path + "' (" + std::to_string(fileSize) +
            " bytes)";
    return false;
  }
  if (length < 0)
    length = static_cast<int64_t>(fileSize) - offset;
  if (offset < 0 || length < 0 ||
      static_cast<uint64_t>(offset) + static_cast<uint64_t>(length) >
          fileSize) {
    error = "has external data [" + std::to_string(offset) + ", " +
            std::to_string(offset + std::max<int64_t>(length, 0)) +
            ") beyond the end of '" + path + "' (" + std::to_string(fileSize) +
            " bytes)";
    return false;
  }
  if (length != expectedBytes) {
    error = "has " + std::to_string(length) +
            " bytes of external data but its shape and type need " +
            std::to_string(expectedBytes);
    return false;
  }
  auto buffer = llvm::MemoryBuffer::getFileSlice(path, length, offset,
                                                 /*IsVolatile=*/false);
  if (!buffer) {
    error = "is stored in the external data file '" + path +
            "', which cannot be read: " + buffer.getError().message();
    return false;
  }
  bytes.assign((*buffer)->getBufferStart(), (*buffer)->getBufferSize());
  return true;
}

/// The raw little-endian bytes of `proto` if it uses raw_data or external
/// data; `bytes` stays null if it uses the typed fields instead.
bool rawBytes(const onnx::TensorProto &proto, const TensorSource &source,
              int64_t count, std::string &storage, const std::string *&bytes,
              std::string &error) {
  int64_t expected = count * dtypeSize(proto.data_type());
  bytes = nullptr;
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    if (!readExternalData(proto, source, expected, storage, error))
      return false;
    bytes = &storage;
    return true;
  }
  if (!proto.has_raw_data())
    return true;
  if (static_cast<int64_t>(proto.raw_data().size()) != expected) {
    error = "has " + std::to_string(proto.raw_data().size()) +
            " bytes of raw_data but its shape " +
            formatShape(Shape(proto.dims().begin(), proto.dims().end())) +
            " of " + dtypeName(proto.data_type()) + " needs " +
            std::to_string(expected);
    return false;
  }
  bytes = &proto.raw_data();
  return true;
}

/// Refuses segmented tensors, then reads `proto`'s shape and element count:
/// the common start of both decoders.
bool readUnsegmentedShape(const onnx::TensorProto &proto, Shape &shape,
                          int64_t &count, std::string &error) {
  if (proto.has_segment()) {
    error = "is segmented, which the importer does not support";
    return false;
  }
  if (!readTensorShape(proto, shape, error))
    return false;
  count = *numElements(shape);
  return true;
}

template <typename T> T readLE(const char *data) {
  return llvm::support::endian::read<T, llvm::endianness::little>(data);
}

bool checkCount(int64_t got, int64_t expected, const char *field,
                std::string &error) {
  if (got == expected)
    return true;
  error = "has " + std::to_string(got) + " values in " + field +
          " but its shape needs " + std::to_string(expected);
  return false;
}
} // namespace

bool decodeTensor(const onnx::TensorProto &proto, const TensorSource &source,
                  HostTensor &tensor, std::string &error, int64_t maxElements) {
  int32_t dtype = proto.data_type();
  if (dtypeSize(dtype) == 0) {
    error = "has element type " + dtypeName(dtype) +
            ", which the importer does not support";
    return false;
  }
  Shape shape;
  int64_t count;
  if (!readUnsegmentedShape(proto, shape, count, error))
    return false;
  if (count > maxElements) {
    error = "has " + std::to_string(count) + " elements, more than the " +
            std::to_string(maxElements) +
            " a tensor read at import time may have (see "
            "--max-folded-elements)";
    return false;
  }
  tensor = HostTensor::zeros(dtype, shape);
  std::string storage;
  const std::string *bytes;
  if (!rawBytes(proto, source, count, storage, bytes, error))
    return false;
  if (bytes) {
    const char *data = bytes->data();
    int64_t size = dtypeSize(dtype);
    for (int64_t i = 0; i < count; ++i) {
      const char *p = data + i * size;
      switch (dtype) {
      case kFloat:
        tensor.floats[i] = bitsToDouble(readLE<uint32_t>(p), kFloat);
        break;
      case kFloat16:
      case kBFloat16:
        tensor.floats[i] = bitsToDouble(readLE<uint16_t>(p), dtype);
        break;
      case kDouble:
        tensor.floats[i] = bitsToDouble(readLE<uint64_t>(p), kDouble);
        break;
      case kInt8:
        tensor.ints[i] = readLE<int8_t>(p);
        break;
      case kUInt8:
        tensor.ints[i] = readLE<uint8_t>(p);
        break;
      case kBool:
        tensor.ints[i] = readLE<uint8_t>(p) != 0;
        break;
      case kInt16:
        tensor.ints[i] = readLE<int16_t>(p);
        break;
      case kUInt16:
        tensor.ints[i] = readLE<uint16_t>(p);
        break;
      case kInt32:
        tensor.ints[i] = readLE<int32_t>(p);
        break;
      case kUInt32:
        tensor.ints[i] = readLE<uint32_t>(p);
        break;
      case kInt64:
        tensor.ints[i] = readLE<int64_t>(p);
        break;
      case kUInt64:
        tensor.ints[i] = static_cast<int64_t>(readLE<uint64_t>(p));
        break;
      }
    }
    return true;
  }
  switch (dtype) {
  case kFloat:
    if (!checkCount(proto.float_data_size(), count, "float_data", error))
      return false;
    for (int64_t i = 0; i < count; ++i)
      tensor.floats[i] = proto.float_data(i);
    return true;
  case kDouble:
    if (!checkCount(proto.double_data_size(), count, "double_data", error))
      return false;
    for (int64_t i = 0; i < count; ++i)
      tensor.floats[i] = proto.double_data(i);
    return true;
  case kInt64:
    if (!checkCount(proto.int64_data_size(), count, "int64_data", error))
      return false;
    for (int64_t i = 0; i < count; ++i)
      tensor.ints[i] = proto.int64_data(i);
    return true;
  case kUInt32:
  case kUInt64:
    if (!checkCount(proto.uint64_data_size(), count, "uint64_data", error))
      return false;
    for (int64_t i = 0; i < count; ++i)
      tensor.ints[i] = wrapToIntegralDType(
          static_cast<int64_t>(proto.uint64_data(i)), dtype);
    return true;
  case kFloat16:
  case kBFloat16:
    if (!checkCount(proto.int32_data_size(), count, "int32_data", error))
      return false;
    for (int64_t i = 0; i < count; ++i)
      tensor.floats[i] =
          bitsToDouble(static_cast<uint16_t>(proto.int32_data(i)), dtype);
    return true;
  default: // INT32, INT16, INT8, UINT16, UINT8, BOOL
    if (!checkCount(proto.int32_data_size(), count, "int32_data", error))
      return false;
    for (int64_t i = 0; i < count; ++i)
      tensor.ints[i] = wrapToIntegralDType(proto.int32_data(i), dtype);
    return true;
  }
}

bool decodeFloatBytes(const onnx::TensorProto &proto,
                      const TensorSource &source, std::vector<char> &bytes,
                      std::string &error) {
  int32_t dtype = proto.data_type();
  if (dtype != kFloat && dtype != kFloat16 && dtype != kBFloat16) {
    error = "has element type " + dtypeName(dtype) +
            "; parameters must be FLOAT, FLOAT16 or BFLOAT16";
    return false;
  }
  Shape shape;
  int64_t count;
  if (!readUnsegmentedShape(proto, shape, count, error))
    return false;
  int64_t size = dtypeSize(dtype);
  std::string storage;
  const std::string *raw;
  if (!rawBytes(proto, source, count, storage, raw, error))
    return false;
  if (raw) {
    bytes.assign(raw->begin(), raw->end());
    return true;
  }
  bytes.assign(count * size, 0);
  if (dtype == kFloat) {
    if (!checkCount(proto.float_data_size(), count, "float_data", error))
      return false;
    for (int64_t i = 0; i < count; ++i) {
      float value = proto.float_data(i);
      uint32_t bits;
      std::memcpy(&bits, &value, 4);
      llvm::support::endian::write<uint32_t, llvm::endianness::little>(
          bytes.data() + 4 * i, bits);
    }
    return true;
  }
  if (!checkCount(proto.int32_data_size(), count, "int32_data", error))
    return false;
  for (int64_t i = 0; i < count; ++i)
    llvm::support::endian::write<uint16_t, llvm::endianness::little>(
        bytes.data() + 2 * i, static_cast<uint16_t>(proto.int32_data(i)));
  return true;
}

} // namespace onnx_import
} // namespace amp
} // namespace mlir

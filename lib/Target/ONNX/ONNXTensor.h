//===- ONNXTensor.h - ONNX tensors known at import time ---------*- C++ -*-===//
//
// Private to the ONNX importer: element types, the host-side tensors that
// import-time constant folding works on (shape arithmetic, Constant nodes,
// integer initializers), and the decoding of TensorProto payloads (inline,
// typed fields or external data files) with every size checked.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_TARGET_ONNX_ONNXTENSOR_H
#define AMP_LIB_TARGET_ONNX_ONNXTENSOR_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace onnx {
class TensorProto;
} // namespace onnx

namespace mlir {
namespace amp {
namespace onnx_import {

using Shape = SmallVector<int64_t, 6>;

/// The largest number of elements any tensor may have (2^40); beyond it
/// shapes are rejected before anything is allocated.
constexpr int64_t kMaxTensorElements = int64_t(1) << 40;
/// The largest rank accepted.
constexpr int64_t kMaxRank = 16;

/// ONNX TensorProto::DataType values used here.
enum DType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
};

/// "FLOAT", "INT64", ... or "data type N" for an unknown value.
std::string dtypeName(int32_t dtype);
bool isFloatDType(int32_t dtype);
/// Integer types and BOOL (held as int64 on the host).
bool isIntegralDType(int32_t dtype);
/// Bytes per element of the raw encoding; 0 for STRING and unknown types.
int64_t dtypeSize(int32_t dtype);

/// The MLIR element type amp uses for `dtype` at run time (f32, f16, bf16,
/// i64, i32, i1), or null when amp has none.
Type runtimeElementType(int32_t dtype, MLIRContext *context);
/// The ONNX data type of an amp element type (kUndefined if none).
int32_t dtypeOf(Type elementType);

/// Number of elements of `shape`, or nullopt if a dimension is negative or
/// the product of the non-zero dimensions exceeds kMaxTensorElements.
std::optional<int64_t> numElements(ArrayRef<int64_t> shape);
/// "[2, 3, 4]".
std::string formatShape(ArrayRef<int64_t> shape);

/// Rounds `value` to what `dtype` can hold (f32/f16/bf16 rounding, integer
/// wrap-around to the type's width, 0/1 for BOOL).
double roundToFloatDType(double value, int32_t dtype);
int64_t wrapToIntegralDType(int64_t value, int32_t dtype);
/// Converts a double to int64 without undefined behaviour (NaN -> 0,
/// saturating), truncating toward zero.
int64_t saturatingToInt64(double value);

/// A tensor whose contents are known at import time.
struct HostTensor {
  int32_t dtype = kUndefined;
  Shape shape;
  /// Contents of integral and BOOL tensors.
  std::vector<int64_t> ints;
  /// Contents of floating-point tensors (each rounded to `dtype`).
  std::vector<double> floats;

  bool isFloat() const { return isFloatDType(dtype); }
  int64_t size() const {
    return static_cast<int64_t>(isFloat() ? floats.size() : ints.size());
  }
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  double getDouble(int64_t index) const {
    return isFloat() ? floats[index] : static_cast<double>(ints[index]);
  }
  int64_t getInt(int64_t index) const {
    return isFloat() ? saturatingToInt64(floats[index]) : ints[index];
  }
  /// Stores `value` converted to this tensor's type.
  void setDouble(int64_t index, double value);
  void setInt(int64_t index, int64_t value);
  /// Whether every element is equal (true for an empty tensor).
  bool isSplat() const;

  /// A zero-filled tensor; the caller has checked the shape.
  static HostTensor zeros(int32_t dtype, ArrayRef<int64_t> shape);
  static HostTensor scalarInt(int64_t value, int32_t dtype = kInt64);
  static HostTensor vectorInt(ArrayRef<int64_t> values);
};

/// Row-major strides of `shape`.
Shape stridesOf(ArrayRef<int64_t> shape);

/// Maps a linear index of a tensor of shape `out` to the linear index of an
/// input of shape `in` broadcast to it (NumPy rules).
int64_t broadcastSourceIndex(int64_t linear, ArrayRef<int64_t> out,
                             ArrayRef<int64_t> outStrides, ArrayRef<int64_t> in,
                             ArrayRef<int64_t> inStrides);

/// Copies element `src` of `from` into element `dst` of `to` (same dtype):
/// every host fold that only moves data goes through it.
void copyElement(HostTensor &to, int64_t dst, const HostTensor &from,
                 int64_t src);

/// A tensor of `shape` whose element k is element `source(k)` of `t`; the
/// folds of Transpose and Expand differ only in that map.
HostTensor gatherElements(const HostTensor &t, ArrayRef<int64_t> shape,
                          function_ref<int64_t(int64_t)> source);

/// The source offset of row-major element k of an output with `outStrides`:
/// the sum of `share(d, index)` over its per-dimension indices.
int64_t stridedSource(int64_t k, ArrayRef<int64_t> outStrides,
                      function_ref<int64_t(int64_t, int64_t)> share);

/// Builds the attribute of `tensor` converted to `type`'s element type (one
/// of f32, f16, bf16, i64, i32, i1), with `type`'s shape (which must have
/// tensor.size() elements). A splat tensor becomes a splat attribute.
DenseElementsAttr toDenseAttr(const HostTensor &tensor, RankedTensorType type);

/// The host tensor of dtype `dtype` holding `attr`'s elements, which must be
/// f64 for a floating-point `dtype` and i64 otherwise: the element types the
/// importer folds through amp ops in (they hold every host value exactly).
HostTensor fromDenseAttr(DenseElementsAttr attr, int32_t dtype);

/// Where an initializer's bytes come from.
struct TensorSource {
  /// Directory external data paths are relative to; empty: no external data.
  std::string modelDirectory;
};

/// Reads the shape of `proto` and checks it (rank, non-negative dimensions,
/// element count). On failure, `error` says why.
bool readTensorShape(const onnx::TensorProto &proto, Shape &shape,
                     std::string &error);

/// Decodes `proto` (any numeric or BOOL type; inline raw_data, the typed
/// fields, or external data) into a host tensor with every size checked;
/// tensors of more than `maxElements` elements are refused.
bool decodeTensor(const onnx::TensorProto &proto, const TensorSource &source,
                  HostTensor &tensor, std::string &error, int64_t maxElements);

/// Returns the little-endian raw bytes of a FLOAT, FLOAT16 or BFLOAT16
/// tensor (4 or 2 bytes per element), from whichever encoding `proto` uses.
bool decodeFloatBytes(const onnx::TensorProto &proto,
                      const TensorSource &source, std::vector<char> &bytes,
                      std::string &error);

} // namespace onnx_import
} // namespace amp
} // namespace mlir

#endif // AMP_LIB_TARGET_ONNX_ONNXTENSOR_H

//===- AMPCheckpoint.cpp - initial values as an amp checkpoint ------------===//
//
// Writes the initial parameters and buffers of an imported model in the
// checkpoint format of lib/Runtime/Checkpoint.cpp (docs/Driver.md).
//
//===----------------------------------------------------------------------===//

#include "amp/Target/ONNX/ONNXImporter.h"

#include "amp/Support/ToolIO.h"

#include "llvm/Support/Endian.h"

using namespace mlir;
using namespace mlir::amp;

namespace {
/// amp_dtype of include/amp/Runtime/ModelABI.h.
int32_t ampDType(Type element) {
  if (element.isF32())
    return 0;
  if (element.isF16())
    return 1;
  if (element.isBF16())
    return 2;
  return -1;
}

template <typename T> void put(std::string &out, T value) {
  char bytes[sizeof(T)];
  llvm::support::endian::write<T, llvm::endianness::little>(bytes, value);
  out.append(bytes, sizeof(T));
}
} // namespace

bool mlir::amp::writeAMPCheckpoint(StringRef path,
                                   ArrayRef<ONNXInitialValue> values,
                                   std::string &error) {
  std::string blob = "AMPSTATE";
  put<uint32_t>(blob, 1);
  put<uint32_t>(blob, static_cast<uint32_t>(values.size()));
  for (const ONNXInitialValue &value : values) {
    int32_t dtype = ampDType(value.type.getElementType());
    if (dtype < 0) {
      error = "tensor '" + value.name + "' has an unsupported element type";
      return false;
    }
    put<uint32_t>(blob, static_cast<uint32_t>(value.name.size()));
    blob += value.name;
    put<int32_t>(blob, dtype);
    put<int32_t>(blob, static_cast<int32_t>(value.type.getRank()));
    for (int64_t dim : value.type.getShape())
      put<int64_t>(blob, dim);
    put<uint64_t>(blob, static_cast<uint64_t>(value.data.size()));
    blob.append(value.data.data(), value.data.size());
  }
  // Regular files through a temporary renamed on success: never a partial
  // file; devices in place.
  return ::amp::writeOutput(path, blob, error);
}

//===- NpyFile.h - the header of a .npy file --------------------*- C++ -*-===//
//
// NumPy's .npy format (numpy.lib.format): the magic "\x93NUMPY", a version
// (1.0, 2.0 or 3.0), the length of the header, and the header itself, a
// Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...)}
// padded with spaces and a newline, then the data.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_HOST_NPYFILE_H
#define AMP_HOST_NPYFILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace amp {

struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  llvm::SmallVector<int64_t> shape;
  /// The data: what follows the header.
  llvm::StringRef data;
};

/// Parses the header of the .npy file `contents`, checking every field. On
/// failure returns false and sets `error` to the reason (naming no file),
/// e.g. "has a corrupt .npy header: ...".
bool parseNpy(llvm::StringRef contents, NpyHeader &header, std::string &error);

/// The header of a version 1.0 .npy file holding `shape` of `descr` in C
/// order, padded so that the data starts at a multiple of 64 bytes.
std::string npyHeader(llvm::StringRef descr, llvm::ArrayRef<int64_t> shape);

/// Whether `contents` starts like a .npy file.
bool looksLikeNpy(llvm::StringRef contents);

/// The .npy descr of a model dtype (AMP_DTYPE_*), or null for bf16, which
/// numpy has no type for.
const char *npyDescr(int32_t dtype);

} // namespace amp

#endif // AMP_HOST_NPYFILE_H

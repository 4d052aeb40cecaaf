//===- DTypeName.h - the name of an element type ----------------*- C++ -*-===//
//
// The one spelling of each amp_dtype in messages ("f32", "bf16", ...), as
// the compiler prints the element types. Header-only, with no dependency
// beyond ModelABI.h: used by the model runtime and the host library.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_DTYPENAME_H
#define AMP_RUNTIME_DTYPENAME_H

#include <cstdint>

#include "amp/Runtime/ModelABI.h"

namespace amp {

/// The name of `dtype` (an amp_dtype); a value outside the enum (a damaged
/// descriptor or file) says so instead of naming a type.
inline const char *dtypeName(int32_t dtype) {
  switch (dtype) {
  case AMP_DTYPE_F32:
    return "f32";
  case AMP_DTYPE_F16:
    return "f16";
  case AMP_DTYPE_BF16:
    return "bf16";
  case AMP_DTYPE_I64:
    return "i64";
  case AMP_DTYPE_I32:
    return "i32";
  case AMP_DTYPE_I1:
    return "i1";
  case AMP_DTYPE_F8E4M3FN:
    return "f8E4M3FN";
  case AMP_DTYPE_F8E5M2:
    return "f8E5M2";
  default:
    return "an unknown dtype";
  }
}

} // namespace amp

#endif // AMP_RUNTIME_DTYPENAME_H

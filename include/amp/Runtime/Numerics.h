//===- Numerics.h - element types, conversions, random numbers --*- C++ -*-===//
//
// Shared by the model runtime and amp-run (no LLVM dependency): element
// sizes, round-to-nearest-even conversions between float and the 16-bit and
// 8-bit float formats, storing and loading a value in a buffer of any model
// dtype, overflow-checked tensor sizes, the checks of values (finite, labels in
// range) and the portable random stream used for initial states and
// synthetic data.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_NUMERICS_H
#define AMP_RUNTIME_NUMERICS_H

#include <cmath>
#include <cstdint>
#include <cstring>

#include "amp/Runtime/ModelABI.h"
#include "amp/Runtime/StateNames.h"

namespace amp {

inline uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

inline float bitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

inline uint16_t floatToBFloat16(float value) {
  uint32_t bits = floatBits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN stays a quiet NaN
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

inline float bfloat16ToFloat(uint16_t value) {
  return bitsToFloat(static_cast<uint32_t>(value) << 16);
}

inline uint16_t floatToHalf(float value) {
  uint32_t bits = floatBits(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) // NaN stays a quiet NaN
    return sign | 0x7e00u;
  if (magnitude >= 0x477ff000u) // 65520 and above round to infinity
    return sign | 0x7c00u;
  if (magnitude < 0x38800000u) { // a half subnormal: round(|x| * 2^24)
    float scaled = bitsToFloat(magnitude) * 16777216.0f; // exact
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  // Round the mantissa to 10 bits (nearest even), then rebias 127 -> 15.
  uint32_t rounded = magnitude + 0x0fffu + ((magnitude >> 13) & 1u);
  return sign | static_cast<uint16_t>((rounded - 0x38000000u) >> 13);
}

inline float halfToFloat(uint16_t value) {
  uint32_t sign = static_cast<uint32_t>(value & 0x8000u) << 16;
  uint32_t exponent = (value >> 10) & 0x1fu;
  uint32_t mantissa = value & 0x3ffu;
  if (exponent == 0x1f) // inf or NaN
    return bitsToFloat(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) { // zero or subnormal: mantissa * 2^-24
    float magnitude = static_cast<float>(mantissa) * 0x1.0p-24f;
    return bitsToFloat(sign | floatBits(magnitude));
  }
  return bitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

namespace detail {
/// Rounds `value` to nearest even in a float8 format of 1 sign bit,
/// `exponentBits`, `mantissaBits` and exponent `bias`, given the largest
/// finite magnitude `maxFinite` (its bits without the sign) and whether the
/// format has infinities (e5m2) or only NaN (e4m3fn: S.1111.111). The result
/// is bit-exact with APFloat's conversion (arith.truncf), NaN payloads
/// included: NaN keeps its sign and the top payload bits, made quiet.
inline uint8_t floatToFloat8(float value, int mantissaBits, int bias,
                             uint8_t maxFinite, bool hasInfinity,
                             bool saturate) {
  uint32_t bits = floatBits(value);
  uint8_t sign = static_cast<uint8_t>((bits >> 24) & 0x80u);
  uint32_t magnitude = bits & 0x7fffffffu;
  uint8_t exponentAllOnes =
      static_cast<uint8_t>(0x7fu & ~((1u << mantissaBits) - 1));
  if (magnitude > 0x7f800000u) {
    if (!hasInfinity) // the one NaN encoding
      return sign | 0x7fu;
    uint32_t payload = (magnitude >> (23 - mantissaBits)) |
                       (1u << (mantissaBits - 1)); // quiet
    return sign | exponentAllOnes |
           static_cast<uint8_t>(payload & ((1u << mantissaBits) - 1));
  }
  uint32_t minNormal = static_cast<uint32_t>(128 - bias) << 23; // 2^(1-bias)
  uint32_t result;
  if (magnitude < minNormal) {
    // A subnormal (or zero): round(|x| * 2^(bias - 1 + mantissaBits)); the
    // scaling by a power of two is exact. 2^mantissaBits is the smallest
    // normal, which the encoding gives by the carry into the exponent.
    float scaled = std::ldexp(bitsToFloat(magnitude), bias - 1 + mantissaBits);
    result = static_cast<uint32_t>(std::nearbyint(scaled));
  } else {
    // Round the mantissa to `mantissaBits` (nearest even), then rebias.
    int drop = 23 - mantissaBits;
    uint64_t rounded = static_cast<uint64_t>(magnitude) +
                       ((1u << (drop - 1)) - 1) + ((magnitude >> drop) & 1u);
    result = static_cast<uint32_t>(
        (rounded >> drop) -
        (static_cast<uint64_t>(127 - bias) << mantissaBits));
  }
  if (result <= maxFinite)
    return sign | static_cast<uint8_t>(result);
  if (saturate)
    return sign | maxFinite;
  return sign | (hasInfinity ? exponentAllOnes : 0x7fu);
}

/// The float value of a float8 of the format floatToFloat8 describes
/// (exact); NaN becomes a quiet NaN with the payload at the top, as in
/// APFloat (arith.extf).
inline float float8ToFloat(uint8_t value, int mantissaBits, int bias,
                           bool hasInfinity) {
  uint32_t sign = static_cast<uint32_t>(value & 0x80u) << 24;
  uint32_t exponent = (value & 0x7fu) >> mantissaBits;
  uint32_t mantissa = value & ((1u << mantissaBits) - 1);
  uint32_t exponentAllOnes = (1u << (7 - mantissaBits)) - 1;
  if (hasInfinity ? exponent == exponentAllOnes : (value & 0x7fu) == 0x7fu) {
    if (hasInfinity && mantissa == 0)
      return bitsToFloat(sign | 0x7f800000u);
    return bitsToFloat(sign | 0x7fc00000u | (mantissa << (23 - mantissaBits)));
  }
  if (exponent == 0) // zero or subnormal: mantissa * 2^(1 - bias - m)
    return bitsToFloat(sign | floatBits(std::ldexp(static_cast<float>(mantissa),
                                                   1 - bias - mantissaBits)));
  return bitsToFloat(sign |
                     ((exponent + static_cast<uint32_t>(127 - bias)) << 23) |
                     (mantissa << (23 - mantissaBits)));
}
} // namespace detail

/// float -> f8E4M3FN (OCP FP8 E4M3: bias 7, no infinity, NaN S.1111.111,
/// largest finite 448), round to nearest even. Out of range (|x| rounding
/// above 448, infinity) gives NaN as in APFloat and PyTorch's
/// torch.float8_e4m3fn; with `saturate` it gives +-448 instead (what
/// amp.fp8_quantize and cuBLASLt's FP8 outputs do). NaN stays NaN.
inline uint8_t floatToFloat8E4M3FN(float value, bool saturate = false) {
  return detail::floatToFloat8(value, 3, 7, 0x7e, false, saturate);
}

/// float -> f8E5M2 (OCP FP8 E5M2: bias 15, IEEE-like infinities and NaNs,
/// largest finite 57344), round to nearest even. Out of range gives
/// +-infinity, or +-57344 with `saturate` (infinity too). NaN stays NaN.
inline uint8_t floatToFloat8E5M2(float value, bool saturate = false) {
  return detail::floatToFloat8(value, 2, 15, 0x7b, true, saturate);
}

inline float float8E4M3FNToFloat(uint8_t value) {
  return detail::float8ToFloat(value, 3, 7, false);
}

inline float float8E5M2ToFloat(uint8_t value) {
  return detail::float8ToFloat(value, 2, 15, true);
}

inline size_t elementBytes(int32_t dtype) {
  switch (dtype) {
  case AMP_DTYPE_F32:
  case AMP_DTYPE_I32:
    return 4;
  case AMP_DTYPE_F16:
  case AMP_DTYPE_BF16:
    return 2;
  case AMP_DTYPE_I64:
    return 8;
  case AMP_DTYPE_I1:
  case AMP_DTYPE_F8E4M3FN:
  case AMP_DTYPE_F8E5M2:
    return 1;
  }
  return 1; // not a dtype: callers check the range of dtypes they read
}

inline bool isFloatDtype(int32_t dtype) {
  return dtype == AMP_DTYPE_F32 || dtype == AMP_DTYPE_F16 ||
         dtype == AMP_DTYPE_BF16 || dtype == AMP_DTYPE_F8E4M3FN ||
         dtype == AMP_DTYPE_F8E5M2;
}

/// Stores `value` as element `index` of a buffer of `dtype`.
inline void storeValue(void *data, int32_t dtype, int64_t index, double value) {
  switch (dtype) {
  case AMP_DTYPE_F32:
    static_cast<float *>(data)[index] = static_cast<float>(value);
    return;
  case AMP_DTYPE_F16:
    static_cast<uint16_t *>(data)[index] =
        floatToHalf(static_cast<float>(value));
    return;
  case AMP_DTYPE_BF16:
    static_cast<uint16_t *>(data)[index] =
        floatToBFloat16(static_cast<float>(value));
    return;
  case AMP_DTYPE_I64:
    static_cast<int64_t *>(data)[index] = static_cast<int64_t>(value);
    return;
  case AMP_DTYPE_I32:
    static_cast<int32_t *>(data)[index] = static_cast<int32_t>(value);
    return;
  case AMP_DTYPE_F8E4M3FN:
    static_cast<uint8_t *>(data)[index] =
        floatToFloat8E4M3FN(static_cast<float>(value));
    return;
  case AMP_DTYPE_F8E5M2:
    static_cast<uint8_t *>(data)[index] =
        floatToFloat8E5M2(static_cast<float>(value));
    return;
  default:
    static_cast<uint8_t *>(data)[index] = value != 0;
  }
}

/// Element `index` of a buffer of `dtype`, widened to double.
inline double loadValue(const void *data, int32_t dtype, int64_t index) {
  switch (dtype) {
  case AMP_DTYPE_F32:
    return static_cast<const float *>(data)[index];
  case AMP_DTYPE_F16:
    return halfToFloat(static_cast<const uint16_t *>(data)[index]);
  case AMP_DTYPE_BF16:
    return bfloat16ToFloat(static_cast<const uint16_t *>(data)[index]);
  case AMP_DTYPE_I64:
    return static_cast<double>(static_cast<const int64_t *>(data)[index]);
  case AMP_DTYPE_I32:
    return static_cast<const int32_t *>(data)[index];
  case AMP_DTYPE_F8E4M3FN:
    return float8E4M3FNToFloat(static_cast<const uint8_t *>(data)[index]);
  case AMP_DTYPE_F8E5M2:
    return float8E5M2ToFloat(static_cast<const uint8_t *>(data)[index]);
  default:
    return static_cast<const uint8_t *>(data)[index];
  }
}

/// Element `index` of a buffer of an integer `dtype`, exactly.
inline int64_t loadInteger(const void *data, int32_t dtype, int64_t index) {
  switch (dtype) {
  case AMP_DTYPE_I64:
    return static_cast<const int64_t *>(data)[index];
  case AMP_DTYPE_I32:
    return static_cast<const int32_t *>(data)[index];
  default:
    return static_cast<const uint8_t *>(data)[index];
  }
}

/// The byte size of a tensor of `info`'s shape and dtype, computed without
/// overflow. False when a dimension is negative, the element count overflows
/// or disagrees with num_elements (a corrupt descriptor), or the bytes do not
/// fit in size_t.
inline bool tensorBytes(const amp_tensor_info &info, size_t &bytes) {
  uint64_t elements = 1;
  for (int32_t d = 0; d < info.rank; ++d)
    if (info.shape[d] < 0 ||
        __builtin_mul_overflow(elements, static_cast<uint64_t>(info.shape[d]),
                               &elements))
      return false;
  return elements == static_cast<uint64_t>(info.num_elements) &&
         !__builtin_mul_overflow(elements, elementBytes(info.dtype), &bytes);
}

/// Whether `info` is a loss scale: loss-scaler state named
/// "...loss_scale" (AMP_STATE_LOSS_SCALE; f32, one per loss with dynamic
/// loss scaling). The runtime reports these with each finished step
/// (amp_train_step_finished_scales), amp-run prints them.
inline bool isLossScale(const amp_tensor_info &info) {
  size_t length = std::strlen(info.name);
  size_t suffix = sizeof(AMP_STATE_LOSS_SCALE) - 1;
  return info.role == AMP_ROLE_SCALER_STATE && info.dtype == AMP_DTYPE_F32 &&
         length >= suffix &&
         std::strcmp(info.name + length - suffix, AMP_STATE_LOSS_SCALE) == 0;
}

/// The index of the first NaN or infinite element of a float tensor, or -1
/// (always -1 for integer tensors).
inline int64_t firstNonFinite(const amp_tensor_info &info, const void *data) {
  if (!isFloatDtype(info.dtype))
    return -1;
  for (int64_t i = 0; i < info.num_elements; ++i)
    if (!std::isfinite(loadValue(data, info.dtype, i)))
      return i;
  return -1;
}

/// The index of the first element of an integer label tensor outside its
/// classes [0, label_range), or -1 (always -1 when the range is unknown).
inline int64_t firstLabelOutOfRange(const amp_tensor_info &info,
                                    const void *data) {
  if (info.role != AMP_ROLE_LABEL || info.label_range <= 0 ||
      isFloatDtype(info.dtype))
    return -1;
  for (int64_t i = 0; i < info.num_elements; ++i) {
    int64_t label = loadInteger(data, info.dtype, i);
    if (label < 0 || label >= info.label_range)
      return i;
  }
  return -1;
}

/// splitmix64: small, well mixed, and the same stream on every platform
/// (unlike std::uniform_real_distribution).
struct Random {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in (0, 1).
  double uniform() { return ((next() >> 11) + 0.5) * 0x1.0p-53; }
  /// Standard normal (Box-Muller).
  double normal() {
    return std::sqrt(-2 * std::log(uniform())) *
           std::cos(6.283185307179586 * uniform());
  }
};

} // namespace amp

#endif // AMP_RUNTIME_NUMERICS_H

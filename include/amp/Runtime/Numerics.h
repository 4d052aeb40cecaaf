//===- Numerics.h - f16 and bf16 conversions --------------------*- C++ -*-===//
//
// Round-to-nearest-even conversions between float and the two 16-bit float
// formats, shared by the model runtime and amp-run (no LLVM dependency).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_NUMERICS_H
#define AMP_RUNTIME_NUMERICS_H

#include <cmath>
#include <cstdint>
#include <cstring>

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

} // namespace amp

#endif // AMP_RUNTIME_NUMERICS_H

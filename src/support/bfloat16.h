// bfloat16 conversions on the host: a bfloat16 is the upper 16 bits of a float32. float32 ->
// bfloat16 rounds to nearest even, a NaN to the quiet NaN of its sign (as ml_dtypes does);
// bfloat16 -> float32 is exact. Header-only.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace ingot {

inline float bfloat16_bits_to_float(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline uint16_t float_to_bfloat16_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return uint16_t(((u >> 16) & 0x8000u) | 0x7fc0u);  // quiet, sign kept
  u += 0x7fffu + ((u >> 16) & 1u);  // ties to even; overflow to infinity
  return uint16_t(u >> 16);
}

// The bits of `v` rounded to bfloat16 (through float32), the form half_width_constant takes
// (graph/transforms/rewrite_util.h).
inline uint16_t double_to_bfloat16_bits(double v) {
  return float_to_bfloat16_bits(float(v));
}

// `v` rounded to the nearest bfloat16 value (through float32: a double first rounds to float).
inline double round_to_bfloat16(double v) {
  return bfloat16_bits_to_float(float_to_bfloat16_bits(float(v)));
}

}  // namespace ingot

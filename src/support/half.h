// IEEE 754 binary16 (float16) conversions on the host: bits <-> double, round to nearest even,
// overflow to infinity, subnormals kept. Header-only, no dependencies beyond <cmath>.
#pragma once

#include <cmath>
#include <cstdint>

namespace ingot {

inline double half_bits_to_double(uint16_t h) {
  int exp = (h >> 10) & 0x1f;
  int mant = h & 0x3ff;
  double v;
  if (exp == 0) {
    v = std::ldexp(double(mant), -24);  // subnormal (or zero)
  } else if (exp == 31) {
    v = mant ? std::nan("") : INFINITY;
  } else {
    v = std::ldexp(double(mant | 0x400), exp - 25);
  }
  return (h & 0x8000) ? -v : v;
}

inline uint16_t double_to_half_bits(double v) {
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  double a = std::fabs(v);
  if (std::isnan(v)) return uint16_t(sign | 0x7e00);
  if (a >= 65520.0) return uint16_t(sign | 0x7c00);                // rounds to infinity
  if (a < 0x1p-14) {                                               // subnormal: units of 2^-24
    return uint16_t(sign | uint16_t(std::nearbyint(a * 0x1p24)));  // 1024 is the first normal
  }
  int e = 0;
  double m = std::frexp(a, &e);                   // a = m * 2^e, m in [0.5, 1)
  auto q = uint32_t(std::nearbyint(m * 2048.0));  // [1024, 2048]; 2048 carries into the exponent
  return uint16_t(sign | ((uint32_t(e + 14) << 10) + (q - 1024)));
}

// `v` rounded to the nearest float16 value.
inline double round_to_half(double v) {
  return half_bits_to_double(double_to_half_bits(v));
}

}  // namespace ingot

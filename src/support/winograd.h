// The Winograd minimal-filtering transforms F(m x m, 3 x 3) (Lavin & Gray, "Fast Algorithms for
// Convolutional Neural Networks", 2016): an m x m tile of a 3 x 3 stride-1 correlation is
//   Y = A^T [ (G g G^T) (.) (B^T d B) ] A
// over the alpha x alpha input tile d (alpha = m + 2), (.) elementwise. The graph pass
// winograd_conv transforms the weights (G g G^T, in double at compile time); lowering's
// WinogradInputTransform computes B^T d B and WinogradOutputTransform A^T M A. m = 2 (points
// 0, 1, -1) and m = 4 (points 0, 1, -1, 2, -2), each with the point at infinity.
#pragma once

#include <cstdint>

namespace ingot::winograd {

inline constexpr int kKernel = 3;

// alpha = m + 2: the input tile (and transformed tile) side.
constexpr int alpha(int m) {
  return m + kKernel - 1;
}

// Whether m is a tile size with transforms here.
constexpr bool supported_tile(int64_t m) {
  return m == 2 || m == 4;
}

// B^T (alpha x alpha), G (alpha x 3) and A^T (m x alpha), row-major, for tile m (2 or 4).
struct Transforms {
  int m = 0;
  const double* bt = nullptr;
  const double* g = nullptr;
  const double* at = nullptr;

  double b_t(int i, int j) const { return bt[i * alpha(m) + j]; }
  double g_(int i, int j) const { return g[i * kKernel + j]; }
  double a_t(int i, int j) const { return at[i * alpha(m) + j]; }
};

inline constexpr double kBt2[16] = {1, 0,  -1, 0,  //
                                    0, 1,  1,  0,  //
                                    0, -1, 1,  0,  //
                                    0, 1,  0,  -1};
inline constexpr double kG2[12] = {1, 0, 0, 0.5, 0.5, 0.5, 0.5, -0.5, 0.5, 0, 0, 1};
inline constexpr double kAt2[8] = {1, 1, 1,  0,  //
                                   0, 1, -1, -1};

inline constexpr double kBt4[36] = {4, 0,  -5, 0,  1, 0,  //
                                    0, -4, -4, 1,  1, 0,  //
                                    0, 4,  -4, -1, 1, 0,  //
                                    0, -2, -1, 2,  1, 0,  //
                                    0, 2,  -1, -2, 1, 0,  //
                                    0, 4,  0,  -5, 0, 1};
inline constexpr double kG4[18] = {1.0 / 4,  0,         0,        -1.0 / 6, -1.0 / 6, -1.0 / 6,
                                   -1.0 / 6, 1.0 / 6,   -1.0 / 6, 1.0 / 24, 1.0 / 12, 1.0 / 6,
                                   1.0 / 24, -1.0 / 12, 1.0 / 6,  0,        0,        1};
inline constexpr double kAt4[24] = {1, 1, 1,  1, 1,  0,  //
                                    0, 1, -1, 2, -2, 0,  //
                                    0, 1, 1,  4, 4,  0,  //
                                    0, 1, -1, 8, -8, 1};

inline Transforms transforms(int m) {
  if (m == 2) return {2, kBt2, kG2, kAt2};
  return {4, kBt4, kG4, kAt4};
}

}  // namespace ingot::winograd

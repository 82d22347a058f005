// The Winograd minimal-filtering transforms F(m x m, 3 x 3) (Lavin & Gray, "Fast Algorithms for
// Convolutional Neural Networks", 2016): an m x m tile of a 3 x 3 stride-1 correlation is
//   Y = A^T [ (G g G^T) (.) (B^T d B) ] A
// (a 1x3 or 3x1 kernel: the same along its 3-tap axis, identity along the other, F(1 x m, 1 x 3)).
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

// The transforms along one axis: B^T (alpha x alpha), G (alpha x k) and A^T (m x alpha),
// row-major, for a kernel of k taps (3, or 1: the other axis of a 1x3 / 3x1 conv, untiled, every
// matrix [1]) and tile m (2 or 4 for k = 3, 1 for k = 1); alpha = m + k - 1.
struct Transforms {
  int m = 0, k = kKernel, a = 0;
  const double* bt = nullptr;
  const double* g = nullptr;
  const double* at = nullptr;

  double b_t(int i, int j) const { return bt[i * a + j]; }
  double g_(int i, int j) const { return g[i * k + j]; }
  double a_t(int i, int j) const { return at[i * a + j]; }
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

inline constexpr double kOne[1] = {1};

// The transforms of tile m along an axis of a k-tap kernel (k = 1: m is ignored, tile 1).
inline Transforms transforms(int m, int k = kKernel) {
  if (k == 1) return {1, 1, 1, kOne, kOne, kOne};
  if (m == 2) return {2, kKernel, alpha(2), kBt2, kG2, kAt2};
  return {4, kKernel, alpha(4), kBt4, kG4, kAt4};
}

// The transforms along H and W of a kh x kw kernel with tile m.
struct Transforms2d {
  Transforms h, w;
};
inline Transforms2d transforms(int m, int64_t kh, int64_t kw) {
  return {transforms(m, int(kh)), transforms(m, int(kw))};
}

// Tiles along an axis of `extent` outputs (the last may run past the output), and the tiles of
// n images of oh x ow outputs.
inline int64_t tiles_along(int64_t extent, const Transforms& t) {
  return (extent + t.m - 1) / t.m;
}
inline int64_t tile_count(const Transforms2d& t, int64_t n, int64_t oh, int64_t ow) {
  return n * tiles_along(oh, t.h) * tiles_along(ow, t.w);
}

// Whether a conv kernel (kh x kw) has transforms: 3x3, 1x3 and 3x1.
constexpr bool supported_kernel(int64_t kh, int64_t kw) {
  return (kh == 3 && (kw == 3 || kw == 1)) || (kh == 1 && kw == 3);
}

}  // namespace ingot::winograd

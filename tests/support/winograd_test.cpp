// The Winograd F(m, 3) transforms of support/winograd.h against the closed form they implement:
// for any input d (alpha values) and filter g (3), A^T [(G g) (.) (B^T d)] is the correlation
// y[i] = sum_k d[i + k] g[k], i < m (1-D; the 2-D transforms are these applied per axis); a
// 1-tap axis (1x3 / 3x1 kernels) has the identity.
#include "support/winograd.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace ingot::winograd {
namespace {

TEST(WinogradTransforms, OneDimensionalTransformIsTheCorrelation) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int m : {2, 4}) {
    const Transforms t = transforms(m);
    const int a = alpha(m);
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<double> d(static_cast<size_t>(a));
      std::vector<double> g(3);
      for (double& e : d) e = u(rng);
      for (double& e : g) e = u(rng);
      std::vector<double> prod(static_cast<size_t>(a));
      for (int r = 0; r < a; ++r) {
        double gg = 0, dd = 0;
        for (int k = 0; k < 3; ++k) gg += t.g_(r, k) * g[size_t(k)];
        for (int k = 0; k < a; ++k) dd += t.b_t(r, k) * d[size_t(k)];
        prod[size_t(r)] = gg * dd;
      }
      for (int i = 0; i < m; ++i) {
        double y = 0, want = 0;
        for (int r = 0; r < a; ++r) y += t.a_t(i, r) * prod[size_t(r)];
        for (int k = 0; k < 3; ++k) want += d[size_t(i + k)] * g[size_t(k)];
        EXPECT_NEAR(y, want, 1e-12) << "m=" << m << " i=" << i;
      }
    }
  }
}

TEST(WinogradTransforms, AOneTapAxisIsUntiled) {
  // The other axis of a 1x3 / 3x1 kernel: tile 1, alpha 1, every matrix [1], whatever m.
  for (int m : {2, 4}) {
    const Transforms t = transforms(m, 1);
    EXPECT_EQ(t.m, 1);
    EXPECT_EQ(t.a, 1);
    EXPECT_EQ(t.b_t(0, 0), 1.0);
    EXPECT_EQ(t.g_(0, 0), 1.0);
    EXPECT_EQ(t.a_t(0, 0), 1.0);
  }
  EXPECT_TRUE(supported_kernel(3, 3));
  EXPECT_TRUE(supported_kernel(1, 3));
  EXPECT_TRUE(supported_kernel(3, 1));
  EXPECT_FALSE(supported_kernel(1, 1));
  EXPECT_FALSE(supported_kernel(5, 5));
}

TEST(WinogradTransforms, OnlyTwoAndFourAreTiles) {
  EXPECT_TRUE(supported_tile(2));
  EXPECT_TRUE(supported_tile(4));
  EXPECT_FALSE(supported_tile(3));
  EXPECT_FALSE(supported_tile(6));
  EXPECT_EQ(alpha(4), 6);
}

}  // namespace
}  // namespace ingot::winograd

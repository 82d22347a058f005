// The default blocked-conv2d schedule (schedule/rules/conv2d.h) compiled, loaded and run against
// a direct convolution in double precision on the unpacked weights: strides, dilations, output
// widths with and without a tail strip, output channels that pad the channel block, and
// both micro-kernel ISAs.
#include <random>

#include "artifact_util.h"
#include "common/packed_conv.h"
#include "schedule/rules/conv2d.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;
using schedule::Conv2dShape;

Conv2dShape shape(int64_t ic, int64_t oc, int64_t ih, int64_t iw, int64_t k, int64_t stride,
                  int64_t dil) {
  Conv2dShape s;
  s.ic = ic, s.oc = oc, s.ih = ih, s.iw = iw, s.kh = s.kw = k;
  s.sh = s.sw = stride, s.dh = s.dw = dil;
  s.oh = (ih - dil * (k - 1) - 1) / stride + 1;
  s.ow = (iw - dil * (k - 1) - 1) / stride + 1;
  return s;
}

void expect_conv(const Conv2dShape& s, int vector_bits, const Target& target = Target::host()) {
  int nr = schedule::conv2d_channel_block(s, vector_bits);
  schedule::BlockedConv2d c = schedule::make_blocked_conv2d(s, nr);
  schedule::Schedule sch(c.func);
  schedule::schedule_blocked_conv2d(sch, "conv", vector_bits);
  std::vector<float> x = random_floats(s.n * s.ic * s.ih * s.iw, 1);
  std::vector<float> w = random_floats(s.oc * s.ic * s.kh * s.kw, 2);
  std::vector<float> bias = random_floats(s.oc, 3);
  std::vector<float> wp = schedule::pack_conv2d_weights(w.data(), s, nr);
  std::vector<float> bp = schedule::pack_conv2d_bias(bias.data(), s, nr);
  int64_t ocb = (s.oc + nr - 1) / nr;
  std::vector<float> y(size_t(s.n * ocb * s.oh * s.ow * nr), -7.0f);
  LoadedArtifact art(single_kernel_module("conv", c.func.params, sch.func().body, 3), target);
  ASSERT_EQ(art.run({x.data(), wp.data(), bp.data()}, {y.data()}, nullptr, true), 0);
  for (int64_t o = 0; o < s.oc; ++o)
    for (int64_t h = 0; h < s.oh; ++h)
      for (int64_t q = 0; q < s.ow; ++q) {
        double want = bias[size_t(o)];
        for (int64_t i = 0; i < s.ic; ++i)
          for (int64_t r = 0; r < s.kh; ++r)
            for (int64_t t = 0; t < s.kw; ++t)
              want +=
                  double(x[size_t((i * s.ih + h * s.sh + r * s.dh) * s.iw + q * s.sw + t * s.dw)]) *
                  double(w[size_t(((o * s.ic + i) * s.kh + r) * s.kw + t)]);
        float got = y[size_t((((o / nr) * s.oh + h) * s.ow + q) * nr + o % nr)];
        ASSERT_NEAR(got, want, 1e-3) << "at (" << o << ", " << h << ", " << q << ")";
      }
}

TEST(ConvSchedule, ThreeByThreeMatchesDirectConvolution) {
  expect_conv(shape(8, 64, 10, 18, 3, 1, 1), 512);  // OW 16: strips of 8
}

TEST(ConvSchedule, StridedDilatedWithPaddedChannelsMatches) {
  expect_conv(shape(5, 20, 13, 13, 3, 2, 2), 512);  // OW 5, OC 20 in a block of 32
}

TEST(ConvSchedule, PrimeWidthUsesTailTile) {
  expect_conv(shape(3, 16, 5, 13, 1, 1, 1), 512);  // OW 13: 7 + a tail tile of 6
}

TEST(ConvSchedule, Avx2TailTilesOnEveryRow) {
  Target avx2 = Target::parse("llvm -mcpu=haswell");
  expect_conv(shape(4, 32, 9, 15, 3, 1, 1), 256, avx2);  // OW 13: 5 + 5 + a tail of 3
  expect_conv(shape(8, 16, 9, 16, 1, 2, 1), 256, avx2);  // strided 1x1, OW 8: 4 + 4
}

TEST(ConvSchedule, OnePixelRowRunsInParallelChunks) {
  // A pointwise conv as the lowering passes it: H * W pixels in one row, its strips split into
  // parallel chunks.
  expect_conv(shape(8, 32, 1, 203, 1, 1, 1), 512);
  expect_conv(shape(8, 32, 1, 203, 1, 1, 1), 256, Target::parse("llvm -mcpu=haswell"));
}

TEST(ConvSchedule, LargeWeightPanelsRunInKSlices) {
  // 768 (AVX-512) / 1536 (AVX2) input channels x 3x3 x 32 or 16 output channels: 884 KB of packed
  // weights per output block, read in K slices; the output accumulates across slices.
  expect_conv(shape(768, 32, 6, 6, 3, 1, 1), 512);
  expect_conv(shape(1536, 16, 6, 7, 3, 1, 1), 256, Target::parse("llvm -mcpu=haswell"));
}

TEST(ConvSchedule, Avx2MicroKernel) {
  Target avx2 = Target::parse("llvm -mcpu=haswell");
  expect_conv(shape(4, 24, 9, 9, 3, 1, 1), 256, avx2);
}

}  // namespace
}  // namespace ingot::codegen::test

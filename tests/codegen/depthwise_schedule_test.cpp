// The depthwise convolution on channel-blocked tensors as lowering describes it
// (lower/compute/blocked_conv.h, the node's [C, 1, KH, KW] weights), scheduled by its rule
// (schedule/rules/depthwise_conv_nchwc.h: the weights laid out by transform_layout, re-laid out
// here as the compiler does after scheduling), compiled, loaded and run against a direct sum in
// double precision:
// padding on every side (border rows one by one and as runs, border columns, a map with no
// interior at all), strides, dilations, one- and two-vector channel blocks, padding lanes, the
// in-place epilogue, and both x86 ISAs.
#include <algorithm>
#include <cstdint>

#include "artifact_util.h"
#include "lower/compute/blocked_conv.h"
#include "schedule/rules/depthwise_conv_nchwc.h"
#include "support/bfloat16.h"
#include "support/channel_block.h"
#include "tir/op.h"

namespace ingot::codegen::test {
namespace {

std::vector<uint8_t> as_bytes(const std::vector<float>& v) {
  const auto* p = reinterpret_cast<const uint8_t*>(v.data());
  return {p, p + v.size() * sizeof(float)};
}

using namespace tir;
using lower::DepthwiseConvShape;

DepthwiseConvShape shape(int64_t channels, int64_t blk, int64_t ih, int64_t iw, int64_t k,
                         int64_t stride, int64_t dil, int64_t top, int64_t left, int64_t bottom,
                         int64_t right) {
  DepthwiseConvShape s;
  s.n = 2, s.channels = channels, s.blk = blk, s.blocks = (channels + blk - 1) / blk;
  s.ih = ih, s.iw = iw, s.kh = k, s.kw = k, s.sh = s.sw = stride, s.dh = s.dw = dil;
  s.top = top, s.left = left;
  s.oh = (ih + top + bottom - dil * (k - 1) - 1) / stride + 1;
  s.ow = (iw + left + right - dil * (k - 1) - 1) / stride + 1;
  return s;
}

// seed > 0: the rule's tile widths drawn at random from that seed (a tuner's candidate).
void expect_depthwise(const DepthwiseConvShape& s, bool relu, const Target& target, int vector_bits,
                      uint64_t seed = 0, bool bf16_out = false) {
  lower::ConvEpilogue epi;
  if (relu)
    epi = [](const Expr& v, const std::vector<Expr>&) {
      return max(v, make_const(DataType::f32(), 0));
    };
  DepthwiseConvShape shape = s;
  if (bf16_out) shape.out_type = DataType::bf16();
  PrimFunc f = lower::depthwise_conv_compute(shape, true, epi);
  f.constant_params = {1, 2};
  ASSERT_TRUE(schedule::is_depthwise_conv_nchwc(f));
  schedule::Schedule sch(f, seed);
  if (seed > 0) sch.set_sampling_policy({.ignore_given = true});
  schedule::schedule_depthwise_conv_nchwc(sch, CpuVectorIsa::x86(vector_bits));
  int64_t lanes = s.blocks * s.blk;
  std::vector<float> x = random_floats(s.n * s.blocks * s.ih * s.iw * s.blk, 1);
  std::vector<float> w = random_floats(s.channels * s.kh * s.kw, 2);
  std::vector<float> bias = random_floats(s.channels, 3);
  std::vector<float> y(size_t(s.n * s.blocks * s.oh * s.ow * s.blk), -7.0f);
  std::vector<uint16_t> y16(y.size(), 0xEEEE);  // (a bfloat16 output's bits)
  // The weights (and, with padding lanes, the bias) in the layouts the rule chose.
  std::vector<std::vector<uint8_t>> laid = {as_bytes(w), as_bytes(bias)};
  ASSERT_EQ(sch.func().layouts.size(), s.channels % s.blk ? 2u : 1u);
  for (const PrimFunc::ParamLayout& l : sch.func().layouts)
    laid[size_t(l.param - 1)] = l.layout.relayout(laid[size_t(l.param - 1)].data(), l.shape, 4);
  LoadedArtifact art(single_kernel_module("dw", sch.func().params, sch.func().body, 3), target);
  void* out = bf16_out ? static_cast<void*>(y16.data()) : static_cast<void*>(y.data());
  // (A bfloat16 output: the float32 sums are the kernel's local memory, no scratch left.)
  ASSERT_TRUE(sch.func().scratch_params.empty());
  ASSERT_EQ(art.run({x.data(), laid[0].data(), laid[1].data()}, {out}, nullptr, true), 0);
  if (bf16_out)
    for (size_t i = 0; i < y.size(); ++i) y[i] = bfloat16_bits_to_float(y16[i]);
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t c = 0; c < lanes; ++c) {
      int64_t b = c / s.blk, l = c % s.blk;
      for (int64_t oh = 0; oh < s.oh; ++oh)
        for (int64_t ow = 0; ow < s.ow; ++ow) {
          double want = c < s.channels ? bias[size_t(c)] : 0.0;  // padding lanes: zero
          for (int64_t a = 0; a < s.kh; ++a)
            for (int64_t e = 0; e < s.kw; ++e) {
              int64_t r = oh * s.sh + a * s.dh - s.top, q = ow * s.sw + e * s.dw - s.left;
              if (r < 0 || r >= s.ih || q < 0 || q >= s.iw || c >= s.channels) continue;
              want += double(x[size_t((((n * s.blocks + b) * s.ih + r) * s.iw + q) * s.blk + l)]) *
                      double(w[size_t((c * s.kh + a) * s.kw + e)]);
            }
          if (relu) want = std::max(want, 0.0);
          float got = y[size_t((((n * s.blocks + b) * s.oh + oh) * s.ow + ow) * s.blk + l)];
          // (bfloat16: one rounding of the float32 result, half a step of 2^-7.)
          const double tol = bf16_out ? 1e-4 + std::abs(want) * std::ldexp(1.0, -8) : 1e-4;
          ASSERT_NEAR(got, want, tol) << "n " << n << " c " << c << " oh " << oh << " ow " << ow;
        }
    }
}

TEST(DepthwiseSchedule, ThreeByThreeTwoVectorBlocksWithEpilogue) {
  // 40 channels in two 32-lane blocks (24 padding lanes), 13 x 17: tiles with a tail strip.
  expect_depthwise(shape(40, 32, 13, 17, 3, 1, 1, 1, 1, 1, 1), true, Target::host(), 512);
}

TEST(DepthwiseSchedule, SevenBySevenOnASmallMapHasNoInterior) {
  // A 7 x 7 kernel padded by 3 on a 5 x 6 map: every row and column is a border.
  expect_depthwise(shape(16, 16, 5, 6, 7, 1, 1, 3, 3, 3, 3), false, Target::host(), 512);
}

TEST(DepthwiseSchedule, NineByNineBorderRowsAsRuns) {
  // 8 border rows (more than the rule schedules one by one): runs that keep their row test.
  expect_depthwise(shape(16, 16, 12, 13, 9, 1, 1, 4, 4, 4, 4), true, Target::host(), 512);
}

TEST(DepthwiseSchedule, StridedDilatedAsymmetricPadding) {
  expect_depthwise(shape(24, 16, 15, 12, 3, 2, 2, 2, 1, 0, 2), true, Target::host(), 512);
}

TEST(DepthwiseSchedule, FiveByFiveAvx2) {
  Target avx2 = Target::parse("llvm -mcpu=haswell");
  expect_depthwise(shape(20, 8, 11, 14, 5, 1, 1, 2, 2, 2, 2), true, avx2, 256);
}

// --dtype bfloat16's depthwise conv read by a conv of bfloat16 products: float32 sums in a
// scratch buffer, the epilogue's result rounded to bfloat16.
TEST(DepthwiseSchedule, BFloat16Output) {
  expect_depthwise(shape(40, 32, 13, 17, 3, 1, 1, 1, 1, 1, 1), true, Target::host(), 512, 0, true);
  expect_depthwise(shape(20, 8, 11, 14, 5, 2, 1, 2, 2, 2, 2), true,
                   Target::parse("llvm -mcpu=haswell"), 256, 0, true);
}

TEST(DepthwiseSchedule, RandomTileWidthsMatch) {
  // Every row part's register-tile width drawn at random (interior rows, single border rows),
  // with tails, on both ISAs.
  Target avx2 = Target::parse("llvm -mcpu=haswell");
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE(seed);
    expect_depthwise(shape(40, 32, 13, 17, 3, 1, 1, 1, 1, 1, 1), true, Target::host(), 512, seed);
    expect_depthwise(shape(20, 8, 11, 14, 5, 1, 1, 2, 2, 2, 2), true, avx2, 256, seed);
  }
}

}  // namespace
}  // namespace ingot::codegen::test

// The blocked convolution on channel-blocked input (schedule/rules/conv_nchwc.h) for 1 and 3
// spatial dims, scheduled by the blocked_conv2d rule, compiled, loaded and run against a direct
// convolution in double precision on the unpacked weights: strides, dilations, a masked pixel
// strip, input blocks with padding lanes (holding garbage the zero weights must cancel), a single
// partial input block, output channels that pad the block, the in-place epilogue (outlined when
// it has polynomial math), and both micro-kernel ISAs.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "artifact_util.h"
#include "common/packed_conv.h"
#include "schedule/rules/conv2d.h"
#include "tir/op.h"
#include "tir/printer.h"
#include "tir/structural_equal.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;
using schedule::ConvNchwcShape;

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

ConvNchwcShape shape(int64_t ic, int64_t oc, std::vector<int64_t> in, std::vector<int64_t> k,
                     std::vector<int64_t> stride, std::vector<int64_t> dil) {
  ConvNchwcShape s;
  s.n = 2, s.ic = ic, s.oc = oc, s.in = in, s.kernel = k, s.strides = stride, s.dilations = dil;
  for (size_t d = 0; d < in.size(); ++d)
    s.out.push_back((in[d] - dil[d] * (k[d] - 1) - 1) / stride[d] + 1);
  return s;
}

// Row-major offset of `idx` in `dims`.
int64_t offset(const std::vector<int64_t>& dims, const std::vector<int64_t>& idx) {
  int64_t o = 0;
  for (size_t d = 0; d < dims.size(); ++d) o = o * dims[d] + idx[d];
  return o;
}

// Counter over a multi-index in `dims`; false once it wraps around.
bool next(std::vector<int64_t>& idx, const std::vector<int64_t>& dims) {
  for (size_t d = dims.size(); d-- > 0;) {
    if (++idx[d] < dims[d]) return true;
    idx[d] = 0;
  }
  return false;
}

enum class Act { kNone, kRelu, kSilu };

// seed > 0: the rule's tunable choices drawn at random from that seed (a tuner's candidate);
// `forced`: decisions by sampling instruction (see SamplingPolicy).
void expect_conv(const ConvNchwcShape& s, int ib, int nr, Act act, const Target& target,
                 int vector_bits, const std::string& tile = "", uint64_t seed = 0,
                 const std::map<int, nlohmann::json>& forced = {}) {
  schedule::ConvEpilogue epi;
  if (act == Act::kRelu)
    epi = [](const Expr& v, const std::vector<Expr>&) {
      return max(v, make_const(DataType::f32(), 0));
    };
  if (act == Act::kSilu)
    epi = [](const Expr& v, const std::vector<Expr>&) { return v * sigmoid(v); };
  schedule::BlockedConv2d c = schedule::make_blocked_conv_nchwc(s, ib, nr, epi);
  schedule::Schedule sch(c.func, seed);
  if (seed > 0) sch.set_sampling_policy({.ignore_given = true});
  if (!forced.empty()) sch.set_sampling_policy({.forced = forced});
  schedule::schedule_blocked_conv2d(sch, "conv", vector_bits);
  schedule::Schedule replayed = schedule::Trace::from_json(sch.trace().to_json()).replay(c.func);
  EXPECT_TRUE(structural_equal(replayed.func().body, sch.func().body));
  // An epilogue with polynomial math runs outlined, apart from the tile's registers.
  EXPECT_EQ(to_string(sch.func()).find("outlined(") != std::string::npos, act == Act::kSilu)
      << to_string(sch.func());
  // The register tile (micro-kernel name prefix), when the test names one.
  if (!tile.empty()) {
    EXPECT_NE(to_string(sch.func()).find("\"" + tile), std::string::npos) << to_string(sch.func());
  }
  int64_t icb = (s.ic + ib - 1) / ib, ocb = (s.oc + nr - 1) / nr;
  size_t sp = s.in.size();
  std::vector<int64_t> xdims = {s.n, icb};
  xdims.insert(xdims.end(), s.in.begin(), s.in.end());
  xdims.push_back(ib);
  std::vector<int64_t> ydims = {s.n, ocb};
  ydims.insert(ydims.end(), s.out.begin(), s.out.end());
  ydims.push_back(nr);
  std::vector<float> x = random_floats(product(xdims), 1);  // padding lanes hold garbage too
  std::vector<float> w = random_floats(s.oc * s.ic * product(s.kernel), 2);
  std::vector<float> bias = random_floats(ocb * nr, 3);
  std::vector<float> wp = schedule::pack_conv_weights_nchwc(w.data(), s, ib, nr);
  std::vector<float> y(size_t(product(ydims)), -7.0f);
  LoadedArtifact art(single_kernel_module("conv", c.func.params, sch.func().body, 3), target);
  ASSERT_EQ(art.run({x.data(), wp.data(), bias.data()}, {y.data()}, nullptr, true), 0);
  // Every real output (n, o, out...) against the direct sum over (i, k...).
  std::vector<int64_t> odims = {s.n, s.oc};
  odims.insert(odims.end(), s.out.begin(), s.out.end());
  std::vector<int64_t> oi(odims.size(), 0);
  do {
    int64_t n = oi[0], o = oi[1];
    double want = bias[size_t(o)];
    std::vector<int64_t> ki(sp, 0);
    do {
      std::vector<int64_t> xi = {n, 0};
      for (size_t d = 0; d < sp; ++d)
        xi.push_back(oi[2 + d] * s.strides[d] + ki[d] * s.dilations[d]);
      xi.push_back(0);
      for (int64_t i = 0; i < s.ic; ++i) {
        xi[1] = i / ib, xi.back() = i % ib;
        want += double(x[size_t(offset(xdims, xi))]) *
                double(w[size_t((o * s.ic + i) * product(s.kernel) + offset(s.kernel, ki))]);
      }
    } while (next(ki, s.kernel));
    if (act == Act::kRelu) want = std::max(want, 0.0);
    if (act == Act::kSilu) want = want / (1.0 + std::exp(-want));
    std::vector<int64_t> yi = {n, o / nr};
    yi.insert(yi.end(), oi.begin() + 2, oi.end());
    yi.push_back(o % nr);
    ASSERT_NEAR(y[size_t(offset(ydims, yi))], want, 1e-3) << "output " << offset(odims, oi);
  } while (next(oi, odims));
}

TEST(ConvNchwcSchedule, ThreeDStridedDilatedWithPaddingLanesAndMaskedStrip) {
  // IC 12 in two 8-lane blocks (4 garbage lanes), OC 40 in three 16-lane blocks, OW 11: a strip
  // of 8 and a masked one of 3.
  expect_conv(shape(12, 40, {6, 7, 13}, {3, 1, 3}, {1, 2, 1}, {2, 1, 1}), 8, 16, Act::kNone,
              Target::host(), 512);
}

TEST(ConvNchwcSchedule, ThreeDWithEpilogue) {
  expect_conv(shape(16, 32, {3, 4, 10}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}), 16, 32, Act::kRelu,
              Target::host(), 512);
}

TEST(ConvNchwcSchedule, OneDSingleInputBlock) {
  // IC 3 in one block of 3 (an image's channels): the reduction covers the real lanes only.
  expect_conv(shape(3, 16, {20}, {5}, {2}, {1}), 3, 16, Act::kRelu, Target::host(), 512);
}

TEST(ConvNchwcSchedule, ThreeDAvx2MicroKernel) {
  Target avx2 = Target::parse("llvm -mcpu=haswell");
  expect_conv(shape(10, 24, {3, 5, 9}, {3, 3, 3}, {1, 1, 2}, {1, 1, 1}), 8, 8, Act::kRelu, avx2,
              256);
}

TEST(ConvNchwcSchedule, OneVectorTilesTakeTwelveRowsWhereTheRegistersAllow) {
  // OW 24: two 12-row strips on AVX-512 (one 16-lane vector per row) and on AVX2 for a pointwise
  // conv (one 8-lane vector); an AVX2 conv with a kernel window keeps 8 rows (three strips).
  expect_conv(shape(20, 16, {3, 26}, {3, 3}, {1, 1}, {1, 1}), 16, 16, Act::kRelu, Target::host(),
              512, "x86_avx512_fma_f32_12x16_");
  Target avx2 = Target::parse("llvm -mcpu=haswell");
  expect_conv(shape(20, 8, {24}, {1}, {1}, {1}), 8, 8, Act::kRelu, avx2, 256,
              "x86_avx2_fma_f32_12x8_");
  expect_conv(shape(20, 8, {3, 26}, {3, 3}, {1, 1}, {1, 1}), 8, 8, Act::kNone, avx2, 256,
              "x86_avx2_fma_f32_8x8_");
}

// One-vector output blocks (16 channels on AVX-512, 8 on AVX2) run two blocks per tile by
// default (three where their count is odd and divisible by three), so each broadcast input
// element feeds several accumulator vectors: AVX-512 8-pixel strips (fma_max_tile_rows of 32
// columns), AVX2 6-pixel strips (of 16).
TEST(ConvNchwcSchedule, OneVectorBlocksRunTwoPerTile) {
  expect_conv(shape(20, 64, {3, 18}, {3, 3}, {1, 1}, {1, 1}), 16, 16, Act::kRelu, Target::host(),
              512, "x86_avx512_fma_f32_8x16_k2x3x3x16_a");
  Target avx2 = Target::parse("llvm -mcpu=haswell");
  expect_conv(shape(20, 32, {3, 14}, {3, 3}, {1, 1}, {1, 1}), 8, 8, Act::kNone, avx2, 256,
              "x86_avx2_fma_f32_6x8_k3x3x3x8_a");
  auto tile_of = [](const ConvNchwcShape& s, int ib, int nr, int bits) {
    schedule::BlockedConv2d c = schedule::make_blocked_conv_nchwc(s, ib, nr, {});
    schedule::Schedule sch(c.func);
    schedule::schedule_blocked_conv2d(sch, "conv", bits);
    std::string text = to_string(sch.func());
    size_t at = text.find("\"x86_");
    return text.substr(at, text.find('"', at + 1) - at);
  };
  EXPECT_TRUE(
      tile_of(shape(20, 64, {3, 18}, {3, 3}, {1, 1}, {1, 1}), 16, 16, 512).ends_with("_j2"));
  EXPECT_TRUE(tile_of(shape(20, 32, {3, 14}, {3, 3}, {1, 1}, {1, 1}), 8, 8, 256).ends_with("_j2"));
  // A grouped conv's output blocks read different input blocks: one per tile.
  ConvNchwcShape grouped = shape(64, 64, {3, 18}, {3, 3}, {1, 1}, {1, 1});
  grouped.groups = 4;
  EXPECT_EQ(tile_of(grouped, 16, 16, 512).find("_j"), std::string::npos);
  // Three blocks of 8 on AVX2 (24 channels) run three per tile, four-pixel strips; five blocks
  // one per tile.
  EXPECT_TRUE(tile_of(shape(20, 24, {3, 14}, {3, 3}, {1, 1}, {1, 1}), 8, 8, 256)
                  .starts_with("\"x86_avx2_fma_f32_4x8_"));
  EXPECT_TRUE(tile_of(shape(20, 24, {3, 14}, {3, 3}, {1, 1}, {1, 1}), 8, 8, 256).ends_with("_j3"));
  EXPECT_EQ(tile_of(shape(20, 40, {3, 14}, {3, 3}, {1, 1}, {1, 1}), 8, 8, 256).find("_j"),
            std::string::npos);
  expect_conv(shape(20, 24, {3, 14}, {3, 3}, {1, 1}, {1, 1}), 8, 8, Act::kRelu, avx2, 256);
}

// Every output-block count the rule offers (1, 2 and 4 blocks of one vector), with the lowest
// and the highest strip height, computes the convolution: with a fused epilogue, and with K
// slices (352 input channels: 1.3 MB of weights per four-block tile).
TEST(ConvNchwcSchedule, EveryOutputBlockCountAndStripHeightMatch) {
  ConvNchwcShape small = shape(24, 64, {3, 17}, {3, 3}, {1, 1}, {1, 1});
  ConvNchwcShape deep = shape(352, 64, {4, 6}, {3, 3}, {1, 1}, {1, 1});
  for (int blocks = 0; blocks < 3; ++blocks)
    for (int height : {0, -1}) {
      SCOPED_TRACE(::testing::Message() << "blocks " << blocks << " height " << height);
      // Decisions by instruction: 0 the output blocks, 1 the strip height (-1: the last).
      int last_height = height;
      if (height < 0) {
        schedule::BlockedConv2d c = schedule::make_blocked_conv_nchwc(small, 16, 16, {});
        schedule::Schedule sch(c.func);
        sch.set_sampling_policy({.forced = {{0, blocks}}});
        schedule::schedule_blocked_conv2d(sch, "conv", 512);
        std::vector<nlohmann::json> samples;
        for (const auto& i : sch.trace().instructions)
          if (i.kind == "sample_categorical") samples.push_back(i.attrs);
        last_height = int(samples.at(1).at("candidates").size()) - 1;
      }
      expect_conv(small, 16, 16, Act::kSilu, Target::host(), 512, "", 0,
                  {{0, blocks}, {1, last_height}});
      expect_conv(deep, 16, 16, Act::kRelu, Target::host(), 512, "", 0, {{0, blocks}});
    }
}

TEST(ConvNchwcSchedule, TwoDWithSiluEpilogueOutlined) {
  // OW 9: a strip of 8 and one of 1, each followed by the outlined SiLU.
  expect_conv(shape(20, 48, {4, 11}, {3, 3}, {1, 1}, {1, 1}), 16, 32, Act::kSilu, Target::host(),
              512);
  Target avx2 = Target::parse("llvm -mcpu=haswell");
  expect_conv(shape(20, 24, {4, 11}, {3, 3}, {1, 1}, {1, 1}), 8, 8, Act::kSilu, avx2, 256);
}

// The thread pool gives each thread a contiguous range of the fused parallel loop, so its order
// decides which operand the threads share: a pointwise conv over a large map (its weights 32 KB,
// its input 96 KB) runs pixels outer, a 3x3 conv over many channels on a small map (weights
// 576 KB, input 15 KB) output blocks outer (here pairs of blocks of four, the tiles' default).
// Both compute the convolution.
TEST(ConvNchwcSchedule, TheParallelLoopSharesTheSmallerOperand) {
  auto parallel_loop = [](const ConvNchwcShape& s, int ib, int nr) {
    schedule::BlockedConv2d c = schedule::make_blocked_conv_nchwc(s, ib, nr, {});
    schedule::Schedule sch(c.func);
    schedule::schedule_blocked_conv2d(sch, "conv", 512);
    std::string text = to_string(sch.func());
    size_t at = text.find(" in parallel(");
    return at == std::string::npos
               ? text
               : text.substr(text.rfind("for ", at), at - text.rfind("for ", at));
  };
  ConvNchwcShape pointwise = shape(64, 128, {12, 16}, {1, 1}, {1, 1}, {1, 1});
  ConvNchwcShape wide = shape(128, 128, {3, 5}, {3, 3}, {1, 1}, {1, 1});
  EXPECT_EQ(parallel_loop(pointwise, 16, 16), "for n_oh_ocb_0_fused");
  EXPECT_EQ(parallel_loop(wide, 16, 16), "for n_ocb_0_oh_fused");
  expect_conv(pointwise, 16, 16, Act::kRelu, Target::host(), 512);
  expect_conv(wide, 16, 16, Act::kNone, Target::host(), 512);
}

// The default order streams fewer bytes again from beyond a core's L2, not merely shares the
// smaller operand: ResNet-50's 1x1 stride-2 512->1024 conv at 28x28 (batch 1; AVX2 tiles of one
// 16-channel block) reads half of its 1.6 MB input, has 2 MB of weights, and 64 output block
// groups: blocks outer would read the 0.8 MB again 63 times, pixels outer the weights 13 times.
// It ran 1.68 -> 1.34 ms in the model pixels outer (docs/perf.md, session 40). The smaller
// operand (the input) would have been shared: blocks outer. It computes the convolution.
TEST(ConvNchwcSchedule, TheParallelOrderStreamsFewerBytesAgain) {
  Target avx2 = Target::parse("llvm -mcpu=haswell");
  ConvNchwcShape strided = shape(512, 1024, {28, 28}, {1, 1}, {2, 2}, {1, 1});
  strided.n = 1;
  schedule::BlockedConv2d c = schedule::make_blocked_conv_nchwc(strided, 16, 16, {});
  schedule::Schedule sch(c.func);
  schedule::schedule_blocked_conv2d(sch, "conv", 256);
  std::string text = to_string(sch.func());
  size_t at = text.find(" in parallel(");
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(text.substr(text.rfind("for ", at), at - text.rfind("for ", at)), "for n_oh_ocb_fused");
  expect_conv(strided, 16, 16, Act::kRelu, avx2, 256);
}

// The rule's tunable choices (strip height, K slices, parallel chunks) drawn at random, as a
// tuner's candidates: every point computes the convolution, on both ISAs, with a fused epilogue,
// a masked strip, 3-D windows, and two input blocks (so K slices are among the choices).
TEST(ConvNchwcSchedule, RandomPointsOfTheRuleDesignSpaceMatch) {
  Target avx2 = Target::parse("llvm -mcpu=haswell");
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE(seed);
    expect_conv(shape(20, 48, {4, 11}, {3, 3}, {1, 1}, {1, 1}), 16, 32, Act::kSilu, Target::host(),
                512, "", seed);
    expect_conv(shape(12, 40, {6, 7, 13}, {3, 1, 3}, {1, 2, 1}, {2, 1, 1}), 8, 16, Act::kNone,
                Target::host(), 512, "", seed);
    expect_conv(shape(24, 8, {3, 40}, {1, 1}, {1, 1}, {1, 1}), 8, 8, Act::kRelu, avx2, 256, "",
                seed);
  }
}

}  // namespace
}  // namespace ingot::codegen::test

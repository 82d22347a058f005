// The blocked convolution of bfloat16 products (lower/compute/blocked_conv.h, bf16) scheduled by
// the blocked_conv2d rule with its bfloat16 dot tile (FmaTileSpec::bf16: pairs of input lanes,
// dot_bf16), compiled, loaded and run against the sum of the bfloat16 operands' exact products
// computed here: several input blocks into output channels that pad the block, a 3x3 window at
// stride 2, an input of one block; a float32 output (the sums accumulate in it, the epilogue
// in place) and a bfloat16 one (the sums a scratch parameter the rule makes local to each strip,
// the epilogue's result rounded); on the host's target where it has AVX512-BF16 (VDPBF16PS, any
// vendor's CPU), and the portable pair product at 8 lanes (-mcpu=haswell) everywhere; AMX tiles
// (emulated, and native where the host has AMX-BF16). The tile's name round-trips and the trace
// replays.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "artifact_util.h"
#include "codegen/llvm/codegen_llvm.h"
#include "ingot/runtime.h"
#include "lower/compute/blocked_conv.h"
#include "schedule/intrin/x86_fma.h"
#include "schedule/rules/conv2d.h"
#include "schedule/trace.h"
#include "support/bfloat16.h"
#include "tir/op.h"
#include "tir/printer.h"
#include "tir/structural_equal.h"
#include "tir/transforms/compact_buffers.h"
#include "tir/transforms/lower_blocks.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;

struct Case {
  int64_t ic, oc, ib, nr, in, k, stride;
  bool bf16_out = false;
};

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// Whether this CPU runs VDPBF16PS on 512-bit vectors (then the host target's tiles use it).
bool host_has_avx512_bf16() {
  return ingot_cpu_supports("avx512bf16") == 1 && ingot_cpu_supports("avx512bw") == 1;
}

// Returns the scheduled kernel's text. With tiles.amx_bf16 the rule takes the AMX tile
// (x86_amx_dot_bf16g2_...) unless `vector_tile` (a layout the tiles refuse).
std::string expect_conv(const Case& q, const Target& target, int vector_bits,
                        schedule::ConvTiles tiles = {}, bool vector_tile = false) {
  lower::BlockedConvShape s;
  s.n = 1, s.ic = q.ic, s.oc = q.oc, s.ib = q.ib, s.nr = q.nr;
  s.in = {q.in, q.in}, s.kernel = {q.k, q.k}, s.strides = {q.stride, q.stride};
  s.dilations = {1, 1};
  const int64_t out = (q.in - q.k) / q.stride + 1;
  s.out = {out, out};
  s.bf16 = true;
  if (q.bf16_out) s.out_type = DataType::bf16();
  // The epilogue: a Relu (in place, or before the rounding to bfloat16).
  lower::ConvEpilogue relu = [](const Expr& v, const std::vector<Expr>&) {
    return max(v, make_const(DataType::f32(), 0.0));
  };
  PrimFunc f = lower::blocked_conv_compute(s, true, relu);
  f.constant_params = {1};  // W: the rule lays it out
  EXPECT_EQ(f.scratch_params.size(), q.bf16_out ? 1u : 0u);
  schedule::Schedule sch(f);
  schedule::schedule_blocked_conv2d(sch, "conv", CpuVectorIsa::x86(vector_bits), 2, tiles);
  schedule::Schedule replayed = schedule::Trace::from_json(sch.trace().to_json()).replay(f);
  EXPECT_TRUE(structural_equal(replayed.func(), sch.func()));
  PrimFunc done = sch.func();
  const std::string text = to_string(done);
  const bool amx = tiles.amx_bf16 && !vector_tile;
  EXPECT_NE(text.find(amx ? "x86_amx_dot_bf16g2_" : "_dot_bf16g2_"), std::string::npos) << text;
  EXPECT_EQ(text.find("x86_amx") != std::string::npos, amx) << text;
  EXPECT_TRUE(done.scratch_params.empty()) << "the float32 sums stay a scratch tensor";
  done = compact_buffers(lower_blocks(std::move(done)), /*local_only=*/true);
  // Data: X [1, ICb, H, W, IB] bfloat16 (lanes past IC zero, as a blocked producer's), W
  // [OC, IC, k, k] bfloat16, bias float32.
  std::mt19937 rng(uint32_t(q.ic * 7 + q.oc));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int64_t icb = ceil_div(q.ic, q.ib), ocb = ceil_div(q.oc, q.nr);
  std::vector<uint16_t> x(size_t(icb * q.in * q.in * q.ib), 0), w(size_t(q.oc * q.ic * q.k * q.k));
  for (size_t e = 0; e < x.size(); ++e)
    if (int64_t(e) % q.ib + (int64_t(e) / (q.in * q.in * q.ib)) * q.ib < q.ic)
      x[e] = float_to_bfloat16_bits(normal(rng));
  for (auto& v : w) v = float_to_bfloat16_bits(normal(rng) * 0.2f);
  std::vector<float> bias(size_t(q.oc));
  for (int64_t c = 0; c < q.oc; ++c) bias[size_t(c)] = float(c % 7) * 0.25f - 0.75f;
  std::vector<std::vector<uint8_t>> laid = {
      {},
      std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(w.data()),
                           reinterpret_cast<const uint8_t*>(w.data() + w.size())),
      std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(bias.data()),
                           reinterpret_cast<const uint8_t*>(bias.data() + bias.size()))};
  for (const PrimFunc::ParamLayout& l : sch.func().layouts)
    laid[size_t(l.param)] =
        l.layout.relayout(laid[size_t(l.param)].data(), l.shape, l.param == 1 ? 2 : 4);
  const size_t ny = size_t(ocb * out * out * q.nr);
  std::vector<float> y32(ny, -7.0f);
  std::vector<uint16_t> y16(ny, 0xEEEE);
  void* y = q.bf16_out ? static_cast<void*>(y16.data()) : static_cast<void*>(y32.data());
  LoadedArtifact art(single_kernel_module("conv", done.params, done.body, 3), target);
  EXPECT_EQ(art.run({x.data(), laid[1].data(), laid[2].data()}, {y}, nullptr, true), 0);
  for (int64_t o = 0; o < q.oc; ++o)
    for (int64_t oh = 0; oh < out; ++oh)
      for (int64_t ow = 0; ow < out; ++ow) {
        double sum = bias[size_t(o)], mag = std::abs(sum);
        for (int64_t i = 0; i < q.ic; ++i)
          for (int64_t kh = 0; kh < q.k; ++kh)
            for (int64_t kw = 0; kw < q.k; ++kw) {
              const double xv = bfloat16_bits_to_float(x[size_t(
                  (((i / q.ib) * q.in + oh * q.stride + kh) * q.in + ow * q.stride + kw) * q.ib +
                  i % q.ib)]);
              const double wv =
                  bfloat16_bits_to_float(w[size_t(((o * q.ic + i) * q.k + kh) * q.k + kw)]);
              sum += xv * wv, mag += std::abs(xv * wv);
            }
        const double want = std::max(sum, 0.0);
        const size_t at = size_t((((o / q.nr) * out + oh) * out + ow) * q.nr + o % q.nr);
        // float32 sums of exact products (VDPBF16PS rounds its additions): 1e-5 of the terms'
        // magnitudes; a bfloat16 output one rounding further (half a step: 2^-9 relative).
        const double got = q.bf16_out ? bfloat16_bits_to_float(y16[at]) : y32[at];
        const double tol = 1e-5 * (mag + 1.0) + (q.bf16_out ? std::ldexp(std::abs(want), -8) : 0);
        EXPECT_NEAR(got, want, tol) << "channel " << o << " at " << oh << "," << ow;
        if (::testing::Test::HasFailure()) return text;
      }
  return text;
}

const Target kHaswell = Target::parse("llvm -mcpu=haswell");
const Target kZen4 = Target::parse("llvm -mcpu=znver4");

TEST(BFloat16ConvSchedule, InputBlocksIntoPaddedOutputChannels) {
  for (bool bf16_out : {false, true}) {
    expect_conv({48, 40, 16, 16, 6, 1, 1, bf16_out}, kHaswell, 256);
    if (host_has_avx512_bf16())
      expect_conv({48, 40, 16, 16, 6, 1, 1, bf16_out}, Target::host(), 512);
  }
}

TEST(BFloat16ConvSchedule, WindowAtStrideTwoAndOneInputBlock) {
  for (bool bf16_out : {false, true}) {
    expect_conv({12, 16, 16, 16, 9, 3, 2, bf16_out}, kHaswell, 256);
    expect_conv({32, 24, 8, 8, 7, 3, 1, bf16_out}, kHaswell, 256);
    if (host_has_avx512_bf16())
      expect_conv({64, 32, 32, 32, 9, 3, 1, bf16_out}, Target::host(), 512);
  }
}

// AMX tiles (TDPBF16PS; emulated on Haswell, native on the host where it has AMX-BF16): a 3x3
// window over input blocks of 32 (whole tile rows), one strip of 7 pixels; 16-lane blocks (half
// rows) into 48 channels, strips of 16 and a tail; a strided window whose 32-pixel rows take two
// row tiles. Input blocks of 48 (1.5 tile rows) keep the vector tile.
TEST(BFloat16ConvSchedule, AmxTilesMatchTheExactProducts) {
  const schedule::ConvTiles amx{false, true};
  const std::vector<Case> cases = {
      {64, 32, 32, 32, 9, 3, 1}, {48, 48, 16, 48, 20, 1, 1}, {32, 32, 32, 32, 67, 3, 2, true}};
  for (const Case& c : cases) expect_conv(c, kHaswell, 512, amx);
  if (ingot_cpu_supports("amx-bf16") == 1)
    for (const Case& c : cases) expect_conv(c, Target::host(), 512, amx);
  expect_conv({96, 32, 48, 32, 6, 1, 1}, kHaswell, 512, amx, /*vector_tile=*/true);
}

TEST(BFloat16ConvSchedule, Avx512Bf16TargetsUseVdpbf16psAndNamesRoundTrip) {
  // A tile as the rule builds it for a 3x3 conv over 32 channels in blocks of 16 (the bfloat16
  // dot form of the 8-bit tile's layout: B [.., NR, 2]).
  lower::BlockedConvShape s;
  s.ic = 32, s.oc = 32, s.ib = 16, s.nr = 32, s.in = {8, 8}, s.out = {6, 6}, s.kernel = {3, 3};
  s.strides = {1, 1}, s.dilations = {1, 1}, s.bf16 = true;
  PrimFunc f = lower::blocked_conv_compute(s, true);
  f.constant_params = {1};
  schedule::Schedule sch(f);
  schedule::schedule_blocked_conv2d(sch, "conv", CpuVectorIsa::x86(512));
  PrimFunc done = compact_buffers(lower_blocks(sch.func()), true);
  const IRModule m = single_kernel_module("conv", done.params, done.body, 3);
  EXPECT_NE(emit_llvm_ir(m, kZen4).find("dpbf16ps.512"), std::string::npos);
  EXPECT_EQ(emit_llvm_ir(m, Target::parse("llvm -mcpu=skylake-avx512")).find("dpbf16ps"),
            std::string::npos);
  const std::string text = to_string(sch.func());
  const size_t at = text.find("x86_avx512_dot_bf16g2_");
  ASSERT_NE(at, std::string::npos) << text;
  const std::string name = text.substr(at, text.find_first_of("\"( \n", at) - at);
  std::optional<schedule::FmaTileSpec> back = schedule::parse_fma_tile_spec(name);
  ASSERT_TRUE(back.has_value()) << name;
  EXPECT_TRUE(back->bf16);
  EXPECT_EQ(back->group, 2);
  EXPECT_EQ(schedule::fma_tile_name(*back), name);
  // A bfloat16 tile takes pairs and unsigned A.
  schedule::FmaTileSpec quads = *back;
  quads.group = 4;
  EXPECT_FALSE(schedule::parse_fma_tile_spec(schedule::fma_tile_name(quads)).has_value());
}

}  // namespace
}  // namespace ingot::codegen::test

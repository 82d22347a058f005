// The 8-bit blocked convolution (lower/compute/blocked_conv.h, int8) scheduled by the
// blocked_conv2d rule with its dot tiles, compiled, loaded and run against the integer sum and
// the float32 requantization computed here: an input of one 4-lane block (an image padded to 4
// channels) at stride 2, several input blocks into output channels that pad the block, int8
// activations (int16 pairs), both groups of uint8 lanes (VPDPBUSD quads where the host has VNNI,
// else the portable sequence; int16 pairs), the weights re-laid out by the layout the rule
// recorded. Unsliced, the int32 sums are the kernel's own local memory, one strip's tile after
// compact_buffers; the trace replays. On a target with AMX-INT8 the uint8 convs take the AMX tiles.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "artifact_util.h"
#include "ingot/runtime.h"
#include "lower/compute/blocked_conv.h"
#include "schedule/rules/conv2d.h"
#include "schedule/trace.h"
#include "tir/op.h"
#include "tir/printer.h"
#include "tir/structural_equal.h"
#include "tir/transforms/compact_buffers.h"
#include "tir/transforms/lower_blocks.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;

struct QConvCase {
  int64_t ic, oc, ib, nr, in, k, stride;
  bool x_signed = false;
};

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// With tiles.amx_int8 the rule takes the AMX tile (x86_amx_dot_u8i8g4_...) unless `vector_tile`
// (a layout the tiles refuse).
void expect_qconv(const QConvCase& q, int group, const Target& target, int vector_bits,
                  schedule::ConvTiles tiles = {}, bool vector_tile = false) {
  lower::BlockedConvShape s;
  s.n = 1, s.ic = q.ic, s.oc = q.oc, s.ib = q.ib, s.nr = q.nr;
  s.in = {q.in, q.in}, s.kernel = {q.k, q.k}, s.strides = {q.stride, q.stride};
  s.dilations = {1, 1};
  const int64_t out = (q.in - q.k) / q.stride + 1;
  s.out = {out, out};
  s.int8 = true, s.x_signed = q.x_signed, s.out_type = DataType::u8();
  Buffer scale = Buffer::make("scale", DataType::f32(), std::vector<int64_t>{q.oc});
  const int64_t oc = q.oc, nr = q.nr;
  lower::ConvEpilogue requant = [scale, oc, nr](const Expr& acc, const std::vector<Expr>& idx) {
    Expr c = min(idx[1] * nr + idx.back(), i64(oc - 1));
    Expr v = call(Intrinsic::round, {cast(DataType::f32(), acc) * scale.load({c})}) +
             make_const(DataType::f32(), 3.0);
    return cast(DataType::u8(),
                min(max(v, make_const(DataType::f32(), 0.0)), make_const(DataType::f32(), 255.0)));
  };
  PrimFunc f = lower::blocked_conv_compute(s, true, requant, {scale});
  f.constant_params = {1};                 // W: the rule lays it out
  ASSERT_EQ(f.scratch_params.size(), 1u);  // the int32 sums as lowered
  schedule::Schedule sch(f);
  schedule::schedule_blocked_conv2d(sch, "conv", CpuVectorIsa::x86(vector_bits), group, tiles);
  schedule::Schedule replayed = schedule::Trace::from_json(sch.trace().to_json()).replay(f);
  EXPECT_TRUE(structural_equal(replayed.func(), sch.func()));  // (W re-laid out: new params)
  PrimFunc done = sch.func();
  const std::string text = to_string(done);
  const bool amx = tiles.amx_int8 && !vector_tile;
  EXPECT_NE(text.find(fmt::format("{}_dot_{}i8g{}_", amx ? "x86_amx" : "", q.x_signed ? "i8" : "u8",
                                  q.x_signed ? 2 : group)),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("x86_amx") != std::string::npos, amx) << text;
  EXPECT_TRUE(done.scratch_params.empty()) << "the sums stay a scratch tensor";
  // The CPU loop pass compact_buffers: the sums one strip's tile, allocated in the strip.
  done = compact_buffers(lower_blocks(std::move(done)), /*local_only=*/true);
  const std::string loops = to_string(done);
  const size_t alloc = loops.find("acc = allocate(int32[1, ");  // (in the parallel loop)
  EXPECT_NE(alloc, std::string::npos) << loops;
  EXPECT_LT(loops.find("parallel("), alloc) << loops;
  // Data: X [1, ICb, H, W, IB] (lanes past IC hold garbage), W [OC, IC, k, k], bias, scales.
  std::mt19937 rng(uint32_t(q.ic * 7 + q.oc));
  std::uniform_int_distribution<int> byte(0, 255);
  const int64_t icb = ceil_div(q.ic, q.ib), ocb = ceil_div(q.oc, q.nr);
  std::vector<uint8_t> x(size_t(icb * q.in * q.in * q.ib)), w(size_t(q.oc * q.ic * q.k * q.k));
  for (auto& v : x) v = uint8_t(byte(rng));
  for (auto& v : w) v = uint8_t(byte(rng));
  std::vector<int32_t> bias(size_t(q.oc));
  std::vector<float> sc(size_t(q.oc));
  for (int64_t c = 0; c < q.oc; ++c) {
    bias[size_t(c)] = int32_t(c * 977 % 20000) - 10000;
    sc[size_t(c)] = 1.0f / float(64 + 8 * (c % 5)) / float(q.k);
  }
  // The weights (and a bias read past OC) in the layouts the rule recorded.
  std::vector<std::vector<uint8_t>> laid = {{}, std::vector<uint8_t>(w), {}, {}};
  laid[2].assign(reinterpret_cast<const uint8_t*>(bias.data()),
                 reinterpret_cast<const uint8_t*>(bias.data() + bias.size()));
  for (const PrimFunc::ParamLayout& l : sch.func().layouts)
    laid[size_t(l.param)] =
        l.layout.relayout(laid[size_t(l.param)].data(), l.shape, l.param == 1 ? 1 : 4);
  std::vector<uint8_t> y(size_t(ocb * out * out * q.nr), 0xEE);
  LoadedArtifact art(single_kernel_module("qconv", done.params, done.body, 4), target);
  ASSERT_EQ(
      art.run({x.data(), laid[1].data(), laid[2].data(), sc.data()}, {y.data()}, nullptr, true), 0);
  for (int64_t o = 0; o < q.oc; ++o)
    for (int64_t oh = 0; oh < out; ++oh)
      for (int64_t ow = 0; ow < out; ++ow) {
        int64_t acc = bias[size_t(o)];
        for (int64_t i = 0; i < q.ic; ++i)
          for (int64_t kh = 0; kh < q.k; ++kh)
            for (int64_t kw = 0; kw < q.k; ++kw) {
              const uint8_t xv = x[size_t(
                  (((i / q.ib) * q.in + oh * q.stride + kh) * q.in + ow * q.stride + kw) * q.ib +
                  i % q.ib)];
              const int64_t xi = q.x_signed ? int64_t(int8_t(xv)) : int64_t(xv);
              acc += xi * int64_t(int8_t(w[size_t(((o * q.ic + i) * q.k + kh) * q.k + kw)]));
            }
        const float v = std::nearbyint(float(acc) * sc[size_t(o)]) + 3.0f;
        const auto want = uint8_t(std::min(std::max(v, 0.0f), 255.0f));
        const size_t at = size_t((((o / q.nr) * out + oh) * out + ow) * q.nr + o % q.nr);
        ASSERT_EQ(int(y[at]), int(want)) << "channel " << o << " at " << oh << "," << ow;
      }
}

TEST(QConvNchwcSchedule, StemLikeInputOfOneFourLaneBlockAtStrideTwo) {
  const QConvCase stem{4, 32, 4, 32, 11, 3, 2};  // (an image padded to 4 channels)
  expect_qconv(stem, 2, Target::parse("llvm -mcpu=haswell"), 256);
  expect_qconv(stem, 4, Target::parse("llvm -mcpu=haswell"), 256);  // (portable quads)
  if (ingot_cpu_supports("avx512vnni") == 1)
    expect_qconv(stem, 4, Target::parse("llvm -mcpu=icelake-server"), 512);
}

TEST(QConvNchwcSchedule, InputBlocksIntoPaddedOutputChannels) {
  const QConvCase c{48, 40, 16, 16, 6, 1, 1};
  expect_qconv(c, 2, Target::parse("llvm -mcpu=haswell"), 256);
  if (ingot_cpu_supports("avx512vnni") == 1)
    expect_qconv(c, 4, Target::parse("llvm -mcpu=icelake-server"), 512);
  const QConvCase k3{32, 24, 16, 16, 7, 3, 1};
  expect_qconv(k3, 4, Target::parse("llvm -mcpu=haswell"), 256);
}

TEST(QConvNchwcSchedule, SignedActivationsTakeInt16Pairs) {
  QConvCase c{24, 16, 8, 16, 5, 3, 1};
  c.x_signed = true;
  expect_qconv(c, 4, Target::parse("llvm -mcpu=haswell"), 256);
}

// AMX tiles (TDPBUSD; emulated on Haswell, native on the host where it has AMX-INT8): an
// input block of 32 lanes (half a tile row) under a 3x3 window, one strip of 7 pixels; 64-lane
// blocks (whole tile rows) into 48 channels (three column tiles: strips of 16 and a tail of 4);
// a strided window whose 32-pixel rows take two row tiles by two column tiles. Signed
// activations keep the vector tiles.
TEST(QConvNchwcSchedule, AmxTilesMatchTheIntegerSums) {
  const schedule::ConvTiles amx{true, false};
  const std::vector<QConvCase> cases = {
      {64, 32, 32, 32, 9, 3, 1}, {128, 48, 64, 48, 20, 1, 1}, {32, 32, 32, 32, 67, 3, 2}};
  const Target haswell = Target::parse("llvm -mcpu=haswell");
  for (const QConvCase& c : cases) expect_qconv(c, 4, haswell, 512, amx);
  if (ingot_cpu_supports("amx-int8") == 1)
    for (const QConvCase& c : cases) expect_qconv(c, 4, Target::host(), 512, amx);
  QConvCase signed_x{32, 32, 32, 32, 9, 3, 1};
  signed_x.x_signed = true;
  expect_qconv(signed_x, 4, haswell, 512, amx, /*vector_tile=*/true);
}

}  // namespace
}  // namespace ingot::codegen::test

// The 8-bit dot tiles of the blocked convolution rule (schedule/intrin/x86_fma.h,
// FmaTileSpec::group) run as kernels against an evaluation of their own description's
// arithmetic, C[c(i, j, jb)] += int32(A[a(i, k...)]) * int32(B[b(k..., j, jb)]), on a conv
// layout: A a padded uint8 / int8 image [IH, IW, IC] read at (kh, ow * stride + kw, cq * G + g),
// B the laid-out weights [ICq, KH, KW, NR, G] per column block, C the int32 output pixels. Groups
// of 4 (VPDPBUSD on a VNNI host, else int_dot.cpp's portable sequence, which checks the index
// arithmetic on any host) and of 2 (int16 pairs); uint8 and int8 A; one and two column blocks;
// the depthwise form's widened products (FmaTileSpec::int8_products).
// Names round-trip (a trace names its tile), malformed specs are refused, and a VNNI target's
// code has the instruction.
#include <gtest/gtest.h>

#include <random>

#include "artifact_util.h"
#include "codegen/llvm/codegen_llvm.h"
#include "ingot/runtime.h"
#include "schedule/intrin/x86_fma.h"
#include "support/error.h"
#include "tir/printer.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;
using schedule::FmaTileSpec;

// A conv tile: mr output pixels (i) at `stride`, nr channels (j) per block, col_blocks blocks
// (jb), over cq input-channel quads / pairs, a kh x kw window and the group g.
FmaTileSpec conv_tile(int lanes, int mr, int nr, int blocks, int64_t cq, int64_t kh, int64_t kw,
                      int64_t stride, int group, bool a_signed) {
  FmaTileSpec s;
  s.lanes = lanes, s.mr = mr, s.nr = nr, s.col_blocks = blocks;
  s.group = group, s.a_signed = a_signed;
  s.k = {cq, kh, kw, group};
  // Variables: i, j, cq, kh, kw, g, [jb].
  auto row = [&](std::vector<int64_t> c) {
    if (blocks > 1) c.push_back(0);
    return c;
  };
  // A[kh, ow * stride + kw, cq * G + g] of an image [KH, IW, IC] (rows: the window's).
  s.a.dims = {row({0, 0, 0, 1, 0, 0}), row({stride, 0, 0, 0, 1, 0}), row({0, 0, group, 0, 0, 1})};
  // B[jb, cq, kh, kw, j, g].
  s.b.dims = {row({0, 0, 1, 0, 0, 0}), row({0, 0, 0, 1, 0, 0}), row({0, 0, 0, 0, 1, 0}),
              row({0, 1, 0, 0, 0, 0}), row({0, 0, 0, 0, 0, 1})};
  // C[jb, i, j].
  s.c.dims = {row({1, 0, 0, 0, 0, 0}), row({0, 1, 0, 0, 0, 0})};
  if (blocks > 1) {
    s.b.dims.insert(s.b.dims.begin(), {0, 0, 0, 0, 0, 0, 1});
    s.c.dims.insert(s.c.dims.begin(), {0, 0, 0, 0, 0, 0, 1});
  }
  return s;
}

// Extents of an operand's dims over the variables' extents (the intrinsic's buffer shapes).
std::vector<int64_t> shape_of(const schedule::FmaOperand& o, const std::vector<int64_t>& extents) {
  std::vector<int64_t> shape;
  for (const auto& c : o.dims) {
    int64_t e = 1;
    for (size_t v = 0; v < c.size(); ++v) e += c[v] * (extents[v] - 1);
    shape.push_back(e);
  }
  return shape;
}

int64_t flat(const schedule::FmaOperand& o, const std::vector<int64_t>& shape,
             const std::vector<int64_t>& vars) {
  int64_t off = 0;
  for (size_t d = 0; d < o.dims.size(); ++d) {
    int64_t idx = 0;
    for (size_t v = 0; v < vars.size(); ++v) idx += o.dims[d][v] * vars[v];
    off = off * shape[d] + idx;
  }
  return off;
}

int64_t elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

void expect_tile(const FmaTileSpec& s, const Target& target) {
  const schedule::TensorIntrin in = schedule::make_fma_tile_intrin(s);
  std::vector<int64_t> extents = {s.mr, s.nr};
  extents.insert(extents.end(), s.k.begin(), s.k.end());
  if (s.col_blocks > 1) extents.push_back(s.col_blocks);
  const auto as = shape_of(s.a, extents), bs = shape_of(s.b, extents), cs = shape_of(s.c, extents);
  std::mt19937 rng(uint32_t(s.mr * 131 + s.nr + s.group + s.col_blocks));
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> a(size_t(elements(as))), b(size_t(elements(bs)));
  for (auto& v : a) v = uint8_t(byte(rng));
  for (auto& v : b) v = uint8_t(byte(rng));
  a[0] = s.a_signed ? 0x80 : 0xFF;  // the ends of the ranges
  b[0] = 0x80;
  b[1] = 0x7F;
  std::vector<int32_t> c(size_t(elements(cs)));
  for (size_t i = 0; i < c.size(); ++i) c[i] = int32_t(i * 1000003 % 65536) - 30000;
  std::vector<int32_t> want = c;
  // Every (i, j, k..., [jb]) of the description, an odometer over the extents.
  std::vector<int64_t> vars(extents.size(), 0);
  for (;;) {
    const uint8_t av = a[size_t(flat(s.a, as, vars))];
    const int64_t x = s.a_signed ? int64_t(int8_t(av)) : int64_t(av);
    const int64_t w = int8_t(b[size_t(flat(s.b, bs, vars))]);
    want[size_t(flat(s.c, cs, vars))] += int32_t(x * w);
    size_t d = vars.size();
    while (d-- > 0 && ++vars[d] == extents[d]) vars[d] = 0;
    if (d == size_t(-1)) break;
  }
  LoadedArtifact art(single_kernel_module("tile", in.impl.params, in.impl.body, 2), target);
  ASSERT_EQ(art.run({a.data(), b.data()}, {c.data()}), 0);
  for (size_t i = 0; i < c.size(); ++i)
    ASSERT_EQ(c[i], want[i]) << schedule::fma_tile_name(s) << " element " << i;
}

TEST(Int8ConvTile, MatchesItsDescription) {
  const Target avx2 = Target::parse("llvm -mcpu=haswell");
  for (int group : {4, 2})
    for (bool a_signed : {false, true})
      for (int blocks : {1, 2}) {
        expect_tile(conv_tile(8, 3, 8, blocks, 2, 3, 3, 2, group, a_signed), avx2);
        expect_tile(conv_tile(8, 5, 16, blocks, 3, 1, 1, 1, group, a_signed), avx2);
        // 1x1 windows over 8 and 6 channel groups: 8 and 2 steps per loop iteration.
        expect_tile(conv_tile(8, 4, 8, blocks, 8, 1, 1, 1, group, a_signed), avx2);
        expect_tile(conv_tile(8, 4, 8, blocks, 6, 1, 1, 1, group, a_signed), avx2);
      }
}

// The innermost reduction loop of extent > 1 runs up to kTileStepsPerIteration steps per
// iteration: a 1x1 conv's channel groups (its window loops have extent 1), a 3x3 conv's 3-wide
// window rows when they are innermost.
TEST(Int8ConvTile, ChannelGroupsRunSeveralStepsPerIteration) {
  auto text = [](const FmaTileSpec& s) {
    return to_string(schedule::make_fma_tile_intrin(s).impl.body);
  };
  const std::string one_by_one = text(conv_tile(16, 7, 16, 1, 16, 1, 1, 1, 4, false));
  EXPECT_NE(one_by_one.find("for k0 in range(0, 2):"), std::string::npos) << one_by_one;
  EXPECT_NE(one_by_one.find("k0 * 8 + 7"), std::string::npos) << one_by_one;
  const std::string three = text(conv_tile(16, 4, 16, 1, 2, 3, 3, 1, 4, false));
  EXPECT_NE(three.find("for k2 in range(0, 3):"), std::string::npos) << three;  // 3: one step
}

// The depthwise form (FmaTileSpec::int8_products): A[kh, i * stride + kw, j] per lane j, B[kh,
// kw, j], C[i, j], each product int32(A) * int32(B).
FmaTileSpec depthwise_tile(int lanes, int mr, int nr, int64_t kh, int64_t kw, int64_t stride,
                           bool a_signed) {
  FmaTileSpec s;
  s.lanes = lanes, s.mr = mr, s.nr = nr, s.int8_products = true, s.a_signed = a_signed;
  s.k = {kh, kw};
  s.a.dims = {{0, 0, 1, 0}, {stride, 0, 0, 1}, {0, 1, 0, 0}};
  s.b.dims = {{0, 0, 1, 0}, {0, 0, 0, 1}, {0, 1, 0, 0}};
  s.c.dims = {{1, 0, 0, 0}, {0, 1, 0, 0}};
  return s;
}

TEST(Int8ConvTile, DepthwiseProductsMatchTheirDescription) {
  for (bool a_signed : {false, true}) {
    expect_tile(depthwise_tile(8, 4, 16, 3, 3, 2, a_signed), Target::parse("llvm -mcpu=haswell"));
    expect_tile(depthwise_tile(16, 6, 32, 3, 3, 1, a_signed), Target::host());
  }
  const FmaTileSpec s = depthwise_tile(16, 6, 32, 5, 5, 1, false);
  std::optional<FmaTileSpec> back = schedule::parse_fma_tile_spec(schedule::fma_tile_name(s));
  ASSERT_TRUE(back.has_value()) << schedule::fma_tile_name(s);
  EXPECT_TRUE(back->int8_products);
  EXPECT_NE(schedule::fma_tile_name(s).find("_mul_u8i8_"), std::string::npos);
  FmaTileSpec both = s;
  both.group = 4;
  EXPECT_THROW(schedule::make_fma_tile_intrin(both), InternalError);
}

TEST(Int8ConvTile, VnniTargetsUseVpdpbusd) {
  const FmaTileSpec wide = conv_tile(16, 4, 32, 1, 2, 3, 3, 1, 4, false);
  const schedule::TensorIntrin in = schedule::make_fma_tile_intrin(wide);
  EXPECT_NE(emit_llvm_ir(single_kernel_module("tile", in.impl.params, in.impl.body, 2),
                         Target::parse("llvm -mcpu=icelake-server"))
                .find("vpdpbusd.512"),
            std::string::npos);
  if (ingot_cpu_supports("avx512vnni") == 1) {
    const Target vnni = Target::parse("llvm -mcpu=icelake-server");
    expect_tile(wide, vnni);
    expect_tile(conv_tile(16, 7, 16, 2, 4, 1, 1, 1, 4, false), vnni);
    expect_tile(conv_tile(16, 2, 16, 1, 1, 3, 3, 2, 2, true), vnni);  // (int8 A: pairs)
  }
}

TEST(Int8ConvTile, NamesRoundTripAndMalformedSpecsAreRefused) {
  for (const FmaTileSpec& s : {conv_tile(16, 7, 32, 1, 4, 3, 3, 1, 4, false),
                               conv_tile(8, 4, 8, 2, 3, 1, 1, 2, 2, true)}) {
    const std::string name = schedule::fma_tile_name(s);
    EXPECT_NE(name.find(s.a_signed ? "_dot_i8i8g2_" : "_dot_u8i8g4_"), std::string::npos) << name;
    std::optional<FmaTileSpec> back = schedule::parse_fma_tile_spec(name);
    ASSERT_TRUE(back.has_value()) << name;
    EXPECT_EQ(schedule::fma_tile_name(*back), name);
    EXPECT_EQ(back->group, s.group);
    EXPECT_EQ(back->a_signed, s.a_signed);
  }
  FmaTileSpec odd = conv_tile(16, 4, 16, 1, 2, 1, 1, 1, 4, false);
  odd.group = 3;  // (and the last extent no longer the group)
  EXPECT_THROW(schedule::make_fma_tile_intrin(odd), InternalError);
  FmaTileSpec narrow = conv_tile(16, 4, 16, 1, 2, 1, 1, 1, 4, false);
  narrow.nr = 8;  // not whole vectors
  EXPECT_THROW(schedule::make_fma_tile_intrin(narrow), InternalError);
  FmaTileSpec g_outside = conv_tile(16, 4, 16, 1, 2, 1, 1, 1, 4, false);
  g_outside.b.dims[0][5] = 1;  // B uses g outside its last dimension
  EXPECT_THROW(schedule::make_fma_tile_intrin(g_outside), InternalError);
  std::string name = schedule::fma_tile_name(conv_tile(16, 4, 16, 1, 2, 1, 1, 1, 4, false));
  name.replace(name.find("g4"), 2, "g5");
  EXPECT_FALSE(schedule::parse_fma_tile_spec(name).has_value());
}

}  // namespace
}  // namespace ingot::codegen::test

// The AMX tile micro-kernels (schedule/intrin/amx_tile.h) against their description's
// arithmetic: C[i, j] += A[i, k * G + g] * Bp[0, k, j, g], uint8 x int8 into int32 (G = 4,
// exact) and bfloat16 pairs into float32 (G = 2). On a CPU without AMX the codegen emulates
// each tile instruction (codegen/llvm/amx_tiles.cpp), so the tiles' shapes, strides, the
// panel layout as B tiles and the row tiles of a tall or short C are checked here; where the
// CPU has AMX the same kernels also run natively. Sapphire Rapids builds are checked for the
// tile instructions in their IR and compile to an object; one kernel may switch between tile
// shapes (the configuration loaded where it changes). Names round-trip through the parser.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "artifact_util.h"
#include "codegen/llvm/codegen_llvm.h"
#include "ingot/runtime.h"
#include "schedule/intrin/amx_tile.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;
using schedule::AmxTileSpec;

uint16_t bf16_bits(float f) {
  uint32_t u = 0;
  std::memcpy(&u, &f, 4);
  return uint16_t(u >> 16);  // values below are exact in bfloat16
}

float bf16_value(uint16_t bits) {
  uint32_t u = uint32_t(bits) << 16;
  float f = 0;
  std::memcpy(&f, &u, 4);
  return f;
}

struct Int8TileData {
  std::vector<uint8_t> a, b;
  std::vector<int32_t> c, want;  // C before and after `runs` runs of the tile
};

Int8TileData int8_tile_data(const AmxTileSpec& s, int runs = 1) {
  const int64_t depth = s.steps * 4;
  std::mt19937 rng(uint32_t(s.mr * 131 + s.nr + s.steps));
  std::uniform_int_distribution<int> byte(0, 255);
  Int8TileData d;
  d.a.resize(size_t(s.mr * depth));
  d.b.resize(size_t(s.steps * s.nr * 4));
  for (auto& v : d.a) v = uint8_t(byte(rng));
  for (auto& v : d.b) v = uint8_t(byte(rng));
  d.a[0] = 0xFF;  // the ends of the ranges
  d.b[0] = 0x80;
  d.b[1] = 0x7F;
  d.c.resize(size_t(s.mr * s.nr));
  for (size_t i = 0; i < d.c.size(); ++i) d.c[i] = int32_t(i * 1000003 % 65536) - 30000;
  d.want = d.c;
  for (int i = 0; i < s.mr; ++i)
    for (int j = 0; j < s.nr; ++j) {
      int64_t sum = 0;
      for (int64_t k = 0; k < s.steps; ++k)
        for (int g = 0; g < 4; ++g)
          sum += int64_t(d.a[size_t(i * depth + k * 4 + g)]) *
                 int64_t(int8_t(d.b[size_t((k * s.nr + j) * 4 + g)]));
      d.want[size_t(i * s.nr + j)] += int32_t(sum * runs);
    }
  return d;
}

void expect_int8_tile(const AmxTileSpec& s, const Target& target) {
  const schedule::TensorIntrin in = schedule::make_amx_tile_intrin(s);
  Int8TileData d = int8_tile_data(s);
  LoadedArtifact art(tile_impl_module(in.impl), target);
  ASSERT_EQ(art.run({d.a.data(), d.b.data()}, {d.c.data()}), 0);
  for (size_t i = 0; i < d.c.size(); ++i)
    ASSERT_EQ(d.c[i], d.want[i]) << schedule::amx_tile_name(s) << " element " << i;
}

// One kernel runs the tile programs of two shapes in turn, 32 x 32 then 21 x 16 then 32 x 32
// again (its C accumulating twice): natively each finds its configuration in force, which the
// codegen loads only where the shape changes.
void expect_switching_shapes(const Target& target) {
  const AmxTileSpec tall{false, 32, 32, 32}, low{false, 21, 16, 16};
  const PrimFunc p = schedule::make_amx_tile_intrin(tall).impl;
  const PrimFunc q = schedule::make_amx_tile_intrin(low).impl;
  Int8TileData dp = int8_tile_data(tall, 2), dq = int8_tile_data(low);
  const std::vector<Buffer> params = {p.params[0], p.params[1], q.params[0],
                                      q.params[1], p.params[2], q.params[2]};
  LoadedArtifact art(
      single_kernel_module("switch", params, SeqStmt::make({p.body, q.body, p.body}), 4), target);
  ASSERT_EQ(
      art.run({dp.a.data(), dp.b.data(), dq.a.data(), dq.b.data()}, {dp.c.data(), dq.c.data()}), 0);
  EXPECT_EQ(dp.c, dp.want);
  EXPECT_EQ(dq.c, dq.want);
}

void expect_bf16_tile(const AmxTileSpec& s, const Target& target) {
  const schedule::TensorIntrin in = schedule::make_amx_tile_intrin(s);
  const int64_t depth = s.steps * 2;
  std::mt19937 rng(uint32_t(s.mr * 7 + s.nr + s.steps));
  std::uniform_int_distribution<int> small(-64, 64);
  // Values k / 16 (exact in bfloat16; their products and sums exact in float32 at these sizes,
  // so any order of the additions gives the same float32).
  std::vector<uint16_t> a(size_t(s.mr * depth)), b(size_t(s.steps * s.nr * 2));
  for (auto& v : a) v = bf16_bits(float(small(rng)) / 16.0f);
  for (auto& v : b) v = bf16_bits(float(small(rng)) / 16.0f);
  std::vector<float> c(size_t(s.mr * s.nr));
  for (size_t i = 0; i < c.size(); ++i) c[i] = float(int(i % 97) - 48) / 4.0f;
  std::vector<float> want = c;
  for (int i = 0; i < s.mr; ++i)
    for (int j = 0; j < s.nr; ++j) {
      double sum = want[size_t(i * s.nr + j)];
      for (int64_t k = 0; k < s.steps; ++k)
        for (int g = 0; g < 2; ++g)
          sum += double(bf16_value(a[size_t(i * depth + k * 2 + g)])) *
                 double(bf16_value(b[size_t((k * s.nr + j) * 2 + g)]));
      want[size_t(i * s.nr + j)] = float(sum);
    }
  LoadedArtifact art(tile_impl_module(in.impl), target);
  ASSERT_EQ(art.run({a.data(), b.data()}, {c.data()}), 0);
  for (size_t i = 0; i < c.size(); ++i)
    ASSERT_EQ(c[i], want[i]) << schedule::amx_tile_name(s) << " element " << i;
}

// The host without AMX: every amx_* effect emulated.
Target emulating_host() {
  return Target::parse("llvm -mattr=-amx-tile,-amx-int8,-amx-bf16");
}

const std::vector<AmxTileSpec>& shapes(bool bf16) {
  // Two row tiles by two column tiles; one full tile row and a short one; one row (the rows
  // rule's tail) over three column tiles; one row tile over three column tiles, deeper.
  static const std::vector<AmxTileSpec> u8 = {
      {false, 32, 32, 32}, {false, 21, 16, 16}, {false, 1, 48, 16}, {false, 16, 48, 48}};
  static const std::vector<AmxTileSpec> bf = {
      {true, 32, 32, 32}, {true, 21, 16, 16}, {true, 1, 48, 16}, {true, 16, 48, 48}};
  return bf16 ? bf : u8;
}

TEST(AmxTile, Uint8TilesMatchTheirDescriptionEmulated) {
  for (const AmxTileSpec& s : shapes(false)) expect_int8_tile(s, emulating_host());
}

TEST(AmxTile, BFloat16TilesMatchTheirDescriptionEmulated) {
  for (const AmxTileSpec& s : shapes(true)) expect_bf16_tile(s, emulating_host());
}

TEST(AmxTile, ProgramsOfTwoShapesInOneKernelEmulated) {
  expect_switching_shapes(emulating_host());
}

TEST(AmxTile, TilesRunNativelyWhereTheCpuHasAmx) {
  if (ingot_cpu_supports("amx-int8") != 1) GTEST_SKIP() << "no AMX-INT8 on this CPU";
  const Target host = Target::host();
  ASSERT_TRUE(host.amx_int8());
  for (const AmxTileSpec& s : shapes(false)) expect_int8_tile(s, host);
  expect_switching_shapes(host);
  if (ingot_cpu_supports("amx-bf16") == 1)
    for (const AmxTileSpec& s : shapes(true)) expect_bf16_tile(s, host);
}

TEST(AmxTile, SapphireRapidsBuildsUseTheTileInstructions) {
  const Target spr = Target::parse("llvm -mcpu=sapphirerapids");
  EXPECT_TRUE(spr.amx_int8());
  EXPECT_TRUE(spr.amx_bf16());
  EXPECT_FALSE(emulating_host().amx_int8());
  for (bool bf16 : {false, true}) {
    const IRModule m =
        tile_impl_module(schedule::make_amx_tile_intrin(AmxTileSpec{bf16, 32, 32, 32}).impl);
    const std::string ir = emit_llvm_ir(m, spr);
    for (const char* call : {"llvm.x86.ldtilecfg", "llvm.x86.tileloadd64", "llvm.x86.tilestored64",
                             "llvm.x86.tilerelease"})
      EXPECT_NE(ir.find(call), std::string::npos) << call;
    // The tiles released before the kernel returns.
    const size_t release = ir.find("call void @llvm.x86.tilerelease");
    EXPECT_NE(ir.find("ret i32", release), std::string::npos) << ir;
    EXPECT_NE(ir.find(bf16 ? "llvm.x86.tdpbf16ps" : "llvm.x86.tdpbusd"), std::string::npos);
    EXPECT_FALSE(emit_object(m, spr).empty());  // the backend selects them
    // The emulation calls none of them.
    EXPECT_EQ(emit_llvm_ir(m, emulating_host()).find("llvm.x86.t"), std::string::npos);
  }
}

// The number of LDTILECFG calls in the optimized IR of a kernel that runs the tile programs of
// `specs` in turn (each on its own operands).
size_t configurations_loaded(const std::vector<AmxTileSpec>& specs) {
  std::vector<Buffer> inputs, outputs;
  std::vector<Stmt> body;
  for (const AmxTileSpec& s : specs) {
    const PrimFunc p = schedule::make_amx_tile_intrin(s).impl;
    inputs.insert(inputs.end(), {p.params[0], p.params[1]});
    outputs.push_back(p.params[2]);
    body.push_back(p.body);
  }
  const int num_inputs = int(inputs.size());
  inputs.insert(inputs.end(), outputs.begin(), outputs.end());
  const std::string ir =
      emit_llvm_ir(single_kernel_module("programs", inputs, SeqStmt::make(body), num_inputs),
                   Target::parse("llvm -mcpu=sapphirerapids"));
  size_t n = 0;
  for (size_t at = ir.find("call void @llvm.x86.ldtilecfg"); at != std::string::npos;
       at = ir.find("call void @llvm.x86.ldtilecfg", at + 1))
    ++n;
  return n;
}

TEST(AmxTile, AConfigurationIsLoadedOnlyWhereTheShapesChange) {
  const AmxTileSpec tall{false, 32, 32, 32}, low{false, 21, 16, 16};
  EXPECT_EQ(configurations_loaded({tall}), 1u);
  EXPECT_EQ(configurations_loaded({tall, tall, tall}), 1u);
  EXPECT_EQ(configurations_loaded({tall, low, tall}), 3u);
}

TEST(AmxTile, NamesRoundTripAndShapesFitTheRegisters) {
  for (const AmxTileSpec& s : shapes(false)) {
    const std::string name = schedule::amx_tile_name(s);
    std::optional<AmxTileSpec> back = schedule::parse_amx_tile_name(name);
    ASSERT_TRUE(back.has_value()) << name;
    EXPECT_EQ(schedule::amx_tile_name(*back), name);
  }
  EXPECT_EQ(schedule::amx_tile_name(AmxTileSpec{false, 32, 32, 192}),
            "x86_amx_dot_u8i8_g4_32x32_k192");
  EXPECT_EQ(schedule::amx_tile_name(AmxTileSpec{true, 16, 48, 384}), "x86_amx_dot_bf16_16x48_k384");
  EXPECT_TRUE(schedule::parse_amx_tile_name("x86_amx_dot_bf16_16x48_k384").has_value());
  // 2 x 3 C tiles + 2 A + 3 B = 11 registers; a depth of part of a tile; 20 columns.
  EXPECT_NE(schedule::amx_tile_problem(AmxTileSpec{false, 32, 48, 16}), "");
  EXPECT_NE(schedule::amx_tile_problem(AmxTileSpec{false, 32, 32, 8}), "");
  EXPECT_FALSE(schedule::parse_amx_tile_name("x86_amx_dot_u8i8_g4_32x20_k192").has_value());
  EXPECT_FALSE(schedule::parse_amx_tile_name("x86_amx_dot_u8i8_g4_33x32_k192").has_value());
}

}  // namespace
}  // namespace ingot::codegen::test

// The integer micro-kernels (schedule/intrin/int8_dot.h) run as kernels against their own
// description's arithmetic: C[i, j] += A[i, k * G + g] * Bp[0, k, j, g], for groups of 4 (the
// VNNI tile: on this AVX2 build through int_dot.cpp's portable sequence, so its index arithmetic
// is checked where no VNNI CPU is at hand) and of 2 (VPMADDWD), uint8 and int8 A. The VNNI
// builds are checked for the instruction in their IR. Names round-trip through the parser (a
// trace names its tile; a fresh process rebuilds it from the name).
#include <gtest/gtest.h>

#include <random>

#include "artifact_util.h"
#include "codegen/llvm/codegen_llvm.h"
#include "ingot/runtime.h"
#include "schedule/intrin/int8_dot.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;
using schedule::Int8TileSpec;

void expect_tile(const Int8TileSpec& s, const Target& target) {
  const schedule::TensorIntrin in = schedule::make_int8_tile_intrin(s);
  const int64_t depth = s.steps * s.group;
  std::mt19937 rng(uint32_t(s.mr * 131 + s.nr + s.group));
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> a(size_t(s.mr * depth)), b(size_t(s.steps * s.nr * s.group));
  for (auto& v : a) v = uint8_t(byte(rng));
  for (auto& v : b) v = uint8_t(byte(rng));
  a[0] = s.a_signed ? 0x80 : 0xFF;  // the ends of the ranges
  b[0] = 0x80;
  b[1] = 0x7F;
  std::vector<int32_t> c(size_t(s.mr * s.nr));
  for (size_t i = 0; i < c.size(); ++i) c[i] = int32_t(i * 1000003 % 65536) - 30000;
  std::vector<int32_t> want = c;
  for (int i = 0; i < s.mr; ++i)
    for (int j = 0; j < s.nr; ++j)
      for (int64_t k = 0; k < s.steps; ++k)
        for (int g = 0; g < s.group; ++g) {
          const uint8_t av = a[size_t(i * depth + k * s.group + g)];
          const int64_t x = s.a_signed ? int64_t(int8_t(av)) : int64_t(av);
          const int64_t w = int8_t(b[size_t((k * s.nr + j) * s.group + g)]);
          want[size_t(i * s.nr + j)] += int32_t(x * w);
        }
  LoadedArtifact art(tile_impl_module(in.impl), target);
  ASSERT_EQ(art.run({a.data(), b.data()}, {c.data()}), 0);
  for (size_t i = 0; i < c.size(); ++i)
    ASSERT_EQ(c[i], want[i]) << schedule::int8_tile_name(s) << " element " << i;
}

TEST(Int8Tile, QuadsAndPairsMatchTheirDescription) {
  const Target avx2 = Target::parse("llvm -mcpu=haswell");
  for (int group : {4, 2})
    for (bool a_signed : {false, true})
      for (auto [mr, nr] : {std::pair{3, 16}, std::pair{1, 24}, std::pair{4, 8}}) {
        Int8TileSpec s{CpuVectorIsa::kX86, 8, mr, nr, 5, group, a_signed};
        expect_tile(s, avx2);
      }
}

TEST(Int8Tile, VnniTargetsUseVpdpbusd) {
  Int8TileSpec s{CpuVectorIsa::kX86, 8, 4, 16, 8, 4, false};
  const schedule::TensorIntrin in = schedule::make_int8_tile_intrin(s);
  EXPECT_NE(emit_llvm_ir(tile_impl_module(in.impl), Target::parse("llvm -mcpu=alderlake"))
                .find("vpdpbusd.256"),
            std::string::npos);
  Int8TileSpec wide{CpuVectorIsa::kX86, 16, 4, 32, 8, 4, false};
  EXPECT_NE(emit_llvm_ir(tile_impl_module(schedule::make_int8_tile_intrin(wide).impl),
                         Target::parse("llvm -mcpu=icelake-server"))
                .find("vpdpbusd.512"),
            std::string::npos);
  if (ingot_cpu_supports("avxvnni") == 1) expect_tile(s, Target::parse("llvm -mcpu=alderlake"));
  if (ingot_cpu_supports("avx512vnni") == 1)
    expect_tile(wide, Target::parse("llvm -mcpu=icelake-server"));
}

TEST(Int8Tile, AArch64DotProductTargetsUseSdotOrUsdot) {
  // uint8 x int8: SDOT of the operand moved to int8 with dotprod (neoverse-n1), USDOT with i8mm;
  // int8 x int8: SDOT. Executed under qemu by test_aarch64_qemu.py's "int8 product".
  const std::string triple = "llvm -mtriple=aarch64-linux-gnu ";
  const Target n1 = Target::parse(triple + "-mcpu=neoverse-n1");
  const Target i8mm = Target::parse(triple + "-mcpu=neoverse-n1 -mattr=+i8mm");
  const Target a72 = Target::parse(triple + "-mcpu=cortex-a72");
  EXPECT_TRUE(n1.int8_dot_quads(4));
  EXPECT_TRUE(n1.int8_signed_dot_quads(4));
  EXPECT_FALSE(a72.int8_dot_quads(4));
  EXPECT_FALSE(a72.int8_signed_dot_quads(4));
  for (bool a_signed : {false, true}) {
    Int8TileSpec s{CpuVectorIsa::kAArch64, 4, 4, 16, 8, 4, a_signed};
    const IRModule m = tile_impl_module(schedule::make_int8_tile_intrin(s).impl);
    const std::string on_n1 = emit_llvm_ir(m, n1), on_i8mm = emit_llvm_ir(m, i8mm);
    EXPECT_NE(on_n1.find("llvm.aarch64.neon.sdot"), std::string::npos) << a_signed;
    EXPECT_EQ(on_n1.find("usdot"), std::string::npos) << a_signed;
    EXPECT_NE(on_i8mm.find(a_signed ? "llvm.aarch64.neon.sdot" : "llvm.aarch64.neon.usdot"),
              std::string::npos)
        << a_signed;
    EXPECT_EQ(emit_llvm_ir(m, a72).find("neon.sdot"), std::string::npos) << a_signed;
  }
}

TEST(Int8Tile, NamesRoundTrip) {
  for (Int8TileSpec s : {Int8TileSpec{CpuVectorIsa::kX86, 8, 4, 24, 192, 2, false},
                         Int8TileSpec{CpuVectorIsa::kX86, 16, 1, 48, 96, 4, false},
                         Int8TileSpec{CpuVectorIsa::kX86, 8, 6, 8, 7, 2, true}}) {
    const std::string name = schedule::int8_tile_name(s);
    std::optional<Int8TileSpec> back = schedule::parse_int8_tile_name(name);
    ASSERT_TRUE(back.has_value()) << name;
    EXPECT_EQ(schedule::int8_tile_name(*back), name);
  }
  EXPECT_EQ(schedule::int8_tile_name(Int8TileSpec{CpuVectorIsa::kX86, 8, 4, 24, 192, 2, false}),
            "x86_avx2_dot_u8i8_g2_4x24_k192");
  EXPECT_FALSE(schedule::parse_int8_tile_name("x86_avx2_dot_u8i8_g3_4x24_k192").has_value());
  EXPECT_FALSE(schedule::parse_int8_tile_name("x86_avx2_dot_u8i8_g2_4x20_k192").has_value());
}

}  // namespace
}  // namespace ingot::codegen::test

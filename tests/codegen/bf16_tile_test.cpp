// The bfloat16 micro-kernels (schedule/intrin/bf16_dot.h) run as kernels against their own
// description's arithmetic: C[i, j] += A[i, 2k + g] * Bp[0, k, j, g], summed in double here (the
// products of bfloat16 values are exact; the kernel's float32 sums are held to float32 rounding
// of the terms' magnitudes). The portable pair product (AVX2; AVX-512 without AVX512-BF16) runs
// everywhere; VDPBF16PS builds are checked for the instruction in their IR and run where the CPU
// has AVX512-BF16. Names round-trip through the parser (a trace names its tile).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "artifact_util.h"
#include "codegen/llvm/codegen_llvm.h"
#include "ingot/runtime.h"
#include "schedule/intrin/bf16_dot.h"
#include "support/bfloat16.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;
using schedule::BFloat16TileSpec;

// Whether this host has every ISA feature `t`'s code requires (so its artifacts load).
bool host_runs(const Target& t) {
  const std::vector<std::string> host = Target::host().isa_features;
  for (const std::string& f : t.isa_features)
    if (std::find(host.begin(), host.end(), f) == host.end()) return false;
  return true;
}

void expect_tile(const BFloat16TileSpec& s, const Target& target) {
  const schedule::TensorIntrin in = schedule::make_bf16_tile_intrin(s);
  const int64_t depth = s.steps * 2;
  std::mt19937 rng(uint32_t(s.mr * 131 + s.nr));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<uint16_t> a(size_t(s.mr * depth)), b(size_t(s.steps * s.nr * 2));
  for (auto& v : a) v = float_to_bfloat16_bits(normal(rng));
  for (auto& v : b) v = float_to_bfloat16_bits(normal(rng) * 4.0f);
  std::vector<float> c(size_t(s.mr * s.nr));
  for (size_t i = 0; i < c.size(); ++i) c[i] = float(int(i % 7) - 3) * 0.25f;
  std::vector<double> want(c.begin(), c.end()), scale(c.size());
  for (int i = 0; i < s.mr; ++i)
    for (int j = 0; j < s.nr; ++j)
      for (int64_t k = 0; k < s.steps; ++k)
        for (int g = 0; g < 2; ++g) {
          const double x = bfloat16_bits_to_float(a[size_t(i * depth + k * 2 + g)]);
          const double w = bfloat16_bits_to_float(b[size_t((k * s.nr + j) * 2 + g)]);
          want[size_t(i * s.nr + j)] += x * w;
          scale[size_t(i * s.nr + j)] += std::fabs(x * w);
        }
  LoadedArtifact art(tile_impl_module(in.impl), target);
  ASSERT_EQ(art.run({a.data(), b.data()}, {c.data()}), 0);
  for (size_t i = 0; i < c.size(); ++i)
    ASSERT_NEAR(c[i], want[i], 1e-5 * (scale[i] + 1.0))
        << schedule::bf16_tile_name(s) << " element " << i;
}

TEST(BFloat16Tile, PairsMatchTheirDescriptionPortably) {
  for (auto [mr, nr] : {std::pair{3, 16}, std::pair{1, 24}, std::pair{4, 8}})
    expect_tile(BFloat16TileSpec{8, mr, nr, 5}, Target::parse("llvm -mcpu=haswell"));
  // AVX-512 without AVX512-BF16: the same portable pair product at 16 lanes (where the CPU runs
  // AVX-512; its IR is checked everywhere).
  const BFloat16TileSpec wide{16, 4, 32, 9};
  const Target skylake = Target::parse("llvm -mcpu=skylake-avx512 -mattr=-avx512bf16");
  EXPECT_EQ(emit_llvm_ir(tile_impl_module(schedule::make_bf16_tile_intrin(wide).impl), skylake)
                .find("dpbf16ps"),
            std::string::npos);
  if (host_runs(skylake)) expect_tile(wide, skylake);
}

TEST(BFloat16Tile, Avx512Bf16TargetsUseVdpbf16ps) {
  BFloat16TileSpec wide{16, 4, 32, 12};
  BFloat16TileSpec narrow{8, 3, 16, 12};
  const Target zen4 = Target::parse("llvm -mcpu=znver4");
  EXPECT_NE(emit_llvm_ir(tile_impl_module(schedule::make_bf16_tile_intrin(wide).impl), zen4)
                .find("dpbf16ps.512"),
            std::string::npos);
  EXPECT_NE(emit_llvm_ir(tile_impl_module(schedule::make_bf16_tile_intrin(narrow).impl), zen4)
                .find("dpbf16ps.256"),
            std::string::npos);
  EXPECT_EQ(emit_llvm_ir(tile_impl_module(schedule::make_bf16_tile_intrin(narrow).impl),
                         Target::parse("llvm -mcpu=haswell"))
                .find("dpbf16ps"),
            std::string::npos);
  if (host_runs(zen4)) {  // (a CPU with AVX512-BF16 and the rest of Zen 4's features)
    expect_tile(wide, zen4);
    expect_tile(narrow, zen4);
  }
}

TEST(BFloat16Tile, NamesRoundTrip) {
  for (BFloat16TileSpec s : {BFloat16TileSpec{16, 4, 32, 384}, BFloat16TileSpec{8, 1, 24, 7}}) {
    const std::string name = schedule::bf16_tile_name(s);
    std::optional<BFloat16TileSpec> back = schedule::parse_bf16_tile_name(name);
    ASSERT_TRUE(back.has_value()) << name;
    EXPECT_EQ(schedule::bf16_tile_name(*back), name);
  }
  EXPECT_EQ(schedule::bf16_tile_name(BFloat16TileSpec{16, 4, 32, 384}),
            "x86_avx512_dot_bf16_4x32_k384");
  EXPECT_FALSE(schedule::parse_bf16_tile_name("x86_avx512_dot_bf16_4x20_k384").has_value());
  EXPECT_FALSE(schedule::parse_bf16_tile_name("aarch64_neon_dot_bf16_4x16_k8").has_value());
}

}  // namespace
}  // namespace ingot::codegen::test

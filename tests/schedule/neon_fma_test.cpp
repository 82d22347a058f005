// The AArch64 NEON member of the FMA register-tile family: tile choice within 32 registers, the
// names (and that the x86 names did not change), parsing, and the matmul / conv rules choosing it
// from the ISA rather than from the vector width alone.
#include <gtest/gtest.h>

#include "common/packed_conv.h"
#include "common/packed_matmul.h"
#include "sched_test_util.h"
#include "schedule/intrin/intrin.h"
#include "schedule/intrin/neon_fma.h"
#include "schedule/intrin/x86_fma.h"
#include "schedule/rules/conv2d.h"
#include "schedule/rules/matmul.h"
#include "support/channel_block.h"

namespace ingot::schedule::testing {
namespace {

const CpuVectorIsa kNeon = CpuVectorIsa::aarch64_neon();

TEST(NeonFma, IsaDescriptions) {
  EXPECT_EQ(kNeon.vector_bits, 128);
  EXPECT_EQ(kNeon.tile_lanes(), 4);
  EXPECT_STREQ(kNeon.kernel_prefix(), "aarch64_neon");
  // 128-bit x86 is SSE: the same width as NEON, yet the AVX2 kernel (split into xmm halves).
  CpuVectorIsa sse = CpuVectorIsa::x86(128);
  EXPECT_EQ(sse.vector_bits, 128);
  EXPECT_EQ(sse.tile_lanes(), 8);
  EXPECT_STREQ(sse.kernel_prefix(), "x86_avx2");
  EXPECT_EQ(CpuVectorIsa::x86(512).tile_lanes(), 16);
  EXPECT_STREQ(CpuVectorIsa::x86(256).kernel_prefix(), "x86_avx2");
}

TEST(NeonFma, MatmulTileFitsThe32Registers) {
  FmaTileShape t = default_fma_tile(kNeon, 256);
  EXPECT_EQ(t.arch, CpuVectorIsa::kAArch64);
  EXPECT_EQ(t.lanes, 4);
  EXPECT_EQ(t.mr, 6);
  EXPECT_EQ(t.nr, 16);
  EXPECT_EQ(t.kc, 256);
  EXPECT_EQ(neon_tile_registers(t.mr, t.nr), 29);  // 24 accumulators + 4 B + 1 A
  EXPECT_LE(neon_tile_registers(t.mr, t.nr), kNeonRegisters);
  // One more row would not fit.
  EXPECT_GT(neon_tile_registers(t.mr + 2, t.nr), kNeonRegisters);
  EXPECT_EQ(fma_tile_name(t), "aarch64_neon_fma_f32_6x16x256");
}

TEST(NeonFma, MaxTileRowsFollowTheRegisterFile) {
  EXPECT_EQ(neon_max_tile_rows(16), 6);  // 6 * 4 + 4 + 1 = 29
  EXPECT_EQ(neon_max_tile_rows(8), 14);  // 14 * 2 + 2 + 1 = 31
  EXPECT_EQ(neon_max_tile_rows(32), 2);  // 2 * 8 + 8 + 1 = 25
  EXPECT_EQ(neon_max_tile_rows(4), 30);
  for (int nr : {4, 8, 12, 16, 32}) {
    EXPECT_LE(neon_tile_registers(neon_max_tile_rows(nr), nr), kNeonRegisters) << nr;
    EXPECT_GT(neon_tile_registers(neon_max_tile_rows(nr) + 1, nr), kNeonRegisters) << nr;
  }
  EXPECT_EQ(fma_max_tile_rows(kNeon, 16), 6);
  EXPECT_EQ(fma_max_tile_rows(kNeon, 8), 8);                    // capped at 8 rows like x86
  EXPECT_EQ(fma_max_tile_rows(CpuVectorIsa::x86(256), 16), 6);  // 6 * 2 + 2 + 1 = 15 ymm
  EXPECT_EQ(fma_max_tile_rows(CpuVectorIsa::x86(256), 8), 8);   // capped
  EXPECT_EQ(fma_max_tile_rows(CpuVectorIsa::x86(256), 24), 4);  // 4 * 3 + 3 + 1 = 16
  EXPECT_EQ(fma_max_tile_rows(CpuVectorIsa::x86(512), 32), 8);
  EXPECT_EQ(fma_max_tile_rows(CpuVectorIsa::x86(512), 16), 12);  // one vector: 12 accumulators
}

// The tuner's row range ends where the register file does, past the default's cap of 8 rows.
TEST(NeonFma, RegisterTileRowsEndWhereTheRegisterFileDoes) {
  const CpuVectorIsa avx512 = CpuVectorIsa::x86(512), avx2 = CpuVectorIsa::x86(256);
  EXPECT_EQ(fma_register_tile_rows(avx512, 32), 14);  // 14 * 2 + 2 + 1 = 31 zmm
  EXPECT_EQ(fma_register_tile_rows(avx512, 48), 9);   // 9 * 3 + 3 + 1 = 31
  EXPECT_EQ(fma_register_tile_rows(avx512, 64), 6);   // 6 * 4 + 4 + 1 = 29
  EXPECT_EQ(fma_register_tile_rows(avx512, 16), 14);  // capped at 14
  EXPECT_EQ(fma_register_tile_rows(avx2, 16), 6);     // 6 * 2 + 2 + 1 = 15 ymm
  EXPECT_EQ(fma_register_tile_rows(avx2, 24), 4);
  EXPECT_EQ(fma_register_tile_rows(kNeon, 16), neon_max_tile_rows(16));
  for (const CpuVectorIsa& isa : {avx512, avx2, kNeon})
    for (int nr : {8, 16, 24, 32, 48, 64})
      EXPECT_GE(fma_register_tile_rows(isa, nr), fma_max_tile_rows(isa, nr)) << nr;
}

TEST(NeonFma, X86NamesAndTilesAreUnchanged) {
  EXPECT_EQ(fma_tile_name(default_fma_tile(512, 256)), "x86_avx512_fma_f32_8x32x256");
  EXPECT_EQ(fma_tile_name(default_fma_tile(256, 256)), "x86_avx2_fma_f32_6x16x256");
  EXPECT_EQ(fma_tile_name(default_fma_tile(128, 64)), "x86_avx2_fma_f32_6x16x64");
  EXPECT_EQ(fma_tile_name(default_fma_tile(CpuVectorIsa::x86(512), 256)),
            "x86_avx512_fma_f32_8x32x256");
  EXPECT_EQ(fma_tile_name(default_fma_tile(CpuVectorIsa::x86(256), 100)),
            "x86_avx2_fma_f32_6x16x100");
  auto g = parse_fma_tile_name("x86_avx2_fma_f32_6x16x256");
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->arch, CpuVectorIsa::kX86);
  EXPECT_EQ(g->lanes, 8);
}

TEST(NeonFma, PackedLayoutsMatchThe128BitLowering) {
  // Lowering packs B panels and A row panels from the vector width (128 on both ISAs); the NEON
  // tile must stream exactly that layout.
  MatmulConfig x86;
  x86.vector_bits = 128;
  MatmulConfig neon = x86;
  neon.arch = CpuVectorIsa::kAArch64;
  EXPECT_EQ(matmul_panel_width(neon), matmul_panel_width(x86));
  EXPECT_EQ(matmul_row_tile(neon), matmul_row_tile(x86));
  EXPECT_EQ(neon.isa().tile_lanes(), 4);
  // The channel block of the convolution (its tile's NR) is a whole number of NEON vectors.
  for (int64_t c : {3, 8, 16, 24, 32, 64, 96, 100})
    EXPECT_EQ(channel_block(c, 128) % kNeon.tile_lanes(), 0) << c;
}

TEST(NeonFma, NamesParseBack) {
  auto g = parse_fma_tile_name("aarch64_neon_fma_f32_6x16x256");
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->arch, CpuVectorIsa::kAArch64);
  EXPECT_EQ(g->lanes, 4);
  EXPECT_EQ(g->mr, 6);
  EXPECT_EQ(g->nr, 16);
  EXPECT_EQ(g->kc, 256);
  // 12 columns: three q registers per row.
  EXPECT_TRUE(parse_fma_tile_name("aarch64_neon_fma_f32_8x12x64").has_value());
  for (const char* bad : {"aarch64_neon_fma_f32_6x14x256",  // not whole vectors
                          "aarch64_avx2_fma_f32_6x16x256", "x86_neon_fma_f32_6x16x256",
                          "arm_neon_fma_f32_6x16x256", "aarch64_neon_fma_f32_6x16x256x",
                          "aarch64_neon_fma_f32_0x16x256", "aarch64_neon_fma_f32_6x32x256_"})
    EXPECT_FALSE(parse_fma_tile_name(bad).has_value()) << bad;
  // A general (convolution) layout keeps its ISA through the name.
  FmaTileSpec s;
  s.arch = CpuVectorIsa::kAArch64;
  s.lanes = 4, s.mr = 5, s.nr = 8, s.k = {3, 3, 16};
  s.a.dims = {{0, 0, 0, 0, 1}, {0, 0, 1, 0, 0}, {1, 0, 0, 1, 0}};
  s.b.dims = {{0, 0, 1, 0, 0}, {0, 0, 0, 1, 0}, {0, 0, 0, 0, 1}, {0, 1, 0, 0, 0}};
  s.c.dims = {{1, 0, 0, 0, 0}, {0, 1, 0, 0, 0}};
  std::string name = fma_tile_name(s);
  EXPECT_EQ(name.rfind("aarch64_neon_fma_f32_5x8_k3x3x16_a", 0), 0u) << name;
  auto back = parse_fma_tile_spec(name);
  ASSERT_TRUE(back.has_value()) << name;
  EXPECT_EQ(back->arch, CpuVectorIsa::kAArch64);
  EXPECT_EQ(back->lanes, 4);
  EXPECT_EQ(back->a.dims, s.a.dims);
  EXPECT_EQ(back->b.dims, s.b.dims);
  // The same layout on x86 is another kernel.
  s.arch = CpuVectorIsa::kX86;
  s.lanes = 8;
  EXPECT_EQ(fma_tile_name(s).rfind("x86_avx2_fma_f32_5x8_k3x3x16_a", 0), 0u);
}

TEST(NeonFma, IntrinsicIsBuiltFromItsNameWithFourLaneVectors) {
  // A trace naming the kernel replays in a fresh process: the table builds it on first use.
  std::shared_ptr<const TensorIntrin> in = find_tensor_intrin("aarch64_neon_fma_f32_6x16x77");
  ASSERT_NE(in, nullptr);
  std::string impl = to_string(in->impl);
  EXPECT_NE(impl.find(", 1, 4)"), std::string::npos) << impl;  // 4-lane ramps
  EXPECT_NE(impl.find("broadcast("), std::string::npos) << impl;
  EXPECT_EQ(impl.find(", 1, 8)"), std::string::npos) << impl;  // no 8- or 16-lane vectors
  EXPECT_EQ(impl.find(", 1, 16)"), std::string::npos) << impl;
  EXPECT_EQ(in->desc.params.size(), 3u);
  // A NEON spec with x86 lanes is refused.
  FmaTileShape wrong{8, 6, 16, 64, CpuVectorIsa::kAArch64};
  EXPECT_THROW(make_fma_tile_intrin(wrong), InternalError);
}

TEST(NeonFma, MatmulRuleTensorizesWithTheNeonKernel) {
  MatmulConfig cfg;
  cfg.vector_bits = 128;
  cfg.arch = CpuVectorIsa::kAArch64;
  cfg.mc = 24, cfg.nc = 64, cfg.kc = 64;
  int nr = matmul_panel_width(cfg), mr = matmul_row_tile(cfg);
  // Unpacked A (M <= MR), packed A in row blocks, packed A with all rows in one block.
  for (int64_t M : {6, 40, 12}) {
    bool packed_a = M > mr;
    PackedMatmul m = make_packed_matmul(M, 3 * nr + 5, 150, nr, 0, packed_a, packed_a ? mr : 0);
    Schedule s(m.func);
    schedule_packed_matmul(s, "C", cfg);
    auto tile = find_block(s.func().body, "C_o", nullptr);
    ASSERT_TRUE(tile.has_value());
    std::string name = tile->block->annotations.at("tensorized");
    EXPECT_EQ(name.rfind("aarch64_neon_fma_f32_6x16", 0), 0u) << M << ": " << name;
    auto spec = parse_fma_tile_spec(name);
    ASSERT_TRUE(spec.has_value()) << name;
    EXPECT_EQ(spec->lanes, 4);
    EXPECT_TRUE(replays(s, m.func));
  }
}

TEST(NeonFma, MatmulRuleRefusesPanelsOfAnotherWidth) {
  // B packed for AVX-512 (32-column panels) cannot be streamed by the 16-column NEON tile.
  MatmulConfig cfg;
  cfg.vector_bits = 128;
  cfg.arch = CpuVectorIsa::kAArch64;
  PackedMatmul m = make_packed_matmul(12, 64, 32, 32);
  Schedule s(m.func);
  EXPECT_THROW(schedule_packed_matmul(s, "C", cfg), InternalError);
}

TEST(NeonFma, ConvRuleKeepsTheTileInTheRegisterFile) {
  // OW = 16 output pixels, 16 output channels (4 q registers per pixel): NEON at most 6 rows
  // (6 * 4 + 4 + 1 = 29 registers), AVX2 6 rows (6 * 2 + 2 + 1 = 15 ymm), each 6 + 6 + a tail
  // of 4.
  Conv2dShape shape;
  shape.n = 1, shape.ic = 8, shape.ih = 18, shape.iw = 18;
  shape.oc = 16, shape.oh = 16, shape.ow = 16, shape.kh = 3, shape.kw = 3;
  int nr = conv2d_channel_block(shape, 128);
  ASSERT_EQ(nr, 16);
  auto tensorized_name = [&](const CpuVectorIsa& isa) {
    BlockedConv2d c = make_blocked_conv2d(shape, nr);
    Schedule s(c.func);
    schedule_blocked_conv2d(s, "conv", isa);
    auto tile = find_block(s.func().body, "conv_o", nullptr);
    EXPECT_TRUE(tile.has_value());
    EXPECT_TRUE(replays(s, c.func));
    return tile ? tile->block->annotations.at("tensorized") : std::string();
  };
  std::string neon = tensorized_name(kNeon);
  EXPECT_EQ(neon.rfind("aarch64_neon_fma_f32_6x16_k8x3x3_a", 0), 0u) << neon;
  auto spec = parse_fma_tile_spec(neon);
  ASSERT_TRUE(spec.has_value());
  EXPECT_LE(neon_tile_registers(spec->mr, spec->nr), kNeonRegisters);
  std::string x86 = tensorized_name(CpuVectorIsa::x86(256));
  EXPECT_EQ(x86.rfind("x86_avx2_fma_f32_6x16_k8x3x3_a", 0), 0u) << x86;
  // The int overload is x86 with that width (what the rule did before it knew the ISA).
  BlockedConv2d c = make_blocked_conv2d(shape, nr);
  Schedule s(c.func);
  schedule_blocked_conv2d(s, "conv", 256);
  EXPECT_EQ(find_block(s.func().body, "conv_o", nullptr)->block->annotations.at("tensorized"), x86);
}

}  // namespace
}  // namespace ingot::schedule::testing

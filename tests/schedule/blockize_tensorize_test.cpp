// blockize and tensorize: the tile block's shape, the matched intrinsic's implementation in
// place, trace round trips and the errors. Numbers of tensorized code (vector IR, which the
// interpreter does not run) are checked through codegen in tests/codegen/gemm_schedule_test.cpp.
#include "common/packed_conv.h"
#include "common/packed_matmul.h"
#include "sched_test_util.h"
#include "schedule/intrin/x86_fma.h"
#include "schedule/rules/conv2d.h"
#include "schedule/rules/matmul.h"

namespace ingot::schedule::testing {
namespace {

// i, j split by 4, k innermost-but-one: io, jo, k, ii, ji.
void tile_4x4(Schedule& s, std::vector<LoopRV>* i, std::vector<LoopRV>* j, LoopRV* k) {
  BlockRV c = s.get_block("C");
  auto l = s.get_loops(c);
  *i = s.split(l[0], {std::nullopt, 4});
  *j = s.split(l[1], {std::nullopt, 4});
  *k = l[2];
  s.reorder({(*i)[0], (*j)[0], l[2], (*i)[1], (*j)[1]});
}

TEST(Blockize, TileBlockBindsOffsetsAndKeepsNumbers) {
  Matmul m = make_matmul(16, 12, 8);
  Schedule s(m.func);
  std::vector<LoopRV> i, j;
  LoopRV k;
  tile_4x4(s, &i, &j, &k);
  BlockRV tile = s.blockize(i[1]);
  EXPECT_EQ(s.name_of(tile), "C_o");
  // Outer block: iter vars vi_o, vj_o, vk_o bound to the tile origin.
  auto outer = find_block(s.func().body, "C_o", nullptr);
  ASSERT_TRUE(outer.has_value());
  ASSERT_EQ(outer->block->iter_vars.size(), 3u);
  EXPECT_EQ(outer->block->iter_vars[0].var.name(), "vi_o");
  EXPECT_EQ(outer->block->iter_vars[2].kind, IterKind::kReduce);
  Var io = s.loop_var(i[0]), jo = s.loop_var(j[0]), kv = s.loop_var(k);
  EXPECT_TRUE(structural_equal(outer->br->iter_values[0], Expr(io) * i64(4)));
  EXPECT_TRUE(structural_equal(outer->br->iter_values[1], Expr(jo) * i64(4)));
  EXPECT_TRUE(structural_equal(outer->br->iter_values[2], Expr(kv)));
  ASSERT_EQ(outer->loops.size(), 3u);  // io, jo, k stay outside
  // Inner block: bindings vi_o + ii, vj_o + ji, vk_o; loops ii, ji inside the tile.
  auto in = find_block(s.func().body, "C", nullptr);
  ASSERT_TRUE(in.has_value());
  EXPECT_EQ(in->parent, outer->block);
  Var ii = s.loop_var(i[1]), ji = s.loop_var(j[1]);
  EXPECT_TRUE(
      structural_equal(in->br->iter_values[0], Expr(outer->block->iter_vars[0].var) + Expr(ii)));
  EXPECT_TRUE(
      structural_equal(in->br->iter_values[1], Expr(outer->block->iter_vars[1].var) + Expr(ji)));
  EXPECT_TRUE(structural_equal(in->br->iter_values[2], Expr(outer->block->iter_vars[2].var)));
  // The outer block reads the whole 4x4 tile region of C.
  ASSERT_EQ(outer->block->writes.size(), 1u);
  int64_t e = 0;
  EXPECT_TRUE(is_const_int(outer->block->writes[0].region[0].extent, &e) && e == 4);
  expect_matmul_numbers(s.func(), 16, 12, 8);
  EXPECT_TRUE(replays(s, m.func));
}

TEST(Blockize, MaskedTailKeepsInnerPredicate) {
  Matmul m = make_matmul(10, 7, 5);  // both splits leave a tail
  Schedule s(m.func);
  std::vector<LoopRV> i, j;
  LoopRV k;
  tile_4x4(s, &i, &j, &k);
  s.blockize(i[1]);
  auto in = find_block(s.func().body, "C", nullptr);
  ASSERT_TRUE(in.has_value());
  EXPECT_FALSE(is_const_int(in->br->predicate));
  expect_matmul_numbers(s.func(), 10, 7, 5);
  EXPECT_TRUE(replays(s, m.func));
}

TEST(Blockize, Errors) {
  Matmul m = make_matmul(16, 12, 8);
  Schedule s(m.func);
  std::vector<LoopRV> i, j;
  LoopRV k;
  tile_4x4(s, &i, &j, &k);
  // At io the binding io * 4 + ii uses two loops of the tile.
  EXPECT_EQ(schedule_error([&] { s.blockize(i[0]); }),
            "cannot blockize block \"C\" at loop \"i_0\": the binding i_0 * 4 + i_1 of iter var "
            "\"vi\" is not offset + loop variable");
  s.parallel(j[0]);
  EXPECT_EQ(schedule_error([&] { s.blockize(j[0]); }),
            "cannot blockize at loop \"j_0\": loop \"j_0\" is not a serial loop from 0 with a "
            "constant extent");
}

// Packed matmul tiled for an 8 x 32 x 8 AVX-512 tile: io, jb, ko | ii, jr, ki.
struct Tiled {
  PackedMatmul m;
  Schedule s;
  BlockRV tile;
  explicit Tiled(int64_t M, int64_t N, int64_t K, bool decompose = true, int64_t kc = 8)
      : m(make_packed_matmul(M, N, K, 32)), s(m.func) {
    BlockRV c = s.get_block("C");
    auto l = s.get_loops(c);  // i, jb, jr, k
    auto i = s.split(l[0], {std::nullopt, 8});
    auto k = s.split(l[3], {std::nullopt, kc});
    s.reorder({i[0], l[1], k[0], i[1], l[2], k[1]});
    if (decompose) s.decompose_reduction(c, k[0]);
    tile = s.blockize(i[1]);
  }
};

// make_packed_matmul scheduled by the default rule at small block sizes (mc 16, nc 64, kc 128),
// optionally with A packed in 8-row panels and a bias row.
struct RuleScheduled {
  PackedMatmul m;
  Schedule s;
  RuleScheduled(int64_t M, int64_t N, int64_t K, bool packed_a_with_bias = false)
      : m(make_packed_matmul(M, N, K, 32, 0, packed_a_with_bias, packed_a_with_bias ? 8 : 0)),
        s(m.func) {
    MatmulConfig cfg;
    cfg.mc = 16, cfg.nc = 64, cfg.kc = 128;
    schedule_packed_matmul(s, "C", cfg);
  }
};

std::string intrin_8x32x8() {
  FmaTileShape t{16, 8, 32, 8};
  register_tensor_intrin(make_fma_tile_intrin(t));
  return fma_tile_name(t);
}

TEST(Tensorize, ReplacesTileWithMicroKernel) {
  Tiled t(16, 64, 16);
  std::string name = intrin_8x32x8();
  EXPECT_EQ(name, "x86_avx512_fma_f32_8x32x8");
  t.s.tensorize(t.tile, name);
  auto tile = find_block(t.s.func().body, "C_o", nullptr);
  ASSERT_TRUE(tile.has_value());
  EXPECT_EQ(tile->block->annotations.at("tensorized"), name);
  // The body is the implementation: an accumulator allocation, no inner block left.
  auto* alloc = tile->block->body.as<Allocate>();
  ASSERT_NE(alloc, nullptr);
  EXPECT_EQ(alloc->buffer->name, "acc");
  EXPECT_FALSE(find_block(t.s.func().body, "C", nullptr).has_value());
  // Its loads of A start at the tile origin: A[vi_o + r, vk_o + k], the 8 reduction steps in
  // one iteration (kTileStepsPerIteration).
  std::string text = to_string(t.s.func());
  EXPECT_NE(text.find("A[vi_o + 7, vk_o + (k * 8 + 7)]"), std::string::npos) << text;
  EXPECT_TRUE(replays(t.s, t.m.func));
}

TEST(Tensorize, MaskedTileFallsBackToLoops) {
  Tiled t(13, 40, 12);  // M, N and K tails
  t.s.tensorize(t.tile, intrin_8x32x8());
  auto tile = find_block(t.s.func().body, "C_o", nullptr);
  ASSERT_TRUE(tile.has_value());
  auto* branch = tile->block->body.as<IfThenElse>();
  ASSERT_NE(branch, nullptr);
  EXPECT_NE(branch->then_case.as<Allocate>(), nullptr);
  EXPECT_NE(branch->else_case.as<For>(), nullptr);  // the original tile loops
  EXPECT_TRUE(replays(t.s, t.m.func));
}

TEST(Tensorize, MaskedTileRunsTheMicroKernelOnAScratchTile) {
  // Packed A (padded row panels) and B: the rule asks for scratch partial tiles, so the M and N
  // tails run the intrinsic on a local copy of the output tile instead of scalar loops.
  RuleScheduled r(37, 70, 300, /*packed_a_with_bias=*/true);
  PackedMatmul& m = r.m;
  Schedule& s = r.s;
  auto tile = find_block(s.func().body, "C_o", nullptr);
  ASSERT_TRUE(tile.has_value());
  auto* branch = tile->block->body.as<IfThenElse>();
  ASSERT_NE(branch, nullptr);
  auto* any = branch->else_case.as<IfThenElse>();  // tiles with at least one element
  ASSERT_NE(any, nullptr);
  auto* scratch = any->then_case.as<Allocate>();
  ASSERT_NE(scratch, nullptr);
  EXPECT_EQ(scratch->buffer->name, "partial_C");
  EXPECT_EQ(scratch->buffer->shape.size(), 2u);  // the intrinsic's 8 x 32 output tile
  EXPECT_TRUE(replays(s, m.func));
}

TEST(Tensorize, ScratchTileNeedsTheMaskOnOutputLoops) {
  // A K tail masks the reduction loop: a scratch tile cannot help, the loops stay.
  Tiled t(13, 40, 12);
  t.s.tensorize(t.tile, intrin_8x32x8(), PartialTile::kScratch);
  auto tile = find_block(t.s.func().body, "C_o", nullptr);
  ASSERT_TRUE(tile.has_value());
  auto* branch = tile->block->body.as<IfThenElse>();
  ASSERT_NE(branch, nullptr);
  EXPECT_NE(branch->else_case.as<For>(), nullptr);
  EXPECT_TRUE(replays(t.s, t.m.func));
}

std::string intrin_rows(int rows) {
  FmaTileShape t{16, rows, 32, 8};
  register_tensor_intrin(make_fma_tile_intrin(t));
  return fma_tile_name(t);
}

TEST(Tensorize, TailTileRunsTheShorterMicroKernel) {
  // M = 13: one full 8-row tile and a last tile of 5 rows, run by the 5-row kernel on the tile's
  // own buffers; any other partial tile (none here) would keep the loops.
  Tiled t(13, 64, 16);
  t.s.tensorize(t.tile, intrin_8x32x8(), intrin_rows(5));
  auto tile = find_block(t.s.func().body, "C_o", nullptr);
  ASSERT_TRUE(tile.has_value());
  auto* branch = tile->block->body.as<IfThenElse>();
  ASSERT_NE(branch, nullptr);
  EXPECT_NE(branch->then_case.as<Allocate>(), nullptr);
  auto* tail = branch->else_case.as<IfThenElse>();
  ASSERT_NE(tail, nullptr);
  ASSERT_NE(tail->then_case.as<Allocate>(), nullptr);
  EXPECT_NE(tail->else_case.as<For>(), nullptr);
  // The tail kernel's accumulators are 5 rows of two zmm: stores to acc[4, ...], none to row 5.
  std::string text = to_string(tail->then_case);
  EXPECT_NE(text.find("acc[4, "), std::string::npos) << text;
  EXPECT_EQ(text.find("acc[5, "), std::string::npos) << text;
  EXPECT_TRUE(replays(t.s, t.m.func));
}

TEST(Tensorize, TailTileErrors) {
  {
    // The tail shortens N, the mask cuts M.
    Tiled t(13, 64, 16);
    FmaTileShape narrow{16, 8, 16, 8};
    register_tensor_intrin(make_fma_tile_intrin(narrow));
    EXPECT_EQ(
        schedule_error([&] { t.s.tensorize(t.tile, intrin_8x32x8(), fma_tile_name(narrow)); }),
        "cannot tensorize block \"C_o\" with \"x86_avx512_fma_f32_8x32x8\": its mask i_0 * 8 "
        "+ i_1 < 13 does not cut the one loop the tail intrinsic \"x86_avx512_fma_f32_8x16x8\" "
        "shortens");
  }
  {
    // M and K tails: the mask uses two of the tile's loops.
    Tiled t(13, 64, 12);
    EXPECT_NE(schedule_error([&] { t.s.tensorize(t.tile, intrin_8x32x8(), intrin_rows(5)); }), "");
  }
}

TEST(Tensorize, Errors) {
  std::string name = intrin_8x32x8();
  {
    Tiled t(16, 64, 16);
    EXPECT_EQ(schedule_error([&] { t.s.tensorize(t.tile, "x86_avx512_fma_f32_8x33x8"); }),
              "cannot tensorize block \"C_o\": no intrinsic named \"x86_avx512_fma_f32_8x33x8\"");
  }
  {
    Tiled t(16, 64, 16, /*decompose=*/false);
    EXPECT_EQ(schedule_error([&] { t.s.tensorize(t.tile, name); }),
              "cannot tensorize block \"C_o\" with \"x86_avx512_fma_f32_8x32x8\": block \"C\" has "
              "an init (decompose_reduction first)");
  }
  {
    Tiled t(16, 64, 16, true, /*kc=*/4);
    EXPECT_EQ(schedule_error([&] { t.s.tensorize(t.tile, name); }),
              "cannot tensorize block \"C_o\" with \"x86_avx512_fma_f32_8x32x8\": its loop "
              "extents [8, 32, 4] differ from the intrinsic's [8, 32, 8]");
  }
  {
    Tiled t(16, 64, 16);
    EXPECT_EQ(schedule_error([&] { t.s.tensorize(t.s.get_block("C"), name); }),
              "cannot tensorize block \"C\" with \"x86_avx512_fma_f32_8x32x8\": its body is not "
              "loops around one block (blockize the tile first)");
  }
  {
    // Unpacked B[k, j]: two dimensions where the intrinsic streams a packed panel.
    Matmul m = make_matmul(8, 32, 8);
    Schedule s(m.func);
    BlockRV c = s.get_block("C");
    auto l = s.get_loops(c);
    s.decompose_reduction(c, l[0]);
    BlockRV tile = s.blockize(l[0]);
    EXPECT_EQ(schedule_error([&] { s.tensorize(tile, name); }),
              "cannot tensorize block \"C_o\" with \"x86_avx512_fma_f32_8x32x8\": buffer B does "
              "not match the intrinsic's Bp");
  }
}

TEST(FmaIntrin, NamesRoundTripAndPickIsa) {
  FmaTileShape a = default_fma_tile(512, 256), b = default_fma_tile(256, 128);
  EXPECT_EQ(fma_tile_name(a), "x86_avx512_fma_f32_8x32x256");
  EXPECT_EQ(fma_tile_name(b), "x86_avx2_fma_f32_6x16x128");
  auto p = parse_fma_tile_name("x86_avx2_fma_f32_6x16x128");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->lanes, 8);
  EXPECT_EQ(p->mr, 6);
  EXPECT_FALSE(parse_fma_tile_name("x86_avx2_fma_f32_6x12x128").has_value());  // 12 % 8
  EXPECT_FALSE(parse_fma_tile_name("x86_sse_fma_f32_6x16x128").has_value());
  // A family name resolves without registration (trace replay in a fresh process).
  EXPECT_NE(find_tensor_intrin("x86_avx2_fma_f32_4x24x16"), nullptr);
}

TEST(FmaIntrin, GeneralSpecNamesRoundTrip) {
  FmaTileSpec conv;
  conv.mr = 7, conv.nr = 24, conv.k = {5, 3, 3};
  conv.a.dims = {{0, 0, 0, 0, 0}, {0, 0, 1, 0, 0}, {0, 0, 0, 2, 0}, {2, 0, 0, 0, 2}};
  conv.b.dims = {
      {0, 0, 0, 0, 0}, {0, 0, 1, 0, 0}, {0, 0, 0, 1, 0}, {0, 0, 0, 0, 1}, {0, 1, 0, 0, 0}};
  conv.c.dims = {{0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {0, 1, 0, 0, 0}};
  std::string name = fma_tile_name(conv);
  EXPECT_EQ(name,
            "x86_avx512_fma_f32_7x24_k5x3x3_a0.0.0.0.0,0.0.1.0.0,0.0.0.2.0,2.0.0.0.2_b0.0.0.0.0,"
            "0.0.1.0.0,0.0.0.1.0,0.0.0.0.1,0.1.0.0.0_c0.0.0.0.0,1.0.0.0.0,0.1.0.0.0");
  auto back = parse_fma_tile_spec(name);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(fma_tile_name(*back), name);
  EXPECT_EQ(back->k, conv.k);
  EXPECT_NE(find_tensor_intrin(name), nullptr);  // built from the name alone
  // The matmul layout keeps its short name.
  EXPECT_EQ(fma_tile_name(gemm_tile_spec({16, 8, 32, 64})), "x86_avx512_fma_f32_8x32x64");
  // Malformed: j outside the last dim of C, a coefficient count that does not match, junk.
  std::string bad_c = name.substr(0, name.find("_c")) + "_c0.1.0.0.0,1.0.0.0.0";
  EXPECT_FALSE(parse_fma_tile_spec(bad_c).has_value());
  EXPECT_FALSE(parse_fma_tile_spec("x86_avx512_fma_f32_7x24_k5_a0.0_b0.0_c0.0").has_value());
  EXPECT_FALSE(parse_fma_tile_spec("x86_avx512_fma_f32_7x24_kx_a_b_c").has_value());
}

// A prefetch: the name ends in _p<bytes> and parses back; each step of the implementation
// prefetches one line per 64 bytes of its B row, that many bytes ahead; the distance must be a
// whole number of lines.
TEST(FmaIntrin, PrefetchSpecsRoundTripAndPrefetchEachStep) {
  FmaTileSpec s = gemm_tile_spec({16, 4, 32, 96});
  s.prefetch = 2048;
  std::string name = fma_tile_name(s);
  EXPECT_EQ(name, "x86_avx512_fma_f32_4x32_k96_a1.0.0,0.0.1_b0.0.0,0.0.1,0.1.0_c1.0.0,0.1.0_p2048");
  auto back = parse_fma_tile_spec(name);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->prefetch, 2048);
  EXPECT_EQ(fma_tile_name(*back), name);
  std::string impl = to_string(make_fma_tile_intrin(s).impl);
  size_t count = 0;
  for (size_t at = impl.find("prefetch("); at != std::string::npos;
       at = impl.find("prefetch(", at + 1))
    ++count;
  // 128 bytes per B row: two lines per step, 8 steps per iteration of the reduction loop.
  EXPECT_EQ(count, 2u * kTileStepsPerIteration) << impl;
  EXPECT_NE(impl.find("prefetch(B[0, k * 8 + 3, 0 + 512])"), std::string::npos) << impl;  // 2048 B
  s.prefetch = 100;
  EXPECT_THROW(make_fma_tile_intrin(s), InternalError);
  EXPECT_FALSE(parse_fma_tile_spec(name.substr(0, name.size() - 4) + "100").has_value());
}

// Column blocks: a further variable jb after the reduction variables, which B and C use outside
// their last dimension (a conv tile over two output blocks of 16 channels: Y[0, jb, i, j],
// Wp[jb, k, j]); the name ends in _j<blocks> and parses back; A may not use jb, jb may not be in
// a last dimension, and the tile holds at most four vectors.
TEST(FmaIntrin, ColumnBlockSpecsRoundTripAndAreChecked) {
  FmaTileSpec s;
  s.mr = 6, s.nr = 16, s.k = {32}, s.col_blocks = 2;
  s.a.dims = {{1, 0, 0, 0}, {0, 0, 1, 0}};                              // X[i, k]
  s.b.dims = {{0, 0, 0, 1}, {0, 0, 1, 0}, {0, 1, 0, 0}};                // Wp[jb, k, j]
  s.c.dims = {{0, 0, 0, 0}, {0, 0, 0, 1}, {1, 0, 0, 0}, {0, 1, 0, 0}};  // Y[0, jb, i, j]
  std::string name = fma_tile_name(s);
  EXPECT_EQ(name,
            "x86_avx512_fma_f32_6x16_k32_a1.0.0.0,0.0.1.0_b0.0.0.1,0.0.1.0,0.1.0.0_c0.0.0.0,"
            "0.0.0.1,1.0.0.0,0.1.0.0_j2");
  auto back = parse_fma_tile_spec(name);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->col_blocks, 2);
  EXPECT_EQ(fma_tile_name(*back), name);
  // The description's loops: i, jb, j, k.
  TensorIntrin in = make_fma_tile_intrin(s);
  std::string desc = to_string(in.desc);
  size_t i = desc.find("for i "), jb = desc.find("for jb "), j = desc.find("for j "),
         k = desc.find("for k ");
  EXPECT_TRUE(i < jb && jb < j && j < k) << desc;
  // Malformed: A using jb, jb in C's last dimension, 5 vectors, a j suffix of 1, lane groups.
  FmaTileSpec bad = s;
  bad.a.dims[1] = {0, 0, 1, 1};
  EXPECT_FALSE(parse_fma_tile_spec(fma_tile_name(bad)).has_value());
  bad = s;
  bad.c.dims[3] = {0, 1, 0, 1};
  EXPECT_FALSE(parse_fma_tile_spec(fma_tile_name(bad)).has_value());
  bad = s;
  bad.col_blocks = 5;
  EXPECT_FALSE(parse_fma_tile_spec(fma_tile_name(bad)).has_value());
  EXPECT_FALSE(parse_fma_tile_spec(name.substr(0, name.size() - 1) + "1").has_value());
  EXPECT_FALSE(parse_fma_tile_spec(name.substr(0, name.size() - 3) + "_g4_j2").has_value());
}

// make_blocked_conv2d of `cs` scheduled by the default rule for `bits`-wide vectors; its tile
// block ("conv_o") and the tile's micro-kernel spec.
struct RuleScheduledConv {
  BlockedConv2d c;
  Schedule s;
  std::optional<BlockInfo> tile;
  std::optional<FmaTileSpec> spec;
  RuleScheduledConv(const Conv2dShape& cs, int bits)
      : c(make_blocked_conv2d(cs, conv2d_channel_block(cs, bits))), s(c.func) {
    schedule_blocked_conv2d(s, "conv", bits);
    tile = find_block(s.func().body, "conv_o", nullptr);
    if (tile) spec = parse_fma_tile_spec(tile->block->annotations.at("tensorized"));
  }
};

TEST(ConvRule, TensorizesTheWholeReductionAndReplays) {
  Conv2dShape cs;
  cs.ic = 5, cs.oc = 20, cs.ih = 13, cs.iw = 13, cs.kh = cs.kw = 3, cs.sh = cs.sw = 2;
  cs.dh = cs.dw = 2, cs.oh = 5, cs.ow = 5;
  RuleScheduledConv r(cs, 512);
  ASSERT_TRUE(r.tile.has_value());
  // One strip of 5 pixels x 32 channels, reducing over ic, kh, kw with stride and dilation 2.
  ASSERT_TRUE(r.spec.has_value());
  EXPECT_EQ(r.spec->mr, 5);
  EXPECT_EQ(r.spec->nr, 32);
  EXPECT_EQ(r.spec->k, (std::vector<int64_t>{5, 3, 3}));
  EXPECT_EQ(r.spec->a.dims[3], (std::vector<int64_t>{2, 0, 0, 0, 2}));
  EXPECT_EQ(r.tile->loops.front().as<For>()->kind, ForKind::kParallel);
  EXPECT_TRUE(find_block(r.s.func().body, "conv_init", nullptr).has_value());
  EXPECT_TRUE(replays(r.s, r.c.func));
}

TEST(ConvRule, RowTailRunsAShorterTileAndReplays) {
  // OW 13 with AVX2 16-channel tiles (6 rows at most: 12 accumulators + 2 B + 1 broadcast of 16
  // ymm): two strips of 5 and a tail of 3 model fewer cycles than 6 + 6 + 1.
  Conv2dShape cs;
  cs.ic = 4, cs.oc = 32, cs.ih = 3, cs.iw = 15, cs.kh = cs.kw = 3, cs.oh = 1, cs.ow = 13;
  RuleScheduledConv r(cs, 256);
  ASSERT_TRUE(r.tile.has_value());
  ASSERT_TRUE(r.spec.has_value());
  EXPECT_EQ(r.spec->mr, 5);
  EXPECT_EQ(r.spec->nr, 16);
  auto tensorize = r.s.trace().instructions.back();
  for (const auto& i : r.s.trace().instructions)
    if (i.kind == "tensorize") tensorize = i;
  ASSERT_EQ(tensorize.attrs.value("partial", ""), "tail");
  auto tail = parse_fma_tile_spec(tensorize.attrs.at("tail_intrin").get<std::string>());
  ASSERT_TRUE(tail.has_value());
  EXPECT_EQ(tail->mr, 3);
  EXPECT_EQ(tail->k, r.spec->k);
  EXPECT_TRUE(replays(r.s, r.c.func));
}

TEST(ConvRule, LargeWeightPanelsAreReadInKSlices) {
  // 768 channels x 3x3 x 32 lanes x 4 bytes = 884 KB per output block: slices of 96 channels
  // (108 KB) with every strip of the block inside each slice; the init runs before the slices.
  Conv2dShape cs;
  cs.ic = 768, cs.oc = 64, cs.ih = 6, cs.iw = 6, cs.kh = cs.kw = 3, cs.oh = 4, cs.ow = 4;
  RuleScheduledConv r(cs, 512);
  ASSERT_TRUE(r.tile.has_value());
  ASSERT_TRUE(r.spec.has_value());
  EXPECT_EQ(r.spec->k, (std::vector<int64_t>{96, 3, 3}));
  auto init = find_block(r.s.func().body, "conv_init", nullptr);
  ASSERT_TRUE(init.has_value());
  EXPECT_EQ(init->loops.size(), 5u);  // (n, ocb) fused, oh, ow_0, ow_1, r: outside the slices
  EXPECT_TRUE(replays(r.s, r.c.func));
}

TEST(ConvRule, PanelsThatFewStripsUseAreReadInKSlices) {
  // ResNet-50's 3x3 512->512 conv at 7x7: 576 KB of packed weights per output block (below the
  // 768 KB that always slices) for 7 strips of 7 pixels, and 16 output blocks to run in
  // parallel: slices of 64 channels (72 KB).
  Conv2dShape cs;
  cs.ic = 512, cs.oc = 512, cs.ih = 9, cs.iw = 9, cs.kh = cs.kw = 3, cs.oh = 7, cs.ow = 7;
  RuleScheduledConv sliced(cs, 512);
  ASSERT_TRUE(sliced.spec.has_value());
  EXPECT_EQ(sliced.spec->k, (std::vector<int64_t>{64, 3, 3}));
  EXPECT_TRUE(replays(sliced.s, sliced.c.func));
  // At 14x14 (28 strips per block) or with one output block (DenseNet's 3x3 128->32 at 7x7:
  // the sliced loop would run one block on one thread) the panel is read whole.
  Conv2dShape wide = cs;
  wide.ih = wide.iw = 16, wide.oh = wide.ow = 14;
  RuleScheduledConv whole(wide, 512);
  ASSERT_TRUE(whole.spec.has_value());
  EXPECT_EQ(whole.spec->k, (std::vector<int64_t>{512, 3, 3}));
  Conv2dShape narrow = cs;
  narrow.oc = 32;
  RuleScheduledConv one_block(narrow, 512);
  ASSERT_TRUE(one_block.spec.has_value());
  EXPECT_EQ(one_block.spec->k, (std::vector<int64_t>{512, 3, 3}));
}

TEST(ConvRule, FewRowsRunTheirStripsInParallel) {
  // A pointwise conv over 56 x 56 pixels as one row: 2 channel blocks x 1 row would be two
  // tasks; the 392 strips of 8 pixels split into 28 chunks make 56.
  Conv2dShape cs;
  cs.ic = 16, cs.oc = 64, cs.ih = 1, cs.iw = 3136, cs.oh = 1, cs.ow = 3136;
  RuleScheduledConv r(cs, 512);
  ASSERT_TRUE(r.tile.has_value());
  const For* outer = r.tile->loops.front().as<For>();
  EXPECT_EQ(outer->kind, ForKind::kParallel);
  int64_t extent = 0;
  EXPECT_TRUE(is_const_int(outer->extent, &extent) && extent == 56) << to_string(outer->extent);
  EXPECT_TRUE(replays(r.s, r.c.func));
}

TEST(MatmulRule, SchedulesAndReplays) {
  RuleScheduled r(40, 70, 300);
  PackedMatmul& m = r.m;
  Schedule& s = r.s;
  auto tile = find_block(s.func().body, "C_o", nullptr);
  ASSERT_TRUE(tile.has_value());
  // K = 300 runs as three slices of 100 (a divisor near kc), so no slice is masked.
  EXPECT_EQ(tile->block->annotations.at("tensorized"), "x86_avx512_fma_f32_8x32x100");
  EXPECT_EQ(tile->loops.front().as<For>()->kind, ForKind::kParallel);
  EXPECT_TRUE(replays(s, m.func));
}

TEST(MatmulRule, PacksARowBlockPerKSliceAndReplays) {
  RuleScheduled r(40, 70, 300, /*packed_a_with_bias=*/true);
  PackedMatmul& m = r.m;
  Schedule& s = r.s;
  auto tile = find_block(s.func().body, "C_o", nullptr);
  ASSERT_TRUE(tile.has_value());
  // Ap[0, k, i]: the broadcasts read one contiguous panel.
  auto spec = parse_fma_tile_spec(tile->block->annotations.at("tensorized"));
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->a.dims, (std::vector<std::vector<int64_t>>{{0, 0, 0}, {0, 0, 1}, {1, 0, 0}}));
  // The packing sits under the row block and the K slice (io, ko), next to the tiles.
  auto pack = find_block(s.func().body, "A_pack", nullptr);
  ASSERT_TRUE(pack.has_value());
  ASSERT_GE(pack->loops.size(), 2u);
  EXPECT_EQ(pack->loops[0].as<For>()->kind, ForKind::kParallel);
  EXPECT_EQ(pack->loops[1].as<For>()->loop_var.name(), "k_0");
  EXPECT_TRUE(replays(s, m.func));
}

TEST(MatmulRule, AllRowsInOneBlockRunColumnPanelsInParallelAndReplay) {
  // M = 13 <= mc: one row block, so the threads split the column panels; A is packed up front.
  RuleScheduled r(13, 70, 300, /*packed_a_with_bias=*/true);
  PackedMatmul& m = r.m;
  Schedule& s = r.s;
  auto tile = find_block(s.func().body, "C_o", nullptr);
  ASSERT_TRUE(tile.has_value());
  auto spec = parse_fma_tile_spec(tile->block->annotations.at("tensorized"));
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->k, (std::vector<int64_t>{100}));  // K = 300 in three slices of 100
  EXPECT_EQ(tile->loops.front().as<For>()->kind, ForKind::kParallel);
  EXPECT_EQ(tile->loops.front().as<For>()->loop_var.name(), "jb");
  auto pack = find_block(s.func().body, "A_pack", nullptr);
  ASSERT_TRUE(pack.has_value());
  EXPECT_EQ(pack->loops.size(), 3u);  // its own nest, not under the column loop
  EXPECT_EQ(pack->loops[0].as<For>()->kind, ForKind::kParallel);
  EXPECT_TRUE(replays(s, m.func));
}

TEST(StorageAlign, PaddedLocalBufferRunsInInterpreter) {
  // A local intermediate padded to a row stride of 13 (> its 12 columns) is allocated from its
  // strides: the last row reaches element 3 * 13 + 11.
  Matmul m = make_matmul(4, 12, 3);
  Schedule s(m.func);
  BlockRV c = s.get_block("C");
  BlockRV wb = s.cache_write(c, 0, "local");
  (void)wb;
  s.storage_align(c, 0, 0, 13, 0);
  expect_matmul_numbers(s.func(), 4, 12, 3);
}

}  // namespace
}  // namespace ingot::schedule::testing

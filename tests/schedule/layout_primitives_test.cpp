// transform_layout, split_block_iter and cache_read into "global": the layouts a schedule gives
// constants and scratch buffers (tiled layouts, tir/param_layout.h), checked against closed-form
// index maps and a plain matmul reference; and apply_param_layouts, which binds them into a
// module after scheduling.
#include <cstring>

#include "sched_test_util.h"
#include "tir/module.h"
#include "tir/transforms/apply_param_layouts.h"

namespace ingot::schedule::testing {
namespace {

// B[k, n] (K x N, row-major) in panels Bp[n / nr, k, n % nr], zero past N: written out by hand.
std::vector<double> panels(const std::vector<double>& b, int64_t K, int64_t N, int64_t nr) {
  int64_t nb = (N + nr - 1) / nr;
  std::vector<double> out(size_t(nb * K * nr), 0.0);
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n)
      out[size_t(((n / nr) * K + k) * nr + n % nr)] = b[size_t(k * N + n)];
  return out;
}

std::vector<int64_t> shape_of(const Buffer& b) {
  std::vector<int64_t> out;
  for (const Expr& d : b->shape) {
    int64_t v = -1;
    is_const_int(d, &v);
    out.push_back(v);
  }
  return out;
}

std::vector<double> as_doubles(const std::vector<uint8_t>& bytes) {
  std::vector<double> out(bytes.size() / 4);
  for (size_t i = 0; i < out.size(); ++i) {
    float f = 0;
    std::memcpy(&f, bytes.data() + 4 * i, 4);
    out[i] = f;
  }
  return out;
}

std::vector<uint8_t> as_bytes(const std::vector<double>& v) {
  std::vector<uint8_t> out(v.size() * 4);
  for (size_t i = 0; i < v.size(); ++i) {
    float f = float(v[i]);
    std::memcpy(out.data() + 4 * i, &f, 4);
  }
  return out;
}

TEST(TiledLayout, PanelsMatchTheClosedForm) {
  TiledLayout l{{1, 3}, {1, 0, 2}};  // [K, N] -> [ceil(N / 3), K, 3]
  EXPECT_EQ(l.apply_shape({4, 7}), (std::vector<int64_t>{3, 4, 3}));
  std::vector<double> b = random_values(4 * 7, 5);
  EXPECT_EQ(as_doubles(l.relayout(as_bytes(b).data(), {4, 7}, 4)), panels(b, 4, 7, 3));
  EXPECT_EQ(l.inverse_index({2, 1, 2}), (std::vector<int64_t>{1, 8}));  // padding: n = 8 >= 7
  // Blocking in place (NCHW -> NCHWc: C split by 4, the inner block last).
  TiledLayout c{{1, 4}, {0, 1, 3, 4, 2}};
  EXPECT_EQ(c.apply_shape({1, 6, 2, 3}), (std::vector<int64_t>{1, 2, 2, 3, 4}));
  std::vector<double> x = random_values(36, 6), want(1 * 2 * 2 * 3 * 4, 0.0);
  for (int64_t ch = 0; ch < 6; ++ch)  // [1, C, H, W] -> [1, C/4, H, W, 4], zero past C
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t w = 0; w < 3; ++w)
        want[size_t((((ch / 4) * 2 + h) * 3 + w) * 4 + ch % 4)] = x[size_t((ch * 2 + h) * 3 + w)];
  EXPECT_EQ(as_doubles(c.relayout(as_bytes(x).data(), {1, 6, 2, 3}, 4)), want);
}

// B, a constant parameter, in NR-wide panels after the block's columns are split by NR: the
// block reads Bp[vjo, vk, vji] (affine again), and the numbers are the matmul's when the
// parameter is bound to the panels.
TEST(TransformLayout, ConstantWeightsInPanels) {
  Matmul m = make_matmul(4, 7, 3);
  m.func.constant_params = {1};
  Schedule s(m.func);
  BlockRV c = s.get_block("C");
  auto l = s.get_loops(c);
  auto j = s.split_block_iter(c, l[1], 4);
  ASSERT_EQ(j.size(), 2u);
  s.transform_layout(c, 2, {1, 4}, {1, 0, 2});  // reads are C, A, B
  const PrimFunc& f = s.func();
  ASSERT_EQ(f.layouts.size(), 1u);
  EXPECT_EQ(f.layouts[0].param, 1);
  EXPECT_EQ(f.layouts[0].shape, (std::vector<int64_t>{3, 7}));
  EXPECT_EQ(shape_of(f.params[1]), (std::vector<int64_t>{2, 3, 4}));
  auto info = find_block(f.body, "C", nullptr);
  const auto* st = info->block->body.as<BufferStore>();
  ASSERT_NE(st, nullptr);
  std::string printed = to_string(st->value);
  EXPECT_NE(printed.find("B[vjo, vk, vji]"), std::string::npos) << printed;
  // Numbers: B bound to its panels, C's tail columns masked.
  HostTensor a(DataType::f32(), {4, 3}, random_values(12, 1));
  std::vector<double> bv = random_values(21, 2);
  HostTensor bp(DataType::f32(), {2, 3, 4}, panels(bv, 3, 7, 4));
  HostTensor out(DataType::f32(), {4, 7});
  run(f, {&a, &bp, &out});
  std::vector<double> want = matmul_reference(a.values(), bv, 4, 7, 3);
  for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(out.values()[i], want[i], 1e-5) << i;
  EXPECT_TRUE(replays(s, m.func));
}

// A packed into MR-row panels through a global cache: a scratch parameter whose copy block
// covers the padded panels (rows past M written as zeros).
TEST(TransformLayout, GlobalCacheOfRowPanelsIsPadded) {
  Matmul m = make_matmul(5, 6, 3);
  Schedule s(m.func);
  BlockRV c = s.get_block("C");
  auto l = s.get_loops(c);
  BlockRV pack = s.cache_read(c, 1, "global");
  EXPECT_EQ(s.name_of(pack), "A_global");
  ASSERT_EQ(s.func().scratch_params, (std::vector<int>{3}));
  s.transform_layout(c, 1, {0, 4}, {0, 2, 1});  // [5, 3] -> [2, 3, 4]
  auto i = s.split_block_iter(c, l[0], 4);
  s.reorder({i[0], l[1], i[1], l[2]});
  EXPECT_TRUE(s.func().layouts.empty());  // a scratch buffer: nothing to re-lay out later
  EXPECT_EQ(shape_of(s.func().params[3]), (std::vector<int64_t>{2, 3, 4}));
  HostTensor a(DataType::f32(), {5, 3}, random_values(15, 1));
  HostTensor b(DataType::f32(), {3, 6}, random_values(18, 2));
  HostTensor out(DataType::f32(), {5, 6});
  HostTensor scratch(DataType::f32(), {2, 3, 4}, std::vector<double>(24, 7.0));
  run(s.func(), {&a, &b, &out, &scratch});
  std::vector<double> want = matmul_reference(a.values(), b.values(), 5, 6, 3);
  for (size_t x = 0; x < want.size(); ++x) ASSERT_NEAR(out.values()[x], want[x], 1e-5) << x;
  for (int64_t ib = 0; ib < 2; ++ib)
    for (int64_t k = 0; k < 3; ++k)
      for (int64_t r = 0; r < 4; ++r) {
        int64_t row = ib * 4 + r;
        double expect = row < 5 ? a.values()[size_t(row * 3 + k)] : 0.0;
        ASSERT_EQ(scratch.get((ib * 3 + k) * 4 + r), expect) << ib << "," << k << "," << r;
      }
  EXPECT_TRUE(replays(s, m.func));
}

// Y[ob, r] (init 0) += X[c] * (o < OC ? W[min(o, OC - 1), c] : 0), o = ob * 4 + r: output
// channels in blocks of 4 past OC = 6, the guarded (and clamped) read of the node's weights a
// blocked convolution's compute makes (lower/compute/blocked_conv.h); `bound` is the guard's.
PrimFunc guarded_channel_blocks(int64_t bound) {
  Buffer x = Buffer::make("X", DataType::f32(), std::vector<int64_t>{3});
  Buffer w = Buffer::make("W", DataType::f32(), {6, 3});
  Buffer y = Buffer::make("Y", DataType::f32(), {2, 4});
  Var vb("vob"), vr("vr"), vc("vc"), b("ob"), r("r"), c("c");
  Expr o = Expr(vb) * int64_t(4) + vr;
  Expr wv = select(o < i64(bound), w.load({min(o, i64(5)), vc}), f32(0));
  Stmt body = BufferStore::make(y, y(vb, vr) + x(vc) * wv, {vb, vr});
  Stmt blk = make_block("C",
                        {{vb, i64(0), i64(2), IterKind::kSpatial},
                         {vr, i64(0), i64(4), IterKind::kSpatial},
                         {vc, i64(0), i64(3), IterKind::kReduce}},
                        body, BufferStore::make(y, f32(0), {vb, vr}));
  PrimFunc f;
  f.name = "guarded";
  f.params = {x, w, y};
  f.body = nest({{b, 2}, {r, 4}, {c, 3}}, BlockRealize::make({b, r, c}, yes(), blk));
  f.constant_params = {1};
  return f;
}

// The zero padding of W's layout holds what the guard gave past OC: the guarded, clamped read
// becomes the plain read of the padded weights, and the numbers stay the guarded compute's.
TEST(TransformLayout, ZeroPaddingDropsTheGuardItMakesRedundant) {
  PrimFunc f = guarded_channel_blocks(6);
  HostTensor x(DataType::f32(), std::vector<int64_t>{3}, random_values(3, 1));
  std::vector<double> wv = random_values(18, 2);
  HostTensor w(DataType::f32(), {6, 3}, wv), want(DataType::f32(), {2, 4});
  run(f, {&x, &w, &want});  // the guarded compute, unscheduled
  for (int64_t o = 6; o < 8; ++o) EXPECT_EQ(want.get(o), 0.0);
  Schedule s(f);
  BlockRV blk = s.get_block("C");
  s.transform_layout(blk, 2, {0, 4}, {0, 2, 1});  // reads are Y, X, W: W[6, 3] -> [2, 3, 4]
  auto info = find_block(s.func().body, "C", nullptr);
  std::string printed = to_string(info->block->body);
  EXPECT_EQ(printed.find("select"), std::string::npos) << printed;
  EXPECT_NE(printed.find("W[vob, vc, vr]"), std::string::npos) << printed;
  HostTensor laid(
      DataType::f32(), {2, 3, 4},
      as_doubles(s.func().layouts.at(0).layout.relayout(as_bytes(wv).data(), {6, 3}, 4)));
  HostTensor got(DataType::f32(), {2, 4});
  run(s.func(), {&x, &laid, &got});
  for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(got.get(i), want.get(i)) << i;
  EXPECT_TRUE(replays(s, f));
}

// A guard the padding does not imply (o < 5 leaves channel 5 out, which the padded layout
// holds) stays.
TEST(TransformLayout, KeepsAGuardThePaddingDoesNotImply) {
  Schedule s(guarded_channel_blocks(5));
  s.transform_layout(s.get_block("C"), 2, {0, 4}, {0, 2, 1});
  auto info = find_block(s.func().body, "C", nullptr);
  EXPECT_NE(to_string(info->block->body).find("select"), std::string::npos);
}

TEST(TransformLayout, RefusesARunTimeParameter) {
  Matmul m = make_matmul(4, 4, 4);
  Schedule s(m.func);
  try {
    s.transform_layout(s.get_block("C"), 2, {1, 4}, {1, 0, 2});
    FAIL() << "a run-time B took a layout";
  } catch (const ScheduleError& e) {
    EXPECT_NE(std::string(e.what()).find("neither a constant parameter nor a global cache"),
              std::string::npos)
        << e.what();
  }
  m.func.constant_params = {1};
  Schedule t(m.func);
  EXPECT_THROW(t.transform_layout(t.get_block("C"), 2, {5, 4}, {}), ScheduleError);
  EXPECT_THROW(t.transform_layout(t.get_block("C"), 2, {1, 4}, {0, 0, 1}), ScheduleError);
}

TEST(SplitBlockIter, RefusesALoopBoundToAnExpression) {
  Matmul m = make_matmul(8, 8, 4);
  Schedule s(m.func);
  BlockRV c = s.get_block("C");
  auto l = s.get_loops(c);
  auto parts = s.split(l[0], {std::nullopt, 4});  // vi = i_0 * 4 + i_1
  EXPECT_THROW(s.split_block_iter(c, parts[1], 2), ScheduleError);
  EXPECT_THROW(s.split_block_iter(c, l[1], 0), ScheduleError);
}

// A module: kernel 0 reads constant W through panels and a scratch buffer; kernel 1 reads a
// second constant as it is. After apply_param_layouts the panels are in the blob, the unread
// original is gone, the other constant kept, and the scratch lies past the arena.
TEST(ApplyParamLayouts, RelaysConstantsAndBindsScratch) {
  IRModule mod;
  Buffer w = Buffer::make("W", DataType::f32(), std::vector<int64_t>{2, 3});
  Buffer s = Buffer::make("S", DataType::f32(), std::vector<int64_t>{5});
  Buffer v = Buffer::make("V", DataType::f32(), std::vector<int64_t>{4});
  PrimFunc k0;
  k0.name = "k0";
  k0.params = {Buffer::make("W", DataType::f32(), std::vector<int64_t>{2, 2, 2}), s};
  k0.body = Evaluate::make(i64(0));
  k0.layouts = {{0, {2, 3}, TiledLayout{{1, 2}, {1, 0, 2}}}};
  k0.scratch_params = {1};
  PrimFunc k1;
  k1.name = "k1";
  k1.params = {v};
  k1.body = Evaluate::make(i64(0));
  mod.kernels = {k0, k1};
  std::vector<double> wv = {1, 2, 3, 4, 5, 6}, vv = {7, 8, 9, 10};
  std::vector<uint8_t> wb = as_bytes(wv), vb = as_bytes(vv);
  mod.constants = wb;
  mod.constants.resize(64);
  mod.constants.insert(mod.constants.end(), vb.begin(), vb.end());
  mod.workspace_bytes = 100;
  mod.entry = {{0, {{ArgRef::kConstant, 0}}}, {1, {{ArgRef::kConstant, 64}}}};
  apply_param_layouts(mod);
  ASSERT_EQ(mod.entry[0].args.size(), 2u);
  const ArgRef& wa = mod.entry[0].args[0];
  ASSERT_EQ(wa.kind, ArgRef::kConstant);
  std::vector<uint8_t> got(mod.constants.begin() + wa.value, mod.constants.begin() + wa.value + 32);
  EXPECT_EQ(as_doubles(got), panels(wv, 2, 3, 2));  // [[1, 2], [4, 5]], [[3, 0], [6, 0]]
  const ArgRef& va = mod.entry[1].args[0];
  std::vector<uint8_t> vgot(mod.constants.begin() + va.value,
                            mod.constants.begin() + va.value + 16);
  EXPECT_EQ(as_doubles(vgot), vv);
  EXPECT_EQ(mod.constants.size(), 64u + 32u);  // W's original left the blob
  EXPECT_EQ(mod.entry[0].args[1].kind, ArgRef::kWorkspace);
  EXPECT_EQ(mod.entry[0].args[1].value, 128);
  EXPECT_EQ(mod.workspace_bytes, 128u + 64u);
  EXPECT_TRUE(mod.kernels[0].layouts.empty());
  EXPECT_TRUE(mod.kernels[0].scratch_params.empty());
}

}  // namespace
}  // namespace ingot::schedule::testing

// Primitive partition: parts as sequential loops or branches, guards folded per part, blocks
// whose guard a part disproves removed, numbers through the interpreter, trace replay, errors.
#include "sched_test_util.h"
#include "tir/visitor.h"

namespace ingot::schedule::testing {
namespace {

// A 1-D convolution with zero padding as a guard: Y[i] = sum over k < 3 of
// (0 <= i + k - 1 < N ? X[clamp(i + k - 1)] * W[k] : 0), init 0.
struct PaddedConv {
  Buffer X, W, Y;
  int64_t n = 0;
  PrimFunc func;
};

PaddedConv make_padded_conv(int64_t n) {
  PaddedConv c;
  c.n = n;
  c.X = Buffer::make("X", DataType::f32(), std::vector<int64_t>{n});
  c.W = Buffer::make("W", DataType::f32(), std::vector<int64_t>{3});
  c.Y = Buffer::make("Y", DataType::f32(), std::vector<int64_t>{n});
  Var vi("vi"), vk("vk"), i("i"), k("k");
  Expr r = Expr(vi) + vk - i64(1);
  Expr y = c.Y(vi);
  Expr x = c.X(max(min(r, i64(n - 1)), i64(0)));
  Stmt body = BufferStore::make(c.Y, select(r >= i64(0) && r < i64(n), y + x * c.W(vk), y), {vi});
  Stmt blk = make_block(
      "conv", {{vi, i64(0), i64(n), IterKind::kSpatial}, {vk, i64(0), i64(3), IterKind::kReduce}},
      body, BufferStore::make(c.Y, f32(0), {vi}));
  c.func = PrimFunc{"padded_conv",
                    {c.X, c.W, c.Y},
                    root(nest({{i, n}, {k, 3}}, BlockRealize::make({i, k}, yes(), blk)))};
  return c;
}

void expect_conv_numbers(const PrimFunc& f, int64_t n) {
  HostTensor x(DataType::f32(), std::vector<int64_t>{n}, random_values(n, 4));
  HostTensor w(DataType::f32(), std::vector<int64_t>{3}, random_values(3, 5));
  HostTensor y(DataType::f32(), std::vector<int64_t>{n}, std::vector<double>(size_t(n), 9.0));
  run(f, {&x, &w, &y});
  for (int64_t i = 0; i < n; ++i) {
    float want = 0;
    for (int64_t k = 0; k < 3; ++k)
      if (i + k - 1 >= 0 && i + k - 1 < n) want += float(x.get(i + k - 1)) * float(w.get(k));
    ASSERT_NEAR(y.get(i), want, 1e-5) << "at " << i;
  }
}

// The body of the block named `name`.
Stmt body_of(const Schedule& s, const std::string& name) {
  auto info = find_block(s.func().body, name, nullptr);
  return info ? info->block->body : Stmt();
}

bool has_select(const Stmt& s) {
  struct Finder : IRVisitor {
    bool found = false;
    void visit_Select(const Select*, const Expr&) override { found = true; }
  } f;
  f.visit(s);
  return f.found;
}

TEST(Partition, SequentialPartsFoldTheGuardOfTheInterior) {
  PaddedConv c = make_padded_conv(10);
  Schedule s(c.func);
  auto l = s.get_loops(s.get_block("conv"));
  auto parts = s.partition(l[0], {1, 9});
  ASSERT_EQ(parts.size(), 3u);
  // Left border, interior, right border: only the interior is free of the guard (and clamp).
  EXPECT_TRUE(has_select(body_of(s, "conv_p0")));
  EXPECT_FALSE(has_select(body_of(s, "conv_p1"))) << to_string(body_of(s, "conv_p1"));
  EXPECT_TRUE(has_select(body_of(s, "conv_p2")));
  expect_conv_numbers(s.func(), 10);
  EXPECT_TRUE(replays(s, c.func));
  EXPECT_NE(s.trace().to_python_script().find("sch.partition(l1, cuts=[1, 9]"), std::string::npos)
      << s.trace().to_python_script();
}

TEST(Partition, AReductionPartWhoseGuardIsFalseIsRemoved) {
  // Output 0 alone, then its kernel taps: tap 0 reads X[-1] (padding), so that part goes.
  PaddedConv c = make_padded_conv(6);
  Schedule s(c.func);
  BlockRV conv = s.get_block("conv");
  auto l = s.get_loops(conv);
  auto rows = s.partition(l[0], {1});
  BlockRV first = s.get_child_blocks(rows[0])[0];
  s.decompose_reduction(first, s.get_loops(first)[1]);
  BlockRV update = s.get_child_blocks(s.get_loops(first)[0]).back();
  auto taps = s.partition(s.get_loops(update).back(), {1});
  ASSERT_EQ(taps.size(), 2u);
  // Only the part of taps 1 and 2 is left, without its guard.
  int count = 0;
  EXPECT_FALSE(find_block(s.func().body, s.name_of(update) + "_p0", &count).has_value());
  auto kept = find_block(s.func().body, s.name_of(update) + "_p1", &count);
  ASSERT_TRUE(kept.has_value());
  EXPECT_FALSE(has_select(kept->block->body)) << to_string(kept->block->body);
  expect_conv_numbers(s.func(), 6);
  EXPECT_TRUE(replays(s, c.func));
}

TEST(Partition, BranchesKeepOneLoop) {
  PaddedConv c = make_padded_conv(8);
  Schedule s(c.func);
  auto l = s.get_loops(s.get_block("conv"));
  auto parts = s.partition(l[0], {1, 7}, /*branch=*/true);
  ASSERT_EQ(parts.size(), 3u);
  // Still one loop over i (its body branches), so it can be fused and run in parallel.
  auto loops = s.get_loops(s.get_block("conv_p1"));
  ASSERT_EQ(loops.size(), 2u);
  EXPECT_EQ(s.loop_var(loops[0]).name(), "i");
  EXPECT_FALSE(has_select(body_of(s, "conv_p1")));
  s.parallel(loops[0]);
  expect_conv_numbers(s.func(), 8);
  EXPECT_TRUE(replays(s, c.func));
}

TEST(Partition, Errors) {
  PaddedConv c = make_padded_conv(8);
  Schedule s(c.func);
  auto l = s.get_loops(s.get_block("conv"));
  EXPECT_EQ(schedule_error([&] { s.partition(l[0], {}); }),
            "cannot partition loop \"i\": no cut points");
  EXPECT_EQ(schedule_error([&] { s.partition(l[0], {0}); }),
            "cannot partition loop \"i\": cut 0 is not inside [0, 8) after the previous one");
  EXPECT_EQ(schedule_error([&] {
              s.partition(l[0], {5, 3});
            }),
            "cannot partition loop \"i\": cut 3 is not inside [0, 8) after the previous one");
  EXPECT_EQ(schedule_error([&] { s.partition(l[1], {1}, true); }),
            "cannot partition loop \"k\": with branches its body must be one loop");
  s.parallel(l[0]);
  EXPECT_EQ(schedule_error([&] { s.partition(l[0], {4}); }),
            "cannot partition loop \"i\": it is already parallel");
}

}  // namespace
}  // namespace ingot::schedule::testing

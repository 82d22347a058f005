// Primitive rfactor: the partial-result block and the write-back (structure, numbers through the
// interpreter against closed forms, trace replay), with decompose_reduction and vectorize on the
// partial results, a max reduction over two loops with a tail partition (the row-reduction
// rule's sequence), the GPU row rule's (a masked tail, the lanes outside), and the errors.
#include <algorithm>

#include "sched_test_util.h"

namespace ingot::schedule::testing {
namespace {

// The rf block's iter vars as "name:kind" ("s" spatial, "r" reduce).
std::vector<std::string> iter_kinds(const Schedule& s, const std::string& block) {
  auto info = find_block(s.func().body, block, nullptr);
  std::vector<std::string> out;
  for (const IterVar& iv : info->block->iter_vars)
    out.push_back(iv.var.name() + (iv.kind == IterKind::kSpatial ? ":s" : ":r"));
  return out;
}

TEST(Rfactor, MatmulSplitKIntoPartialSums) {
  Matmul m = make_matmul(4, 6, 8);
  Schedule s(m.func);
  BlockRV c = s.get_block("C");
  auto l = s.get_loops(c);
  auto k = s.split(l[2], {std::nullopt, 4});
  BlockRV rf = s.rfactor(k[1]);
  EXPECT_EQ(s.name_of(rf), "C_rf");
  EXPECT_EQ(iter_kinds(s, "C_rf"),
            (std::vector<std::string>{"vi:s", "vj:s", "k_1_rf:s", "k_0_r:r"}));
  // The write-back keeps the name and the init, and reduces over the 4 partial results.
  auto wb = find_block(s.func().body, "C", nullptr);
  ASSERT_TRUE(wb.has_value());
  EXPECT_TRUE(wb->block->init.defined());
  ASSERT_EQ(wb->loops.size(), 3u);  // i, j and the write-back loop
  EXPECT_EQ(wb->loops[2].as<For>()->loop_var.name(), "k_1_wb");
  expect_matmul_numbers(s.func(), 4, 6, 8);
  EXPECT_TRUE(replays(s, m.func));
  // The partial results initialised before the strips and vectorized along the lanes.
  BlockRV init = s.decompose_reduction(rf, k[0]);
  s.vectorize(s.get_loops(init).back());
  s.vectorize(k[1]);
  expect_matmul_numbers(s.func(), 4, 6, 8);
  EXPECT_TRUE(replays(s, m.func));
}

// acc[i] = max over (a, b) of X[i, a, b]: init -inf, a reduction over two loops.
struct RowMax {
  Buffer X, Y;
  PrimFunc func;
};

RowMax make_row_max(int64_t rows, int64_t a, int64_t b) {
  RowMax r;
  r.X = Buffer::make("X", DataType::f32(), {rows, a, b});
  r.Y = Buffer::make("Y", DataType::f32(), std::vector<int64_t>{rows});
  Var vi("vi"), va("va"), vb("vb"), i("i"), ia("a"), ib("b");
  Stmt body = BufferStore::make(r.Y, max(r.Y(vi), r.X(vi, va, vb)), {vi});
  Stmt blk = make_block("rmax",
                        {{vi, i64(0), i64(rows), IterKind::kSpatial},
                         {va, i64(0), i64(a), IterKind::kReduce},
                         {vb, i64(0), i64(b), IterKind::kReduce}},
                        body, BufferStore::make(r.Y, min_value(DataType::f32()), {vi}));
  r.func =
      PrimFunc{"row_max",
               {r.X, r.Y},
               nest({{i, rows}, {ia, a}, {ib, b}}, BlockRealize::make({i, ia, ib}, yes(), blk))};
  return r;
}

void expect_row_max_numbers(const PrimFunc& f, int64_t rows, int64_t a, int64_t b) {
  HostTensor x(DataType::f32(), {rows, a, b}, random_values(rows * a * b, 7));
  HostTensor y(DataType::f32(), std::vector<int64_t>{rows});
  run(f, {&x, &y});
  std::vector<double> xv = x.values();
  for (int64_t i = 0; i < rows; ++i) {
    double want = *std::max_element(xv.begin() + i * a * b, xv.begin() + (i + 1) * a * b);
    ASSERT_EQ(y.get(i), want) << "row " << i;
  }
}

TEST(Rfactor, MaxOverTwoLoopsWithATail) {
  RowMax r = make_row_max(3, 5, 21);
  Schedule s(r.func);
  BlockRV b = s.get_block("rmax");
  auto l = s.get_loops(b);
  // Whole strips of 8 and a scalar tail; the strips' lanes hold partial maxima over a and b.
  auto parts = s.partition(l[2], {16});
  auto strip = s.split(parts[0], {std::nullopt, 8});
  BlockRV rf = s.rfactor(strip[1]);
  EXPECT_EQ(s.name_of(rf), "rmax_p0_rf");
  EXPECT_EQ(iter_kinds(s, "rmax_p0_rf"),
            (std::vector<std::string>{"vi:s", "b_p0_1_rf:s", "a_r:r", "b_p0_0_r:r"}));
  BlockRV init = s.decompose_reduction(rf, l[1]);  // once per row, before the loop over a
  s.vectorize(s.get_loops(init).back());
  s.vectorize(strip[1]);
  expect_row_max_numbers(s.func(), 3, 5, 21);
  EXPECT_TRUE(replays(s, r.func));
}

// The GPU row rule's sequence: the reduction's loops fused and split by 32 with a masked tail
// (105 = 3 x 32 + 9), the partial results one per lane, the lane loop outside. The init of the
// partial results drops the tail's predicate (ko * 32 + ki < 105 masks reduction steps only):
// lanes 9..31, which the last strip skips, are initialised too.
TEST(Rfactor, LanesOutsideAMaskedTailAreAllInitialised) {
  RowMax r = make_row_max(3, 5, 21);
  Schedule s(r.func);
  BlockRV b = s.get_block("rmax");
  auto l = s.get_loops(b);
  auto split = s.split(s.fuse({l[1], l[2]}), {std::nullopt, 32});
  BlockRV rf = s.rfactor(split[1]);
  s.reorder({split[1], split[0]});
  BlockRV init = s.decompose_reduction(rf, split[0]);
  auto init_info = find_block(s.func().body, s.name_of(init), nullptr);
  ASSERT_TRUE(init_info.has_value());
  int64_t always = 0;
  EXPECT_TRUE(is_const_int(init_info->br->predicate, &always) && always == 1)
      << to_string(init_info->br->predicate);
  expect_row_max_numbers(s.func(), 3, 5, 21);
  EXPECT_TRUE(replays(s, r.func));
  // The write-back reduces over the lanes into Y, a global buffer: not across threads.
  s.decompose_reduction(b, s.get_loops(b).back());
  EXPECT_EQ(schedule_error([&] { s.bind(s.get_loops(b).back(), "threadIdx.x"); }),
            "cannot bind loop \"a_b_fused_1_wb\" to threadIdx.x: it carries the reduction iter "
            "var \"a_b_fused_1_wb_v\" of block \"rmax\" (only a threadIdx loop directly around "
            "a block that just combines into a local buffer reduces across threads)");
}

TEST(Rfactor, Errors) {
  Matmul m = make_matmul(4, 6, 8);
  Schedule s(m.func);
  auto l = s.get_loops(s.get_block("C"));
  EXPECT_EQ(schedule_error([&] { s.rfactor(l[1]); }),
            "cannot rfactor block \"C\" along loop \"j\": the loop is not one of its reduction "
            "loops");
  Chain ch = make_chain(8);
  Schedule s2(ch.func);
  auto lb = s2.get_loops(s2.get_block("B"));
  EXPECT_EQ(schedule_error([&] { s2.rfactor(lb[0]); }),
            "cannot rfactor block \"B\": its body is not out[i] = combine(out[i], value) with "
            "combine one of +, *, max, min");
  // A loop around two blocks.
  Schedule s3(ch.func);
  s3.compute_at(s3.get_block("B"), s3.get_loops(s3.get_block("C"))[0]);
  auto lc = s3.get_loops(s3.get_block("C"));
  EXPECT_EQ(schedule_error([&] { s3.rfactor(lc[0]); }),
            "cannot rfactor loop \"j\": it holds 2 blocks, not one");
  // The failed calls left the functions and traces as they were.
  EXPECT_TRUE(replays(s, m.func));
}

}  // namespace
}  // namespace ingot::schedule::testing

// More legality checks: each primitive's refusal names the block or loop and says why.
#include "sched_test_util.h"

namespace ingot::schedule::testing {
namespace {

// A -> B (local) read by two consumers C and D.
struct Fork {
  Buffer A = Buffer::make("A", DataType::f32(), std::vector<int64_t>{8});
  Buffer B = Buffer::make("B", DataType::f32(), std::vector<int64_t>{8}, StorageScope::kLocal);
  Buffer C = Buffer::make("C", DataType::f32(), std::vector<int64_t>{8});
  Buffer D = Buffer::make("D", DataType::f32(), std::vector<int64_t>{8});
  Stmt elementwise(const std::string& name, const Buffer& out, const Buffer& in, Var loop) {
    Var v("vi");
    return For::make(loop, i64(0), i64(8), ForKind::kSerial,
                     BlockRealize::make({loop}, yes(),
                                        make_block(name, {{v, i64(0), i64(8), IterKind::kSpatial}},
                                                   BufferStore::make(out, in(v) + 1.0f, {v}))));
  }
  PrimFunc func() {
    Stmt body = SeqStmt::make({elementwise("B", B, A, Var("i")), elementwise("C", C, B, Var("j")),
                               elementwise("D", D, B, Var("k"))});
    return PrimFunc{"fork", {A, C, D}, root(body, {B})};
  }
};

TEST(Legality, ComputeAtWithAnotherReaderOutsideTheLoop) {
  Fork f;
  Schedule s(f.func());
  auto lc = s.get_loops(s.get_block("C"));
  EXPECT_EQ(schedule_error([&] { s.compute_at(s.get_block("B"), lc[0]); }),
            "cannot compute_at block \"B\" under loop \"j\": block \"D\" outside the loop also "
            "reads \"B\"");
}

TEST(Legality, ReverseComputeInlineWithAnotherReader) {
  Fork f;
  Schedule s(f.func());
  EXPECT_EQ(schedule_error([&] { s.reverse_compute_inline(s.get_block("C")); }),
            "cannot reverse-inline block \"C\": another block also reads \"B\"");
  // compute_inline into both readers is fine.
  s.compute_inline(s.get_block("B"));
  HostTensor a(DataType::f32(), {8}, random_values(8, 9)), c(DataType::f32(), {8}),
      d(DataType::f32(), {8});
  run(s.func(), {&a, &c, &d});
  for (int64_t i = 0; i < 8; ++i) {
    EXPECT_FLOAT_EQ(float(c.get(i)), float(a.get(i)) + 1.0f + 1.0f);
    EXPECT_FLOAT_EQ(float(d.get(i)), float(a.get(i)) + 1.0f + 1.0f);
  }
  EXPECT_TRUE(replays(s, f.func()));
}

TEST(Legality, ReorderAndFuseArguments) {
  Matmul m = make_matmul(4, 6, 3);
  Schedule s(m.func);
  auto l = s.get_loops(s.get_block("C"));
  EXPECT_EQ(schedule_error([&] {
              s.reorder({l[0], l[0]});
            }),
            "cannot reorder: loop \"i\" is named twice");
  s.parallel(l[0]);
  EXPECT_EQ(schedule_error([&] {
              s.fuse({l[0], l[1]});
            }),
            "cannot fuse loop \"i\": it is parallel");
  EXPECT_EQ(schedule_error([&] {
              s.split(l[0], {2, 2});
            }),
            "cannot split loop \"i\": it is already parallel");
}

TEST(Legality, CacheReadAndSamplingArguments) {
  Matmul m = make_matmul(4, 6, 3);
  Schedule s(m.func);
  BlockRV c = s.get_block("C");
  EXPECT_EQ(schedule_error([&] { s.cache_read(c, 5, "shared"); }),
            "cannot cache_read block \"C\": read index 5 is out of range (it reads 3 buffers)");
  auto l = s.get_loops(c);
  EXPECT_EQ(schedule_error([&] { s.sample_perfect_tile(l[0], 0, 4); }),
            "cannot sample tiles of loop \"i\": n=0 and max_innermost_factor=4 must be positive");
  EXPECT_EQ(schedule_error([&] { s.sample_categorical({1}, {1.0}, 3); }),
            "cannot use decision 3: there are 1 candidates");
}

TEST(Legality, HandlesFromAnotherScheduleOrRemovedBlocks) {
  Chain ch = make_chain(8);
  Schedule s(ch.func);
  BlockRV b = s.get_block("B");
  s.compute_inline(b);
  EXPECT_EQ(schedule_error([&] { s.get_loops(b); }), "block \"B\" no longer exists in chain");
  EXPECT_EQ(schedule_error([&] { s.get_loops(BlockRV{42}); }),
            "block handle 42 does not belong to this schedule");
}

}  // namespace
}  // namespace ingot::schedule::testing

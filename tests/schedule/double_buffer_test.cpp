// double_buffer (the schedule primitive) and the loop pass that carries it out
// (tir/transforms/double_buffer.h): a tiled matmul whose slabs of A and B are copied into shared
// memory at the k-slab loop, with an odd and an even number of slabs; the numbers against the
// product, the loop's new shape, and the primitive's refusals.
#include "tir/transforms/double_buffer.h"
#include "sched_test_util.h"
#include "tir/analysis.h"
#include "tir/transforms/compact_buffers.h"
#include "tir/visitor.h"

namespace ingot::schedule::testing {
namespace {

// C = A B (M x K x N) with k split into slabs of 4 and both slabs copied into shared memory at
// the slab loop; the slab loop's handle in `ko`.
Schedule staged_matmul(const Matmul& m, LoopRV* ko) {
  Schedule s(m.func);
  BlockRV c = s.get_block("C");
  auto l = s.get_loops(c);
  auto k = s.split(l[2], {std::nullopt, 4});
  BlockRV a = s.cache_read(c, 1, "shared");  // reads are C, A, B
  BlockRV b = s.cache_read(c, 2, "shared");
  s.compute_at(a, k[0]);
  s.compute_at(b, k[0]);
  *ko = k[0];
  return s;
}

struct LoopShape {
  int64_t pairs = -1;      // the extent of the loop over pairs of slabs (-1: none)
  int guards = 0;          // conditions around copies into shared memory
  int shared_buffers = 0;  // shared Allocates
};

LoopShape shape_of(const tir::PrimFunc& f) {
  struct Finder : tir::IRVisitor {
    LoopShape shape;
    void visit_For(const tir::For* op, const tir::Stmt& s) override {
      if (op->loop_var.name().ends_with("_pair")) {
        EXPECT_TRUE(tir::is_const_int(op->extent, &shape.pairs));
      }
      tir::IRVisitor::visit_For(op, s);
    }
    void visit_IfThenElse(const tir::IfThenElse* op, const tir::Stmt& s) override {
      shape.guards +=
          !tir::scope_accesses(op->then_case, tir::StorageScope::kShared).writes.empty();
      tir::IRVisitor::visit_IfThenElse(op, s);
    }
    void visit_Allocate(const tir::Allocate* op, const tir::Stmt& s) override {
      shape.shared_buffers += op->buffer->scope == tir::StorageScope::kShared;
      tir::IRVisitor::visit_Allocate(op, s);
    }
  } finder;
  finder.visit(f.body);
  return finder.shape;
}

// K = 12: three slabs (the last computed after the loop over one pair); K = 16: four (one pair in
// the loop, the last pair's copy and computes after it). No copy is guarded.
TEST(DoubleBuffer, SlabsRunOneIterationAheadInASecondBuffer) {
  for (int64_t depth : {12, 16}) {
    Matmul m = make_matmul(4, 6, depth);
    LoopRV ko;
    Schedule s = staged_matmul(m, &ko);
    s.double_buffer(ko);
    auto li = find_loop(s.func().body, s.loop_var(ko).node());
    ASSERT_TRUE(li.has_value());
    EXPECT_EQ(li->node->kind, ForKind::kDoubleBuffered);
    EXPECT_TRUE(replays(s, m.func));
    expect_matmul_numbers(s.func(), 4, 6, depth);  // the loop's semantics: serial
    EXPECT_NE(s.trace().to_python_script().find("sch.double_buffer(l"), std::string::npos);

    tir::PrimFunc f = tir::double_buffer(tir::compact_buffers(tir::lower_blocks(s.func())));
    LoopShape shape = shape_of(f);
    const int64_t slabs = depth / 4;
    EXPECT_EQ(shape.pairs, slabs % 2 == 0 ? slabs / 2 - 1 : slabs / 2) << depth;
    EXPECT_EQ(shape.guards, 0) << depth;
    EXPECT_EQ(shape.shared_buffers, 4) << depth;
    HostTensor a(DataType::f32(), {4, depth}, random_values(4 * depth, 1));
    HostTensor b(DataType::f32(), {depth, 6}, random_values(depth * 6, 2));
    HostTensor c(DataType::f32(), {4, 6});
    ingot::testing::run_prim_func(f, {&a, &b, &c});
    std::vector<double> want = matmul_reference(a.values(), b.values(), 4, 6, depth);
    for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(c.get(int64_t(i)), want[i], 1e-4) << i;
  }
}

// One slab: nothing to overlap; the pass leaves a plain loop and one set of buffers.
TEST(DoubleBuffer, OneSlabStaysAsItIs) {
  Matmul m = make_matmul(4, 6, 4);
  LoopRV ko;
  Schedule s = staged_matmul(m, &ko);
  s.double_buffer(ko);
  tir::PrimFunc f = tir::double_buffer(tir::compact_buffers(tir::lower_blocks(s.func())));
  EXPECT_EQ(shape_of(f).pairs, -1);
  EXPECT_EQ(shape_of(f).shared_buffers, 2);
}

TEST(DoubleBuffer, NeedsASerialLoopThatOpensWithItsCopies) {
  Matmul m = make_matmul(4, 6, 12);
  LoopRV ko;
  Schedule s = staged_matmul(m, &ko);
  auto l = s.get_loops(s.get_block("C"));
  EXPECT_EQ(schedule_error([&] { s.double_buffer(l[0]); }),
            "cannot double-buffer loop \"i\": its body is one statement, not copies then their "
            "readers");
  EXPECT_EQ(schedule_error([&] { s.double_buffer(l[3]); }),
            "cannot double-buffer loop \"k_1\": its body is one statement, not copies then their "
            "readers");
  s.unroll(ko);
  EXPECT_EQ(schedule_error([&] { s.double_buffer(ko); }),
            "cannot double-buffer loop \"k_0\": it is unrolled");
  // Copies computed at the rows' loop, around the slab loop: the slab loop holds no copies.
  Matmul m2 = make_matmul(4, 6, 12);
  Schedule s2(m2.func);
  BlockRV c = s2.get_block("C");
  auto l2 = s2.get_loops(c);
  auto k = s2.split(l2[2], {std::nullopt, 4});
  s2.compute_at(s2.cache_read(c, 1, "shared"), l2[0]);
  EXPECT_EQ(schedule_error([&] { s2.double_buffer(k[0]); }),
            "cannot double-buffer loop \"k_0\": its body is one statement, not copies then their "
            "readers");
}

}  // namespace
}  // namespace ingot::schedule::testing

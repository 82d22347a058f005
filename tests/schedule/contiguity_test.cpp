// Contiguity of a loop's accesses (schedule/rules/contiguity.h), the test the CPU rules make
// before vectorizing along a loop: whole-loop contiguity of a row-major row, and contiguity in
// runs for channel-blocked tensors, whose runs must divide the block; and the injective rule
// using it: a nest that reads a blocked tensor along its channels vectorizes in strips of a run
// (numbers through the interpreter), and a copy between two blocked layouts runs along the lanes.
#include <gtest/gtest.h>

#include "sched_test_util.h"
#include "schedule/rules/contiguity.h"
#include "schedule/rules/injective.h"
#include "tir/op.h"
#include "tir/printer.h"
#include "tir/transforms/lower_blocks.h"
#include "tir/transforms/vectorize_loops.h"

namespace ingot::schedule::testing {
namespace {

using namespace tir;

// Y[r] = X[index(r)] for r in [0, extent), as the body a rule would look at.
Stmt copy_from(const Buffer& x, std::vector<Expr> index, const Var& r, int64_t extent) {
  Buffer y = Buffer::make("Y", DataType::f32(), std::vector<int64_t>{extent});
  return BufferStore::make(y, x.load(std::move(index)), {r});
}

TEST(Contiguity, RowMajorRowsAreContiguousWholeAndInRuns) {
  Var r("r"), i("i");
  Buffer x = Buffer::make("X", DataType::f32(), std::vector<int64_t>{4, 100});
  Stmt body = copy_from(x, {i, r + 3}, r, 96);
  for (int64_t run : {1, 8, 16, 32}) EXPECT_TRUE(contiguous_in_runs(body, r.node(), 96, run));
  // A stride of two, or the variable outside the last index, is contiguous nowhere.
  Buffer x2 = Buffer::make("X", DataType::f32(), std::vector<int64_t>{200});
  Stmt strided = copy_from(x2, {r * 2}, r, 96);
  Buffer t = Buffer::make("T", DataType::f32(), std::vector<int64_t>{96, 4});
  Stmt outer = copy_from(t, {r, i64(1)}, r, 96);
  for (int64_t run : {1, 16}) {
    EXPECT_FALSE(contiguous_in_runs(strided, r.node(), 96, run)) << run;
    EXPECT_FALSE(contiguous_in_runs(outer, r.node(), 96, run)) << run;
  }
}

TEST(Contiguity, ChannelBlockedReadsAreContiguousInRunsThatDivideTheBlock) {
  // X[c / 32, h, c % 32]: channels in blocks of 32 (NCHWc), read along c.
  Var c("c"), h("h");
  Buffer x = Buffer::make("X", DataType::f32(), std::vector<int64_t>{3, 7, 32});
  Stmt body = copy_from(x, {floordiv(c, i64(32)), h, floormod(c, i64(32))}, c, 96);
  EXPECT_FALSE(contiguous_in_runs(body, c.node(), 96, 1)) << to_string(body);
  for (int64_t run : {8, 16, 32}) EXPECT_TRUE(contiguous_in_runs(body, c.node(), 96, run)) << run;
  EXPECT_FALSE(contiguous_in_runs(body, c.node(), 96, 64));
  // Blocks of 8 (AVX2's one-vector block): runs of 8, not 16; a padded channel count (40 in
  // blocks of 16, a tail run of 8) still moves by one within each run.
  Buffer x8 = Buffer::make("X", DataType::f32(), std::vector<int64_t>{5, 8});
  Stmt b8 = copy_from(x8, {floordiv(c, i64(8)), floormod(c, i64(8))}, c, 40);
  EXPECT_TRUE(contiguous_in_runs(b8, c.node(), 40, 8));
  EXPECT_FALSE(contiguous_in_runs(b8, c.node(), 40, 16));
  Buffer x16 = Buffer::make("X", DataType::f32(), std::vector<int64_t>{3, 16});
  Stmt b16 = copy_from(x16, {floordiv(c, i64(16)), floormod(c, i64(16))}, c, 40);
  EXPECT_TRUE(contiguous_in_runs(b16, c.node(), 40, 16));
}

// Y[i, j] = X[j / 32, i, j % 32] over loops (i, j): a head-merging reshape of a tensor kept in
// blocks of 32 along j.
PrimFunc merge_blocks(int64_t rows, int64_t cols) {
  Buffer x = Buffer::make("X", DataType::f32(), std::vector<int64_t>{cols / 32, rows, 32});
  Buffer y = Buffer::make("Y", DataType::f32(), std::vector<int64_t>{rows, cols});
  Var i("i"), j("j"), vi("vi"), vj("vj");
  Stmt blk = make_block(
      "compute",
      {{vi, i64(0), i64(rows), IterKind::kSpatial}, {vj, i64(0), i64(cols), IterKind::kSpatial}},
      BufferStore::make(y, x(floordiv(vj, i64(32)), vi, floormod(vj, i64(32))), {vi, vj}));
  return PrimFunc{
      "merge", {x, y}, nest({{i, rows}, {j, cols}}, BlockRealize::make({i, j}, yes(), blk))};
}

TEST(InjectiveRule, NestsReadingBlockedTensorsVectorizeInStripsOfARun) {
  for (int bits : {512, 256}) {
    SCOPED_TRACE(bits);
    PrimFunc f = merge_blocks(3, 96);
    Schedule s(f);
    schedule_injective(s, CpuVectorIsa::x86(bits));
    // The vector loop is a strip of 16 lanes (runs of 16 divide the blocks of 32), one vector
    // load and store each once the loop is written on vectors.
    std::string ir = to_string(vectorize_loops(lower_blocks_stmt(s.func().body)));
    EXPECT_NE(ir.find(", 1, 16)] = X["), std::string::npos) << ir;
    EXPECT_NE(ir.find("% 2 * 16, 1, 16)]"), std::string::npos) << ir;  // the read, a ramp
    HostTensor x(DataType::f32(), {3, 3, 32}, random_values(3 * 3 * 32, 3));
    HostTensor y(DataType::f32(), std::vector<int64_t>{3, 96});
    run(s.func(), {&x, &y});
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 96; ++j)
        ASSERT_EQ(y.get(i * 96 + j), x.get((j / 32 * 3 + i) * 32 + j % 32)) << i << "," << j;
  }
}

}  // namespace
}  // namespace ingot::schedule::testing

// substitute(), free_vars(), uses_var(), uses_polynomial_math(), reads_own_buffer_at_store_index().
#include <gtest/gtest.h>

#include "support/error.h"
#include "tir/analysis.h"
#include "tir/op.h"
#include "tir/structural_equal.h"
#include "tir/substitute.h"

namespace ingot::tir {
namespace {

TEST(Substitute, ReplacesOnlyMappedVarsAndKeepsUntouchedNodes) {
  Var x("x"), y("y");
  Expr untouched = y * 2;
  Expr e = x + untouched;
  Expr r = substitute(e, x, i64(7));
  EXPECT_TRUE(structural_equal(r, i64(7) + y * 2));
  EXPECT_TRUE(r.as<Add>()->b.same_as(untouched));
  EXPECT_TRUE(substitute(e, Var("z"), i64(1)).same_as(e));
  EXPECT_THROW(substitute(e, x, f32(1)), InternalError);
}

TEST(Substitute, InStatements) {
  Buffer c = Buffer::make("C", DataType::i64(), std::vector<int64_t>{8});
  Var n("n"), i("i");
  Stmt s = For::make(i, i64(0), n, ForKind::kSerial, BufferStore::make(c, n, {i}));
  Stmt expect = For::make(i, i64(0), i64(4), ForKind::kSerial, BufferStore::make(c, i64(4), {i}));
  EXPECT_TRUE(structural_equal(substitute(s, n, i64(4)), expect));
}

TEST(Analysis, PolynomialMathIsFoundAnywhereBelow) {
  Buffer y = Buffer::make("Y", DataType::f32(), std::vector<int64_t>{8});
  Var i("i");
  auto loop = [&](Expr v) {
    return For::make(i, i64(0), i64(8), ForKind::kSerial, BufferStore::make(y, v, {i}));
  };
  EXPECT_TRUE(uses_polynomial_math(loop(y(i) * sigmoid(y(i)))));
  EXPECT_TRUE(uses_polynomial_math(loop(f32(0.5) * (f32(1) + erf(y(i))))));
  EXPECT_TRUE(uses_polynomial_math(loop(exp(y(i)))));
  // Cheap intrinsics and plain arithmetic are not.
  EXPECT_FALSE(uses_polynomial_math(loop(max(y(i), f32(0)))));
  EXPECT_FALSE(uses_polynomial_math(loop(sqrt(fabs(y(i))))));
}

TEST(Analysis, FreeVarsExcludeBoundOnes) {
  Buffer c = Buffer::make("C", DataType::i64(), std::vector<int64_t>{8});
  Var n("n"), m("m"), i("i"), t("t");
  Stmt s = For::make(i, i64(0), n, ForKind::kSerial,
                     LetStmt::make(t, i + m, BufferStore::make(c, t * n, {i})));
  std::vector<Var> fv = free_vars(s);
  ASSERT_EQ(fv.size(), 2u);
  EXPECT_TRUE(fv[0].same_as(n));
  EXPECT_TRUE(fv[1].same_as(m));
  EXPECT_TRUE(uses_var(s, i));
  EXPECT_FALSE(uses_var(s, Var("i")));
  EXPECT_TRUE(free_vars(Let::make(t, i64(1), t + 1)).empty());
  EXPECT_TRUE(uses_var(n * 2, n));
  EXPECT_FALSE(uses_var(n * 2, m));
}

// An in-place update reads its own buffer at the stored index only (an equal expression, not
// the same node, counts); a read elsewhere, or a neighbour's, does not; other buffers are free.
TEST(Analysis, ReadsOwnBufferAtStoreIndex) {
  Buffer y = Buffer::make("Y", DataType::f32(), std::vector<int64_t>{4, 8});
  Buffer z = Buffer::make("Z", DataType::f32(), std::vector<int64_t>{4, 8});
  Var i("i"), j("j");
  auto store = [&](Expr v) { return BufferStore::make(y, v, {i, j + 1}); };
  auto own = [](const Stmt& s) { return reads_own_buffer_at_store_index(*s.as<BufferStore>()); };
  EXPECT_TRUE(own(store(y(i, j + 1) + z(j, i))));
  EXPECT_TRUE(own(store(z(i, j) * f32(2))));
  EXPECT_FALSE(own(store(y(i, j) + f32(1))));
  EXPECT_FALSE(own(store(y(i, j + 1) + y(i + 1, j + 1))));
}

}  // namespace
}  // namespace ingot::tir

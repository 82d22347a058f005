// structural_equal / structural_hash: bound variables map positionally, free ones by identity.
#include <gtest/gtest.h>

#include "tir/op.h"
#include "tir/structural_equal.h"
#include "tir/structural_hash.h"

namespace ingot::tir {
namespace {

PrimFunc copy_kernel(int64_t n, ForKind kind = ForKind::kSerial) {
  Buffer a = Buffer::make("A", DataType::f32(), std::vector<int64_t>{n});
  Buffer b = Buffer::make("B", DataType::f32(), std::vector<int64_t>{n});
  Var i("i");
  return PrimFunc{
      "copy", {a, b}, For::make(i, i64(0), i64(n), kind, BufferStore::make(b, a(i) * f32(2), {i}))};
}

TEST(Structural, IndependentlyBuiltFunctionsAreEqualAndHashEqual) {
  PrimFunc f = copy_kernel(8), g = copy_kernel(8);
  EXPECT_TRUE(structural_equal(f, g));
  EXPECT_EQ(structural_hash(f), structural_hash(g));
}

TEST(Structural, DifferencesAreDetected) {
  PrimFunc f = copy_kernel(8);
  EXPECT_FALSE(structural_equal(f, copy_kernel(9)));
  EXPECT_FALSE(structural_equal(f, copy_kernel(8, ForKind::kParallel)));
  EXPECT_NE(structural_hash(f), structural_hash(copy_kernel(9)));
  EXPECT_NE(structural_hash(f), structural_hash(copy_kernel(8, ForKind::kParallel)));
}

TEST(Structural, ShufflesCompareByIndices) {
  Buffer b = Buffer::make("b", DataType::f32(), std::vector<int64_t>{4});
  Expr v = b(Ramp::make(i64(0), i64(1), 4));
  Expr s = Shuffle::make(v, {0, 0, 2, 2});
  EXPECT_TRUE(structural_equal(s, Shuffle::make(v, {0, 0, 2, 2})));
  EXPECT_EQ(structural_hash(s), structural_hash(Shuffle::make(v, {0, 0, 2, 2})));
  EXPECT_FALSE(structural_equal(s, Shuffle::make(v, {0, 0, 2, 3})));
  EXPECT_NE(structural_hash(s), structural_hash(Shuffle::make(v, {0, 0, 2, 3})));
}

TEST(Structural, FreeVarsCompareByIdentityUnlessMapped) {
  Var x("x"), y("x");
  EXPECT_TRUE(structural_equal(x + 1, x + 1));
  EXPECT_FALSE(structural_equal(x + 1, y + 1));
  EXPECT_TRUE(structural_equal(x + 1, y + 1, /*map_free_vars=*/true));
  EXPECT_FALSE(structural_equal(x + x, x + y, true));  // the mapping is one-to-one
  EXPECT_FALSE(structural_equal(x + 1, x + 2));
  EXPECT_FALSE(
      structural_equal(IntImm::make(DataType::i32(), 1), IntImm::make(DataType::i64(), 1)));
  EXPECT_EQ(structural_hash(x * 3), structural_hash(y * 3));
}

TEST(Structural, LetAndLoopVarsMapPositionally) {
  Var a("a"), b("b"), n("n");
  EXPECT_TRUE(structural_equal(Let::make(a, n, a + 1), Let::make(b, n, b + 1)));
  EXPECT_FALSE(structural_equal(Let::make(a, n, a + 1), Let::make(b, n, n + 1)));
  // the same loop var reused by two loops equals two distinct loop vars
  Buffer c = Buffer::make("C", DataType::i64(), std::vector<int64_t>{4});
  Var i("i"), j("j"), k("k");
  auto loop = [&](Var v) {
    return For::make(v, i64(0), i64(4), ForKind::kSerial, BufferStore::make(c, v, {v}));
  };
  Stmt s1 = SeqStmt::make({loop(i), loop(i)});
  Stmt s2 = SeqStmt::make({loop(j), loop(k)});
  EXPECT_TRUE(structural_equal(s1, s2));
  EXPECT_EQ(structural_hash(s1), structural_hash(s2));
}

TEST(Structural, AllocatedBuffersMapByShape) {
  Buffer t1 = Buffer::make("t", DataType::f32(), std::vector<int64_t>{4}, StorageScope::kLocal);
  Buffer t2 = Buffer::make("u", DataType::f32(), std::vector<int64_t>{4}, StorageScope::kLocal);
  Buffer t3 = Buffer::make("t", DataType::f32(), std::vector<int64_t>{5}, StorageScope::kLocal);
  auto body = [](Buffer t) { return Allocate::make(t, BufferStore::make(t, f32(0), {i64(1)})); };
  EXPECT_TRUE(structural_equal(body(t1), body(t2)));
  EXPECT_FALSE(structural_equal(body(t1), body(t3)));
  EXPECT_EQ(structural_hash(body(t1)), structural_hash(body(t2)));
}

}  // namespace
}  // namespace ingot::tir

// make() factories: argument checks and the typing rules of expression nodes.
#include <gtest/gtest.h>

#include "support/error.h"
#include "tir/op.h"
#include "tir/stmt.h"

namespace ingot::tir {
namespace {

TEST(IrMake, ArithmeticKeepsDtypeAndComparisonsAreBool) {
  Var i("i");
  Expr e = i * 4 + 1;
  EXPECT_EQ(e.dtype(), DataType::i64());
  EXPECT_EQ((i < 3).dtype(), DataType::boolean());
  EXPECT_NE(e.as<Add>(), nullptr);
  EXPECT_EQ(e.as<Mul>(), nullptr);
}

TEST(IrMake, MismatchedOperandsAreInternalErrors) {
  Var i("i");
  EXPECT_THROW(Add::make(i, f32(1.0)), InternalError);
  EXPECT_THROW(FloorDiv::make(f32(1.0), f32(2.0)), InternalError);
}

TEST(IrMake, SeqStmtFlattens) {
  Buffer b = Buffer::make("b", DataType::f32(), std::vector<int64_t>{4});
  Stmt s1 = BufferStore::make(b, f32(1), {i64(0)});
  Stmt s2 = BufferStore::make(b, f32(2), {i64(1)});
  Stmt seq = SeqStmt::make({SeqStmt::make({s1, s2}), s1});
  ASSERT_NE(seq.as<SeqStmt>(), nullptr);
  EXPECT_EQ(seq.as<SeqStmt>()->seq.size(), 3u);
  EXPECT_TRUE(SeqStmt::make({s1}).same_as(s1));
}

TEST(IrMake, ShufflePicksLanesOfOneVector) {
  Buffer b = Buffer::make("b", DataType::f32(), std::vector<int64_t>{8});
  Expr v = b(Ramp::make(i64(0), i64(1), 8));
  Expr s = Shuffle::make(v, {3, 3, 7, 7});
  EXPECT_EQ(s.dtype(), DataType::f32().with_lanes(4));
  EXPECT_THROW(Shuffle::make(v, {8, 0}), InternalError);  // lane 8 of 8
  EXPECT_THROW(Shuffle::make(v, {1}), InternalError);     // one lane: not a vector
  EXPECT_THROW(Shuffle::make(f32(1), {0, 0}), InternalError);
}

TEST(IrMake, StoreChecksElementType) {
  Buffer b = Buffer::make("b", DataType::f32(), std::vector<int64_t>{4});
  EXPECT_THROW(BufferStore::make(b, i64(1), {i64(0)}), InternalError);
  EXPECT_EQ(b(i64(2)).dtype(), DataType::f32());
}

}  // namespace
}  // namespace ingot::tir

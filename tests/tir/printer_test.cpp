// Printer: exact text of small functions and expressions.
#include <gtest/gtest.h>

#include "tir/op.h"
#include "tir/printer.h"

namespace ingot::tir {
namespace {

TEST(Printer, AddKernel) {
  Buffer a = Buffer::make("A", DataType::f32(), std::vector<int64_t>{4, 16});
  Buffer b = Buffer::make("B", DataType::f32(), std::vector<int64_t>{4, 16});
  Buffer c = Buffer::make("C", DataType::f32(), std::vector<int64_t>{4, 16});
  Var i("i"), j("j");
  Stmt body = For::make(i, i64(0), i64(4), ForKind::kParallel,
                        For::make(j, i64(0), i64(16), ForKind::kVectorized,
                                  BufferStore::make(c, a(i, j) + b(i, j), {i, j})));
  EXPECT_EQ(to_string(PrimFunc{"add", {a, b, c}, body}),
            "def add(A: float32[4, 16], B: float32[4, 16], C: float32[4, 16]):\n"
            "  for i in parallel(0, 4):\n"
            "    for j in vectorized(0, 16):\n"
            "      C[i, j] = A[i, j] + B[i, j]\n");
}

TEST(Printer, Shuffle) {
  Buffer b = Buffer::make("B", DataType::f32(), std::vector<int64_t>{8});
  EXPECT_EQ(to_string(Shuffle::make(b(Ramp::make(i64(0), i64(1), 8)), {1, 1, 5, 5})),
            "shuffle(B[ramp(0, 1, 8)], [1, 1, 5, 5])");
}

TEST(Printer, DistinctVarsWithOneNameGetSuffixes) {
  Buffer c = Buffer::make("C", DataType::i64(), std::vector<int64_t>{8});
  Var i1("i"), i2("i");
  Stmt s = SeqStmt::make(
      {For::make(i1, i64(0), i64(2), ForKind::kSerial, BufferStore::make(c, i1, {i1})),
       For::make(i2, i64(0), i64(2), ForKind::kUnrolled, BufferStore::make(c, i2, {i2 + 1}))});
  EXPECT_EQ(to_string(s),
            "for i in range(0, 2):\n"
            "  C[i] = i\n"
            "for i_1 in unrolled(0, 2):\n"
            "  C[i_1 + 1] = i_1\n");
}

TEST(Printer, ParenthesesOnlyWhereNeeded) {
  Var x("x"), y("y");
  EXPECT_EQ(to_string((x + y) * 2), "(x + y) * 2");
  EXPECT_EQ(to_string(x + y * 2), "x + y * 2");
  EXPECT_EQ(to_string(x - (y - 1)), "x - (y - 1)");
  EXPECT_EQ(to_string((x - y) - 1), "x - y - 1");
  EXPECT_EQ(to_string(floordiv(x, i64(4)) + floormod(x, i64(4))), "x // 4 + x % 4");
  EXPECT_EQ(to_string(min(x, y) < 3 && !(x == y)), "min(x, y) < 3 && !(x == y)");
  EXPECT_EQ(to_string(cast(DataType::f32(), x) * f32(0.5)), "float32(x) * 0.5");
  EXPECT_EQ(to_string(IntImm::make(DataType::i32(), 7)), "int32(7)");
  EXPECT_EQ(to_string(f32(2)), "2.0");
}

TEST(Printer, IfLetAllocate) {
  Buffer t = Buffer::make("T", DataType::f32(), std::vector<int64_t>{4}, StorageScope::kLocal);
  Var n("n");
  Stmt s =
      LetStmt::make(n, i64(3),
                    Allocate::make(t, IfThenElse::make(n < 4, BufferStore::make(t, f32(1), {n}),
                                                       BufferStore::make(t, f32(0), {i64(0)}))));
  EXPECT_EQ(to_string(s),
            "n = 3\n"
            "T = allocate(float32[4], \"local\")\n"
            "if n < 4:\n"
            "  T[n] = 1.0\n"
            "else:\n"
            "  T[0] = 0.0\n");
}

}  // namespace
}  // namespace ingot::tir

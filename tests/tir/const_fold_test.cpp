// Constant folding: closed-form values with dtype wraparound and float rounding.
#include <gtest/gtest.h>

#include <cmath>

#include "tir/arith/const_fold.h"
#include "tir/op.h"

namespace ingot::tir::arith {
namespace {

int64_t int_of(const Expr& e) {
  auto* i = e.as<IntImm>();
  EXPECT_NE(i, nullptr);
  return i ? i->value : -999;
}
double float_of(const Expr& e) {
  auto* f = e.as<FloatImm>();
  EXPECT_NE(f, nullptr);
  return f ? f->value : -999;
}
Expr i32(int64_t v) {
  return IntImm::make(DataType::i32(), v);
}
Expr u8(int64_t v) {
  return IntImm::make(DataType::u8(), v);
}

TEST(ConstFold, IntegerArithmeticWraps) {
  EXPECT_EQ(int_of(const_fold(i32(2147483647) + i32(1))), -2147483648LL);
  EXPECT_EQ(int_of(const_fold(u8(250) + u8(10))), 4);
  EXPECT_EQ(int_of(const_fold(u8(3) - u8(5))), 254);
  EXPECT_EQ(int_of(const_fold(i32(65536) * i32(65536))), 0);
  EXPECT_EQ(int_of(const_fold(i64(INT64_MAX) + i64(1))), INT64_MIN);
  EXPECT_EQ(int_of(const_fold(cast(DataType::i8(), i64(200)))), -56);
}

TEST(ConstFold, DivisionKinds) {
  EXPECT_EQ(int_of(const_fold(floordiv(i64(-7), i64(2)))), -4);
  EXPECT_EQ(int_of(const_fold(floormod(i64(-7), i64(2)))), 1);
  EXPECT_EQ(int_of(const_fold(floordiv(i64(7), i64(-2)))), -4);
  EXPECT_EQ(int_of(const_fold(floormod(i64(7), i64(-2)))), -1);
  EXPECT_EQ(int_of(const_fold(Div::make(i64(-7), i64(2)))), -3);  // truncating
  Expr by_zero = floordiv(i64(1), i64(0));
  EXPECT_TRUE(const_fold(by_zero).same_as(by_zero));
}

TEST(ConstFold, FloatsRoundToTheirDtype) {
  EXPECT_EQ(float_of(const_fold(f32(0.1) + f32(0.2))), double(0.1f + 0.2f));
  Expr d = FloatImm::make(DataType::f64(), 0.1) + FloatImm::make(DataType::f64(), 0.2);
  EXPECT_EQ(float_of(const_fold(d)), 0.1 + 0.2);
  EXPECT_EQ(float_of(const_fold(exp(f32(1)))), double(float(std::exp(1.0))));
  EXPECT_EQ(int_of(const_fold(cast(DataType::i32(), f32(-2.7)))), -2);
  Expr huge = cast(DataType::i32(), f32(1e10));
  EXPECT_TRUE(const_fold(huge).same_as(huge));  // out of range: undefined, left alone
}

TEST(ConstFold, ComparisonsLogicSelect) {
  EXPECT_EQ(int_of(const_fold(i64(3) < i64(4))), 1);
  EXPECT_EQ(int_of(const_fold(u8(255) > u8(1))), 1);
  EXPECT_EQ(int_of(const_fold(min(i64(3), i64(-4)))), -4);
  Expr t = IntImm::make(DataType::boolean(), 1), f = IntImm::make(DataType::boolean(), 0);
  EXPECT_EQ(int_of(const_fold(t && f)), 0);
  EXPECT_EQ(int_of(const_fold(!f)), 1);
  Var x("x");
  EXPECT_TRUE(const_fold(select(t, x, x + 1)).same_as(x));
  Expr nan = FloatImm::make(DataType::f32(), NAN);
  EXPECT_EQ(int_of(const_fold(nan == nan)), 0);
}

}  // namespace
}  // namespace ingot::tir::arith

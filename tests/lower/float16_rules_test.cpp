// float16 through the compute rules: elementwise results rounded to half (ties to even), Cast
// to/from float16, and Conv / Gemm / MatMul accumulating in float32 with one final rounding.
#include <gtest/gtest.h>

#include <cmath>

#include "rule_test_util.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;

const double kU = std::ldexp(1.0, -11);  // half an ulp of 1.0 in float16

TEST(Float16Rules, AddRoundsToNearestEven) {
  HostTensor a(DataType::f16(), {3}, {1, 1, 2048});
  HostTensor b(DataType::f16(), {3}, {kU, 3 * kU, 1});
  HostTensor y = run_rule1(make_node(OpKind::Add), {&a, &b}, DataType::f16(), {3});
  // 1 + 2^-11: a tie, to even 1.0; 1 + 3 * 2^-11: a tie, to even 1 + 2^-9; 2048 + 1: a tie
  // (ulp 2), to even 2048.
  EXPECT_EQ(y.values(), (std::vector<double>{1.0, 1.0 + 4 * kU, 2048.0}));
}

TEST(Float16Rules, ReluKeepsHalfValues) {
  HostTensor x(DataType::f16(), {3}, {-1.5, 0.0999755859375, 65504});
  HostTensor y = run_rule1(make_node(OpKind::Relu), {&x}, DataType::f16(), {3});
  EXPECT_EQ(y.values(), (std::vector<double>{0, 0.0999755859375, 65504}));
}

TEST(Float16Rules, CastFloatToHalfRoundsOverflowsAndKeepsSubnormals) {
  HostTensor x(DataType::f32(), {6}, {65519, 65520, -1e6, 1e-8, 3e-8, 0.1});
  graph::Attrs to;
  to.set("to", int64_t(graph::DType::kF16));
  HostTensor y = run_rule1(make_node(OpKind::Cast, to), {&x}, DataType::f16(), {6});
  std::vector<double> v = y.values();
  EXPECT_EQ(v[0], 65504);     // largest finite half
  EXPECT_EQ(v[1], INFINITY);  // the midpoint to 65536 rounds (to even) to infinity
  EXPECT_EQ(v[2], -INFINITY);
  EXPECT_EQ(v[3], 0);                     // under half the smallest subnormal
  EXPECT_EQ(v[4], std::ldexp(1.0, -24));  // the smallest subnormal
  EXPECT_EQ(v[5], 0.0999755859375);       // 0.1 in half: 1638 * 2^-14
}

TEST(Float16Rules, CastHalfToInt64AndFloat64) {
  HostTensor x(DataType::f16(), {3}, {-2.5, 1000.5, 0.1});
  graph::Attrs to_i;
  to_i.set("to", int64_t(graph::DType::kI64));
  EXPECT_EQ(run_rule1(make_node(OpKind::Cast, to_i), {&x}, DataType::i64(), {3}).values(),
            (std::vector<double>{-2, 1000, 0}));
  graph::Attrs to_d;
  to_d.set("to", int64_t(graph::DType::kF64));
  EXPECT_EQ(run_rule1(make_node(OpKind::Cast, to_d), {&x}, DataType::f64(), {3}).values(),
            (std::vector<double>{-2.5, 1000.5, 0.0999755859375}));
}

// 1 followed by eight 2^-11: summed in float16 every step is a tie back to 1.0, summed in float32
// it is 1 + 2^-8, exactly representable in float16.
std::vector<double> ones_and_tiny() {
  std::vector<double> v(9, kU);
  v[0] = 1;
  return v;
}

TEST(Float16Rules, MatMulAccumulatesInFloat32) {
  HostTensor a(DataType::f16(), {2, 9}, [] {
    std::vector<double> v = ones_and_tiny();
    for (int k = 0; k < 9; ++k) v.push_back(-v[k]);
    return v;
  }());
  HostTensor b(DataType::f16(), {9, 1}, std::vector<double>(9, 1.0));
  HostTensor y = run_rule1(make_node(OpKind::MatMul), {&a, &b}, DataType::f16(), {2, 1});
  EXPECT_EQ(y.values(), (std::vector<double>{1 + 8 * kU, -(1 + 8 * kU)}));
}

TEST(Float16Rules, GemmAccumulatesInFloat32WithAlphaAndBias) {
  HostTensor a(DataType::f16(), {1, 9}, ones_and_tiny());
  HostTensor b(DataType::f16(), {2, 9}, [] {
    std::vector<double> v(9, 1.0);
    v.insert(v.end(), 9, 2.0);
    return v;
  }());
  HostTensor c(DataType::f16(), {2}, {0.5, -1});
  graph::Attrs at;
  at.set("transB", int64_t(1));
  at.set("alpha", 2.0);
  HostTensor y = run_rule1(make_node(OpKind::Gemm, at), {&a, &b, &c}, DataType::f16(), {1, 2});
  // 2 * (1 + 2^-8) + 0.5 = 2.5078125 and 2 * 2 * (1 + 2^-8) - 1 = 3.015625 (both exact in half).
  EXPECT_EQ(y.values(), (std::vector<double>{2.5078125, 3.015625}));
}

TEST(Float16Rules, ConvAccumulatesInFloat32) {
  // 1-D conv, one channel, kernel of 9 ones, bias 0.25: one output = 0.25 + 1 + 8 * 2^-11,
  // which rounds once to 1.25390625 (a half value); the second window drops the 1.
  std::vector<double> xv = ones_and_tiny();
  xv.push_back(kU);
  HostTensor x(DataType::f16(), {1, 1, 10}, xv);
  HostTensor w(DataType::f16(), {1, 1, 9}, std::vector<double>(9, 1.0));
  HostTensor bias(DataType::f16(), {1}, {0.25});
  graph::Attrs at;
  at.set("kernel_shape", std::vector<int64_t>{9});
  HostTensor y =
      run_rule1(make_node(OpKind::Conv, at), {&x, &w, &bias}, DataType::f16(), {1, 1, 2});
  EXPECT_EQ(y.values(), (std::vector<double>{1.25 + 8 * kU, 0.25 + 9 * kU}));
}

TEST(Float16Rules, RangeComputesEachValueInFloat32) {
  HostTensor start(DataType::f16(), {}, {1});
  HostTensor limit(DataType::f16(), {}, {1.25});
  HostTensor delta(DataType::f16(), {}, {0.1});  // 0.0999755859375
  HostTensor y =
      run_rule1(make_node(OpKind::Range), {&start, &limit, &delta}, DataType::f16(), {3});
  // 1.0999755859375 -> 1126.375 ulps of 2^-10 -> 1126; 1.199951171875 -> 1228.75 -> 1229.
  EXPECT_EQ(y.values(), (std::vector<double>{1, 1126.0 / 1024, 1229.0 / 1024}));
}

}  // namespace
}  // namespace ingot::testing

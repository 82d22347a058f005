// Compute rules of QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear against closed-form
// values: ties to even, saturation, per-axis and blocked scales, and the dynamic range pass.
#include <gtest/gtest.h>

#include <cmath>

#include "rule_test_util.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;

graph::Node quant_node(OpKind op, int64_t axis = -1, int64_t block = 0) {
  graph::Attrs a;
  if (axis >= 0) a.set("axis", axis);
  a.set("block_size", block);
  return make_node(op, a);
}

TEST(QuantizeRules, PerTensorRoundsTiesToEvenAndSaturates) {
  HostTensor x(DataType::f32(), {7}, {1, 3, 5, -1, -3, 1000, -1000});
  HostTensor scale(DataType::f32(), {}, {2});
  HostTensor zp(DataType::u8(), {}, {10});
  // x / 2 = 0.5, 1.5, 2.5, -0.5, -1.5, 500, -500 -> 0, 2, 2, -0, -2 -> + 10, saturated to [0, 255].
  HostTensor y =
      run_rule1(quant_node(OpKind::QuantizeLinear), {&x, &scale, &zp}, DataType::u8(), {7});
  EXPECT_EQ(y.values(), (std::vector<double>{10, 12, 12, 10, 8, 255, 0}));

  HostTensor no_zp =
      run_rule1(quant_node(OpKind::QuantizeLinear), {&x, &scale, nullptr}, DataType::i8(), {7});
  EXPECT_EQ(no_zp.values(), (std::vector<double>{0, 2, 2, 0, -2, 127, -128}));
}

TEST(QuantizeRules, PerAxisScalesAndZeroPoints) {
  HostTensor x(DataType::f32(), {2, 3}, {1, 2, 3, -4, 10, 100});
  HostTensor scale(DataType::f32(), {3}, {1, 4, 0.5});
  HostTensor zp(DataType::i8(), {3}, {0, 1, -1});
  HostTensor y =
      run_rule1(quant_node(OpKind::QuantizeLinear, 1), {&x, &scale, &zp}, DataType::i8(), {2, 3});
  // column 0: x; column 1: round(x / 4) + 1 (0.5 and 2.5 tie to even); column 2: 2x - 1
  // (saturated).
  EXPECT_EQ(y.values(), (std::vector<double>{1, 1, 5, -4, 3, 127}));
}

TEST(QuantizeRules, BlockedScalesAlongAxis) {
  // x [2, 5], blocks of 2 along axis 1: scale [2, 3]; the last block has one column.
  HostTensor x(DataType::f32(), {2, 5}, {1, 1, 1, 1, 1, 6, 6, 6, 6, 6});
  HostTensor scale(DataType::f32(), {2, 3}, {1, 0.5, 0.25, 2, 3, 6});
  HostTensor y = run_rule1(quant_node(OpKind::QuantizeLinear, 1, 2), {&x, &scale, nullptr},
                           DataType::u8(), {2, 5});
  EXPECT_EQ(y.values(), (std::vector<double>{1, 1, 2, 2, 4, 3, 3, 2, 2, 1}));

  HostTensor q(DataType::i8(), {2, 5}, {1, 2, 3, 4, 5, -1, -2, -3, -4, -5});
  HostTensor zp(DataType::i8(), {2, 3}, {0, 1, 2, 0, -1, -2});
  HostTensor d = run_rule1(quant_node(OpKind::DequantizeLinear, 1, 2), {&q, &scale, &zp},
                           DataType::f32(), {2, 5});
  EXPECT_EQ(d.values(), (std::vector<double>{1, 2, 1, 1.5, 0.75, -2, -4, -6, -9, -18}));
}

TEST(QuantizeRules, DequantizePerAxisInt32AndFloat16Output) {
  HostTensor q(DataType::u8(), {2, 2}, {0, 255, 128, 7});
  HostTensor scale(DataType::f16(), {2}, {0.5, 0.1});  // 0.0999755859375 in float16
  HostTensor zp(DataType::u8(), {2}, {128, 7});
  HostTensor d = run_rule1(quant_node(OpKind::DequantizeLinear, 1), {&q, &scale, &zp},
                           DataType::f16(), {2, 2});
  // (x - zp) * scale in float32, rounded once: 248 * 0.0999755859375 = 24.79394... -> 24.796875.
  EXPECT_EQ(d.values(), (std::vector<double>{-64, 24.796875, 0, 0}));

  HostTensor big(DataType::i32(), {3}, {-1000000, 3, 16777217});
  HostTensor s(DataType::f32(), {}, {0.5});
  HostTensor di =
      run_rule1(quant_node(OpKind::DequantizeLinear), {&big, &s, nullptr}, DataType::f32(), {3});
  EXPECT_EQ(di.values(), (std::vector<double>{-500000, 1.5, 8388608}));  // float32(2^24 + 1)
}

// Regression: ONNX Runtime's quantizer writes a per-tensor [1] scale with a scalar zero point
// (a BatchNormalization bias quantized without pre-processing); indexing the zero point with the
// scale's index was an internal error ("region of ..._zero_point needs one range per dimension").
TEST(QuantizeRules, PerTensorScaleAndZeroPointOfDifferentRanks) {
  HostTensor q(DataType::i8(), {4}, {-60, 37, 0, 127});
  HostTensor scale(DataType::f32(), {1}, {0.5});
  HostTensor zp(DataType::i8(), {}, {-2});
  HostTensor d =
      run_rule1(quant_node(OpKind::DequantizeLinear), {&q, &scale, &zp}, DataType::f32(), {4});
  EXPECT_EQ(d.values(), (std::vector<double>{-29, 19.5, 1, 64.5}));
  HostTensor x(DataType::f32(), {4}, {-29, 19.5, 1, 100});
  HostTensor y =
      run_rule1(quant_node(OpKind::QuantizeLinear), {&x, &scale, &zp}, DataType::i8(), {4});
  EXPECT_EQ(y.values(), (std::vector<double>{-60, 37, 0, 127}));  // 198 saturates
}

// The ONNX reference of DynamicQuantizeLinear, in float32.
std::vector<double> dynamic_ref(const std::vector<float>& x, float* scale, float* zp) {
  float hi = 0, lo = 0;
  for (float v : x) hi = std::max(hi, v), lo = std::min(lo, v);
  *scale = (hi == lo ? 1.0f : hi - lo) / 255.0f;
  *zp = std::nearbyint(std::min(std::max(0.0f - lo / *scale, 0.0f), 255.0f));
  std::vector<double> y;
  for (float v : x) y.push_back(std::min(std::max(std::nearbyint(v / *scale) + *zp, 0.0f), 255.0f));
  return y;
}

TEST(QuantizeRules, DynamicQuantizeLinear) {
  for (std::vector<float> xs : {std::vector<float>{-1, 0, 2, 0.5f, -0.25f, 1.7f},
                                std::vector<float>{0.5f, 3, 1},        // min clamps to 0
                                std::vector<float>{-4, -1, -0.3f}}) {  // max clamps to 0
    std::vector<double> xd(xs.begin(), xs.end());
    HostTensor x(DataType::f32(), {int64_t(xs.size())}, xd);
    auto outs = run_rule(make_node(OpKind::DynamicQuantizeLinear), {&x},
                         {HostTensor(DataType::u8(), {int64_t(xs.size())}),
                          HostTensor(DataType::f32(), {}), HostTensor(DataType::u8(), {})});
    float scale = 0, zp = 0;
    std::vector<double> want = dynamic_ref(xs, &scale, &zp);
    EXPECT_EQ(outs[0].values(), want);
    EXPECT_EQ(outs[1].values(), std::vector<double>{scale});
    EXPECT_EQ(outs[2].values(), std::vector<double>{zp});
  }
  // Spot check of the closed form: range [-1, 2] -> scale 3/255, zero point 85.
  HostTensor x(DataType::f32(), {2}, {-1, 2});
  auto outs = run_rule(make_node(OpKind::DynamicQuantizeLinear), {&x},
                       {HostTensor(DataType::u8(), {2}), HostTensor(DataType::f32(), {}),
                        HostTensor(DataType::u8(), {})});
  EXPECT_EQ(outs[0].values(), (std::vector<double>{0, 255}));
  EXPECT_EQ(outs[2].values(), std::vector<double>{85});
}

}  // namespace
}  // namespace ingot::testing

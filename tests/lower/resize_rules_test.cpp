// Compute rule of Resize (canonical form) against closed-form values: nearest rounding modes,
// linear / cubic weights, antialias, exclude_outside, tf_crop_and_resize extrapolation and
// integer rounding.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "rule_test_util.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;
using F = std::vector<double>;

graph::Node resize_node(const std::string& mode, const std::string& ctm, F scales,
                        graph::Attrs a = {}) {
  a.set("mode", mode);
  a.set("coordinate_transformation_mode", ctm);
  a.set("scales", scales);
  return make_node(OpKind::Resize, a);
}

TEST(ResizeRules, NearestAsymmetricFloorReplicates) {
  HostTensor x = random_f32({1, 2, 2, 3}, 3);
  graph::Attrs a;
  a.set("nearest_mode", std::string("floor"));
  HostTensor y = run_rule1(resize_node("nearest", "asymmetric", {1, 1, 2, 3}, a), {&x},
                           DataType::f32(), {1, 2, 4, 9});
  std::vector<double> want;
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 9; ++j)
        want.push_back(x.get(flat_index({1, 2, 2, 3}, {0, c, i / 2, j / 3})));
  expect_near_all(y.values(), want);
}

TEST(ResizeRules, NearestModesResolveTies) {
  // asymmetric x2 on [10, 20, 30, 40]: output 1 sits at 0.5, output 3 at 1.5, output 7 at 3.5.
  HostTensor x(DataType::f32(), {4}, {10, 20, 30, 40});
  auto run = [&](const char* nearest) {
    graph::Attrs a;
    a.set("nearest_mode", std::string(nearest));
    return run_rule1(resize_node("nearest", "asymmetric", {2}, a), {&x}, DataType::f32(), {8})
        .values();
  };
  expect_near_all(run("round_prefer_floor"), {10, 10, 20, 20, 30, 30, 40, 40});
  expect_near_all(run("round_prefer_ceil"), {10, 20, 20, 30, 30, 40, 40, 40});
  expect_near_all(run("floor"), {10, 10, 20, 20, 30, 30, 40, 40});
  expect_near_all(run("ceil"), {10, 20, 20, 30, 30, 40, 40, 40});
  // half_pixel 5 -> 2 (scale 0.4): sources 0.75 and 3.25 round to 1 and 3.
  HostTensor x5(DataType::f32(), {5}, {1, 2, 3, 4, 5});
  HostTensor d =
      run_rule1(resize_node("nearest", "half_pixel", {0.4}), {&x5}, DataType::f32(), {2});
  expect_near_all(d.values(), {2, 4});
}

TEST(ResizeRules, LinearHalfPixelAndAlignCorners) {
  HostTensor x(DataType::f32(), {1, 3}, {1, 5, 3});
  // half_pixel x2: sources -0.25, 0.25, 0.75, ..., 2.25; the edges clamp.
  HostTensor y =
      run_rule1(resize_node("linear", "half_pixel", {1, 2}), {&x}, DataType::f32(), {1, 6});
  expect_near_all(y.values(), {1, 0.75 * 1 + 0.25 * 5, 0.25 * 1 + 0.75 * 5, 0.75 * 5 + 0.25 * 3,
                               0.25 * 5 + 0.75 * 3, 3});
  // align_corners 3 -> 5: sources 0, 0.5, 1, 1.5, 2.
  HostTensor z = run_rule1(resize_node("linear", "align_corners", {1, 5.0 / 3}), {&x},
                           DataType::f32(), {1, 5});
  expect_near_all(z.values(), {1, 3, 5, 4, 3});
}

// Keys cubic convolution weight, written from its definition.
double keys(double d, double a) {
  d = std::abs(d);
  if (d <= 1) return (a + 2) * d * d * d - (a + 3) * d * d + 1;
  if (d < 2) return a * d * d * d - 5 * a * d * d + 8 * a * d - 4 * a;
  return 0;
}

TEST(ResizeRules, CubicTwoDimensionsIsSeparable) {
  // 2-D cubic (A = -0.75), asymmetric x1.5 in both dims: weights per axis from Keys' kernel.
  const int H = 4, W = 4, OH = 6, OW = 6;
  HostTensor x = random_f32({H, W}, 5);
  HostTensor y =
      run_rule1(resize_node("cubic", "asymmetric", {1.5, 1.5}), {&x}, DataType::f32(), {OH, OW});
  std::vector<double> want;
  for (int i = 0; i < OH; ++i)
    for (int j = 0; j < OW; ++j) {
      double si = i / 1.5, sj = j / 1.5, v = 0;
      for (int ti = int(std::floor(si)) - 1; ti <= int(std::floor(si)) + 2; ++ti)
        for (int tj = int(std::floor(sj)) - 1; tj <= int(std::floor(sj)) + 2; ++tj) {
          int ci = std::clamp(ti, 0, H - 1), cj = std::clamp(tj, 0, W - 1);
          v += keys(ti - si, -0.75) * keys(tj - sj, -0.75) * x.get(ci * W + cj);
        }
      want.push_back(v);
    }
  expect_near_all(y.values(), want, 1e-5);
}

TEST(ResizeRules, CubicExcludeOutsideRenormalises) {
  // A = -0.5, asymmetric x2: output 1 sits at 0.5; tap -1 is outside and dropped.
  HostTensor x(DataType::f32(), {4}, {1, 2, 4, 8});
  graph::Attrs a;
  a.set("cubic_coeff_a", -0.5);
  a.set("exclude_outside", int64_t(1));
  HostTensor y = run_rule1(resize_node("cubic", "asymmetric", {2}, a), {&x}, DataType::f32(), {8});
  // K(0.5) = 0.5625, K(1.5) = -0.0625 for A = -0.5.
  double want1 = (0.5625 * 1 + 0.5625 * 2 - 0.0625 * 4) / (0.5625 + 0.5625 - 0.0625);
  EXPECT_NEAR(y.get(0), 1, 1e-6);
  EXPECT_NEAR(y.get(1), want1, 1e-5);
  EXPECT_NEAR(y.get(2), 2, 1e-6);
}

TEST(ResizeRules, LinearAntialiasDownsampleIsATriangleFilter) {
  // scale 0.5, half_pixel: output i sits at 2i + 0.5; taps 2i-1 .. 2i+2 weigh 1/8, 3/8, 3/8, 1/8.
  HostTensor x(DataType::f32(), {1, 8}, {1, 2, 4, 8, 16, 32, 64, 128});
  graph::Attrs a;
  a.set("antialias", int64_t(1));
  HostTensor y =
      run_rule1(resize_node("linear", "half_pixel", {1, 0.5}, a), {&x}, DataType::f32(), {1, 4});
  auto at = [&](int i) { return x.get(std::clamp(i, 0, 7)); };
  std::vector<double> want;
  for (int i = 0; i < 4; ++i)
    want.push_back((at(2 * i - 1) + 3 * at(2 * i) + 3 * at(2 * i + 1) + at(2 * i + 2)) / 8);
  expect_near_all(y.values(), want);
}

TEST(ResizeRules, TfCropAndResizeExtrapolates) {
  // roi [-0.5, 1.5] of 5 values into 5: sources 2i - 2; outside [0, 4] gives the value 7.
  HostTensor x(DataType::f32(), {5}, {1, 2, 3, 4, 5});
  graph::Attrs a;
  a.set("roi", F{-0.5, 1.5});
  a.set("extrapolation_value", 7.0);
  HostTensor y =
      run_rule1(resize_node("linear", "tf_crop_and_resize", {1}, a), {&x}, DataType::f32(), {5});
  expect_near_all(y.values(), {7, 1, 3, 5, 7});
}

TEST(ResizeRules, IntegerLinearRoundsHalfToEven) {
  // half_pixel x2 on [10, 13]: 10, 10.75, 12.25, 13 -> 10, 11, 12, 13; [1, 2]: 1.25, 1.75 -> 1, 2.
  HostTensor x(DataType::u8(), {2, 2}, {10, 13, 1, 2});
  HostTensor y =
      run_rule1(resize_node("linear", "half_pixel", {1, 2}), {&x}, DataType::u8(), {2, 4});
  expect_near_all(y.values(), {10, 11, 12, 13, 1, 1, 2, 2});
}

}  // namespace
}  // namespace ingot::testing

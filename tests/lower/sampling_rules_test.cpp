// Compute rules of the spatial sampling ops (GridSample, AffineGrid, Col2Im, RoiAlign,
// DeformConv) against the ONNX reference implementation's outputs and closed forms; cases beyond
// the thin ONNX node-test data. Every expected-value list below (all but AffineGrid's closed
// forms) is printed by tests/lower/gen_sampling_expected.py (onnx.reference on these inputs,
// "%.7g"); `python3 tests/lower/gen_sampling_expected.py --check
// tests/lower/sampling_rules_test.cpp` checks the committed values against it.
#include <gtest/gtest.h>

#include <string>

#include "rule_test_util.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;

TEST(GridSampleRules, EveryModePaddingAndAlignment) {
  // X = arange(24) / 2 - 3 as [1, 2, 3, 4]; grid points inside and outside [-1, 1].
  std::vector<double> xv;
  for (int i = 0; i < 24; ++i) xv.push_back(i * 0.5 - 3);
  HostTensor x(DataType::f32(), {1, 2, 3, 4}, xv);
  HostTensor grid(DataType::f32(), {1, 2, 3, 2},
                  {-1.3, -0.9, 0.2, 0.35, 1.2, 1.1, 0.7, -1.6, -0.45, 0.9, 2.7, -0.05});
  struct Case {
    const char* mode;
    const char* padding;
    int64_t align;
    std::vector<double> want;  // the ONNX reference implementation's output
  };
  const Case cases[] = {
      {"linear", "zeros", 0, {0, 1, 0.08749995, 0, 0.8450001, 0, 0, 7, 0.2974998, 0, 4.745, 0}},
      {"linear",
       "zeros",
       1,
       {-1.54, 0.6000001, 1.575, -0.6899999, 1.2125, 0, 1.76, 6.599999, 5.354999, 1.71, 7.212501,
        0}},
      {"linear", "border", 0, {-3, 1, 2.5, -1.55, 1.3, 0.3499999, 3, 7, 8.5, 4.45, 7.299999, 6.35}},
      {"linear",
       "border",
       1,
       {-2.8, 0.6000001, 2.5, -1.725, 1.2125, 0.4, 3.2, 6.599999, 8.5, 4.275, 7.212501, 6.4}},
      {"linear",
       "reflection",
       0,
       {-2.95, 1, 2.5, -0.7499998, 1.3, -1.1, 3.05, 7, 8.5, 5.25, 7.299999, 4.9}},
      {"linear",
       "reflection",
       1,
       {-2.575, 0.6000001, 2.15, -0.5249999, 1.2125, -0.8750001, 3.425, 6.599999, 8.150001, 5.475,
        7.212501, 5.125}},
      {"nearest", "zeros", 0, {0, 2, 0, 0, 1.5, 0, 0, 8, 0, 0, 7.5, 0}},
      {"nearest", "zeros", 1, {-3, 0, 2.5, 0, 1.5, 0, 3, 6, 8.5, 0, 7.5, 0}},
      {"nearest", "border", 0, {-3, 2, 2.5, -1.5, 1.5, 0.5, 3, 8, 8.5, 4.5, 7.5, 6.5}},
      {"nearest", "border", 1, {-3, 0, 2.5, -1.5, 1.5, 0.5, 3, 6, 8.5, 4.5, 7.5, 6.5}},
      {"nearest", "reflection", 0, {-3, 2, 2.5, -1.5, 1.5, -1, 3, 8, 8.5, 4.5, 7.5, 5}},
      {"nearest", "reflection", 1, {-3, 0, 2.5, 0.5, 1.5, -1, 3, 6, 8.5, 6.5, 7.5, 5}},
      {"cubic",
       "zeros",
       0,
       {0.1350468, 1.355621, 0.07916956, 0.1759054, 1.120974, 0, -0.1080967, 7.944767, 0.2429743,
        -0.5114622, 5.411523, 0}},
      {"cubic",
       "zeros",
       1,
       {-1.740369, 0.8757194, 1.792901, -0.8700147, 1.330122, 0, 1.799486, 7.234032, 5.76417,
        1.695658, 7.815226, 0}},
      {"cubic",
       "border",
       0,
       {-3.221813, 1.165916, 2.5, -1.537625, 1.473812, 0.2832258, 2.778189, 7.165916, 8.5, 4.462375,
        7.473812, 6.283226}},
      {"cubic",
       "border",
       1,
       {-2.8495, 0.7636873, 2.5, -1.680141, 1.229064, 0.3536891, 3.150501, 6.763689, 8.5, 4.31986,
        7.229066, 6.353686}},
      {"cubic",
       "reflection",
       0,
       {-3.303626, 1.165916, 2.875, -0.9056244, 1.593249, -1.179149, 2.696376, 7.165916, 8.875,
        5.094375, 7.593249, 4.820851}},
      {"cubic",
       "reflection",
       1,
       {-2.841906, 0.8831245, 2.410251, -0.7650939, 1.34109, -1.020781, 3.158095, 6.883126,
        8.410254, 5.234905, 7.341091, 4.979218}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.mode) + " " + c.padding +
                 " align_corners=" + std::to_string(c.align));
    graph::Attrs a;
    a.set("mode", std::string(c.mode));
    a.set("padding_mode", std::string(c.padding));
    a.set("align_corners", c.align);
    HostTensor y =
        run_rule1(make_node(OpKind::GridSample, a), {&x, &grid}, DataType::f32(), {1, 2, 2, 3});
    expect_near_all(y.values(), c.want, 1e-4);
  }
}

TEST(GridSampleRules, Volumetric) {
  std::vector<double> xv;
  for (int i = 0; i < 24; ++i) xv.push_back(i * 0.25);
  HostTensor x(DataType::f32(), {1, 1, 2, 3, 4}, xv);
  HostTensor grid(DataType::f32(), {1, 1, 1, 2, 3}, {-0.8, 0.3, 0.6, 1.4, -1.2, 0.1});
  struct Case {
    const char* mode;
    const char* padding;
    int64_t align;
    std::vector<double> want;
  };
  const Case cases[] = {
      {"cubic", "reflection", 0, {4.731533, 2.408062}},
      {"linear", "border", 1, {3.775, 2.4}},
      {"nearest", "zeros", 0, {4, 0}},
      {"linear", "zeros", 0, {3.6045, 0}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.mode) + " " + c.padding);
    graph::Attrs a;
    a.set("mode", std::string(c.mode));
    a.set("padding_mode", std::string(c.padding));
    a.set("align_corners", c.align);
    HostTensor y =
        run_rule1(make_node(OpKind::GridSample, a), {&x, &grid}, DataType::f32(), {1, 1, 1, 1, 2});
    expect_near_all(y.values(), c.want, 1e-4);
  }
}

TEST(Col2ImRules, StridesPadsDilationsAndOneD) {
  // [1, 2 * 2*2, 8] columns (i % 7 - 2), image 4x5, pads [1,0,0,1], strides [2,1], dilations [1,2]
  std::vector<double> xv;
  for (int i = 0; i < 64; ++i) xv.push_back(i % 7 - 2);
  HostTensor x(DataType::f32(), {1, 8, 8}, xv);
  graph::Attrs a;
  a.set("image_shape", std::vector<int64_t>{4, 5});
  a.set("block_shape", std::vector<int64_t>{2, 2});
  a.set("pads", std::vector<int64_t>{1, 0, 0, 1});
  a.set("strides", std::vector<int64_t>{2, 1});
  a.set("dilations", std::vector<int64_t>{1, 2});
  HostTensor y = run_rule1(make_node(OpKind::Col2Im, a), {&x}, DataType::f32(), {1, 2, 4, 5});
  expect_near_all(y.values(), {0, 1,  3,  5,  3, 2,  3, 7, 2, -2, 4, -2, -3, -1, 0, 0, 0, 0, 0, 0,
                               4, -2, -3, -1, 0, -1, 0, 1, 3, 2,  1, 2,  5,  7,  4, 0, 0, 0, 0, 0});
  // 1-D: overlapping blocks of 3 over 6 positions sum up.
  HostTensor x1(DataType::i32(), {1, 3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  graph::Attrs b;
  b.set("image_shape", std::vector<int64_t>{6});
  b.set("block_shape", std::vector<int64_t>{3});
  b.set("pads", std::vector<int64_t>{0, 0});
  b.set("strides", std::vector<int64_t>{1});
  b.set("dilations", std::vector<int64_t>{1});
  HostTensor y1 = run_rule1(make_node(OpKind::Col2Im, b), {&x1}, DataType::i32(), {1, 1, 6});
  expect_near_all(y1.values(), {1, 7, 18, 21, 19, 12});
}

TEST(RoiAlignRules, ModesCoordinatesAndAdaptiveSampling) {
  // X [2, 1, 5, 6] = (i % 11) / 2; rois partly outside the image, one smaller than a pixel.
  std::vector<double> xv;
  for (int i = 0; i < 60; ++i) xv.push_back((i % 11) * 0.5);
  HostTensor x(DataType::f32(), {2, 1, 5, 6}, xv);
  HostTensor rois(DataType::f32(), {3, 4},
                  {0.3, 0.8, 4.1, 3.6, -1.5, -0.5, 7.5, 6.2, 2, 1, 2.2, 1.1});
  HostTensor batch(DataType::i64(), {3}, {1, 0, 1});
  struct Case {
    const char* mode;
    const char* ctm;
    int64_t ratio;
    std::vector<double> want;  // the ONNX reference implementation's output
  };
  const Case cases[] = {
      {"avg",
       "half_pixel",
       0,
       {2.375, 2.88, 2.935667, 3.81, 3.2854, 0.8616665, 0.8248148, 2.112222, 2.41637, 1.245555,
        2.743333, 2.235926, 3.763334, 3.79, 3.816666, 3.663333, 3.69, 3.716667}},
      {"avg",
       "half_pixel",
       2,
       {2.375, 2.88, 2.935667, 3.81, 3.2854, 0.8616665, 0.7062499, 2.3125, 2.411125, 0.86875,
        2.6375, 2.29475, 3.763333, 3.79, 3.816667, 3.663333, 3.69, 3.716667}},
      {"avg",
       "output_half_pixel",
       0,
       {2.693333, 2.204133, 2.219467, 4.073333, 1.762533, 1.346666, 1.425556, 2.492222, 2.323556,
        2.01, 2.941407, 2.147778, 2.3225, 2.425, 2.591667, 1.714167, 1.175, 1.341667}},
      {"avg",
       "output_half_pixel",
       2,
       {2.693333, 2.204133, 2.219467, 4.073333, 1.762533, 1.346666, 1.2925, 2.3425, 2.3535, 2.325,
        3.375, 1.8625, 2.370625, 2.404375, 2.502292, 1.714167, 1.175, 1.341667}},
      {"max",
       "half_pixel",
       0,
       {2.32, 2.5926, 2.842, 4.05, 4.470001, 1.127, 2, 2.399999, 2.5, 3.079999, 3.563998, 3.5,
        2.6724, 2.5092, 2.346, 2.5152, 2.3616, 2.208}},
      {"max",
       "half_pixel",
       2,
       {2.32, 2.5926, 2.842, 4.05, 4.470001, 1.127, 2.403, 2.180501, 3.114998, 1.4175, 1.260001,
        2.488499, 2.7531, 2.5875, 2.4219, 2.5935, 2.4375, 2.2815}},
      {"max",
       "output_half_pixel",
       0,
       {2.4, 2.269333, 2.6864, 4.8, 2.368, 2.044, 2.82, 3.384001, 4.699998, 2.543334, 2.906668, 3.5,
        1.820833, 2.1375, 1.345833, 0.8625001, 1.0125, 0.6375}},
      {"max",
       "output_half_pixel",
       2,
       {2.4, 2.269333, 2.6864, 4.8, 2.368, 2.044, 1.17, 1.755, 1.83, 3.325, 4.749999, 3.5, 1.965625,
        2.273958, 1.503125, 1.221875, 1.413542, 0.9343752}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.mode) + " " + c.ctm + " sampling_ratio=" + std::to_string(c.ratio));
    graph::Attrs a;
    a.set("mode", std::string(c.mode));
    a.set("coordinate_transformation_mode", std::string(c.ctm));
    a.set("output_height", int64_t(2));
    a.set("output_width", int64_t(3));
    a.set("sampling_ratio", c.ratio);
    a.set("spatial_scale", 0.8);
    HostTensor y = run_rule1(make_node(OpKind::RoiAlign, a), {&x, &rois, &batch}, DataType::f32(),
                             {3, 1, 2, 3});
    expect_near_all(y.values(), c.want, 1e-4);
  }
}

TEST(DeformConvRules, GroupsOffsetGroupsMaskAndBias) {
  HostTensor x(DataType::f32(), {1, 4, 3, 4},
               {-0.83, -0.53, 0.6,   0.16,  -0.81, -0.13, -0.04, -0.68, 0.47,  -0.77, -0.22, 0.03,
                -0.14, 0.17,  0.48,  0.91,  -0.43, 0.3,   0.39,  -0.41, -1,    0.95,  -0.4,  -0.37,
                0.78,  0.17,  -0.06, 0.55,  -0.94, 0.41,  -0.25, -0.82, 0.32,  0.86,  -0.59, 0.26,
                -0.4,  0.48,  0.44,  -0.56, 0.66,  0.32,  0.37,  0.64,  -0.14, 0.52,  0.76,  -0.8});
  HostTensor w(DataType::f32(), {2, 2, 2, 2},
               {0.7, -0.21, -0.04, -0.71, 0.4, -0.42, 0.74, -0.45, 0.12, -0.2, 0.23, -0.61, -0.64,
                0.49, 0.5, 0.13});
  HostTensor offset(
      DataType::f32(), {1, 16, 4, 2},
      {1.26,  -0.88, 1.05,  -0.99, 1.39,  0.37,  0.32,  1.41,  0.86,  0.87,  -1.34, -0.39, -1.25,
       -0.92, -0.86, 1.08,  -1.12, -0.61, -0.02, 1.05,  1.4,   0.62,  -0.86, 0.13,  0.62,  -1.34,
       0.54,  -0.4,  0.27,  0.51,  0.51,  0.07,  0.16,  -0.91, -0.01, -1.12, -0.06, 0.11,  0.82,
       -0.32, -1.44, 0.08,  -0.88, 0.72,  -0.33, -0.36, 1.23,  -0.32, -0.45, -0.46, -0.06, -1.22,
       0.14,  1.26,  0.19,  0.73,  1.34,  1.03,  0.73,  0.94,  0.96,  -0.74, -0.05, -0.47, -0.71,
       0.21,  -0.55, 0.36,  0.25,  -1.19, -0.17, -0.33, 0.62,  -1.24, -0.99, 0.04,  -0.29, 0.5,
       -0.5,  -0.91, 1.3,   -0.77, -1.06, -0.66, -0.48, -0.82, 0.11,  1.31,  -1.12, -0.25, 0.5,
       1.15,  1.5,   -1.07, 0.11,  1.14,  -1.34, 0.26,  -0.98, 0.8,   1.31,  0.11,  -1.47, -1.31,
       -0.25, 1.04,  -0.79, 0.51,  -0.28, -0.7,  0.61,  -0.58, -0.38, 0.8,   -0.01, 0.85,  0.05,
       -1.02, -0.17, 1.12,  0.19,  1.39,  -1.5,  -0.48, 0.81,  0.56,  0.18,  0.49});
  HostTensor mask(DataType::f32(), {1, 8, 4, 2},
                  {0.88, 0.68, 0.55, 0.56, 0.67, 0.32, 0.67, 0.62, 0.79, 0.48, 0.03, 0.54, 0.86,
                   0.64, 0.64, 0.39, 0.36, 0.72, 0.08, 0.87, 0.88, 0.96, 0.14, 0.12, 0.89, 0.4,
                   0.27, 0.38, 0.66, 0.16, 0.49, 0.66, 0.72, 0.01, 0.81, 0.43, 0.44, 0.56, 0.28,
                   0.89, 0.21, 0.54, 0.17, 0.62, 0.9,  0.88, 0.13, 0.62, 0.89, 0.2,  0.41, 0.71,
                   0.74, 0.45, 0.64, 0.67, 0.35, 0.65, 0.58, 0.7,  0.51, 0.34, 0.43, 0.92});
  HostTensor bias(DataType::f32(), {2}, {0.5, -0.25});
  graph::Attrs a;
  a.set("group", int64_t(2));
  a.set("offset_group", int64_t(2));
  a.set("kernel_shape", std::vector<int64_t>{2, 2});
  a.set("pads", std::vector<int64_t>{1, 0, 1, 0});
  a.set("strides", std::vector<int64_t>{1, 2});
  a.set("dilations", std::vector<int64_t>{1, 1});
  graph::Node n = make_node(OpKind::DeformConv, a);
  HostTensor y = run_rule1(n, {&x, &w, &offset, &bias, &mask}, DataType::f32(), {1, 2, 4, 2});
  expect_near_all(y.values(),
                  {-0.04019949, 0.5232025, 0.4561548, 1.000594, 0.195701, 0.6223366, 0.4246006,
                   0.5485659, -0.2705747, -0.2655313, -0.06254224, -0.284869, -0.09544143,
                   0.2205657, -0.09924294, -0.2411875},
                  1e-4);
  // Zero offsets, no mask or bias: a plain grouped convolution.
  HostTensor zero(DataType::f32(), {1, 16, 4, 2});
  HostTensor y0 = run_rule1(n, {&x, &w, &zero}, DataType::f32(), {1, 2, 4, 2});
  expect_near_all(y0.values(),
                  {0.2294, -0.1919, -0.9256001, 1.1537, -1.4773, 0.301, -0.3083, -0.1649,
                   -0.06190002, -0.2021, 0.4561, 0.03770001, -0.9138, 0.1925, 0.2108, -1.0012},
                  1e-4);
}

TEST(AffineGridRules, TwoAndThreeDClosedForm) {
  // 2-D, size [1, 1, 2, 3]: base x = (2i + 1) / 3 - 1, y = (2j + 1) / 2 - 1 (align_corners 0);
  // theta = [[2, 0, 0.5], [1, -1, 0]] -> (2x + 0.5, x - y).
  HostTensor theta(DataType::f32(), {1, 2, 3}, {2, 0, 0.5, 1, -1, 0});
  graph::Attrs a;
  a.set("size", std::vector<int64_t>{1, 1, 2, 3});
  a.set("align_corners", int64_t(0));
  HostTensor y =
      run_rule1(make_node(OpKind::AffineGrid, a), {&theta}, DataType::f32(), {1, 2, 3, 2});
  std::vector<double> want;
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 3; ++i) {
      double x = (2 * i + 1) / 3.0 - 1, yy = (2 * j + 1) / 2.0 - 1;
      want.push_back(2 * x + 0.5);
      want.push_back(x - yy);
    }
  expect_near_all(y.values(), want);
  // align_corners 1: base from -1 to 1 inclusive (a size-1 dim is -1).
  a.set("align_corners", int64_t(1));
  y = run_rule1(make_node(OpKind::AffineGrid, a), {&theta}, DataType::f32(), {1, 2, 3, 2});
  want.clear();
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 3; ++i) {
      double x = -1 + i, yy = -1 + 2 * j;
      want.push_back(2 * x + 0.5);
      want.push_back(x - yy);
    }
  expect_near_all(y.values(), want);
  // 3-D, size [2, 1, 1, 2, 2], identity per batch plus a batch-dependent shift in z.
  HostTensor theta3(DataType::f32(), {2, 3, 4},
                    {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3});
  graph::Attrs b;
  b.set("size", std::vector<int64_t>{2, 1, 1, 2, 2});
  b.set("align_corners", int64_t(1));
  HostTensor y3 =
      run_rule1(make_node(OpKind::AffineGrid, b), {&theta3}, DataType::f32(), {2, 1, 2, 2, 3});
  want.clear();
  for (int n = 0; n < 2; ++n)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 2; ++w) {
        want.push_back(-1 + 2 * w);
        want.push_back(-1 + 2 * h);
        want.push_back(-1 + 3 * n);
      }
  expect_near_all(y3.values(), want);
}

}  // namespace
}  // namespace ingot::testing

// Compute rules of ConstantOfShape, Size, Range, Slice, Expand, Tile, Trilu, DepthToSpace,
// SpaceToDepth and GatherElements against reference loops.
#include <gtest/gtest.h>

#include <string>

#include "rule_test_util.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;
using V = std::vector<int64_t>;

TEST(SliceTileRules, ConstantOfShapeAndSize) {
  graph::Attrs a;
  a.set("value", 7.0);
  HostTensor y = run_rule1(make_node(OpKind::ConstantOfShape, a), {}, DataType::i32(), {2, 3});
  expect_near_all(y.values(), std::vector<double>(6, 7.0));
  HostTensor x(DataType::f32(), {2, 3, 5});
  HostTensor s = run_rule1(make_node(OpKind::Size), {&x}, DataType::i64(), {});
  expect_near_all(s.values(), {30});
}

TEST(SliceTileRules, Range) {
  HostTensor start(DataType::f32(), {}, {1.5}), limit(DataType::f32(), {}, {-1}),
      delta(DataType::f32(), {}, {-0.75});
  HostTensor y =
      run_rule1(make_node(OpKind::Range), {&start, &limit, &delta}, DataType::f32(), {4});
  std::vector<double> want;
  for (double v = 1.5; v > -1; v -= 0.75) want.push_back(v);
  expect_near_all(y.values(), want);
}

TEST(SliceTileRules, SliceWithNegativeStep) {
  // x[1:3, 4:0:-2] of a 3x5 tensor, as normalised by inference.
  HostTensor x = random_f32({3, 5});
  graph::Attrs a;
  a.set("starts", V{1, 4});
  a.set("ends", V{3, 0});
  a.set("axes", V{0, 1});
  a.set("steps", V{1, -2});
  HostTensor y = run_rule1(make_node(OpKind::Slice, a), {&x}, DataType::f32(), {2, 2});
  std::vector<double> want;
  for (int i = 1; i < 3; ++i)
    for (int j = 4; j > 0; j -= 2) want.push_back(x.get(flat_index({3, 5}, {i, j})));
  expect_near_all(y.values(), want);
}

TEST(SliceTileRules, ExpandBroadcasts) {
  HostTensor x = random_f32({3, 1});
  HostTensor y = run_rule1(make_node(OpKind::Expand), {&x}, DataType::f32(), {2, 3, 4});
  std::vector<double> want;
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) want.push_back(x.get(i));
  expect_near_all(y.values(), want);
}

TEST(SliceTileRules, TileRepeats) {
  HostTensor x(DataType::i64(), {2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor y = run_rule1(make_node(OpKind::Tile), {&x}, DataType::i64(), {4, 6});
  std::vector<double> want;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) want.push_back(x.get(flat_index({2, 3}, {i % 2, j % 3})));
  expect_near_all(y.values(), want);
}

}  // namespace
}  // namespace ingot::testing

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;

TEST(RearrangeRules, TriluUpperAndLower) {
  HostTensor x = random_f32({2, 3, 4});
  for (int64_t upper : {0, 1})
    for (int64_t k : {-1, 0, 2}) {
      graph::Attrs a;
      a.set("upper", upper);
      HostTensor kt(DataType::i64(), {}, {double(k)});
      HostTensor y = run_rule1(make_node(OpKind::Trilu, a), {&x, k == 0 ? nullptr : &kt},
                               DataType::f32(), {2, 3, 4});
      std::vector<double> want;
      for (int b = 0; b < 2; ++b)
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 4; ++j) {
            bool keep = upper ? j - i >= k : j - i <= k;
            want.push_back(keep ? x.get(flat_index({2, 3, 4}, {b, i, j})) : 0.0);
          }
      expect_near_all(y.values(), want);
    }
}

// numpy reference of DepthToSpace: reshape, transpose, reshape (ONNX's definition).
TEST(RearrangeRules, DepthToSpaceModesAndSpaceToDepthInverse) {
  const int64_t N = 1, C = 8, H = 2, W = 3, b = 2, c = C / (b * b);
  HostTensor x = random_f32({N, C, H, W});
  for (const char* mode : {"DCR", "CRD"}) {
    graph::Attrs a;
    a.set("blocksize", b);
    a.set("mode", std::string(mode));
    HostTensor y =
        run_rule1(make_node(OpKind::DepthToSpace, a), {&x}, DataType::f32(), {N, c, H * b, W * b});
    std::vector<double> want;
    for (int64_t oc = 0; oc < c; ++oc)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < b; ++i)
          for (int64_t w = 0; w < W; ++w)
            for (int64_t j = 0; j < b; ++j) {
              int64_t ic =
                  std::string(mode) == "DCR" ? (i * b + j) * c + oc : oc * b * b + i * b + j;
              want.push_back(x.get(flat_index({N, C, H, W}, {0, ic, h, w})));
            }
    // want is in (oc, h, i, w, j) order = output (oc, h*b+i, w*b+j) row-major order
    expect_near_all(y.values(), want);
    {  // SpaceToDepth in the same mode is the inverse
      graph::Attrs s;
      s.set("blocksize", b);
      s.set("mode", std::string(mode));
      HostTensor back =
          run_rule1(make_node(OpKind::SpaceToDepth, s), {&y}, DataType::f32(), {N, C, H, W});
      expect_near_all(back.values(), x.values());
    }
  }
}

TEST(RearrangeRules, GatherElementsAxis1) {
  HostTensor data(DataType::f32(), {2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor idx(DataType::i64(), {2, 2}, {0, -1, 2, 1});
  graph::Attrs a;
  a.set("axis", int64_t(1));
  HostTensor y =
      run_rule1(make_node(OpKind::GatherElements, a), {&data, &idx}, DataType::f32(), {2, 2});
  expect_near_all(y.values(), {1, 3, 6, 5});
}

}  // namespace
}  // namespace ingot::testing

// Compute rules of the ops added for ONNX conformance (issue 4) against hand-computed values and
// independent reference loops in the test: MaxPool's Indices (both storage orders, padding, ties),
// GlobalMaxPool, MaxUnpool, LRN, Shrink, EyeLike, ReverseSequence, CumProd, Det, LpNormalization
// of a zero row (regression) and BitCast through lower_graph (its input read as the output dtype).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "graph/transforms/infer_types.h"
#include "lower/lower_graph.h"
#include "rule_test_util.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;

std::vector<double> iota(int n, double from = 1) {
  std::vector<double> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), from);
  return v;
}

graph::Attrs window(std::vector<int64_t> kernel, std::vector<int64_t> strides,
                    std::vector<int64_t> pads) {
  graph::Attrs a;
  a.set("kernel_shape", kernel);
  a.set("strides", strides);
  a.set("dilations", std::vector<int64_t>(kernel.size(), 1));
  a.set("pads", pads);
  return a;
}

TEST(PoolExtraRules, MaxPoolIndicesBothStorageOrders) {
  HostTensor x(DataType::f32(), {1, 1, 5, 5}, iota(25));
  graph::Attrs a = window({2, 2}, {2, 2}, {0, 0, 0, 0});
  auto run = [&](int64_t order) {
    a.set("storage_order", order);
    return run_rule(
        make_node(OpKind::MaxPool, a), {&x},
        {HostTensor(DataType::f32(), {1, 1, 2, 2}), HostTensor(DataType::i64(), {1, 1, 2, 2})});
  };
  std::vector<HostTensor> rows = run(0);
  expect_near_all(rows[0].values(), {7, 9, 17, 19});
  expect_near_all(rows[1].values(), {6, 8, 16, 18});
  std::vector<HostTensor> cols = run(1);  // ONNX test_maxpool_with_argmax_2d_precomputed_strides
  expect_near_all(cols[1].values(), {6, 16, 8, 18});
}

TEST(PoolExtraRules, MaxPoolIndicesWithPaddingChannelsAndTies) {
  // ONNX test_maxpool_with_argmax_2d_precomputed_pads: 5x5 kernel, pads 2.
  HostTensor x(DataType::f32(), {1, 1, 5, 5}, iota(25));
  std::vector<HostTensor> out = run_rule(
      make_node(OpKind::MaxPool, window({5, 5}, {1, 1}, {2, 2, 2, 2})), {&x},
      {HostTensor(DataType::f32(), {1, 1, 5, 5}), HostTensor(DataType::i64(), {1, 1, 5, 5})});
  expect_near_all(out[1].values(), {12, 13, 14, 14, 14, 17, 18, 19, 19, 19, 22, 23, 24,
                                    24, 24, 22, 23, 24, 24, 24, 22, 23, 24, 24, 24});
  // Two batches x two channels of a 1x4 row: indices count whole planes before them; the first
  // of equal maxima wins, also when every value is the lowest float.
  double lo = -std::numeric_limits<float>::infinity();
  HostTensor y(DataType::f32(), {2, 2, 1, 4}, {1, 3, 3, 2, 5, 1, 1, 5, lo, lo, lo, lo, 0, 0, 9, 9});
  std::vector<HostTensor> t = run_rule(
      make_node(OpKind::MaxPool, window({1, 4}, {1, 1}, {0, 0, 0, 0})), {&y},
      {HostTensor(DataType::f32(), {2, 2, 1, 1}), HostTensor(DataType::i64(), {2, 2, 1, 1})});
  expect_near_all(t[1].values(), {1, 4, 8, 14});
}

TEST(PoolExtraRules, GlobalMaxPool) {
  HostTensor x(DataType::f32(), {1, 2, 2, 2}, {1, -4, 3, 2, -5, -6, -1, -7});
  expect_near_all(
      run_rule1(make_node(OpKind::GlobalMaxPool), {&x}, DataType::f32(), {1, 2, 1, 1}).values(),
      {3, -1});
  HostTensor xi(DataType::i32(), {2, 1, 3}, {4, 9, 2, -3, -8, -5});
  expect_near_all(
      run_rule1(make_node(OpKind::GlobalMaxPool), {&xi}, DataType::i32(), {2, 1, 1}).values(),
      {9, -3});
}

TEST(PoolExtraRules, MaxUnpoolWithAndWithoutOutputShape) {
  // ONNX test_maxunpool_export_{without,with}_output_shape.
  HostTensor x(DataType::f32(), {1, 1, 2, 2}, {5, 6, 7, 8});
  HostTensor i(DataType::i64(), {1, 1, 2, 2}, {5, 7, 13, 15});
  graph::Attrs a;
  a.set("kernel_shape", std::vector<int64_t>{2, 2});
  a.set("strides", std::vector<int64_t>{2, 2});
  a.set("pads", std::vector<int64_t>{0, 0, 0, 0});
  HostTensor y4 =
      run_rule1(make_node(OpKind::MaxUnpool, a), {&x, &i}, DataType::f32(), {1, 1, 4, 4});
  expect_near_all(y4.values(), {0, 0, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0, 0, 7, 0, 8});
  a.set("output_shape", std::vector<int64_t>{1, 1, 5, 5});
  HostTensor y5 =
      run_rule1(make_node(OpKind::MaxUnpool, a), {&x, &i}, DataType::f32(), {1, 1, 5, 5});
  expect_near_all(y5.values(),
                  {0, 0, 0, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0, 0, 0, 0, 7, 0, 8, 0, 0, 0, 0, 0, 0});
  // Out-of-range indices are skipped; a later duplicate overwrites an earlier one.
  HostTensor bad(DataType::i64(), {1, 1, 2, 2}, {-1, 16, 3, 3});
  a.erase("output_shape");
  HostTensor yb =
      run_rule1(make_node(OpKind::MaxUnpool, a), {&x, &bad}, DataType::f32(), {1, 1, 4, 4});
  expect_near_all(yb.values(), {0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
}

TEST(NormExtraRules, LRNMatchesTheFormula) {
  std::vector<int64_t> shape = {2, 5, 2, 3};
  HostTensor x = random_f32(shape, 7, -2, 2);
  for (int64_t size : {1, 2, 3, 4}) {
    graph::Attrs a;
    a.set("size", size);
    a.set("alpha", 0.3);
    a.set("beta", 0.75);
    a.set("bias", 2.0);
    HostTensor y = run_rule1(make_node(OpKind::LRN, a), {&x}, DataType::f32(), shape);
    std::vector<double> want;
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t c = 0; c < 5; ++c)
        for (int64_t s = 0; s < 6; ++s) {
          double sq = 0;
          int64_t lo = std::max<int64_t>(0, c - (size - 1) / 2);
          int64_t hi = std::min<int64_t>(4, c + size / 2);  // ceil((size - 1) / 2)
          for (int64_t i = lo; i <= hi; ++i) sq += std::pow(x.get((n * 5 + i) * 6 + s), 2);
          want.push_back(x.get((n * 5 + c) * 6 + s) /
                         std::pow(2.0 + 0.3 / double(size) * sq, 0.75));
        }
    expect_near_all(y.values(), want, 1e-5);
  }
}

TEST(NormExtraRules, LpNormalizationOfAZeroRowIsZero) {
  HostTensor x(DataType::f32(), {2, 3}, {0, 0, 0, 3, -4, 0});
  graph::Attrs a;
  a.set("axis", int64_t(1));
  a.set("p", int64_t(2));
  expect_near_all(
      run_rule1(make_node(OpKind::LpNormalization, a), {&x}, DataType::f32(), {2, 3}).values(),
      {0, 0, 0, 0.6, -0.8, 0});
  a.set("p", int64_t(1));
  expect_near_all(
      run_rule1(make_node(OpKind::LpNormalization, a), {&x}, DataType::f32(), {2, 3}).values(),
      {0, 0, 0, 3.0 / 7, -4.0 / 7, 0});
}

TEST(ActivationExtraRules, ShrinkFloatAndInteger) {
  HostTensor x(DataType::f32(), {5}, {-2, -1, 0, 1, 2});
  graph::Attrs a;
  a.set("lambd", 1.5);
  a.set("bias", 1.5);
  expect_near_all(run_rule1(make_node(OpKind::Shrink, a), {&x}, DataType::f32(), {5}).values(),
                  {-0.5, 0, 0, 0, 0.5});
  a.set("bias", 0.0);
  expect_near_all(run_rule1(make_node(OpKind::Shrink, a), {&x}, DataType::f32(), {5}).values(),
                  {-2, 0, 0, 0, 2});
  HostTensor xi(DataType::i32(), {5}, {-3, -1, 0, 2, 5});
  a.set("lambd", 1.0);
  a.set("bias", 0.5);  // computed in float64, truncated toward zero
  expect_near_all(run_rule1(make_node(OpKind::Shrink, a), {&xi}, DataType::i32(), {5}).values(),
                  {-2, 0, 0, 1, 4});
}

TEST(RearrangeExtraRules, EyeLikeDiagonals) {
  HostTensor x(DataType::i32(), {3, 4});
  graph::Attrs a;
  a.set("k", int64_t(1));
  expect_near_all(run_rule1(make_node(OpKind::EyeLike, a), {&x}, DataType::f32(), {3, 4}).values(),
                  {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
  a.set("k", int64_t(-2));
  expect_near_all(
      run_rule1(make_node(OpKind::EyeLike, a), {&x}, DataType::boolean(), {3, 4}).values(),
      {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0});
}

TEST(RearrangeExtraRules, ReverseSequenceSpecExamples) {
  // The two examples of the ONNX operator documentation.
  HostTensor x(DataType::f32(), {4, 4}, iota(16, 0));
  HostTensor time_major(DataType::f32(), {4, 4},
                        {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15});
  HostTensor lens1(DataType::i64(), {4}, {4, 3, 2, 1});
  graph::Attrs a;
  a.set("batch_axis", int64_t(1));
  a.set("time_axis", int64_t(0));
  expect_near_all(run_rule1(make_node(OpKind::ReverseSequence, a), {&time_major, &lens1},
                            DataType::f32(), {4, 4})
                      .values(),
                  {3, 6, 9, 12, 2, 5, 8, 13, 1, 4, 10, 14, 0, 7, 11, 15});
  HostTensor lens2(DataType::i64(), {4}, {1, 2, 3, 4});
  a.set("batch_axis", int64_t(0));
  a.set("time_axis", int64_t(1));
  expect_near_all(
      run_rule1(make_node(OpKind::ReverseSequence, a), {&x, &lens2}, DataType::f32(), {4, 4})
          .values(),
      {0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11, 15, 14, 13, 12});
  // Lengths beyond the time axis are clamped, 0 and negative ones copy.
  HostTensor lens3(DataType::i64(), {4}, {9, 0, -1, 2});
  expect_near_all(
      run_rule1(make_node(OpKind::ReverseSequence, a), {&x, &lens3}, DataType::f32(), {4, 4})
          .values(),
      {3, 2, 1, 0, 4, 5, 6, 7, 8, 9, 10, 11, 13, 12, 14, 15});
}

TEST(CumulativeRules, CumProdSpecExamples) {
  HostTensor x(DataType::i32(), {3}, {1, 2, 3});
  auto run = [&](int ex, int rev) {
    graph::Attrs a;
    a.set("axis", int64_t(0));
    a.set("exclusive", int64_t(ex));
    a.set("reverse", int64_t(rev));
    return run_rule1(make_node(OpKind::CumProd, a), {&x}, DataType::i32(), {3}).values();
  };
  expect_near_all(run(0, 0), {1, 2, 6});
  expect_near_all(run(1, 0), {1, 1, 2});
  expect_near_all(run(0, 1), {6, 6, 3});
  expect_near_all(run(1, 1), {6, 3, 1});
  // Run-time axis over 2-D float data.
  HostTensor m(DataType::f32(), {2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor axis(DataType::i32(), {}, {0});
  expect_near_all(
      run_rule1(make_node(OpKind::CumProd), {&m, &axis}, DataType::f32(), {2, 3}).values(),
      {1, 2, 3, 4, 10, 18});
}

// Leibniz formula: the sum over permutations, an independent reference for small matrices.
double leibniz_det(const std::vector<double>& a, int n) {
  std::vector<int> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  double det = 0;
  do {
    int inversions = 0;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) inversions += p[size_t(i)] > p[size_t(j)];
    double term = inversions % 2 ? -1 : 1;
    for (int i = 0; i < n; ++i) term *= a[size_t(i * n + p[size_t(i)])];
    det += term;
  } while (std::next_permutation(p.begin(), p.end()));
  return det;
}

TEST(MatrixRules, DetPivotingSingularAndBatched) {
  HostTensor two(DataType::f32(), {2, 2}, {0, 1, 2, 3});  // ONNX test_det_2d
  expect_near_all(run_rule1(make_node(OpKind::Det), {&two}, DataType::f32(), {}).values(), {-2});
  // A zero first pivot, a singular matrix and a random 4x4 in one batch.
  std::vector<double> vals = {0, 2, 1, 0, 1, 0, 3, 0, 4, 1, 0, 0, 0, 0, 0, 1,   // 25
                              1, 2, 3, 4, 2, 4, 6, 8, 0, 1, 0, 1, 5, 3, 2, 1};  // 0
  std::vector<double> r = random_values(16, -2, 2, 3);
  vals.insert(vals.end(), r.begin(), r.end());
  HostTensor batch(DataType::f32(), {3, 4, 4}, vals);
  std::vector<double> want;
  for (int b = 0; b < 3; ++b) {
    std::vector<double> m;
    for (int i = 0; i < 16; ++i) m.push_back(batch.get(b * 16 + i));
    want.push_back(leibniz_det(m, 4));
  }
  EXPECT_NEAR(want[0], 25, 1e-9);
  EXPECT_NEAR(want[1], 0, 1e-9);
  expect_near_all(run_rule1(make_node(OpKind::Det), {&batch}, DataType::f32(), {3}).values(), want,
                  1e-5);
}

TEST(ElementwiseExtraRules, BitCastThroughLowerGraph) {
  // f32 -> i32 and bool -> u8: lower_graph declares the kernel's input with the output's dtype.
  graph::Graph g;
  graph::TensorType f{graph::DType::kF32, {graph::Dim::fixed(3)}};
  graph::TensorType b{graph::DType::kBool, {graph::Dim::fixed(2)}};
  graph::Value* x = g.add_value("x", f);
  graph::Value* m = g.add_value("m", b);
  g.inputs = {x, m};
  graph::Attrs to_i32, to_u8;
  to_i32.set("to", int64_t(graph::DType::kI32));
  to_u8.set("to", int64_t(graph::DType::kU8));
  graph::Value* y = g.add_node(OpKind::BitCast, "bc", {x}, {"y"}, to_i32)->outputs[0];
  graph::Value* z = g.add_node(OpKind::BitCast, "bc2", {m}, {"z"}, to_u8)->outputs[0];
  g.outputs = {y, z};
  graph::infer_types(g);
  tir::IRModule mod = lower::lower_graph(g);
  HostTensor in(DataType::f32(), {3}, {1.0, -2.5, 0.0});
  HostTensor mask(DataType::boolean(), {2}, {1, 0});
  HostTensor oy(DataType::i32(), {3}), oz(DataType::u8(), {2});
  run_module(mod, {&in, &mask}, {&oy, &oz});
  std::vector<double> want;
  for (float v : {1.0f, -2.5f, 0.0f}) {
    int32_t bits;
    std::memcpy(&bits, &v, 4);
    want.push_back(double(bits));
  }
  expect_near_all(oy.values(), want, 0);
  expect_near_all(oz.values(), {1, 0}, 0);
}

}  // namespace
}  // namespace ingot::testing

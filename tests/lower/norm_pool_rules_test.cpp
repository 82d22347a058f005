// Compute rules of BatchNormalization, LayerNormalization, Softmax, pooling and reductions
// against plain reference loops.
#include <gtest/gtest.h>

#include <cmath>

#include "rule_test_util.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;

TEST(NormRules, BatchNormInference) {
  HostTensor x = random_f32({2, 3, 2, 2}, 1);
  HostTensor s = random_f32({3}, 2), b = random_f32({3}, 3), mean = random_f32({3}, 4);
  HostTensor var = random_f32({3}, 5, 0.5, 2);
  graph::Attrs a;
  a.set("epsilon", 1e-3);
  HostTensor y = run_rule1(make_node(OpKind::BatchNormalization, a), {&x, &s, &b, &mean, &var},
                           DataType::f32(), {2, 3, 2, 2});
  std::vector<double> want;
  for (int64_t i = 0; i < x.size(); ++i) {
    int64_t c = (i / 4) % 3;
    want.push_back((x.get(i) - mean.get(c)) / std::sqrt(var.get(c) + 1e-3) * s.get(c) + b.get(c));
  }
  expect_near_all(y.values(), want, 1e-5);
}

TEST(NormRules, InstanceNormPerBatchAndChannel) {
  const int N = 2, C = 3, S = 10;  // spatial 2 x 5
  HostTensor x = random_f32({N, C, 2, 5}, 16, -2, 3);
  HostTensor s = random_f32({C}, 17), b = random_f32({C}, 18);
  graph::Attrs a;
  a.set("epsilon", 1e-3);
  HostTensor y = run_rule1(make_node(OpKind::InstanceNormalization, a), {&x, &s, &b},
                           DataType::f32(), {N, C, 2, 5});
  std::vector<double> want;
  for (int nc = 0; nc < N * C; ++nc) {
    double mean = 0, var = 0;
    for (int i = 0; i < S; ++i) mean += x.get(nc * S + i) / S;
    for (int i = 0; i < S; ++i) var += (x.get(nc * S + i) - mean) * (x.get(nc * S + i) - mean) / S;
    for (int i = 0; i < S; ++i)
      want.push_back((x.get(nc * S + i) - mean) / std::sqrt(var + 1e-3) * s.get(nc % C) +
                     b.get(nc % C));
  }
  expect_near_all(y.values(), want, 1e-5);
}

TEST(NormRules, LayerNormOverLastTwoAxes) {
  HostTensor x = random_f32({3, 2, 4}, 6, -2, 3);
  HostTensor s = random_f32({2, 4}, 7), b = random_f32({4}, 8);
  graph::Attrs a;
  a.set("axis", int64_t(1));
  a.set("epsilon", 1e-5);
  HostTensor y =
      run_rule1(make_node(OpKind::LayerNormalization, a), {&x, &s, &b}, DataType::f32(), {3, 2, 4});
  HostTensor y_nob =
      run_rule1(make_node(OpKind::LayerNormalization, a), {&x, &s}, DataType::f32(), {3, 2, 4});
  std::vector<double> want, want_nob;
  for (int o = 0; o < 3; ++o) {
    double mean = 0, var = 0;
    for (int i = 0; i < 8; ++i) mean += x.get(o * 8 + i) / 8;
    for (int i = 0; i < 8; ++i) var += (x.get(o * 8 + i) - mean) * (x.get(o * 8 + i) - mean) / 8;
    for (int i = 0; i < 8; ++i) {
      double n = (x.get(o * 8 + i) - mean) / std::sqrt(var + 1e-5) * s.get(i);
      want.push_back(n + b.get(i % 4));
      want_nob.push_back(n);
    }
  }
  expect_near_all(y.values(), want, 1e-5);
  expect_near_all(y_nob.values(), want_nob, 1e-5);
}

TEST(NormRules, RMSNormOverTrailingAxes) {
  HostTensor x = random_f32({3, 2, 4}, 21, -2, 3);
  HostTensor s = random_f32({4}, 22);
  graph::Attrs a;
  a.set("axis", int64_t(1));
  a.set("epsilon", 1e-2);
  HostTensor y =
      run_rule1(make_node(OpKind::RMSNormalization, a), {&x, &s}, DataType::f32(), {3, 2, 4});
  std::vector<double> want;
  for (int o = 0; o < 3; ++o) {
    double ms = 0;
    for (int i = 0; i < 8; ++i) ms += x.get(o * 8 + i) * x.get(o * 8 + i) / 8;
    for (int i = 0; i < 8; ++i)
      want.push_back(x.get(o * 8 + i) / std::sqrt(ms + 1e-2) * s.get(i % 4));
  }
  expect_near_all(y.values(), want, 1e-5);
}

TEST(NormRules, GroupNormPerBatchAndGroup) {
  const int N = 2, C = 4, G = 2, S = 3;  // 2 channels per group, spatial 3
  HostTensor x = random_f32({N, C, S}, 23, -2, 3);
  HostTensor s = random_f32({C}, 24), b = random_f32({C}, 25);
  graph::Attrs a;
  a.set("num_groups", int64_t(G));
  a.set("epsilon", 1e-3);
  HostTensor y =
      run_rule1(make_node(OpKind::GroupNormalization, a), {&x, &s, &b}, DataType::f32(), {N, C, S});
  const int R = C / G * S;  // a group's elements are contiguous
  std::vector<double> want;
  for (int ng = 0; ng < N * G; ++ng) {
    double mean = 0, var = 0;
    for (int i = 0; i < R; ++i) mean += x.get(ng * R + i) / R;
    for (int i = 0; i < R; ++i) var += (x.get(ng * R + i) - mean) * (x.get(ng * R + i) - mean) / R;
    for (int i = 0; i < R; ++i) {
      int c = (ng % G) * (C / G) + i / S;
      want.push_back((x.get(ng * R + i) - mean) / std::sqrt(var + 1e-3) * s.get(c) + b.get(c));
    }
  }
  expect_near_all(y.values(), want, 1e-5);
}

// MVN over axes {0, 2} of a [2, 3, 4] tensor: statistics per index of axis 1.
TEST(NormRules, MeanVarianceNormalizationOverNonTrailingAxes) {
  HostTensor x = random_f32({2, 3, 4}, 26, -2, 3);
  graph::Attrs a;
  a.set("axes", std::vector<int64_t>{0, 2});
  HostTensor y =
      run_rule1(make_node(OpKind::MeanVarianceNormalization, a), {&x}, DataType::f32(), {2, 3, 4});
  std::vector<double> want(24);
  for (int c = 0; c < 3; ++c) {
    double mean = 0, sq = 0;
    for (int n = 0; n < 2; ++n)
      for (int k = 0; k < 4; ++k) {
        double v = x.get((n * 3 + c) * 4 + k);
        mean += v / 8;
        sq += v * v / 8;
      }
    for (int n = 0; n < 2; ++n)
      for (int k = 0; k < 4; ++k) {
        int i = (n * 3 + c) * 4 + k;
        want[size_t(i)] = (x.get(i) - mean) / (std::sqrt(sq - mean * mean) + 1e-9);
      }
  }
  expect_near_all(y.values(), want, 1e-5);
}

TEST(NormRules, LpNormalizationL1AndL2) {
  HostTensor x = random_f32({3, 4, 2}, 27);
  for (int64_t p : {1, 2}) {
    SCOPED_TRACE(p);
    graph::Attrs a;
    a.set("axis", int64_t(1));
    a.set("p", p);
    HostTensor y =
        run_rule1(make_node(OpKind::LpNormalization, a), {&x}, DataType::f32(), {3, 4, 2});
    std::vector<double> want(24);
    for (int o = 0; o < 3; ++o)
      for (int k = 0; k < 2; ++k) {
        double norm = 0;
        for (int j = 0; j < 4; ++j) {
          double v = x.get((o * 4 + j) * 2 + k);
          norm += p == 1 ? std::fabs(v) : v * v;
        }
        if (p == 2) norm = std::sqrt(norm);
        for (int j = 0; j < 4; ++j)
          want[size_t((o * 4 + j) * 2 + k)] = x.get((o * 4 + j) * 2 + k) / norm;
      }
    expect_near_all(y.values(), want, 1e-5);
  }
}

void check_softmax(std::vector<int64_t> shape, int64_t axis) {
  HostTensor x = random_f32(shape, 9, -50, 50);  // large values: needs the max subtraction
  graph::Attrs a;
  a.set("axis", axis);
  HostTensor y = run_rule1(make_node(OpKind::Softmax, a), {&x}, DataType::f32(), shape);
  int64_t outer = 1, inner = 1, len = shape[axis];
  for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  std::vector<double> want(x.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t k) { return (o * len + k) * inner + i; };
      double mx = -INFINITY, sum = 0;
      for (int64_t k = 0; k < len; ++k) mx = std::max(mx, x.get(at(k)));
      for (int64_t k = 0; k < len; ++k) sum += std::exp(x.get(at(k)) - mx);
      for (int64_t k = 0; k < len; ++k) want[at(k)] = std::exp(x.get(at(k)) - mx) / sum;
    }
  expect_near_all(y.values(), want, 1e-5);
}

TEST(NormRules, SoftmaxLastAxis) {
  check_softmax({3, 7}, 1);
}
TEST(NormRules, SoftmaxMiddleAxis) {
  check_softmax({2, 5, 3}, 1);
}
TEST(NormRules, SoftmaxLastAxisInLaneStrips) {
  check_softmax({2, 3, 37}, 2);  // two 16-lane strips and a tail of 5
  check_softmax({4, 32}, 1);     // strips only
  check_softmax({1, 1, 16}, 2);  // one strip, a single row
}

// LpPool: `include_pad` unused, `lp` is the norm order.
void check_pool(OpKind op, const PoolParams& p, bool include_pad, int64_t lp = 2) {
  int64_t n = 1, c = 2;
  int64_t oh = pool_output_size(p.h, p.kh, p.sh, p.dh, p.pt, p.pb, p.ceil);
  int64_t ow = pool_output_size(p.w, p.kw, p.sw, p.dw, p.pl, p.pr, p.ceil);
  HostTensor x = random_f32({n, c, p.h, p.w}, 10, -3, 3);
  graph::Attrs a = pool_attrs(p);
  if (op == OpKind::AveragePool) a.set("count_include_pad", int64_t(include_pad));
  if (op == OpKind::LpPool) a.set("p", lp);
  HostTensor y = run_rule1(make_node(op, a), {&x}, DataType::f32(), {n, c, oh, ow});
  std::vector<double> want;
  for (int64_t ch = 0; ch < c; ++ch)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        double mx = -INFINITY, sum = 0, lp_sum = 0;
        int64_t cnt = 0, cnt_pad = 0;
        for (int64_t ki = 0; ki < p.kh; ++ki)
          for (int64_t kj = 0; kj < p.kw; ++kj) {
            int64_t ih = i * p.sh - p.pt + ki * p.dh, iw = j * p.sw - p.pl + kj * p.dw;
            if (ih < p.h + p.pb && iw < p.w + p.pr) ++cnt_pad;
            if (ih < 0 || iw < 0 || ih >= p.h || iw >= p.w) continue;
            double v = x.get(flat_index({n, c, p.h, p.w}, {0, ch, ih, iw}));
            mx = std::max(mx, v);
            sum += v;
            lp_sum += std::pow(std::fabs(v), double(lp));
            ++cnt;
          }
        if (op == OpKind::MaxPool)
          want.push_back(mx);
        else if (op == OpKind::LpPool)
          want.push_back(std::pow(lp_sum, 1.0 / double(lp)));
        else
          want.push_back(sum / double(include_pad ? cnt_pad : cnt));
      }
  expect_near_all(y.values(), want, 1e-5);
}

TEST(PoolRules, MaxPoolPadsStrides) {
  check_pool(OpKind::MaxPool, {7, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false}, false);
}
TEST(PoolRules, MaxPoolCeilModeDilation) {
  check_pool(OpKind::MaxPool, {8, 7, 2, 3, 2, 2, 2, 1, 0, 1, 0, 0, true}, false);
}
TEST(PoolRules, AvgPoolExcludePad) {
  check_pool(OpKind::AveragePool, {5, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false}, false);
}
TEST(PoolRules, AvgPoolIncludePad) {
  check_pool(OpKind::AveragePool, {5, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false}, true);
}
TEST(PoolRules, AvgPoolCeilModeIncludePad) {
  check_pool(OpKind::AveragePool, {6, 6, 3, 3, 2, 2, 1, 1, 1, 0, 1, 0, true}, true);
}

TEST(PoolRules, LpPoolOrders) {
  for (int64_t lp : {1, 2, 3}) {
    SCOPED_TRACE(lp);
    check_pool(OpKind::LpPool, {6, 7, 3, 2, 2, 1, 1, 2, 1, 0, 1, 1, false}, false, lp);
  }
}

TEST(PoolRules, GlobalAveragePool) {
  HostTensor x = random_f32({2, 3, 4, 5}, 11);
  HostTensor y =
      run_rule1(make_node(OpKind::GlobalAveragePool), {&x}, DataType::f32(), {2, 3, 1, 1});
  std::vector<double> want;
  for (int nc = 0; nc < 6; ++nc) {
    double s = 0;
    for (int i = 0; i < 20; ++i) s += x.get(nc * 20 + i);
    want.push_back(s / 20);
  }
  expect_near_all(y.values(), want, 1e-5);
}

TEST(ReduceRules, SumAndMeanAxesKeepdims) {
  HostTensor x = random_f32({2, 3, 4}, 12);
  graph::Attrs a;
  a.set("axes", std::vector<int64_t>{0, 2});
  a.set("keepdims", int64_t(1));
  HostTensor s = run_rule1(make_node(OpKind::ReduceSum, a), {&x}, DataType::f32(), {1, 3, 1});
  a.set("keepdims", int64_t(0));
  HostTensor m = run_rule1(make_node(OpKind::ReduceMean, a), {&x}, DataType::f32(), {3});
  std::vector<double> want_s, want_m;
  for (int j = 0; j < 3; ++j) {
    double acc = 0;
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 4; ++k) acc += x.get(flat_index({2, 3, 4}, {i, j, k}));
    want_s.push_back(acc);
    want_m.push_back(acc / 8);
  }
  expect_near_all(s.values(), want_s, 1e-5);
  expect_near_all(m.values(), want_m, 1e-5);
}

TEST(ReduceRules, KeptInnermostAxisRunsInLaneChunks) {
  // Axis 0 of [5, 300]: the kept last axis runs innermost in chunks of 64 (the last partial).
  HostTensor x = random_f32({5, 300}, 14);
  graph::Attrs a;
  a.set("axes", std::vector<int64_t>{0});
  a.set("keepdims", int64_t(0));
  HostTensor s = run_rule1(make_node(OpKind::ReduceSum, a), {&x}, DataType::f32(), {300});
  std::vector<double> want;
  for (int j = 0; j < 300; ++j) {
    double acc = 0;
    for (int i = 0; i < 5; ++i) acc += x.get(i * 300 + j);
    want.push_back(acc);
  }
  expect_near_all(s.values(), want, 1e-5);
  // The spatial dims of a blocked [1, 2, 3, 4, 16] tensor (global pooling run blocked).
  HostTensor b = random_f32({1, 2, 3, 4, 16}, 15);
  a.set("axes", std::vector<int64_t>{2, 3});
  a.set("keepdims", int64_t(1));
  HostTensor m =
      run_rule1(make_node(OpKind::ReduceMax, a), {&b}, DataType::f32(), {1, 2, 1, 1, 16});
  std::vector<double> want_m;
  for (int c = 0; c < 2; ++c)
    for (int l = 0; l < 16; ++l) {
      double v = -1e30;
      for (int p = 0; p < 12; ++p) v = std::max(v, b.get((c * 12 + p) * 16 + l));
      want_m.push_back(v);
    }
  expect_near_all(m.values(), want_m, 1e-6);
}

TEST(ReduceRules, EmptyAxesReduceAllOrNoop) {
  HostTensor x = random_f32({2, 3}, 13);
  graph::Attrs a;
  a.set("keepdims", int64_t(0));
  HostTensor all = run_rule1(make_node(OpKind::ReduceSum, a), {&x}, DataType::f32(), {});
  double total = 0;
  for (double v : x.values()) total += v;
  expect_near_all(all.values(), {total}, 1e-5);
  a.set("noop_with_empty_axes", int64_t(1));
  HostTensor same = run_rule1(make_node(OpKind::ReduceSum, a), {&x}, DataType::f32(), {2, 3});
  expect_near_all(same.values(), x.values());
}

TEST(ReduceRules, IntegerSum) {
  HostTensor x(DataType::i64(), {2, 2}, {1, -5, 7, 100});
  graph::Attrs a;
  a.set("axes", std::vector<int64_t>{1});
  a.set("keepdims", int64_t(0));
  HostTensor y = run_rule1(make_node(OpKind::ReduceSum, a), {&x}, DataType::i64(), {2});
  expect_near_all(y.values(), {-4, 107});
}

}  // namespace
}  // namespace ingot::testing

// Compute rules of Conv, Gemm and MatMul against plain reference loops.
#include <gtest/gtest.h>

#include "rule_test_util.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;

struct Conv2dParams {
  int64_t n, c, h, w, m, kh, kw, group, sh, sw, dh, dw, pt, pl, pb, pr;
};

std::vector<double> conv2d_ref(const Conv2dParams& p, const HostTensor& x, const HostTensor& wt,
                               const HostTensor* b, int64_t oh, int64_t ow) {
  std::vector<double> y;
  int64_t cg = p.c / p.group, mg = p.m / p.group;
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t m = 0; m < p.m; ++m)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double acc = b ? b->get(m) : 0;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t ki = 0; ki < p.kh; ++ki)
              for (int64_t kj = 0; kj < p.kw; ++kj) {
                int64_t ih = i * p.sh - p.pt + ki * p.dh, iw = j * p.sw - p.pl + kj * p.dw;
                if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
                int64_t ci = (m / mg) * cg + c;
                acc += x.get(flat_index({p.n, p.c, p.h, p.w}, {n, ci, ih, iw})) *
                       wt.get(flat_index({p.m, cg, p.kh, p.kw}, {m, c, ki, kj}));
              }
          y.push_back(acc);
        }
  return y;
}

void check_conv2d(const Conv2dParams& p, bool bias) {
  int64_t oh = (p.h + p.pt + p.pb - (p.dh * (p.kh - 1) + 1)) / p.sh + 1;
  int64_t ow = (p.w + p.pl + p.pr - (p.dw * (p.kw - 1) + 1)) / p.sw + 1;
  HostTensor x = random_f32({p.n, p.c, p.h, p.w}, 1);
  HostTensor wt = random_f32({p.m, p.c / p.group, p.kh, p.kw}, 2);
  HostTensor b = random_f32({p.m}, 3);
  graph::Attrs a;
  a.set("group", p.group);
  a.set("kernel_shape", std::vector<int64_t>{p.kh, p.kw});
  a.set("strides", std::vector<int64_t>{p.sh, p.sw});
  a.set("dilations", std::vector<int64_t>{p.dh, p.dw});
  a.set("pads", std::vector<int64_t>{p.pt, p.pl, p.pb, p.pr});
  std::vector<const HostTensor*> ins = {&x, &wt};
  if (bias) ins.push_back(&b);
  HostTensor y = run_rule1(make_node(OpKind::Conv, a), ins, DataType::f32(), {p.n, p.m, oh, ow});
  expect_near_all(y.values(), conv2d_ref(p, x, wt, bias ? &b : nullptr, oh, ow), 1e-5);
}

TEST(ConvRule, Plain3x3SamePadding) {
  check_conv2d({1, 3, 6, 7, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}, true);
}
TEST(ConvRule, StridedDilatedAsymmetricPads) {
  check_conv2d({2, 2, 9, 8, 3, 3, 2, 1, 2, 3, 2, 1, 2, 0, 1, 3}, true);
}
TEST(ConvRule, GroupsWithoutBias) {
  check_conv2d({1, 4, 5, 5, 6, 3, 3, 2, 1, 2, 1, 1, 1, 1, 0, 1}, false);
}
TEST(ConvRule, Depthwise) {
  check_conv2d({1, 3, 6, 6, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, true);
}
TEST(ConvRule, PointwiseNoPadding) {
  check_conv2d({2, 5, 3, 4, 2, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0}, true);
}

TEST(ConvRule, OneDimensional) {
  int64_t c = 2, w = 10, m = 3, k = 3, s = 2, d = 2, pl = 2, pr = 1;
  int64_t ow = (w + pl + pr - (d * (k - 1) + 1)) / s + 1;
  HostTensor x = random_f32({1, c, w}, 4);
  HostTensor wt = random_f32({m, c, k}, 5);
  graph::Attrs a;
  a.set("group", int64_t(1));
  a.set("kernel_shape", std::vector<int64_t>{k});
  a.set("strides", std::vector<int64_t>{s});
  a.set("dilations", std::vector<int64_t>{d});
  a.set("pads", std::vector<int64_t>{pl, pr});
  HostTensor y = run_rule1(make_node(OpKind::Conv, a), {&x, &wt}, DataType::f32(), {1, m, ow});
  std::vector<double> want;
  for (int64_t o = 0; o < m; ++o)
    for (int64_t j = 0; j < ow; ++j) {
      double acc = 0;
      for (int64_t ci = 0; ci < c; ++ci)
        for (int64_t kk = 0; kk < k; ++kk) {
          int64_t iw = j * s - pl + kk * d;
          if (iw >= 0 && iw < w) acc += x.get(ci * w + iw) * wt.get((o * c + ci) * k + kk);
        }
      want.push_back(acc);
    }
  expect_near_all(y.values(), want, 1e-5);
}

TEST(GemmRule, TransposesAlphaBetaAndBroadcastC) {
  int64_t m = 3, k = 4, n = 5;
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      SCOPED_TRACE(::testing::Message() << "transA=" << ta << " transB=" << tb);
      HostTensor a = random_f32(ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k}, 6);
      HostTensor b = random_f32(tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}, 7);
      HostTensor c = random_f32({n}, 8);
      graph::Attrs at;
      at.set("alpha", 0.5);
      at.set("beta", 2.0);
      at.set("transA", int64_t(ta));
      at.set("transB", int64_t(tb));
      HostTensor y = run_rule1(make_node(OpKind::Gemm, at), {&a, &b, &c}, DataType::f32(), {m, n});
      std::vector<double> want;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double acc = 0;
          for (int64_t p = 0; p < k; ++p)
            acc += a.get(ta ? p * m + i : i * k + p) * b.get(tb ? j * k + p : p * n + j);
          want.push_back(0.5 * acc + 2.0 * c.get(j));
        }
      expect_near_all(y.values(), want, 1e-5);
    }
}

TEST(GemmRule, NoC) {
  HostTensor a = random_f32({2, 3}, 9), b = random_f32({3, 2}, 10);
  HostTensor y = run_rule1(make_node(OpKind::Gemm), {&a, &b, nullptr}, DataType::f32(), {2, 2});
  std::vector<double> want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      double acc = 0;
      for (int p = 0; p < 3; ++p) acc += a.get(i * 3 + p) * b.get(p * 2 + j);
      want.push_back(acc);
    }
  expect_near_all(y.values(), want, 1e-6);
}

TEST(MatMulRule, BatchedBroadcast) {
  // [2,1,3,4] x [3,4,5] -> [2,3,3,5]
  HostTensor a = random_f32({2, 1, 3, 4}, 11), b = random_f32({3, 4, 5}, 12);
  HostTensor y = run_rule1(make_node(OpKind::MatMul), {&a, &b}, DataType::f32(), {2, 3, 3, 5});
  std::vector<double> want;
  for (int p = 0; p < 2; ++p)
    for (int q = 0; q < 3; ++q)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 5; ++j) {
          double acc = 0;
          for (int k = 0; k < 4; ++k)
            acc += a.get(flat_index({2, 1, 3, 4}, {p, 0, i, k})) *
                   b.get(flat_index({3, 4, 5}, {q, k, j}));
          want.push_back(acc);
        }
  expect_near_all(y.values(), want, 1e-5);
}

TEST(MatMulRule, PermutedOperands) {
  // perm_a 0213 reads q [1,4,2,3] as [1,2,4,3]; perm_b 0231 reads k [1,4,2,3] as [1,2,3,4].
  HostTensor q = random_f32({1, 4, 2, 3}, 16), k = random_f32({1, 4, 2, 3}, 17);
  graph::Attrs at;
  at.set("perm_a", std::vector<int64_t>{0, 2, 1, 3});
  at.set("perm_b", std::vector<int64_t>{0, 2, 3, 1});
  HostTensor y = run_rule1(make_node(OpKind::MatMul, at), {&q, &k}, DataType::f32(), {1, 2, 4, 4});
  std::vector<double> want;
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        double acc = 0;
        for (int d = 0; d < 3; ++d)
          acc += q.get(flat_index({1, 4, 2, 3}, {0, i, h, d})) *
                 k.get(flat_index({1, 4, 2, 3}, {0, j, h, d}));
        want.push_back(acc);
      }
  expect_near_all(y.values(), want, 1e-5);
}

TEST(MatMulRule, OneDimensionalPromotion) {
  HostTensor v = random_f32({4}, 13), m = random_f32({2, 4, 3}, 14), mt = random_f32({3, 4}, 15);
  // [4] x [2,4,3] -> [2,3]
  HostTensor y1 = run_rule1(make_node(OpKind::MatMul), {&v, &m}, DataType::f32(), {2, 3});
  std::vector<double> want1;
  for (int b = 0; b < 2; ++b)
    for (int j = 0; j < 3; ++j) {
      double acc = 0;
      for (int k = 0; k < 4; ++k) acc += v.get(k) * m.get(flat_index({2, 4, 3}, {b, k, j}));
      want1.push_back(acc);
    }
  expect_near_all(y1.values(), want1, 1e-5);
  // [3,4] x [4] -> [3]
  HostTensor y2 = run_rule1(make_node(OpKind::MatMul), {&mt, &v}, DataType::f32(), {3});
  std::vector<double> want2;
  for (int i = 0; i < 3; ++i) {
    double acc = 0;
    for (int k = 0; k < 4; ++k) acc += mt.get(i * 4 + k) * v.get(k);
    want2.push_back(acc);
  }
  expect_near_all(y2.values(), want2, 1e-5);
  // [4] x [4] -> []
  HostTensor y3 = run_rule1(make_node(OpKind::MatMul), {&v, &v}, DataType::f32(), {});
  double dot = 0;
  for (int k = 0; k < 4; ++k) dot += v.get(k) * v.get(k);
  expect_near_all(y3.values(), {dot}, 1e-5);
}

}  // namespace
}  // namespace ingot::testing

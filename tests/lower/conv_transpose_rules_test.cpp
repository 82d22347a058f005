// Compute rule of ConvTranspose (canonical form) against a hand-computed case and a plain
// scatter-form reference (every input element times the kernel added at
// o = i * stride - pad_begin + k * dilation): 1-D, 2-D with strides, dilations, pads, groups and
// bias, extra (negative end pad) outputs, and 3-D.
#include <gtest/gtest.h>

#include "rule_test_util.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;
using V = std::vector<int64_t>;

int64_t num_elements(const V& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

struct CtParams {
  V x_shape, w_shape, out_spatial, strides, dilations, begin_pads;
  int64_t group = 1;
};

// Scatter-form reference, N-d.
std::vector<double> ct_ref(const CtParams& p, const HostTensor& x, const HostTensor& w,
                           const HostTensor* b) {
  size_t k = p.x_shape.size() - 2;
  int64_t n_ = p.x_shape[0], c_ = p.x_shape[1], mg = p.w_shape[1], m_ = mg * p.group;
  int64_t cg = c_ / p.group;
  V y_shape = {n_, m_};
  y_shape.insert(y_shape.end(), p.out_spatial.begin(), p.out_spatial.end());
  std::vector<double> y(size_t(num_elements(y_shape)), 0.0);
  for (int64_t n = 0; n < n_; ++n)
    for (int64_t m = 0; m < m_; ++m)
      for (int64_t i = 0; i < num_elements(p.out_spatial); ++i)
        if (b) {
          V idx = {n, m};
          int64_t rem = i;
          V sp(k);
          for (size_t d = k; d-- > 0;) sp[d] = rem % p.out_spatial[d], rem /= p.out_spatial[d];
          idx.insert(idx.end(), sp.begin(), sp.end());
          y[size_t(flat_index(y_shape, idx))] = b->get(m);
        }
  V in_sp(p.x_shape.begin() + 2, p.x_shape.end()), k_sp(p.w_shape.begin() + 2, p.w_shape.end());
  for (int64_t n = 0; n < n_; ++n)
    for (int64_t c = 0; c < c_; ++c)
      for (int64_t mm = 0; mm < mg; ++mm)
        for (int64_t i = 0; i < num_elements(in_sp); ++i)
          for (int64_t j = 0; j < num_elements(k_sp); ++j) {
            V ii(k), kk(k), oo(k);
            int64_t ri = i, rj = j;
            bool inside = true;
            for (size_t d = k; d-- > 0;) {
              ii[d] = ri % in_sp[d], ri /= in_sp[d];
              kk[d] = rj % k_sp[d], rj /= k_sp[d];
            }
            for (size_t d = 0; d < k; ++d) {
              oo[d] = ii[d] * p.strides[d] - p.begin_pads[d] + kk[d] * p.dilations[d];
              inside = inside && oo[d] >= 0 && oo[d] < p.out_spatial[d];
            }
            if (!inside) continue;
            int64_t m = (c / cg) * mg + mm;
            V xi = {n, c}, wi = {c, mm}, yi = {n, m};
            xi.insert(xi.end(), ii.begin(), ii.end());
            wi.insert(wi.end(), kk.begin(), kk.end());
            yi.insert(yi.end(), oo.begin(), oo.end());
            y[size_t(flat_index(y_shape, yi))] +=
                x.get(flat_index(p.x_shape, xi)) * w.get(flat_index(p.w_shape, wi));
          }
  return y;
}

void check_ct(const CtParams& p, bool bias) {
  size_t k = p.x_shape.size() - 2;
  HostTensor x = random_f32(p.x_shape, 1);
  HostTensor w = random_f32(p.w_shape, 2);
  HostTensor b = random_f32({p.w_shape[1] * p.group}, 3);
  graph::Attrs a;
  a.set("group", p.group);
  a.set("kernel_shape", V(p.w_shape.begin() + 2, p.w_shape.end()));
  a.set("strides", p.strides);
  a.set("dilations", p.dilations);
  V pads = p.begin_pads;
  for (size_t d = 0; d < k; ++d)  // end pads as type inference derives them (unused by the rule)
    pads.push_back(p.strides[d] * (p.x_shape[2 + d] - 1) + (p.w_shape[2 + d] - 1) * p.dilations[d] +
                   1 - p.begin_pads[d] - p.out_spatial[d]);
  a.set("pads", pads);
  a.set("output_shape", p.out_spatial);
  std::vector<const HostTensor*> ins = {&x, &w};
  if (bias) ins.push_back(&b);
  V y_shape = {p.x_shape[0], p.w_shape[1] * p.group};
  y_shape.insert(y_shape.end(), p.out_spatial.begin(), p.out_spatial.end());
  HostTensor y = run_rule1(make_node(OpKind::ConvTranspose, a), ins, DataType::f32(), y_shape);
  expect_near_all(y.values(), ct_ref(p, x, w, bias ? &b : nullptr), 1e-5);
}

TEST(ConvTransposeRule, HandComputedStride2) {
  // x = [1, 2, 3], w = [1, 10], stride 2: each input spreads over two outputs.
  HostTensor x(DataType::f32(), {1, 1, 3}, {1, 2, 3});
  HostTensor w(DataType::f32(), {1, 1, 2}, {1, 10});
  graph::Attrs a;
  a.set("strides", V{2});
  a.set("pads", V{0, 0});
  a.set("output_shape", V{6});
  HostTensor y =
      run_rule1(make_node(OpKind::ConvTranspose, a), {&x, &w}, DataType::f32(), {1, 1, 6});
  expect_near_all(y.values(), {1, 10, 2, 20, 3, 30});
  // Kernel 3 with stride 1 overlaps: y = x * w summed where windows meet.
  HostTensor w3(DataType::f32(), {1, 1, 3}, {1, 1, 1});
  a.set("strides", V{1});
  a.set("pads", V{0, 0});
  a.set("output_shape", V{5});
  HostTensor z =
      run_rule1(make_node(OpKind::ConvTranspose, a), {&x, &w3}, DataType::f32(), {1, 1, 5});
  expect_near_all(z.values(), {1, 3, 6, 5, 3});
}

TEST(ConvTransposeRule, OneD) {
  check_ct({{2, 3, 5}, {3, 2, 3}, {9}, {2}, {1}, {1}}, true);
}

TEST(ConvTransposeRule, StridedDilatedPaddedWithBias) {
  // full H = 2 * 3 + 2 * 2 + 1 = 11, W = 3 * 4 + 2 + 1 = 15; begin pads 1 and 2.
  check_ct({{1, 2, 4, 5}, {2, 3, 3, 2}, {9, 12}, {2, 3}, {2, 2}, {1, 2}}, true);
}

TEST(ConvTransposeRule, GroupsWithoutBias) {
  check_ct({{2, 4, 3, 3}, {4, 3, 2, 2}, {6, 7}, {2, 2}, {1, 1}, {0, 0}, 2}, false);
}

TEST(ConvTransposeRule, ExtraOutputsBeyondTheFullExtent) {
  // output_padding / output_shape larger than the full extent 9 x 7: the extra row and column
  // hold the bias only.
  check_ct({{1, 1, 3, 3}, {1, 2, 3, 3}, {10, 8}, {3, 2}, {1, 1}, {0, 0}}, true);
}

TEST(ConvTransposeRule, ThreeD) {
  check_ct({{1, 2, 2, 3, 3}, {2, 2, 2, 2, 3}, {4, 5, 6}, {2, 2, 1}, {1, 1, 2}, {0, 1, 1}}, true);
}

}  // namespace
}  // namespace ingot::testing

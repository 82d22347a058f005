// 3-D convolutions through graph pass layout_nchwc and lowering: a padded strided 3x3x3 Conv and
// a (1,3,3) Conv with a fused residual Add + Relu, then global average pooling, all on
// channel-blocked [N, C/c, D, H, W, c] tensors. The kernels (layout conversions, the padding
// kernel, the blocked convolution tagged with its rule, the blocked ReduceMean) run unscheduled
// through the loop-IR interpreter (which faults on any out-of-bounds access) against a direct
// convolution computed here, for the AVX-512 (32-lane) and AVX2 (8-lane, 3 blocks) channel blocks.
#include <gtest/gtest.h>

#include <algorithm>

#include "graph/transforms/dead_code.h"
#include "graph/transforms/fuse_epilogue.h"
#include "graph/transforms/infer_types.h"
#include "graph/transforms/layout_nchwc.h"
#include "graph/transforms/rewrite_util.h"
#include "graph/verifier.h"
#include "lower/lower_graph.h"
#include "rule_test_util.h"
#include "schedule/rules/default_rules.h"
#include "tir/transforms/lower_blocks.h"

namespace ingot::testing {
namespace {

using graph::Dim;
using graph::DType;
using ops::OpKind;
using tir::DataType;

int count_ops(const graph::Graph& g, OpKind op) {
  int k = 0;
  for (const auto& n : g.nodes()) k += n->op == op;
  return k;
}

std::vector<float> floats(size_t n, int mul, int mod, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float(int(i * size_t(mul) % size_t(mod)) - mod / 2) * scale;
  return v;
}

struct Conv3d {
  int64_t ic, oc, kd, kh, kw;
  std::vector<int64_t> strides, pads;  // pads: d, h, w begins then ends
  std::vector<float> w, b;
};

// Direct convolution of x[C, D, H, W] (batch 1) in double, zero outside the input.
std::vector<double> conv_ref(const std::vector<double>& x, const std::vector<int64_t>& xs,
                             const Conv3d& c, std::vector<int64_t>& ys) {
  ys = {c.oc};
  int64_t k[3] = {c.kd, c.kh, c.kw};
  for (int d = 0; d < 3; ++d)
    ys.push_back((xs[size_t(1 + d)] + c.pads[size_t(d)] + c.pads[size_t(3 + d)] - k[d]) /
                     c.strides[size_t(d)] +
                 1);
  std::vector<double> y;
  for (int64_t o = 0; o < ys[0]; ++o)
    for (int64_t od = 0; od < ys[1]; ++od)
      for (int64_t oh = 0; oh < ys[2]; ++oh)
        for (int64_t ow = 0; ow < ys[3]; ++ow) {
          double acc = c.b[size_t(o)];
          for (int64_t i = 0; i < c.ic; ++i)
            for (int64_t a = 0; a < c.kd; ++a)
              for (int64_t r = 0; r < c.kh; ++r)
                for (int64_t t = 0; t < c.kw; ++t) {
                  int64_t id = od * c.strides[0] + a - c.pads[0];
                  int64_t ih = oh * c.strides[1] + r - c.pads[1];
                  int64_t iw = ow * c.strides[2] + t - c.pads[2];
                  if (id < 0 || id >= xs[1] || ih < 0 || ih >= xs[2] || iw < 0 || iw >= xs[3])
                    continue;
                  acc += x[size_t(((i * xs[1] + id) * xs[2] + ih) * xs[3] + iw)] *
                         double(c.w[size_t((((o * c.ic + i) * c.kd + a) * c.kh + r) * c.kw + t)]);
                }
          y.push_back(acc);
        }
  return y;
}

void expect_blocked_conv3d(int vector_bits) {
  const std::vector<int64_t> xs = {5, 3, 5, 6};  // C, D, H, W
  Conv3d c1{5,
            20,
            3,
            3,
            3,
            {1, 2, 1},
            {1, 0, 1, 1, 2, 0},
            floats(20 * 5 * 27, 7, 13, 0.05f),
            floats(20, 3, 7, 0.1f)};
  Conv3d c2{20,
            20,
            1,
            3,
            3,
            {1, 1, 1},
            {0, 1, 1, 0, 1, 1},
            floats(20 * 20 * 9, 5, 11, 0.03f),
            floats(20, 5, 9, 0.1f)};
  std::vector<float> xv = floats(5 * 3 * 5 * 6, 11, 17, 0.25f);
  graph::Graph g;
  graph::Value* x = g.add_value("x", f32_type({1, 5, 3, 5, 6}));
  g.inputs = {x};
  auto conv = [&](const std::string& name, graph::Value* in, const Conv3d& c) {
    graph::Attrs a;
    a.set("kernel_shape", std::vector<int64_t>{c.kd, c.kh, c.kw});
    a.set("strides", c.strides);
    a.set("pads", c.pads);
    graph::Value* w =
        g.add_constant(name + "_w", graph::f32_constant({c.oc, c.ic, c.kd, c.kh, c.kw}, c.w));
    graph::Value* b = g.add_constant(name + "_b", graph::f32_constant({c.oc}, c.b));
    return g.add_node(OpKind::Conv, name, {in, w, b}, {name}, a)->outputs[0];
  };
  graph::Value* v1 = conv("c1", x, c1);
  graph::Value* v2 = conv("c2", v1, c2);
  graph::Value* a = g.add_node(OpKind::Add, "add", {v2, v1}, {"a"})->outputs[0];
  graph::Value* y = g.add_node(OpKind::Relu, "relu", {a}, {"y"})->outputs[0];
  graph::Value* p = g.add_node(OpKind::GlobalAveragePool, "gap", {y}, {"p"})->outputs[0];
  g.outputs = {y, p};
  graph::infer_types(g);
  graph::fuse_epilogue(g);
  graph::convert_layout_nchwc(g, vector_channel_blocks(vector_bits));
  graph::remove_dead_code(g);
  graph::verify_graph(g);
  EXPECT_EQ(count_ops(g, OpKind::Conv), 0);
  EXPECT_EQ(count_ops(g, OpKind::ConvNCHWc), 2);
  EXPECT_EQ(count_ops(g, OpKind::LayoutToBlocked), 1);
  EXPECT_EQ(count_ops(g, OpKind::LayoutFromBlocked), 2);                 // y and p
  EXPECT_EQ(count_ops(g, OpKind::Add) + count_ops(g, OpKind::Relu), 0);  // c2's epilogue
  for (const auto& n : g.nodes())
    if (n->op == OpKind::ReduceMean) {
      EXPECT_EQ(n->attrs.get_ints("axes"), (std::vector<int64_t>{2, 3, 4}));
    }

  tir::IRModule m = lower::lower_graph(g, {.cpu_schedules = true});
  schedule::assign_schedule_rules(m, "llvm");
  int pads = 0, convs = 0;
  for (tir::PrimFunc& f : m.kernels) {
    if (f.name.find("_pad") != std::string::npos) ++pads;
    if (f.schedule_rule == "blocked_conv2d") {
      ++convs;
      EXPECT_GT(f.flops, 0.0) << f.name;
      f = tir::lower_blocks(f);
    }
  }
  EXPECT_EQ(pads, 2);
  EXPECT_EQ(convs, 2);
  HostTensor in(DataType::f32(), {1, 5, 3, 5, 6}, std::vector<double>(xv.begin(), xv.end()));
  HostTensor out_y(DataType::f32(), {1, 20, 3, 3, 5}), out_p(DataType::f32(), {1, 20, 1, 1, 1});
  run_module(m, {&in}, {&out_y, &out_p});

  std::vector<int64_t> s1, s2;
  std::vector<double> r1 = conv_ref(std::vector<double>(xv.begin(), xv.end()), xs, c1, s1);
  ASSERT_EQ(s1, (std::vector<int64_t>{20, 3, 3, 5}));
  std::vector<double> r2 = conv_ref(r1, s1, c2, s2);
  ASSERT_EQ(s2, s1);
  std::vector<double> want_p(20, 0.0);
  for (size_t i = 0; i < r2.size(); ++i) {
    r2[i] = std::max(0.0, r2[i] + r1[i]);
    want_p[i / 45] += r2[i] / 45;
  }
  expect_near_all(out_y.values(), r2, 1e-4);
  expect_near_all(out_p.values(), want_p, 1e-4);
}

TEST(Conv3dNchwc, Avx512BlocksMatchDirectConvolution) {
  expect_blocked_conv3d(512);  // 20 channels in one 32-lane block, x's 5 channels in one of 5
}

TEST(Conv3dNchwc, Avx2BlocksMatchDirectConvolution) {
  expect_blocked_conv3d(256);  // 20 channels in three 8-lane blocks
}

}  // namespace
}  // namespace ingot::testing

// Winograd convolutions through graph passes layout_nchwc and winograd_conv and lowering: a
// padded 3x3 conv (5 -> 20 channels, batch 2, a 7x9 map: partial tiles both ways) with a fused
// residual Add + Relu. Its kernels (the input transform, the batched product, the output
// transform, the layout conversions) run unscheduled through the loop-IR interpreter (which
// faults on any out-of-bounds access, so the guards on clamped loads and the cropped stores
// are checked too) against a direct convolution computed here in double, for F(2x2, 3x3) and
// F(4x4, 3x3) on the AVX-512 (one 32-lane block) and AVX2 (three 8-lane blocks) channel
// blocks, and 1x3 / 3x1 kernels (F(1x4, 1x3), F(2x1, 3x1), ...); the transforms take the
// injective rule and the product the dense matmul rule.
#include <gtest/gtest.h>

#include <algorithm>

#include "graph/transforms/dead_code.h"
#include "graph/transforms/fuse_epilogue.h"
#include "graph/transforms/infer_types.h"
#include "graph/transforms/layout_nchwc.h"
#include "graph/transforms/rewrite_util.h"
#include "graph/transforms/winograd_conv.h"
#include "graph/verifier.h"
#include "lower/lower_graph.h"
#include "rule_test_util.h"
#include "schedule/rules/default_rules.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;

std::vector<float> floats(size_t n, int mul, int mod, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float(int(i * size_t(mul) % size_t(mod)) - mod / 2) * scale;
  return v;
}

constexpr int64_t kN = 2, kIc = 5, kOc = 20, kH = 7, kW = 9;

void expect_winograd_conv(int tile, int vector_bits, int64_t kh = 3, int64_t kw = 3) {
  const int64_t ph = kh / 2, pw = kw / 2;
  std::vector<float> xv = floats(size_t(kN * kIc * kH * kW), 11, 17, 0.25f);
  std::vector<float> zv = floats(size_t(kN * kOc * kH * kW), 7, 19, 0.2f);
  std::vector<float> wv = floats(size_t(kOc * kIc * kh * kw), 7, 13, 0.05f);
  std::vector<float> bv = floats(size_t(kOc), 3, 7, 0.1f);
  graph::Graph g;
  graph::Value* x = g.add_value("x", f32_type({kN, kIc, kH, kW}));
  graph::Value* z = g.add_value("z", f32_type({kN, kOc, kH, kW}));
  g.inputs = {x, z};
  graph::Attrs a;
  a.set("kernel_shape", std::vector<int64_t>{kh, kw});
  a.set("pads", std::vector<int64_t>{ph, pw, ph, pw});
  graph::Value* w = g.add_constant("w", graph::f32_constant({kOc, kIc, kh, kw}, wv));
  graph::Value* b = g.add_constant("b", graph::f32_constant({kOc}, bv));
  graph::Value* c = g.add_node(OpKind::Conv, "c", {x, w, b}, {"c"}, a)->outputs[0];
  graph::Value* s = g.add_node(OpKind::Add, "add", {c, z}, {"s"})->outputs[0];
  g.outputs = {g.add_node(OpKind::Relu, "relu", {s}, {"y"})->outputs[0]};
  graph::infer_types(g);
  graph::fuse_epilogue(g);
  graph::convert_layout_nchwc(g, vector_channel_blocks(vector_bits));
  graph::convert_winograd_conv(g, [tile](const graph::WinogradConvShape&) { return tile; });
  graph::remove_dead_code(g);
  graph::verify_graph(g);

  tir::IRModule m = lower::lower_graph(g, {.cpu_schedules = true, .product_blocks = true});
  schedule::assign_schedule_rules(m, "llvm");
  int transforms = 0, products = 0;
  for (const tir::PrimFunc& f : m.kernels) {
    if (f.name.find("Winograd") != std::string::npos) {
      ++transforms;
      EXPECT_EQ(f.schedule_rule, "injective") << f.name;
    }
    if (f.name.find("winograd_product") != std::string::npos) {
      ++products;
      EXPECT_EQ(f.schedule_rule, "dense_matmul") << f.name;
    }
  }
  EXPECT_EQ(transforms, 2);
  EXPECT_EQ(products, 1);
  HostTensor in_x(DataType::f32(), {kN, kIc, kH, kW}, std::vector<double>(xv.begin(), xv.end()));
  HostTensor in_z(DataType::f32(), {kN, kOc, kH, kW}, std::vector<double>(zv.begin(), zv.end()));
  HostTensor out(DataType::f32(), {kN, kOc, kH, kW});
  run_module(m, {&in_x, &in_z}, {&out});

  std::vector<double> want;
  for (int64_t n = 0; n < kN; ++n)
    for (int64_t o = 0; o < kOc; ++o)
      for (int64_t oh = 0; oh < kH; ++oh)
        for (int64_t ow = 0; ow < kW; ++ow) {
          double acc = bv[size_t(o)];
          for (int64_t i = 0; i < kIc; ++i)
            for (int64_t r = 0; r < kh; ++r)
              for (int64_t t = 0; t < kw; ++t) {
                int64_t ih = oh + r - ph, iw = ow + t - pw;
                if (ih < 0 || ih >= kH || iw < 0 || iw >= kW) continue;
                acc += double(xv[size_t(((n * kIc + i) * kH + ih) * kW + iw)]) *
                       double(wv[size_t(((o * kIc + i) * kh + r) * kw + t)]);
              }
          acc += zv[size_t(((n * kOc + o) * kH + oh) * kW + ow)];
          want.push_back(std::max(0.0, acc));
        }
  expect_near_all(out.values(), want, 1e-4);
}

TEST(WinogradLower, F4Avx512BlocksMatchDirectConvolution) {
  expect_winograd_conv(4, 512);
}
TEST(WinogradLower, F2Avx512BlocksMatchDirectConvolution) {
  expect_winograd_conv(2, 512);
}
TEST(WinogradLower, F4Avx2BlocksMatchDirectConvolution) {
  expect_winograd_conv(4, 256);
}
TEST(WinogradLower, F2Avx2BlocksMatchDirectConvolution) {
  expect_winograd_conv(2, 256);
}

}  // namespace
}  // namespace ingot::testing

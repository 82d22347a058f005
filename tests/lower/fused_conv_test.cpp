// Fused epilogues through lowering. Conv -> BatchNormalization -> Add(residual) -> Relu after
// fold_batch_norm and fuse_epilogue is
// one Conv node; lowered as the blocked convolution (layout_nchwc; its epilogue block applies
// it) and as the loop-nest rule (a second pass), both run through the interpreter and compared with
// the unfused closed form computed here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "graph/transforms/dead_code.h"
#include "graph/transforms/fold_batch_norm.h"
#include "graph/transforms/fuse_epilogue.h"
#include "graph/transforms/infer_types.h"
#include "graph/transforms/layout_nchwc.h"
#include "graph/transforms/rewrite_util.h"
#include "lower/lower_graph.h"
#include "rule_test_util.h"
#include "schedule/rules/default_rules.h"
#include "tir/analysis.h"
#include "tir/transforms/lower_blocks.h"

namespace ingot::testing {
namespace {

using graph::Dim;
using graph::DType;
using ops::OpKind;
using tir::DataType;

constexpr int C = 3, O = 3, H = 5, W = 6;

int count_ops(const graph::Graph& g, OpKind op) {
  int n = 0;
  for (const auto& node : g.nodes()) n += node->op == op;
  return n;
}

struct Model {
  graph::Graph g;
  std::vector<float> x = std::vector<float>(C * H * W), w = std::vector<float>(O * C * 9);
  std::vector<float> scale = {1.5f, 0.5f, 2}, shift = {0.1f, -0.2f, 0.3f}, mean = {0.2f, -0.1f, 0},
                     var = {1, 2, 0.5f};
  Model() {
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i * 7 % 13) - 6) * 0.25f;
    for (size_t i = 0; i < w.size(); ++i) w[i] = float(int(i * 5 % 11) - 5) * 0.1f;
    graph::Value* xv = g.add_value("x", f32_type({1, C, H, W}));
    g.inputs = {xv};
    graph::Attrs ca;
    ca.set("kernel_shape", std::vector<int64_t>{3, 3});
    ca.set("pads", std::vector<int64_t>{1, 1, 1, 1});
    auto* conv =
        g.add_node(OpKind::Conv, "conv",
                   {xv, g.add_constant("w", graph::f32_constant({O, C, 3, 3}, w))}, {"c"}, ca);
    auto k = [&](const char* n, const std::vector<float>& v) {
      return g.add_constant(n, graph::f32_constant({O}, v));
    };
    auto* bn = g.add_node(
        OpKind::BatchNormalization, "bn",
        {conv->outputs[0], k("s", scale), k("sh", shift), k("m", mean), k("v", var)}, {"b"});
    auto* add = g.add_node(OpKind::Add, "add", {bn->outputs[0], xv}, {"a"});  // residual (C == O)
    g.outputs = {g.add_node(OpKind::Relu, "relu", {add->outputs[0]}, {"y"})->outputs[0]};
    graph::infer_types(g);
    graph::fold_batch_norm(g);
    graph::fuse_epilogue(g);
  }
  std::vector<double> reference() const {
    std::vector<double> y;
    for (int o = 0; o < O; ++o)
      for (int h = 0; h < H; ++h)
        for (int q = 0; q < W; ++q) {
          double acc = 0;
          for (int c = 0; c < C; ++c)
            for (int r = 0; r < 3; ++r)
              for (int t = 0; t < 3; ++t) {
                int ih = h + r - 1, iw = q + t - 1;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                acc += double(x[size_t((c * H + ih) * W + iw)]) *
                       double(w[size_t(((o * C + c) * 3 + r) * 3 + t)]);
              }
          double bn = (acc - mean[size_t(o)]) / std::sqrt(double(var[size_t(o)]) + 1e-5) *
                          scale[size_t(o)] +
                      shift[size_t(o)];
          y.push_back(std::max(0.0, bn + x[size_t((o * H + h) * W + q)]));
        }
    return y;
  }
};

// vector_bits > 0: blocked by layout_nchwc for that width (an explicit Pad, then a ConvNCHWc
// whose epilogue block applies the summand and Relu), else the loop nest of Conv's compute rule.
void expect_fused_numbers(int vector_bits) {
  Model m;
  ASSERT_EQ(m.g.nodes().size(), 1u);  // one fused Conv
  if (vector_bits > 0) {
    graph::convert_layout_nchwc(m.g, vector_channel_blocks(vector_bits));
    graph::remove_dead_code(m.g);
    graph::infer_types(m.g);
    EXPECT_EQ(count_ops(m.g, OpKind::ConvNCHWc), 1);
    EXPECT_EQ(count_ops(m.g, OpKind::Pad), 1);
  }
  tir::IRModule mod = lower::lower_graph(m.g, {.cpu_schedules = vector_bits > 0});
  schedule::assign_schedule_rules(mod, "llvm");
  if (vector_bits > 0) {
    int blocked = 0;
    for (const tir::PrimFunc& f : mod.kernels) blocked += f.schedule_rule == "blocked_conv2d";
    EXPECT_EQ(blocked, 1);
  }
  for (tir::PrimFunc& f : mod.kernels)
    if (tir::has_blocks(f.body)) f = tir::lower_blocks(f);
  HostTensor in(DataType::f32(), {1, C, H, W}, std::vector<double>(m.x.begin(), m.x.end()));
  HostTensor out(DataType::f32(), {1, O, H, W});
  run_module(mod, {&in}, {&out});
  expect_near_all(out.values(), m.reference(), 1e-4);
}

TEST(FusedConv, BlockedConvolutionAppliesTheEpilogueInItsKernel) {
  expect_fused_numbers(512);
}

TEST(FusedConv, LoopNestRuleAppliesTheEpilogue) {
  expect_fused_numbers(0);
}

// x[6,5] -> MatMul(w[5,40]) -> Add(b[40]) -> Add(r) -> Gelu, fused into one MatMul; the
// scheduled path (packed matmul + epilogue kernel) and the loop-nest rule against the closed form.
void expect_fused_matmul(int vector_bits) {
  const int M = 6, K = 5, N = 40;
  graph::Graph g;
  graph::Value* x = g.add_value("x", f32_type({M, K}));
  graph::Value* r = g.add_value("r", f32_type({M, N}));
  g.inputs = {x, r};
  std::vector<float> w(K * N), b(N), xv(M * K), rv(M * N);
  for (size_t i = 0; i < w.size(); ++i) w[i] = float(int(i * 7 % 17) - 8) * 0.1f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = float(int(i % 5) - 2) * 0.3f;
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = float(int(i * 3 % 11) - 5) * 0.2f;
  for (size_t i = 0; i < rv.size(); ++i) rv[i] = float(int(i % 7) - 3) * 0.25f;
  auto* mm = g.add_node(OpKind::MatMul, "mm",
                        {x, g.add_constant("w", graph::f32_constant({K, N}, w))}, {"m"});
  auto* add =
      g.add_node(OpKind::Add, "bias",
                 {mm->outputs[0], g.add_constant("b", graph::f32_constant({N}, b))}, {"mb"});
  auto* res = g.add_node(OpKind::Add, "res", {add->outputs[0], r}, {"s"});
  g.outputs = {g.add_node(OpKind::Gelu, "gelu", {res->outputs[0]}, {"y"})->outputs[0]};
  graph::infer_types(g);
  graph::fuse_epilogue(g);
  ASSERT_EQ(g.nodes().size(), 1u);
  tir::IRModule mod = lower::lower_graph(g, {.cpu_schedules = true});
  for (tir::PrimFunc& f : mod.kernels)
    if (tir::has_blocks(f.body)) f = tir::lower_blocks(f);
  HostTensor in(DataType::f32(), {M, K}, std::vector<double>(xv.begin(), xv.end()));
  HostTensor rin(DataType::f32(), {M, N}, std::vector<double>(rv.begin(), rv.end()));
  HostTensor out(DataType::f32(), {M, N});
  run_module(mod, {&in, &rin}, {&out});
  std::vector<double> want;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double v = b[size_t(j)] + rv[size_t(i * N + j)];
      for (int k = 0; k < K; ++k) v += double(xv[size_t(i * K + k)]) * w[size_t(k * N + j)];
      want.push_back(0.5 * v * (1 + std::erf(v / std::sqrt(2.0))));
    }
  expect_near_all(out.values(), want, 1e-4);
}

// Depthwise 3x3, stride 2, pads 1, bias, fused Clip(0, 6), blocked by layout_nchwc: one
// ConvNCHWc kernel on the unpadded input (the padding a guard; no Pad node) between the layout
// conversions, its block-form compute run against the direct formula.
TEST(DepthwiseConv, StridedPaddedWithBiasAndClip) {
  const int C = 4, H = 7, W = 9, OH = 4, OW = 5;
  graph::Graph g;
  graph::Value* x = g.add_value("x", f32_type({1, C, H, W}));
  g.inputs = {x};
  std::vector<float> xv(C * H * W), wv(C * 9), bv = {0.5f, -0.5f, 1, 0};
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = float(int(i * 5 % 13) - 6) * 0.5f;
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = float(int(i * 3 % 7) - 3) * 0.4f;
  graph::Attrs a;
  a.set("group", int64_t(C));
  a.set("kernel_shape", std::vector<int64_t>{3, 3});
  a.set("strides", std::vector<int64_t>{2, 2});
  a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  auto* conv = g.add_node(OpKind::Conv, "dw",
                          {x, g.add_constant("w", graph::f32_constant({C, 1, 3, 3}, wv)),
                           g.add_constant("b", graph::f32_constant({C}, bv))},
                          {"c"}, a);
  g.outputs = {g.add_node(OpKind::Clip, "clip",
                          {conv->outputs[0], g.add_constant("lo", graph::f32_constant({}, {0})),
                           g.add_constant("hi", graph::f32_constant({}, {6}))},
                          {"y"})
                   ->outputs[0]};
  graph::infer_types(g);
  graph::fuse_epilogue(g);
  ASSERT_EQ(g.nodes().size(), 1u);
  graph::convert_layout_nchwc(g, vector_channel_blocks(512));
  graph::remove_dead_code(g);
  graph::infer_types(g);
  EXPECT_EQ(count_ops(g, OpKind::Pad), 0);
  tir::IRModule mod = lower::lower_graph(g, {.cpu_schedules = true});
  schedule::assign_schedule_rules(mod, "llvm");
  ASSERT_EQ(mod.kernels.size(), 3u);  // to blocks, the conv, back to NCHW
  EXPECT_EQ(mod.kernels[1].name, "dw_ConvNCHWc");
  EXPECT_EQ(mod.kernels[1].schedule_rule, "depthwise_conv_nchwc");
  EXPECT_GT(mod.kernels[1].flops, 0.0);
  for (tir::PrimFunc& f : mod.kernels)
    if (tir::has_blocks(f.body)) f = tir::lower_blocks(f);
  HostTensor in(DataType::f32(), {1, C, H, W}, std::vector<double>(xv.begin(), xv.end()));
  HostTensor out(DataType::f32(), {1, C, OH, OW});
  run_module(mod, {&in}, {&out});
  std::vector<double> want;
  for (int c = 0; c < C; ++c)
    for (int h = 0; h < OH; ++h)
      for (int q = 0; q < OW; ++q) {
        double acc = bv[size_t(c)];
        for (int r = 0; r < 3; ++r)
          for (int t = 0; t < 3; ++t) {
            int ih = h * 2 + r - 1, iw = q * 2 + t - 1;
            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
            acc += double(xv[size_t((c * H + ih) * W + iw)]) * wv[size_t(c * 9 + r * 3 + t)];
          }
        want.push_back(std::min(6.0, std::max(0.0, acc)));
      }
  expect_near_all(out.values(), want, 1e-5);
}

TEST(FusedMatMul, PackedKernelWithEpilogueKernel) {
  expect_fused_matmul(512);
}

TEST(FusedMatMul, LoopNestRuleAppliesBiasAndEpilogue) {
  expect_fused_matmul(0);
}

// x[1,3,5,6] -> Conv 1x1 (bias) -> activation, fused by fuse_epilogue and applied by the
// activation's own compute rule; checked against each activation's closed form.
void expect_fused_activation(OpKind act, graph::Attrs attrs, double (*f)(double), int bits) {
  graph::Graph g;
  std::vector<float> xv(C * H * W), wv(O * C), bv = {0.5f, -1, 2};
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = float(int(i * 7 % 13) - 6) * 0.5f;
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = float(int(i * 5 % 11) - 5) * 0.3f;
  graph::Value* x = g.add_value("x", f32_type({1, C, H, W}));
  g.inputs = {x};
  graph::Attrs ca;
  ca.set("kernel_shape", std::vector<int64_t>{1, 1});
  graph::Value* c = g.add_node(OpKind::Conv, "conv",
                               {x, g.add_constant("w", graph::f32_constant({O, C, 1, 1}, wv)),
                                g.add_constant("b", graph::f32_constant({O}, bv))},
                               {"c"}, ca)
                        ->outputs[0];
  g.outputs = {g.add_node(act, "act", {c}, {"y"}, std::move(attrs))->outputs[0]};
  graph::infer_types(g);
  graph::fuse_epilogue(g);
  ASSERT_EQ(g.nodes().size(), 1u);
  tir::IRModule mod = lower::lower_graph(g, {.cpu_schedules = true});
  for (tir::PrimFunc& k : mod.kernels)
    if (tir::has_blocks(k.body)) k = tir::lower_blocks(k);
  HostTensor in(DataType::f32(), {1, C, H, W}, std::vector<double>(xv.begin(), xv.end()));
  HostTensor out(DataType::f32(), {1, O, H, W});
  run_module(mod, {&in}, {&out});
  std::vector<double> want;
  for (int o = 0; o < O; ++o)
    for (int p = 0; p < H * W; ++p) {
      double acc = bv[size_t(o)];
      for (int i = 0; i < C; ++i) acc += double(xv[size_t(i * H * W + p)]) * wv[size_t(o * C + i)];
      want.push_back(f(acc));
    }
  expect_near_all(out.values(), want, 1e-5);
}

TEST(FusedConv, SwishHardSwishAndLeakyReluEpilogues) {
  graph::Attrs leaky;
  leaky.set("alpha", 0.2);
  graph::Attrs swish;
  swish.set("alpha", 1.0);
  for (int bits : {0, 512}) {
    expect_fused_activation(
        OpKind::Swish, swish, [](double v) { return v / (1 + std::exp(-v)); }, bits);
    expect_fused_activation(
        OpKind::HardSwish, {}, [](double v) { return v * std::clamp(v / 6 + 0.5, 0.0, 1.0); },
        bits);
    expect_fused_activation(
        OpKind::LeakyRelu, leaky, [](double v) { return v < 0 ? 0.2 * v : v; }, bits);
  }
}

}  // namespace
}  // namespace ingot::testing

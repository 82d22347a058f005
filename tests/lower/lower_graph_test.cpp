// lower_graph on small graphs built in the test: kernels, names, constants, workspace reuse,
// output special cases and errors; modules run through the loop-IR interpreter.
#include "lower/lower_graph.h"
#include "tir/analysis.h"

#include "lower/fuse_group.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "graph/transforms/dead_code.h"
#include "graph/transforms/infer_types.h"
#include "graph/transforms/layout_nchwc.h"
#include "rule_test_util.h"
#include "schedule/rules/default_rules.h"
#include "support/error.h"
#include "tir/transforms/lower_blocks.h"

namespace ingot::testing {
namespace {

using graph::Dim;
using graph::DType;
using graph::TensorType;
using ops::OpKind;
using tir::ArgRef;
using tir::DataType;

TensorType f32_type(std::vector<int64_t> shape) {
  TensorType t{DType::kF32, {}};
  for (int64_t d : shape) t.shape.push_back(Dim::fixed(d));
  return t;
}

graph::TensorPtr f32_tensor(std::vector<int64_t> shape, const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return std::make_shared<graph::Tensor>(DType::kF32, std::move(shape), std::move(bytes));
}

// x[2,3] -> Relu -> a -> Exp -> b -> Neg -> c -> Add(c, w) -> y
TEST(LowerGraph, ChainRunsAndReusesWorkspace) {
  graph::Graph g;
  g.name = "chain";
  graph::Value* x = g.add_value("x", f32_type({2, 3}));
  graph::Value* w = g.add_constant("w", f32_tensor({3}, {1, 2, 3}));
  g.inputs = {x};
  graph::Value* a = g.add_node(OpKind::Relu, "relu", {x}, {"a"})->outputs[0];
  graph::Value* b = g.add_node(OpKind::Exp, "exp", {a}, {"b"})->outputs[0];
  graph::Value* c = g.add_node(OpKind::Neg, "neg/1", {b}, {"c"})->outputs[0];
  graph::Value* y = g.add_node(OpKind::Add, "add", {c, w}, {"y"})->outputs[0];
  g.outputs = {y};
  graph::infer_types(g);
  tir::IRModule m = lower::lower_graph(g);

  ASSERT_EQ(m.kernels.size(), 4u);
  EXPECT_EQ(m.kernels[0].name, "relu_Relu");
  EXPECT_EQ(m.kernels[2].name, "neg_1_Neg");
  EXPECT_EQ(m.kernels[3].bytes_moved, 24.0 + 12.0 + 24.0);
  ASSERT_EQ(m.inputs.size(), 1u);
  EXPECT_EQ(m.inputs[0].name, "x");
  EXPECT_EQ(m.inputs[0].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(m.outputs[0].name, "y");
  // a, b, c are 24 bytes each: a and c share a 64-byte block, b has the other.
  EXPECT_EQ(m.workspace_bytes, 128u);
  ASSERT_EQ(m.entry.size(), 4u);
  EXPECT_EQ(m.entry[0].args[0].kind, ArgRef::kInput);
  EXPECT_EQ(m.entry[0].args[1].kind, ArgRef::kWorkspace);
  EXPECT_EQ(m.entry[2].args[1].kind, ArgRef::kWorkspace);
  EXPECT_EQ(m.entry[0].args[1].value, m.entry[2].args[1].value);  // a's block reused by c
  EXPECT_NE(m.entry[1].args[1].value, m.entry[0].args[1].value);
  EXPECT_EQ(m.entry[3].args[1].kind, ArgRef::kConstant);
  EXPECT_EQ(m.entry[3].args[2].kind, ArgRef::kOutput);

  HostTensor in(DataType::f32(), {2, 3}, {-1, 0.5, 2, -3, 1, 0});
  HostTensor out(DataType::f32(), {2, 3});
  run_module(m, {&in}, {&out});
  std::vector<double> want;
  for (int i = 0; i < 6; ++i) want.push_back(-std::exp(std::max(in.get(i), 0.0)) + (i % 3 + 1));
  expect_near_all(out.values(), want, 1e-6);
}

// x[2,3] -> Relu -> a -> Reshape [3,2] -> b -> Flatten -> c [3,2] -> Neg -> y: the reshapes
// are views of a's storage (no kernel); the chain of views resolves to it.
TEST(LowerGraph, ReshapeIsAViewOfItsInput) {
  graph::Graph g;
  graph::Value* x = g.add_value("x", f32_type({2, 3}));
  g.inputs = {x};
  std::vector<uint8_t> shape_bytes(16);
  int64_t dims[2] = {3, 2};
  std::memcpy(shape_bytes.data(), dims, 16);
  graph::Value* shp = g.add_constant(
      "shape", std::make_shared<graph::Tensor>(DType::kI64, std::vector<int64_t>{2}, shape_bytes));
  graph::Value* a = g.add_node(OpKind::Relu, "relu", {x}, {"a"})->outputs[0];
  graph::Value* b = g.add_node(OpKind::Reshape, "reshape", {a, shp}, {"b"})->outputs[0];
  graph::Value* c = g.add_node(OpKind::Flatten, "flatten", {b}, {"c"})->outputs[0];
  graph::Value* y = g.add_node(OpKind::Neg, "neg", {c}, {"y"})->outputs[0];
  g.outputs = {y};
  graph::infer_types(g);
  tir::IRModule m = lower::lower_graph(g);
  ASSERT_EQ(m.kernels.size(), 2u);
  EXPECT_EQ(m.kernels[1].name, "neg_Neg");
  EXPECT_EQ(m.workspace_bytes, 64u);  // a alone
  EXPECT_EQ(m.entry[1].args[0].kind, ArgRef::kWorkspace);
  EXPECT_EQ(m.entry[1].args[0].value, m.entry[0].args[1].value);
  HostTensor in(DataType::f32(), {2, 3}, {-1, 0.5, 2, -3, 1, 0});
  HostTensor oy(DataType::f32(), {3, 2});
  run_module(m, {&in}, {&oy});
  expect_near_all(oy.values(), {0, -0.5, -2, 0, -1, 0});
}

// Small constants read at constant indices become literals: Gather's scalar index and a
// one-element scale leave no load of their buffers; a larger table is still read.
TEST(LowerGraph, SmallConstantLoadsBecomeLiterals) {
  graph::Graph g;
  graph::Value* x = g.add_value("x", f32_type({3, 4}));
  g.inputs = {x};
  std::vector<uint8_t> idx_bytes(8);
  int64_t two = 2;
  std::memcpy(idx_bytes.data(), &two, 8);
  graph::Value* idx = g.add_constant(
      "idx", std::make_shared<graph::Tensor>(DType::kI64, std::vector<int64_t>{}, idx_bytes));
  graph::Value* k = g.add_constant("k", f32_tensor({1}, {0.5f}));
  graph::Attrs ga;
  ga.set("axis", int64_t(0));
  graph::Value* row = g.add_node(OpKind::Gather, "gather", {x, idx}, {"row"}, ga)->outputs[0];
  g.outputs = {g.add_node(OpKind::Mul, "scale", {row, k}, {"y"})->outputs[0]};
  graph::infer_types(g);
  tir::IRModule m = lower::lower_graph(g);
  ASSERT_EQ(m.kernels.size(), 2u);
  for (const tir::PrimFunc& f : m.kernels)
    for (const tir::Buffer& p : f.params)
      if (p->name == "idx" || p->name == "k") {
        EXPECT_FALSE(lower::reads_buffer(f.body, p)) << f.name;
      }
  HostTensor in = random_f32({3, 4}, 31);
  HostTensor out(DataType::f32(), {4});
  run_module(m, {&in}, {&out});
  std::vector<double> want;
  for (int j = 0; j < 4; ++j) want.push_back(in.get(8 + j) * 0.5);
  expect_near_all(out.values(), want, 1e-6);
}

TEST(LowerGraph, OutputsThatAreInputsConstantsOrRepeatsGetCopies) {
  graph::Graph g;
  graph::Value* x = g.add_value("x", f32_type({4}));
  graph::Value* k = g.add_constant("k", f32_tensor({2}, {5, 7}));
  g.inputs = {x};
  graph::Value* r = g.add_node(OpKind::Relu, "r", {x}, {"r"})->outputs[0];
  g.outputs = {r, x, k, r};
  graph::infer_types(g);
  tir::IRModule m = lower::lower_graph(g);
  EXPECT_EQ(m.kernels.size(), 4u);  // relu + 3 copies
  EXPECT_EQ(m.workspace_bytes, 0u);
  HostTensor in(DataType::f32(), {4}, {-1, 2, -3, 4});
  HostTensor o0(DataType::f32(), {4}), o1(DataType::f32(), {4}), o2(DataType::f32(), {2}),
      o3(DataType::f32(), {4});
  run_module(m, {&in}, {&o0, &o1, &o2, &o3});
  expect_near_all(o0.values(), {0, 2, 0, 4});
  expect_near_all(o1.values(), {-1, 2, -3, 4});
  expect_near_all(o2.values(), {5, 7});
  expect_near_all(o3.values(), {0, 2, 0, 4});
}

TEST(LowerGraph, SplitOutputsAndSharedInput) {
  // x[2,4] -> Split(axis 1) -> (p, q); y = p * q; z = Sigmoid(x)
  graph::Graph g;
  graph::Value* x = g.add_value("x", f32_type({2, 4}));
  g.inputs = {x};
  graph::Attrs sa;
  sa.set("axis", int64_t(1));
  sa.set("split", std::vector<int64_t>{2, 2});
  graph::Node* s = g.add_node(OpKind::Split, "split", {x}, {"p", "q"}, sa);
  graph::Value* y =
      g.add_node(OpKind::Mul, "mul", {s->outputs[0], s->outputs[1]}, {"y"})->outputs[0];
  graph::Value* z = g.add_node(OpKind::Sigmoid, "sig", {x}, {"z"})->outputs[0];
  g.outputs = {y, z};
  graph::infer_types(g);
  tir::IRModule m = lower::lower_graph(g);
  HostTensor in = random_f32({2, 4}, 21);
  HostTensor oy(DataType::f32(), {2, 2}), oz(DataType::f32(), {2, 4});
  run_module(m, {&in}, {&oy, &oz});
  std::vector<double> wy, wz;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) wy.push_back(in.get(i * 4 + j) * in.get(i * 4 + j + 2));
  for (double v : in.values()) wz.push_back(1 / (1 + std::exp(-v)));
  expect_near_all(oy.values(), wy, 1e-6);
  expect_near_all(oz.values(), wz, 1e-6);
}

TEST(LowerGraph, ReshapeAndConvWithConstantWeights) {
  // x[1,1,3,3] -> Conv(w all ones 2x2, bias 1) -> [1,1,2,2] -> Reshape [4]
  graph::Graph g;
  graph::Value* x = g.add_value("x", f32_type({1, 1, 3, 3}));
  g.inputs = {x};
  graph::Value* w = g.add_constant("w", f32_tensor({1, 1, 2, 2}, {1, 1, 1, 1}));
  graph::Value* b = g.add_constant("b", f32_tensor({1}, {1}));
  std::vector<uint8_t> shape_bytes(8);
  int64_t four = 4;
  std::memcpy(shape_bytes.data(), &four, 8);
  graph::Value* shp = g.add_constant(
      "shape", std::make_shared<graph::Tensor>(DType::kI64, std::vector<int64_t>{1}, shape_bytes));
  graph::Attrs ca;
  ca.set("kernel_shape", std::vector<int64_t>{2, 2});
  graph::Value* c = g.add_node(OpKind::Conv, "conv", {x, w, b}, {"c"}, ca)->outputs[0];
  graph::Value* y = g.add_node(OpKind::Reshape, "reshape", {c, shp}, {"y"})->outputs[0];
  g.outputs = {y};
  graph::infer_types(g);
  tir::IRModule m = lower::lower_graph(g);
  EXPECT_GT(m.kernels[0].flops, 0.0);
  for (const tir::KernelCall& call : m.entry)
    for (const ArgRef& a : call.args) {
      if (a.kind == ArgRef::kConstant) {
        EXPECT_EQ(a.value % 64, 0);
      }
    }
  HostTensor in(DataType::f32(), {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  HostTensor out(DataType::f32(), {4});
  run_module(m, {&in}, {&out});
  expect_near_all(out.values(),
                  {1 + 1 + 2 + 4 + 5, 1 + 2 + 3 + 5 + 6, 1 + 4 + 5 + 7 + 8, 1 + 5 + 6 + 8 + 9});
}

// Conv and MatMul/Gemm with constant weights become block-form kernels; run here unscheduled
// (lower_blocks) through the interpreter against closed-form references.
tir::IRModule run_blocks(tir::IRModule m) {
  for (tir::PrimFunc& f : m.kernels)
    if (tir::has_blocks(f.body)) f = tir::lower_blocks(f);
  return m;
}

// An NCHW depthwise Conv without a bias (-O0 / -O1: outside the layout pass, so Conv's own
// compute rule): the rows start from 0, no zero bias made up as a constant.
TEST(LowerGraph, DepthwiseWithoutBiasStartsFromZero) {
  graph::Graph g;
  graph::Value* x = g.add_value("x", f32_type({1, 3, 4, 5}));
  g.inputs = {x};
  std::vector<float> wv(3 * 9), xv(60);
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = float(int(i % 5) - 2) * 0.5f;
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = float(int(i % 7) - 3) * 0.25f;
  graph::Value* w = g.add_constant("w", f32_tensor({3, 1, 3, 3}, wv));
  graph::Attrs ca;
  ca.set("kernel_shape", std::vector<int64_t>{3, 3});
  ca.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  ca.set("group", int64_t(3));
  graph::Value* y = g.add_node(OpKind::Conv, "dw", {x, w}, {"y"}, ca)->outputs[0];
  g.outputs = {y};
  graph::infer_types(g);
  tir::IRModule m = lower::lower_graph(g, {.cpu_schedules = true});
  EXPECT_EQ(m.constants.size(), wv.size() * 4);  // the weights alone
  HostTensor in(DataType::f32(), {1, 3, 4, 5}, std::vector<double>(xv.begin(), xv.end()));
  HostTensor out(DataType::f32(), {1, 3, 4, 5});
  run_module(run_blocks(m), {&in}, {&out});
  std::vector<double> want;
  for (int c = 0; c < 3; ++c)
    for (int h = 0; h < 4; ++h)
      for (int q = 0; q < 5; ++q) {
        double acc = 0;
        for (int r = 0; r < 3; ++r)
          for (int t = 0; t < 3; ++t) {
            int ih = h + r - 1, iw = q + t - 1;
            if (ih < 0 || ih >= 4 || iw < 0 || iw >= 5) continue;
            acc +=
                double(xv[size_t((c * 4 + ih) * 5 + iw)]) * double(wv[size_t((c * 3 + r) * 3 + t)]);
          }
        want.push_back(acc);
      }
  expect_near_all(out.values(), want);
}

// A constant Pad of a channel-blocked tensor [1, 2, 3, 4, 3] (spatial pads only, value 0.5):
// described on the views that merge the lanes into the columns ([1, 2, 3, 12] -> [1, 2, 6, 21]),
// whole rows of the value outside the input and a contiguous copy inside, against the closed
// form; a Pad that crops keeps the per-element nest on the tensors' own shapes.
TEST(LowerGraph, ConstantPadRunsOnRowsWithTheLanesMerged) {
  for (bool crop : {false, true}) {
    graph::Graph g;
    graph::Value* x = g.add_value("x", f32_type({1, 2, 3, 4, 3}));
    g.inputs = {x};
    graph::Attrs a;
    a.set("mode", std::string("constant"));
    const int64_t right = crop ? -1 : 1;
    a.set("pads", std::vector<int64_t>{0, 0, 1, 2, 0, 0, 0, 2, right, 0});
    a.set("value", 0.5);
    graph::Value* y = g.add_node(OpKind::Pad, "pad", {x}, {"y"}, a)->outputs[0];
    g.outputs = {y};
    graph::infer_types(g);
    const int64_t ow = 4 + 2 + right;
    ASSERT_EQ(y->type.static_shape(), (std::vector<int64_t>{1, 2, 6, ow, 3}));
    tir::IRModule m = lower::lower_graph(g, {.cpu_schedules = true});
    ASSERT_EQ(m.kernels.size(), 1u);
    const tir::PrimFunc& f = m.kernels[0];
    ASSERT_EQ(f.params.size(), 2u);
    EXPECT_EQ(f.params[0].ndim(), crop ? 5 : 4);
    EXPECT_EQ(f.params[1].ndim(), crop ? 5 : 4);
    std::vector<double> xv(72);
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = double(int(i % 13) - 6) * 0.25;
    HostTensor in(DataType::f32(), {1, 2, 3, 4, 3}, xv);
    HostTensor out(DataType::f32(), {1, 2, 6, ow, 3});
    run_module(m, {&in}, {&out});
    std::vector<double> want;
    for (int c = 0; c < 2; ++c)
      for (int h = 0; h < 6; ++h)
        for (int w = 0; w < ow; ++w)
          for (int l = 0; l < 3; ++l) {
            int ih = h - 1, iw = w - 2;
            bool inside = ih >= 0 && ih < 3 && iw >= 0 && iw < 4;
            want.push_back(inside ? xv[size_t(((c * 3 + ih) * 4 + iw) * 3 + l)] : 0.5);
          }
    expect_near_all(out.values(), want);
  }
}

// Blocked by layout_nchwc: the conv reads an explicit Pad of its blocked input and describes the
// product over the node's own weights and bias, which its rule lays out.
TEST(LowerGraph, BlockedConvReadsAnExplicitPadAndItsOwnWeights) {
  // x[1,3,4,5] -> Conv(w[5,3,3,3], b[5], pads 1, stride 1) -> y[1,5,4,5]
  graph::Graph g;
  graph::Value* x = g.add_value("x", f32_type({1, 3, 4, 5}));
  g.inputs = {x};
  std::vector<float> wv(5 * 3 * 9), bv = {1, -2, 3, -4, 5}, xv(60);
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = float(int(i % 7) - 3) * 0.25f;
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = float(int(i % 11) - 5) * 0.5f;
  graph::Value* w = g.add_constant("w", f32_tensor({5, 3, 3, 3}, wv));
  graph::Value* b = g.add_constant("b", f32_tensor({5}, bv));
  graph::Attrs ca;
  ca.set("kernel_shape", std::vector<int64_t>{3, 3});
  ca.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  graph::Value* y = g.add_node(OpKind::Conv, "conv", {x, w, b}, {"y"}, ca)->outputs[0];
  g.outputs = {y};
  graph::infer_types(g);
  graph::convert_layout_nchwc(g, vector_channel_blocks(512));
  graph::remove_dead_code(g);
  graph::infer_types(g);
  tir::IRModule m = lower::lower_graph(g, {.cpu_schedules = true});
  schedule::assign_schedule_rules(m, "llvm");
  ASSERT_EQ(m.kernels.size(), 4u);
  EXPECT_EQ(m.kernels[0].name, "x_to_nchwc_LayoutToBlocked");
  EXPECT_EQ(m.kernels[1].name, "x_nchwc_padded_Pad");  // [1, 1, 6, 7, 3]
  EXPECT_EQ(m.kernels[2].name, "conv_ConvNCHWc");
  EXPECT_EQ(m.kernels[2].schedule_rule, "blocked_conv2d");
  EXPECT_EQ(m.kernels[2].flops, 2.0 * 5 * 4 * 5 * 27 + 100);  // MACs and the bias add
  EXPECT_EQ(m.kernels[3].name, "y_from_nchwc_LayoutFromBlocked");
  // Lowering describes the conv over the node's own weights and bias (the rule lays them out).
  // (The weights' 540 bytes rounded up to the constants' 64-byte alignment, then the bias.)
  EXPECT_EQ(m.constants.size(), size_t((540 + 63) / 64 * 64 + 5 * 4));
  EXPECT_EQ(m.kernels[2].constant_params, (std::vector<int>{1, 2}));
  HostTensor in(DataType::f32(), {1, 3, 4, 5}, std::vector<double>(xv.begin(), xv.end()));
  HostTensor out(DataType::f32(), {1, 5, 4, 5});
  run_module(run_blocks(m), {&in}, {&out});
  std::vector<double> want;
  for (int o = 0; o < 5; ++o)
    for (int h = 0; h < 4; ++h)
      for (int q = 0; q < 5; ++q) {
        double acc = bv[size_t(o)];
        for (int c = 0; c < 3; ++c)
          for (int r = 0; r < 3; ++r)
            for (int t = 0; t < 3; ++t) {
              int ih = h + r - 1, iw = q + t - 1;
              if (ih < 0 || ih >= 4 || iw < 0 || iw >= 5) continue;
              acc += double(xv[size_t((c * 4 + ih) * 5 + iw)]) *
                     double(wv[size_t(((o * 3 + c) * 3 + r) * 3 + t)]);
            }
        want.push_back(acc);
      }
  expect_near_all(out.values(), want);
}

TEST(LowerGraph, ScheduledGemmFoldsAlphaTransposeAndBias) {
  // y = 0.5 * x[3,4] * w[5,4]^T + 2 * b[5]; and MatMul z = y[3,5] * v[5,2] (2 panels of 32 cols).
  graph::Graph g;
  graph::Value* x = g.add_value("x", f32_type({3, 4}));
  g.inputs = {x};
  std::vector<float> wv(20), bv = {1, 2, 3, 4, 5}, vv(10), xv(12);
  for (size_t i = 0; i < 20; ++i) wv[i] = float(i) * 0.1f - 1.0f;
  for (size_t i = 0; i < 10; ++i) vv[i] = float(i % 3) - 1.0f;
  for (size_t i = 0; i < 12; ++i) xv[i] = float(i) * 0.5f - 2.0f;
  graph::Attrs ga;
  ga.set("transB", int64_t(1));
  ga.set("alpha", 0.5);
  ga.set("beta", 2.0);
  graph::Value* y = g.add_node(OpKind::Gemm, "gemm",
                               {x, g.add_constant("w", f32_tensor({5, 4}, wv)),
                                g.add_constant("b", f32_tensor({5}, bv))},
                               {"y"}, ga)
                        ->outputs[0];
  graph::Value* z =
      g.add_node(OpKind::MatMul, "mm", {y, g.add_constant("v", f32_tensor({5, 2}, vv))}, {"z"})
          ->outputs[0];
  g.outputs = {z};
  graph::infer_types(g);
  tir::IRModule m = lower::lower_graph(g, {.cpu_schedules = true});
  schedule::assign_schedule_rules(m, "llvm");
  ASSERT_EQ(m.kernels.size(), 2u);
  // Gemm with alpha != 1 (graph passes not run here: fold_gemm_alpha would make it a plain
  // product) is the dense product block and a scaling pass; the MatMul is the dense block.
  EXPECT_EQ(m.kernels[0].schedule_rule, "dense_matmul");
  EXPECT_EQ(m.kernels[1].schedule_rule, "dense_matmul");
  HostTensor in(DataType::f32(), {3, 4}, std::vector<double>(xv.begin(), xv.end()));
  HostTensor out(DataType::f32(), {3, 2});
  run_module(run_blocks(m), {&in}, {&out});
  std::vector<double> want;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) {
      double acc = 0;
      for (int n = 0; n < 5; ++n) {
        double yv = 2.0 * bv[size_t(n)];
        for (int k = 0; k < 4; ++k) yv += 0.5 * xv[size_t(i * 4 + k)] * wv[size_t(n * 4 + k)];
        acc += yv * vv[size_t(n * 2 + j)];
      }
      want.push_back(acc);
    }
  expect_near_all(out.values(), want);
}

TEST(LowerGraph, RunTimeBatchedProductIsOneBlockOverFlattenedBatches) {
  // Attention-like: y[2,3,10,7] = a[2,3,10,4] x b[2,3,4,7], both run-time values: one product
  // block over [6, .., ..] views, which the dense matmul rule packs (B and A into scratch).
  graph::Graph g;
  graph::Value* a = g.add_value("a", f32_type({2, 3, 10, 4}));
  graph::Value* b = g.add_value("b", f32_type({2, 3, 4, 7}));
  g.inputs = {a, b};
  g.outputs = {g.add_node(OpKind::MatMul, "mm", {a, b}, {"y"})->outputs[0]};
  graph::infer_types(g);
  tir::IRModule m = lower::lower_graph(g, {.cpu_schedules = true});
  schedule::assign_schedule_rules(m, "llvm");
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(m.kernels[0].schedule_rule, "dense_matmul");
  ASSERT_EQ(m.kernels[0].params.size(), 3u);  // A, B, C as [6, .., ..]
  EXPECT_EQ(m.kernels[0].params[1]->shape.size(), 3u);
  HostTensor ta(DataType::f32(), {2, 3, 10, 4}, random_values(240, -1, 1, 3));
  HostTensor tb(DataType::f32(), {2, 3, 4, 7}, random_values(168, -1, 1, 4));
  HostTensor out(DataType::f32(), {2, 3, 10, 7});
  run_module(run_blocks(m), {&ta, &tb}, {&out});
  std::vector<double> want;
  for (int t = 0; t < 6; ++t)
    for (int i = 0; i < 10; ++i)
      for (int j = 0; j < 7; ++j) {
        double acc = 0;
        for (int k = 0; k < 4; ++k) acc += ta.get(t * 40 + i * 4 + k) * tb.get(t * 28 + k * 7 + j);
        want.push_back(acc);
      }
  expect_near_all(out.values(), want, 1e-5);
}

TEST(LowerGraph, GemmWithAlphaIsTheDenseBlockAndAScalingPass) {
  // y[10,7] = 0.5 * a[10,4] x b[4,7] + 2 * c[7], b a run-time value (fold_gemm_alpha folds alpha
  // into a constant B only; at -O0 not even that): the product block, which the dense matmul
  // rule packs, then a pass applying alpha and beta * C.
  graph::Graph g;
  graph::Value* a = g.add_value("a", f32_type({10, 4}));
  graph::Value* b = g.add_value("b", f32_type({4, 7}));
  std::vector<float> c(7);
  for (int j = 0; j < 7; ++j) c[size_t(j)] = 0.25f * float(j) - 1.0f;
  graph::Value* cv = g.add_constant("c", f32_tensor({7}, c));
  g.inputs = {a, b};
  graph::Attrs attrs;
  attrs.set("alpha", 0.5);
  attrs.set("beta", 2.0);
  g.outputs = {g.add_node(OpKind::Gemm, "gemm", {a, b, cv}, {"y"}, attrs)->outputs[0]};
  graph::infer_types(g);
  tir::IRModule m = lower::lower_graph(g, {.cpu_schedules = true});
  schedule::assign_schedule_rules(m, "llvm");
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(m.kernels[0].schedule_rule, "dense_matmul");
  HostTensor ta(DataType::f32(), {10, 4}, random_values(40, -1, 1, 5));
  HostTensor tb(DataType::f32(), {4, 7}, random_values(28, -1, 1, 6));
  HostTensor out(DataType::f32(), {10, 7});
  run_module(run_blocks(m), {&ta, &tb}, {&out});
  std::vector<double> want;
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 7; ++j) {
      double acc = 0;
      for (int k = 0; k < 4; ++k) acc += ta.get(i * 4 + k) * tb.get(k * 7 + j);
      want.push_back(0.5 * acc + 2.0 * c[size_t(j)]);
    }
  expect_near_all(out.values(), want, 1e-5);
}

TEST(LowerGraph, BroadcastBatchKeepsTheComputeRule) {
  graph::Graph g;
  graph::Value* a = g.add_value("a", f32_type({2, 4, 8}));
  graph::Value* b = g.add_value("b", f32_type({1, 8, 4}));
  g.inputs = {a, b};
  g.outputs = {g.add_node(OpKind::MatMul, "mm", {a, b}, {"y"})->outputs[0]};
  graph::infer_types(g);
  tir::IRModule m = lower::lower_graph(g, {.cpu_schedules = true});
  schedule::assign_schedule_rules(m, "llvm");
  ASSERT_EQ(m.kernels.size(), 1u);
  // Not the packed matmul: the compute rule's nest of rows, which the injective rule schedules.
  EXPECT_EQ(m.kernels[0].schedule_rule, "injective");
}

TEST(LowerGraph, UnboundDimensionIsAUserErrorNamingTheOption) {
  graph::Graph g;
  TensorType t{DType::kF32, {Dim::named("N"), Dim::fixed(3)}};
  graph::Value* x = g.add_value("x", t);
  g.inputs = {x};
  g.outputs = {g.add_node(OpKind::Relu, "r", {x}, {"y"})->outputs[0]};
  graph::infer_types(g);
  try {
    lower::lower_graph(g);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "input 'x' has unbound dimension 'N'; bind it with --input-shapes x:[1,3], or "
                 "keep it symbolic with --dim-bounds N:1..MAX (llvm target)");
  }
}

}  // namespace
}  // namespace ingot::testing

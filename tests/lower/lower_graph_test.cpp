// lower_graph on small graphs built in the test: kernels, names, constants, workspace reuse,
// output special cases and errors; modules run through the loop-IR interpreter.
#include "lower/lower_graph.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "graph/transforms/infer_types.h"
#include "rule_test_util.h"
#include "support/error.h"

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
                 "input 'x' has unbound dimension 'N'; bind it with --input-shapes x:[1,3]");
  }
}

}  // namespace
}  // namespace ingot::testing

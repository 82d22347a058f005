// Type inference of TopK (k resolved from a constant input), OneHot (float depth, axis) and
// CumSum (constant axis folded into the attribute, run-time axis kept).
#include <gtest/gtest.h>

#include <cstring>

#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::F32;
using testing::OneNode;
using testing::T;
using testing::user_error;

TensorPtr f32_scalar(float v) {
  std::vector<uint8_t> bytes(4);
  std::memcpy(bytes.data(), &v, 4);
  return std::make_shared<Tensor>(DType::kF32, std::vector<int64_t>{}, std::move(bytes));
}

TEST(InferTopK, ValuesAndIndices) {
  Graph g;
  Value* x = g.add_value("x", F32({"N", 10}));
  g.inputs = {x};
  Value* k = g.add_constant("k", testing::i64_vector({4}));
  Node* n = g.add_node(OpKind::TopK, "tk", {x, k}, {"v", "i"});
  g.outputs = n->outputs;
  infer_types(g);
  EXPECT_EQ(g.outputs[0]->type, F32({"N", 4}));
  EXPECT_EQ(g.outputs[1]->type, T(DType::kI64, {"N", 4}));
  EXPECT_EQ(n->inputs.size(), 1u);
  EXPECT_EQ(n->attrs.get_int("axis", 0), 1);
  EXPECT_EQ(n->attrs.get_int("largest", 0), 1);

  Attrs a;
  a.set("k", int64_t(11));
  OneNode big(OpKind::TopK, {F32({3, 10})}, a, 2, "tk");
  EXPECT_EQ(user_error([&] { big.infer(); }),
            "node 'tk' (TopK): k = 11 is out of range for axis 1 of size 10");
}

TEST(InferOneHot, DepthAndAxis) {
  Graph g;
  Value* idx = g.add_value("idx", T(DType::kI64, {2, 3}));
  Value* values = g.add_value("values", T(DType::kI32, {2}));
  g.inputs = {idx, values};
  Value* depth = g.add_constant("depth", f32_scalar(5.7f));  // truncated to 5
  Attrs a;
  a.set("axis", int64_t(-2));
  Node* n = g.add_node(OpKind::OneHot, "oh", {idx, depth, values}, {"y"}, a);
  g.outputs = n->outputs;
  infer_types(g);
  EXPECT_EQ(g.outputs[0]->type, T(DType::kI32, {2, 5, 3}));
  EXPECT_EQ(n->attrs.get_int("axis", 0), 1);

  Attrs bad;
  bad.set("depth", 0.0);
  OneNode zero(OpKind::OneHot, {T(DType::kI64, {2}), F32({}), F32({2})}, bad, 1, "oh");
  zero.node->inputs[1] = nullptr;
  EXPECT_EQ(user_error([&] { zero.infer(); }),
            "node 'oh' (OneHot): 'depth' must be at least 1, got 0");
}

TEST(InferCumSum, ConstantAndRunTimeAxis) {
  Graph g;
  Value* x = g.add_value("x", F32({2, 3}));
  Value* ax = g.add_value("ax", T(DType::kI32, {}));
  g.inputs = {x, ax};
  Value* c = g.add_constant("c", testing::i64_tensor({}, {-1}));
  Node* folded = g.add_node(OpKind::CumSum, "cs", {x, c}, {"y"});
  Node* runtime = g.add_node(OpKind::CumSum, "cs2", {x, ax}, {"z"});
  g.outputs = {folded->outputs[0], runtime->outputs[0]};
  infer_types(g);
  EXPECT_EQ(g.outputs[0]->type, F32({2, 3}));
  EXPECT_EQ(folded->inputs.size(), 1u);
  EXPECT_EQ(folded->attrs.get_int("axis", 0), 1);
  EXPECT_EQ(runtime->inputs.size(), 2u);
  EXPECT_FALSE(runtime->attrs.has("axis"));

  OneNode vec(OpKind::CumSum, {F32({2, 3}), T(DType::kI64, {2})}, {}, 1, "cs");
  EXPECT_EQ(user_error([&] { vec.infer(); }),
            "node 'cs' (CumSum): input 'axis' int64[2] must be a scalar");
}

}  // namespace
}  // namespace ingot::graph

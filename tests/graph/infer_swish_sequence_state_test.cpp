// Type inference of Swish/SwiGLU (alpha made explicit, SwiGLU does not broadcast) and of the
// sequence-state ops: CausalConvWithState (present_state of length k - 1, "swish" -> "silu"),
// LinearAttention (scale resolved, state dtype, inputs checked against the update rule) and
// TensorScatter (axis normalised, not the batch dim).
#include <gtest/gtest.h>

#include <cmath>

#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::F32;
using testing::OneNode;
using testing::T;
using testing::user_error;

TEST(InferSwish, AlphaDefaultAndSwiGLUShapes) {
  OneNode s(OpKind::Swish, {F32({"N", 3})});
  EXPECT_EQ(s.infer(), F32({"N", 3}));
  EXPECT_EQ(s.node->attrs.get_float("alpha", 0), 1.0);

  Attrs a;
  a.set("alpha", 0.5);
  OneNode g(OpKind::SwiGLU, {F32({"N", 4}), F32({2, 4})}, a);
  EXPECT_EQ(g.infer(), F32({2, 4}));
  EXPECT_EQ(g.node->attrs.get_float("alpha", 0), 0.5);

  OneNode bad(OpKind::SwiGLU, {F32({2, 4}), F32({1, 4})}, {}, 1, "g");
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'g' (SwiGLU): dim 0 of 'A' and 'B' (SwiGLU does not broadcast) differ (2 vs 1)");
  OneNode ints(OpKind::Swish, {T(DType::kI32, {3})}, {}, 1, "s");
  EXPECT_EQ(user_error([&] { ints.infer(); }),
            "node 's' (Swish): input 'X' must be a float tensor, got int32");
}

TEST(InferCausalConv, OutputsAndState) {
  Attrs a;
  a.set("activation", std::string("swish"));
  OneNode c(OpKind::CausalConvWithState, {F32({"B", 4, 8}), F32({4, 1, 3}), F32({4})}, a, 2);
  EXPECT_EQ(c.infer(0), F32({"B", 4, 8}));
  EXPECT_EQ(c.infer(1), F32({"B", 4, 2}));
  EXPECT_EQ(c.node->attrs.get_string("activation", ""), "silu");

  OneNode k1(OpKind::CausalConvWithState, {F32({2, 4, 8}), F32({4, 1, 1})}, {}, 2);
  EXPECT_EQ(k1.infer(1), F32({2, 4, 0}));
  EXPECT_EQ(k1.node->attrs.get_string("activation", ""), "none");

  OneNode past(OpKind::CausalConvWithState,
               {F32({2, 4, 8}), F32({4, 1, 3}), F32({4}), F32({2, 4, 3})}, {}, 2, "cc");
  EXPECT_EQ(user_error([&] { past.infer(); }),
            "node 'cc' (CausalConvWithState): k - 1 and the length of 'past_state' differ (2 vs "
            "3)");
  OneNode w(OpKind::CausalConvWithState, {F32({2, 4, 8}), F32({4, 2, 3})}, {}, 2, "cc");
  EXPECT_EQ(user_error([&] { w.infer(); }),
            "node 'cc' (CausalConvWithState): input 'weight' float32[4,2,3] must be (channels, 1, "
            "k) with a static k");
}

TEST(InferLinearAttention, ScaleStateDtypeAndRules) {
  Attrs a;
  a.set("q_num_heads", int64_t(4));
  a.set("kv_num_heads", int64_t(2));
  a.set("update_rule", std::string("linear"));
  // query (B, T, 4 * 8), key (B, T, 2 * 8), value (B, T, 2 * 6)
  OneNode n(OpKind::LinearAttention, {F32({"B", 5, 32}), F32({"B", 5, 16}), F32({"B", 5, 12})}, a,
            2);
  EXPECT_EQ(n.infer(0), F32({"B", 5, 24}));
  EXPECT_EQ(n.infer(1), F32({"B", 2, 8, 6}));
  EXPECT_DOUBLE_EQ(n.node->attrs.get_float("scale", 0), 1 / std::sqrt(8.0));

  // gated_delta (the default) with a float32 state for float16 activations.
  Attrs b;
  b.set("q_num_heads", int64_t(2));
  b.set("kv_num_heads", int64_t(2));
  b.set("scale", 0.25);
  auto H = [](std::initializer_list<testing::D> d) { return T(DType::kF16, d); };
  OneNode gd(
      OpKind::LinearAttention,
      {H({1, 3, 8}), H({1, 3, 8}), H({1, 3, 8}), F32({1, 2, 4, 4}), H({1, 3, 2}), H({1, 3, 1})}, b,
      2);
  EXPECT_EQ(gd.infer(0), H({1, 3, 8}));
  EXPECT_EQ(gd.infer(1), F32({1, 2, 4, 4}));
  EXPECT_EQ(gd.node->attrs.get_string("update_rule", ""), "gated_delta");
  EXPECT_EQ(gd.node->attrs.get_float("scale", 0), 0.25);

  Attrs c = b;
  c.set("update_rule", std::string("delta"));
  Graph g;
  std::vector<Value*> ins;
  for (const char* name : {"q", "k", "v"}) ins.push_back(g.add_value(name, F32({1, 3, 8})));
  ins.push_back(nullptr);  // past_state omitted
  ins.push_back(g.add_value("decay", F32({1, 3, 2})));
  g.inputs = {ins[0], ins[1], ins[2], ins[4]};
  Node* la = g.add_node(OpKind::LinearAttention, "la", ins, {"o", "s"}, c);
  g.outputs = la->outputs;
  EXPECT_EQ(user_error([&] { infer_types(g); }),
            "node 'la' (LinearAttention): update_rule 'delta' forbids input 'decay'");
}

TEST(InferTensorScatter, AxisModeAndShapes) {
  OneNode s(OpKind::TensorScatter, {F32({2, 3, 8, 4}), F32({2, 3, 2, 4}), T(DType::kI64, {2})});
  EXPECT_EQ(s.infer(), F32({2, 3, 8, 4}));
  EXPECT_EQ(s.node->attrs.get_int("axis", -1), 2);
  EXPECT_EQ(s.node->attrs.get_string("mode", ""), "linear");

  Attrs a;
  a.set("axis", int64_t(-3));
  OneNode b(OpKind::TensorScatter, {F32({2, 3, 4}), F32({2, 3, 4})}, a, 1, "ts");
  EXPECT_EQ(user_error([&] { b.infer(); }),
            "node 'ts' (TensorScatter): attribute 'axis' must not be the batch dim 0 (rank 3)");
  OneNode big(OpKind::TensorScatter, {F32({2, 3, 4}), F32({2, 5, 4})}, {}, 1, "ts");
  EXPECT_EQ(user_error([&] { big.infer(); }),
            "node 'ts' (TensorScatter): the update's sequence length 5 exceeds the cache length "
            "3 (axis 1)");
}

}  // namespace
}  // namespace ingot::graph

// Import of Swish/SwiGLU (alpha copied) and of the sequence-state ops: CausalConvWithState
// (optional bias/past_state, two outputs), LinearAttention (omitted past_state stays nullptr,
// chunk_size dropped) and TensorScatter (optional write_indices).
#include <gtest/gtest.h>

#include "onnx_builder.h"

namespace ingot::frontend::testing {
namespace {

using ops::OpKind;

TEST(OnnxSwishImport, SwishAndSwiGLU) {
  ModelBuilder b(28);
  b.input("x", {2, 4});
  b.input("y", {2, 4});
  set_attr(b.node("Swish", {"x"}, {"s"}, "sw"), "alpha", 0.5);
  b.node("SwiGLU", {"x", "y"}, {"g"}, "glu");
  b.output("s");
  b.output("g");
  auto g = b.import();
  const graph::Node* sw = find_node(*g, "sw");
  EXPECT_EQ(sw->op, OpKind::Swish);
  EXPECT_EQ(sw->attrs.get_float("alpha", 0), 0.5);
  const graph::Node* glu = find_node(*g, "glu");
  EXPECT_EQ(glu->op, OpKind::SwiGLU);
  EXPECT_EQ(glu->inputs.size(), 2u);
  EXPECT_FALSE(glu->attrs.has("alpha"));

  ModelBuilder old(23);
  old.input("x", {2});
  old.node("Swish", {"x"}, {"s"}, "sw");
  old.output("s");
  EXPECT_EQ(user_error([&] { old.import(); }),
            "node 'sw' (Swish, opset 23): unsupported operator (ingot supports Swish at opsets 24 "
            "to 28)");
}

TEST(OnnxSequenceStateImport, CausalConvWithState) {
  ModelBuilder b(27);
  b.input("x", {2, 4, 8});
  b.input("w", {4, 1, 3});
  b.input("past", {2, 4, 2});
  auto* n = b.node("CausalConvWithState", {"x", "w", "", "past"}, {"y", "state"}, "cc");
  set_attr(n, "activation", "silu");
  b.output("y");
  b.output("state");
  auto g = b.import();
  const graph::Node* cc = find_node(*g, "cc");
  EXPECT_EQ(cc->op, OpKind::CausalConvWithState);
  ASSERT_EQ(cc->inputs.size(), 4u);
  EXPECT_EQ(cc->inputs[2], nullptr);
  EXPECT_EQ(cc->outputs.size(), 2u);
  EXPECT_EQ(cc->attrs.get_string("activation", ""), "silu");
}

TEST(OnnxSequenceStateImport, LinearAttentionAndTensorScatter) {
  ModelBuilder b(27);
  for (const char* name : {"q", "k", "v"}) b.input(name, {1, 3, 8});
  b.input("decay", {1, 3, 2});
  b.input("beta", {1, 3, 2});
  b.input("cache", {1, 2, 6, 4});
  b.input("upd", {1, 2, 3, 4});
  auto* la = b.node("LinearAttention", {"q", "k", "v", "", "decay", "beta"}, {"o", "s"}, "la");
  set_attr(la, "q_num_heads", int64_t(2));
  set_attr(la, "kv_num_heads", int64_t(2));
  set_attr(la, "chunk_size", int64_t(16));
  set_attr(b.node("TensorScatter", {"cache", "upd"}, {"c"}, "ts"), "mode", "circular");
  b.output("o");
  b.output("s");
  b.output("c");
  auto g = b.import();
  const graph::Node* n = find_node(*g, "la");
  EXPECT_EQ(n->op, OpKind::LinearAttention);
  ASSERT_EQ(n->inputs.size(), 6u);
  EXPECT_EQ(n->inputs[3], nullptr);
  EXPECT_FALSE(n->attrs.has("chunk_size"));
  EXPECT_EQ(n->attrs.get_int("q_num_heads", 0), 2);
  const graph::Node* ts = find_node(*g, "ts");
  EXPECT_EQ(ts->op, OpKind::TensorScatter);
  EXPECT_EQ(ts->inputs.size(), 2u);
  EXPECT_EQ(ts->attrs.get_string("mode", ""), "circular");
}

}  // namespace
}  // namespace ingot::frontend::testing

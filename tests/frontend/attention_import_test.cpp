// Conversion of Attention: omitted optional inputs stay nullptr slots, the ONNX outputs (with
// unnamed middle ones) map onto the node's outputs, and attributes are copied.
#include <gtest/gtest.h>

#include "onnx_builder.h"

namespace ingot::frontend::testing {
namespace {

using ops::OpKind;

TEST(OnnxAttention, OptionalInputsAndOutputsKeepTheirSlots) {
  ModelBuilder b(24);
  b.input("q", {1, 2, 3, 8});
  b.input("k", {1, 2, 5, 8});
  b.input("n", {1}, onnx::TensorProto::INT64);
  auto* n = b.node("Attention", {"q", "k", "k", "", "", "", "n"}, {"y", "", "", "qk"}, "att");
  set_attr(n, "is_causal", int64_t(1));
  set_attr(n, "softmax_precision", int64_t(1));
  b.output("y");
  b.output("qk");
  auto g = b.import();
  const graph::Node* att = find_node(*g, "att");
  EXPECT_EQ(att->op, OpKind::Attention);
  ASSERT_EQ(att->inputs.size(), 7u);
  EXPECT_EQ(att->inputs[3], nullptr);
  EXPECT_EQ(att->inputs[5], nullptr);
  EXPECT_EQ(att->inputs[6]->name, "n");
  ASSERT_EQ(att->outputs.size(), 4u);
  EXPECT_EQ(att->outputs[3]->name, "qk");
  EXPECT_EQ(att->attrs.get_int("is_causal", 0), 1);
  EXPECT_FALSE(att->attrs.has("softmax_precision"));
}

TEST(OnnxAttention, NeedsOpset23) {
  ModelBuilder b = model(22, {1, 2, 3, 8});
  b.node("Attention", {"x", "x", "x"}, {"y"}, "att");
  b.output("y");
  EXPECT_NE(user_error([&] { b.import(); }).find("Attention"), std::string::npos);
}

}  // namespace
}  // namespace ingot::frontend::testing

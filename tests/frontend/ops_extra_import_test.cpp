// Conversion of the comparison/logic, elementwise-extra, activation, reduction and softmax-variant
// ops to their canonical graph forms (docs/graph-forms.md), across opset variants.
#include <gtest/gtest.h>

#include "onnx_builder.h"

namespace ingot::frontend::testing {
namespace {

using graph::DType;
using ops::OpKind;

TEST(OnnxOpsExtra, ReduceMaxAxesAttributeAt13AndInputAt18) {
  ModelBuilder b13 = model(13);
  auto* n = b13.node("ReduceMax", {"x"}, {"y"}, "r");
  set_attr(n, "axes", Ints{-1});
  set_attr(n, "keepdims", int64_t(0));
  b13.output("y");
  auto g13 = b13.import();
  const graph::Node* r13 = find_node(*g13, "r");
  EXPECT_EQ(r13->op, OpKind::ReduceMax);
  EXPECT_EQ(r13->attrs.get_ints("axes"), (Ints{-1}));
  EXPECT_EQ(r13->attrs.get_int("keepdims", -1), 0);

  ModelBuilder b18 = model(18);
  b18.init(i64_tensor("ax", {1}, {1}));
  b18.node("ReduceLogSumExp", {"x", "ax"}, {"y"}, "r");
  b18.output("y");
  auto g18 = b18.import();
  const graph::Node* r18 = find_node(*g18, "r");
  EXPECT_EQ(r18->op, OpKind::ReduceLogSumExp);
  EXPECT_EQ(r18->inputs.size(), 1u);
  EXPECT_EQ(r18->attrs.get_ints("axes"), (Ints{1}));
  EXPECT_EQ(r18->attrs.get_int("keepdims", -1), 1);
}

TEST(OnnxOpsExtra, ReduceL2WithoutAxesAttributeReducesAllAxes) {
  ModelBuilder b = model(17);
  b.node("ReduceL2", {"x"}, {"y"}, "r");
  b.output("y");
  auto g = b.import();
  EXPECT_EQ(find_node(*g, "r")->attrs.get_ints("axes", {99}), Ints{});
}

TEST(OnnxOpsExtra, ArgMaxAttributesAreExplicit) {
  ModelBuilder b = model(11);
  set_attr(b.node("ArgMax", {"x"}, {"y"}, "am"), "axis", int64_t(-1));
  b.output("y");
  auto g = b.import();
  const graph::Node* n = find_node(*g, "am");
  EXPECT_EQ(n->op, OpKind::ArgMax);
  EXPECT_EQ(n->attrs.get_int("axis", 9), -1);
  EXPECT_EQ(n->attrs.get_int("keepdims", 9), 1);
  EXPECT_EQ(n->attrs.get_int("select_last_index", 9), 0);
}

TEST(OnnxOpsExtra, LogSoftmaxAndHardmaxBefore13AreCoercedTo2D) {
  for (const char* op : {"LogSoftmax", "Hardmax"}) {
    SCOPED_TRACE(op);
    ModelBuilder b = model(11);
    set_attr(b.node(op, {"x"}, {"y"}, "sm"), "axis", int64_t(2));
    b.output("y");
    auto g = b.import();
    const graph::Node* flat = find_node(*g, "sm/flatten");
    const graph::Node* inner = find_node(*g, "sm/softmax");
    ASSERT_TRUE(flat && inner);
    EXPECT_EQ(flat->attrs.get_int("axis", -9), 2);
    EXPECT_EQ(inner->op, std::string(op) == "Hardmax" ? OpKind::Hardmax : OpKind::LogSoftmax);
    EXPECT_EQ(inner->attrs.get_int("axis", -9), 1);
    EXPECT_EQ(find_node(*g, "sm")->op, OpKind::Reshape);

    ModelBuilder b13 = model(13);
    b13.node(op, {"x"}, {"y"}, "sm");
    b13.output("y");
    auto g13 = b13.import();
    EXPECT_EQ(op_sequence(*g13).size(), 1u);
    EXPECT_EQ(find_node(*g13, "sm")->attrs.get_int("axis", 9), -1);
  }
}

TEST(OnnxOpsExtra, CastLikeBecomesCastToTheTargetsDtype) {
  ModelBuilder b = model(15);
  b.input("t", {1}, onnx::TensorProto::INT32);
  b.node("CastLike", {"x", "t"}, {"y"}, "cl");
  b.output("y");
  auto g = b.import();
  const graph::Node* n = find_node(*g, "cl");
  EXPECT_EQ(n->op, OpKind::Cast);
  EXPECT_EQ(n->inputs.size(), 1u);
  EXPECT_EQ(n->attrs.get_int("to", -1), int64_t(DType::kI32));
}

TEST(OnnxOpsExtra, CastLikeWithComputedTargetKeepsItAsInputUntilInference) {
  ModelBuilder b = model(15);
  b.input("t", {1}, onnx::TensorProto::INT32);
  b.node("Neg", {"t"}, {"u"}, "neg");
  b.node("CastLike", {"x", "u"}, {"y"}, "cl");
  b.output("y");
  auto g = b.import();
  const graph::Node* n = find_node(*g, "cl");
  EXPECT_EQ(n->op, OpKind::Cast);
  ASSERT_EQ(n->inputs.size(), 2u);
  EXPECT_EQ(n->inputs[1], find_node(*g, "neg")->outputs[0]);
  EXPECT_FALSE(n->attrs.has("to"));
}

// GroupNormalization's opset-18 per-group scale/bias form is not imported; opset 21 is.
TEST(OnnxOpsExtra, GroupNormalizationFromOpset21AndLpPoolDefaults) {
  for (int opset : {18, 21}) {
    ModelBuilder b = model(opset, {1, 4, 3});
    b.init(f32_tensor("s", {4}, {1, 1, 1, 1}));
    set_attr(b.node("GroupNormalization", {"x", "s", "s"}, {"y"}, "gn"), "num_groups", int64_t(2));
    b.output("y");
    if (opset == 18) {
      EXPECT_NE(user_error([&] { b.import(); }).find("GroupNormalization"), std::string::npos);
      continue;
    }
    auto g = b.import();
    const graph::Node* gn = find_node(*g, "gn");
    EXPECT_EQ(gn->op, OpKind::GroupNormalization);
    EXPECT_EQ(gn->attrs.get_int("num_groups", 0), 2);
    EXPECT_DOUBLE_EQ(gn->attrs.get_float("epsilon", 0), 1e-5);
  }
  ModelBuilder b = model(18, {1, 2, 4, 4});
  set_attr(b.node("LpPool", {"x"}, {"y"}, "lp"), "kernel_shape", Ints{2, 2});
  b.output("y");
  auto g = b.import();
  EXPECT_EQ(find_node(*g, "lp")->attrs.get_int("p", 0), 2);
}

TEST(OnnxOpsExtra, LessOrEqualNeedsOpset12AndModFmodDefaults) {
  ModelBuilder b11 = model(11);
  b11.node("LessOrEqual", {"x", "x"}, {"y"}, "le");
  b11.output("y");
  EXPECT_THROW(b11.import(), UserError);
  ModelBuilder b13 = model(13);
  b13.node("Mod", {"x", "x"}, {"y"}, "m");
  b13.output("y");
  EXPECT_EQ(find_node(*b13.import(), "m")->attrs.get_int("fmod", -1), 0);
}

TEST(OnnxOpsExtra, ActivationAttributesAreCopied) {
  ModelBuilder b = model(13);
  auto* n = b.node("HardSigmoid", {"x"}, {"y"}, "hs");
  set_attr(n, "alpha", 0.5);
  b.output("y");
  auto g = b.import();
  const graph::Node* hs = find_node(*g, "hs");
  EXPECT_EQ(hs->op, OpKind::HardSigmoid);
  EXPECT_DOUBLE_EQ(hs->attrs.get_float("alpha", 0), 0.5);
}

TEST(OnnxOpsExtra, LayerNormalizationKeepsMeanAndInvStdDevOutputs) {
  ModelBuilder b = model(17);
  b.init(f32_tensor("g", {4}, {1, 1, 1, 1}));
  b.node("LayerNormalization", {"x", "g"}, {"y", "mean", "isd"}, "ln");
  b.output("y");
  b.output("mean");
  b.output("isd");
  auto g = b.import();
  const graph::Node* n = find_node(*g, "ln");
  ASSERT_EQ(n->outputs.size(), 3u);
  EXPECT_EQ(n->outputs[1]->name, "mean");
  EXPECT_EQ(n->outputs[2]->name, "isd");
}

}  // namespace
}  // namespace ingot::frontend::testing

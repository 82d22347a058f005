// Per-op conversion to the canonical graph forms (docs/graph-forms.md), across opset variants.
#include <gtest/gtest.h>

#include <limits>

#include "graph/transforms/infer_types.h"
#include "onnx_builder.h"

namespace ingot::frontend::testing {
namespace {

using graph::DType;
using ops::OpKind;

TEST(OnnxOps, ReshapeKeepsShapeInputAndMakesAllowzeroExplicit) {
  ModelBuilder b = model(13);
  b.init(i64_tensor("s", {2}, {6, 4}));
  b.node("Reshape", {"x", "s"}, {"y"}, "rs");
  b.output("y");
  auto g = b.import();
  const graph::Node* n = find_node(*g, "rs");
  EXPECT_EQ(n->op, OpKind::Reshape);
  ASSERT_EQ(n->inputs.size(), 2u);
  EXPECT_EQ(n->inputs[1]->name, "s");
  EXPECT_EQ(n->attrs.get_int("allowzero", -1), 0);
  EXPECT_EQ(n->outputs[0]->name, "y");
  EXPECT_EQ(g->outputs[0], n->outputs[0]);
}

TEST(OnnxOps, Clip6AttributesBecomeScalarConstantInputs) {
  ModelBuilder b = model(6 + 1);  // Clip-6 semantics hold for opsets 7..10
  auto* n = b.node("Clip", {"x"}, {"y"}, "c");
  set_attr(n, "min", 0.0);
  set_attr(n, "max", 6.0);
  b.node("Clip", {"x"}, {"z"}, "c_max_only");
  set_attr(b.model().mutable_graph()->mutable_node(1), "max", 1.5);
  b.output("y");
  b.output("z");
  auto g = b.import();
  const graph::Node* c = find_node(*g, "c");
  ASSERT_EQ(c->inputs.size(), 3u);
  ASSERT_TRUE(c->inputs[1] && c->inputs[1]->is_constant());
  ASSERT_TRUE(c->inputs[2] && c->inputs[2]->is_constant());
  EXPECT_EQ(c->inputs[1]->constant->dtype(), DType::kF32);
  EXPECT_EQ(c->inputs[1]->constant->shape(), Ints{});
  EXPECT_EQ(c->inputs[1]->constant->get_f64(0), 0.0);
  EXPECT_EQ(c->inputs[2]->constant->get_f64(0), 6.0);
  EXPECT_TRUE(c->attrs.all().empty());
  const graph::Node* m = find_node(*g, "c_max_only");
  EXPECT_EQ(m->inputs[1], nullptr);
  EXPECT_EQ(m->inputs[2]->constant->get_f64(0), 1.5);
}

TEST(OnnxOps, Clip6ConstantsTakeTheInputsDtype) {
  ModelBuilder b(9);
  b.input("x", {2}, onnx::TensorProto::FLOAT16);
  auto* n = b.node("Clip", {"x"}, {"y"}, "c");
  set_attr(n, "min", 0.0);
  set_attr(n, "max", 6.0);
  b.output("y");
  auto g = b.import();
  const graph::Node* c = find_node(*g, "c");
  ASSERT_EQ(c->inputs[2]->constant->dtype(), DType::kF16);
  EXPECT_EQ(c->inputs[1]->constant->data_as<uint16_t>()[0], 0x0000);  // +0.0 in binary16
  EXPECT_EQ(c->inputs[2]->constant->data_as<uint16_t>()[0], 0x4600);  // 6.0 in binary16
}

TEST(OnnxOps, Clip11And13TakeInputsWithOmittedMin) {
  for (int opset : {11, 13}) {
    ModelBuilder b = model(opset);
    b.init(f32_tensor("hi", {}, {6.0f}));
    b.node("Clip", {"x", "", "hi"}, {"y"}, "c");
    b.output("y");
    auto g = b.import();
    const graph::Node* c = find_node(*g, "c");
    ASSERT_EQ(c->inputs.size(), 3u);
    EXPECT_EQ(c->inputs[1], nullptr);
    EXPECT_EQ(c->inputs[2]->name, "hi");
    EXPECT_EQ(c->opset, opset);
  }
}

TEST(OnnxOps, SqueezeAxesAttributeAt11AndInputAt13) {
  ModelBuilder b11 = model(11, {1, 3, 1});
  set_attr(b11.node("Squeeze", {"x"}, {"y"}, "sq"), "axes", Ints{0, -1});
  b11.output("y");
  auto g11 = b11.import();
  EXPECT_EQ(find_node(*g11, "sq")->attrs.get_ints("axes"), (Ints{0, -1}));
  EXPECT_EQ(find_node(*g11, "sq")->inputs.size(), 1u);

  ModelBuilder b13 = model(13, {1, 3, 1});
  b13.init(i64_tensor("ax", {2}, {0, -1}));
  b13.node("Squeeze", {"x", "ax"}, {"y"}, "sq");
  b13.output("y");
  auto g13 = b13.import();
  const graph::Node* n = find_node(*g13, "sq");
  EXPECT_EQ(n->attrs.get_ints("axes"), (Ints{0, -1}));
  EXPECT_EQ(n->inputs.size(), 1u);

  ModelBuilder all = model(13, {1, 3, 1});
  all.node("Squeeze", {"x"}, {"y"}, "sq");
  all.output("y");
  EXPECT_FALSE(find_node(*all.import(), "sq")->attrs.has("axes"));
}

TEST(OnnxOps, UnsqueezeAxesFromAConstantNode) {
  ModelBuilder b = model(13);
  set_attr(b.node("Constant", {}, {"ax"}), "value_ints", Ints{1});
  b.node("Unsqueeze", {"x", "ax"}, {"y"}, "u");
  b.output("y");
  auto g = b.import();
  ASSERT_EQ(g->nodes().size(), 1u);
  EXPECT_EQ(find_node(*g, "u")->attrs.get_ints("axes"), Ints{1});
}

TEST(OnnxOps, Softmax13KeepsAxis) {
  ModelBuilder b = model(13);
  b.node("Softmax", {"x"}, {"y"}, "sm");
  b.output("y");
  auto g = b.import();
  ASSERT_EQ(op_sequence(*g), std::vector<OpKind>{OpKind::Softmax});
  EXPECT_EQ(find_node(*g, "sm")->attrs.get_int("axis", 99), -1);
}

TEST(OnnxOps, Softmax11IsRewrittenAsFlattenSoftmaxReshape) {
  ModelBuilder b = model(11);
  set_attr(b.node("Softmax", {"x"}, {"y"}, "sm"), "axis", int64_t(2));
  b.output("y");
  auto g = b.import();
  const graph::Node* flat = find_node(*g, "sm/flatten");
  const graph::Node* soft = find_node(*g, "sm/softmax");
  const graph::Node* shape = find_node(*g, "sm/shape");
  const graph::Node* reshape = find_node(*g, "sm");
  ASSERT_TRUE(flat && soft && shape && reshape);
  const graph::Value* x = g->find_value("x");
  EXPECT_EQ(flat->op, OpKind::Flatten);
  EXPECT_EQ(flat->inputs[0], x);
  EXPECT_EQ(flat->attrs.get_int("axis", -9), 2);
  EXPECT_EQ(soft->op, OpKind::Softmax);
  EXPECT_EQ(soft->inputs[0], flat->outputs[0]);
  EXPECT_EQ(soft->attrs.get_int("axis", -9), 1);
  EXPECT_EQ(shape->op, OpKind::Shape);
  EXPECT_EQ(shape->inputs[0], x);
  EXPECT_EQ(reshape->op, OpKind::Reshape);
  EXPECT_EQ(reshape->inputs[0], soft->outputs[0]);
  EXPECT_EQ(reshape->inputs[1], shape->outputs[0]);
  EXPECT_EQ(reshape->outputs[0]->name, "y");
  EXPECT_EQ(g->outputs[0], reshape->outputs[0]);
}

TEST(OnnxOps, Softmax11DefaultAxisIsOne) {
  ModelBuilder b = model(11);
  b.node("Softmax", {"x"}, {"y"}, "sm");
  b.output("y");
  EXPECT_EQ(find_node(*b.import(), "sm/flatten")->attrs.get_int("axis", -9), 1);
}

TEST(OnnxOps, ReduceMeanAxesAttributeAt13AndInputAt18) {
  ModelBuilder b13 = model(13);
  auto* n = b13.node("ReduceMean", {"x"}, {"y"}, "rm");
  set_attr(n, "axes", Ints{1, 2});
  set_attr(n, "keepdims", int64_t(0));
  b13.output("y");
  auto g13 = b13.import();
  const graph::Node* r13 = find_node(*g13, "rm");
  EXPECT_EQ(r13->attrs.get_ints("axes"), (Ints{1, 2}));
  EXPECT_EQ(r13->attrs.get_int("keepdims", -1), 0);
  EXPECT_EQ(r13->attrs.get_int("noop_with_empty_axes", -1), 0);

  ModelBuilder b18 = model(18);
  b18.init(i64_tensor("ax", {2}, {1, 2}));
  set_attr(b18.node("ReduceMean", {"x", "ax"}, {"y"}, "rm"), "noop_with_empty_axes", int64_t(1));
  b18.output("y");
  auto g18 = b18.import();
  const graph::Node* r18 = find_node(*g18, "rm");
  EXPECT_EQ(r18->inputs.size(), 1u);
  EXPECT_EQ(r18->attrs.get_ints("axes"), (Ints{1, 2}));
  EXPECT_EQ(r18->attrs.get_int("keepdims", -1), 1);
  EXPECT_EQ(r18->attrs.get_int("noop_with_empty_axes", -1), 1);
}

TEST(OnnxOps, ReduceSumInputAxesAt13AndAllAxesWhenOmitted) {
  ModelBuilder b = model(13);
  b.node("ReduceSum", {"x"}, {"y"}, "rs");
  b.output("y");
  auto g = b.import();
  EXPECT_EQ(find_node(*g, "rs")->attrs.get_ints("axes", {99}), Ints{});
}

TEST(OnnxOps, SplitSizesAsAttributeAt11InputAt13AndNumOutputsAt18) {
  ModelBuilder b11 = model(11);
  auto* n = b11.node("Split", {"x"}, {"a", "b"}, "sp");
  set_attr(n, "axis", int64_t(2));
  set_attr(n, "split", Ints{1, 3});
  b11.output("a");
  b11.output("b");
  auto g11 = b11.import();
  const graph::Node* s11 = find_node(*g11, "sp");
  EXPECT_EQ(s11->attrs.get_ints("split"), (Ints{1, 3}));
  EXPECT_EQ(s11->attrs.get_int("axis", -1), 2);
  ASSERT_EQ(s11->outputs.size(), 2u);
  EXPECT_EQ(s11->outputs[1]->name, "b");

  ModelBuilder b13 = model(13);
  b13.init(i64_tensor("sizes", {2}, {1, 3}));
  set_attr(b13.node("Split", {"x", "sizes"}, {"a", "b"}, "sp"), "axis", int64_t(2));
  b13.output("a");
  b13.output("b");
  auto g13 = b13.import();
  EXPECT_EQ(find_node(*g13, "sp")->attrs.get_ints("split"), (Ints{1, 3}));
  EXPECT_EQ(find_node(*g13, "sp")->inputs.size(), 1u);

  ModelBuilder b18 = model(18);
  set_attr(b18.node("Split", {"x"}, {"a", "b", "c"}, "sp"), "num_outputs", int64_t(3));
  for (const char* o : {"a", "b", "c"}) b18.output(o);
  auto g18 = b18.import();
  const graph::Node* s18 = find_node(*g18, "sp");
  EXPECT_FALSE(s18->attrs.has("split"));
  EXPECT_FALSE(s18->attrs.has("num_outputs"));
  EXPECT_EQ(s18->outputs.size(), 3u);
  EXPECT_EQ(s18->attrs.get_int("axis", -1), 0);
}

TEST(OnnxOps, PadAttributesAt2AndConstantInputsAt11) {
  ModelBuilder b2 = model(10);
  auto* n = b2.node("Pad", {"x"}, {"y"}, "p");
  set_attr(n, "pads", Ints{0, 1, 2, 0, 1, 2});
  set_attr(n, "mode", "reflect");
  b2.output("y");
  auto g2 = b2.import();
  const graph::Node* p2 = find_node(*g2, "p");
  EXPECT_EQ(p2->attrs.get_ints("pads"), (Ints{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(p2->attrs.get_string("mode", ""), "reflect");
  EXPECT_EQ(p2->attrs.get_float("value", -1), 0.0);

  ModelBuilder b11 = model(11);
  b11.init(i64_tensor("pads", {6}, {0, 1, 2, 0, 1, 2}));
  b11.init(f32_tensor("cv", {}, {-1.5f}));
  b11.node("Pad", {"x", "pads", "cv"}, {"y"}, "p");
  b11.output("y");
  auto g11 = b11.import();
  const graph::Node* p11 = find_node(*g11, "p");
  EXPECT_EQ(p11->inputs.size(), 1u);
  EXPECT_EQ(p11->attrs.get_ints("pads"), (Ints{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(p11->attrs.get_string("mode", ""), "constant");
  EXPECT_EQ(p11->attrs.get_float("value", 0), -1.5);
}

TEST(OnnxOps, Pad18AxesExpandToFullRank) {
  ModelBuilder b = model(18);  // x is rank 3
  b.init(i64_tensor("pads", {2}, {1, 2}));
  b.init(i64_tensor("axes", {1}, {-1}));
  b.node("Pad", {"x", "pads", "", "axes"}, {"y"}, "p");
  b.output("y");
  auto g = b.import();
  EXPECT_EQ(find_node(*g, "p")->attrs.get_ints("axes"), Ints{-1});  // folded by infer_types
  graph::infer_types(*g);
  EXPECT_EQ(find_node(*g, "p")->attrs.get_ints("pads"), (Ints{0, 0, 1, 0, 0, 2}));
  EXPECT_FALSE(find_node(*g, "p")->attrs.has("axes"));
}

TEST(OnnxOps, DropoutBecomesIdentity) {
  for (int opset : {7, 12}) {
    ModelBuilder b = model(opset);
    b.node("Dropout", {"x"}, {"y", ""}, "d");
    if (opset < 12) set_attr(b.model().mutable_graph()->mutable_node(0), "ratio", 0.3);
    b.output("y");
    auto g = b.import();
    ASSERT_EQ(op_sequence(*g), std::vector<OpKind>{OpKind::Identity});
    EXPECT_EQ(find_node(*g, "d")->outputs[0]->name, "y");
  }
}

TEST(OnnxOps, CastToIsAGraphDType) {
  ModelBuilder b = model(13);
  set_attr(b.node("Cast", {"x"}, {"y"}, "c"), "to", int64_t(onnx::TensorProto::INT64));
  set_attr(b.node("Cast", {"x"}, {"z"}, "h"), "to", int64_t(onnx::TensorProto::FLOAT16));
  b.output("y");
  b.output("z");
  auto g = b.import();
  EXPECT_EQ(find_node(*g, "c")->attrs.get_int("to", -1), int64_t(DType::kI64));
  EXPECT_EQ(find_node(*g, "h")->attrs.get_int("to", -1), int64_t(DType::kF16));
}

TEST(OnnxOps, ConvKeepsAutoPadAndMakesGroupExplicit) {
  ModelBuilder b = model(11, {1, 3, 8, 8});
  b.init(f32_tensor("w", {4, 3, 3, 3}, std::vector<float>(108, 0.f)));
  auto* n = b.node("Conv", {"x", "w"}, {"y"}, "conv");
  set_attr(n, "auto_pad", "SAME_UPPER");
  set_attr(n, "kernel_shape", Ints{3, 3});
  set_attr(n, "strides", Ints{2, 2});
  b.output("y");
  auto g = b.import();
  const graph::Node* c = find_node(*g, "conv");
  ASSERT_EQ(c->inputs.size(), 3u);
  EXPECT_EQ(c->inputs[2], nullptr);
  EXPECT_EQ(c->attrs.get_string("auto_pad", ""), "SAME_UPPER");
  EXPECT_EQ(c->attrs.get_ints("strides"), (Ints{2, 2}));
  EXPECT_EQ(c->attrs.get_ints("kernel_shape"), (Ints{3, 3}));
  EXPECT_EQ(c->attrs.get_int("group", -1), 1);
  EXPECT_FALSE(c->attrs.has("dilations"));
}

TEST(OnnxOps, GemmAttributesAreExplicit) {
  ModelBuilder b = model(13, {2, 3});
  b.init(f32_tensor("w", {4, 3}, std::vector<float>(12, 1.f)));
  set_attr(b.node("Gemm", {"x", "w"}, {"y"}, "fc"), "transB", int64_t(1));
  b.output("y");
  auto g = b.import();
  const graph::Node* n = find_node(*g, "fc");
  EXPECT_EQ(n->attrs.get_float("alpha", 0), 1.0);
  EXPECT_EQ(n->attrs.get_float("beta", 0), 1.0);
  EXPECT_EQ(n->attrs.get_int("transA", -1), 0);
  EXPECT_EQ(n->attrs.get_int("transB", -1), 1);
  EXPECT_EQ(n->inputs[2], nullptr);
}

TEST(OnnxOps, PoolsBatchNormLayerNormGelu) {
  ModelBuilder b = model(20, {1, 2, 4, 4});
  for (const char* w : {"s", "bias", "mean", "var"}) b.init(f32_tensor(w, {2}, {1, 1}));
  b.init(f32_tensor("g", {4}, {1, 1, 1, 1}));
  auto* mp = b.node("MaxPool", {"x"}, {"m"}, "mp");
  set_attr(mp, "kernel_shape", Ints{2, 2});
  auto* ap = b.node("AveragePool", {"m"}, {"a"}, "ap");
  set_attr(ap, "kernel_shape", Ints{2, 2});
  set_attr(ap, "count_include_pad", int64_t(1));
  set_attr(b.node("BatchNormalization", {"a", "s", "bias", "mean", "var"}, {"bn"}, "bn"), "epsilon",
           0.25);
  b.node("LayerNormalization", {"bn", "g"}, {"ln"}, "ln");
  set_attr(b.node("Gelu", {"ln"}, {"ge"}, "ge"), "approximate", "tanh");
  b.node("GlobalAveragePool", {"ge"}, {"y"}, "gap");
  b.output("y");
  auto g = b.import();
  EXPECT_EQ(
      op_sequence(*g),
      (std::vector<OpKind>{OpKind::MaxPool, OpKind::AveragePool, OpKind::BatchNormalization,
                           OpKind::LayerNormalization, OpKind::Gelu, OpKind::GlobalAveragePool}));
  EXPECT_EQ(find_node(*g, "mp")->attrs.get_int("ceil_mode", -1), 0);
  EXPECT_EQ(find_node(*g, "ap")->attrs.get_int("count_include_pad", -1), 1);
  EXPECT_EQ(find_node(*g, "bn")->attrs.get_float("epsilon", 0), 0.25);
  EXPECT_EQ(find_node(*g, "bn")->inputs.size(), 5u);
  EXPECT_EQ(find_node(*g, "ln")->attrs.get_int("axis", 0), -1);
  EXPECT_FLOAT_EQ(find_node(*g, "ln")->attrs.get_float("epsilon", 0), 1e-5);
  EXPECT_EQ(find_node(*g, "ln")->inputs[2], nullptr);
  EXPECT_EQ(find_node(*g, "ge")->attrs.get_string("approximate", ""), "tanh");
}

TEST(OnnxOps, ShapeGatherConcatTransposeFlattenAndGeneratedNames) {
  ModelBuilder b = model(15);
  set_attr(b.node("Shape", {"x"}, {"s"}), "start", int64_t(1));
  b.init(i64_tensor("idx", {}, {0}));
  b.node("Gather", {"s", "idx"}, {"d"});
  set_attr(b.node("Concat", {"s", "s"}, {"cc"}), "axis", int64_t(0));
  set_attr(b.node("Transpose", {"x"}, {"t"}), "perm", Ints{2, 0, 1});
  b.node("Flatten", {"t"}, {"f"});
  for (const char* o : {"d", "cc", "f"}) b.output(o);
  auto g = b.import();
  const graph::Node* shape = find_node(*g, "Shape_0");
  EXPECT_EQ(shape->attrs.get_int("start", -1), 1);
  EXPECT_EQ(shape->attrs.get_int("end", -1), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(find_node(*g, "Gather_1")->attrs.get_int("axis", -1), 0);
  EXPECT_EQ(find_node(*g, "Concat_2")->inputs.size(), 2u);
  EXPECT_EQ(find_node(*g, "Transpose_3")->attrs.get_ints("perm"), (Ints{2, 0, 1}));
  EXPECT_EQ(find_node(*g, "Flatten_4")->attrs.get_int("axis", -1), 1);
}

TEST(OnnxOps, ElementwiseUnaryAndBinary) {
  ModelBuilder b = model(14);
  const std::vector<std::pair<const char*, OpKind>> unary = {
      {"Relu", OpKind::Relu},        {"Sigmoid", OpKind::Sigmoid},
      {"Tanh", OpKind::Tanh},        {"Erf", OpKind::Erf},
      {"Exp", OpKind::Exp},          {"Log", OpKind::Log},
      {"Sqrt", OpKind::Sqrt},        {"Reciprocal", OpKind::Reciprocal},
      {"Neg", OpKind::Neg},          {"Abs", OpKind::Abs},
      {"Identity", OpKind::Identity}};
  const std::vector<std::pair<const char*, OpKind>> binary = {
      {"Add", OpKind::Add}, {"Sub", OpKind::Sub}, {"Mul", OpKind::Mul},
      {"Div", OpKind::Div}, {"Pow", OpKind::Pow}, {"MatMul", OpKind::MatMul}};
  std::vector<OpKind> want;
  std::string prev = "x";
  for (auto [name, kind] : unary) {
    std::string out = std::string(name) + "_out";
    b.node(name, {prev}, {out});
    prev = out;
    want.push_back(kind);
  }
  for (auto [name, kind] : binary) {
    std::string out = std::string(name) + "_out";
    b.node(name, {prev, "x"}, {out});
    prev = out;
    want.push_back(kind);
  }
  b.output(prev);
  auto g = b.import();
  EXPECT_EQ(op_sequence(*g), want);
  const graph::Node* add = find_node(*g, "Add_11");
  EXPECT_EQ(add->inputs[1], g->find_value("x"));
  EXPECT_EQ(add->inputs[0]->name, "Identity_out");
}

}  // namespace
}  // namespace ingot::frontend::testing

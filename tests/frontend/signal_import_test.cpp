// Import of the signal ops: windows (constant size -> attribute, output_datatype -> dtype), DFT at
// opset 17 (axis attribute, default 1) and 20 (axis input, default -2), STFT (frame_step and
// frame_length -> attributes, window kept) and MelWeightMatrix (shape-deciding inputs ->
// attributes, the rest stay inputs).
#include <gtest/gtest.h>

#include "graph/transforms/infer_types.h"
#include "onnx_builder.h"

namespace ingot::frontend::testing {
namespace {

TEST(OnnxSignal, WindowSizeAndDatatype) {
  ModelBuilder b(17);
  b.init(i64_tensor("n", {}, {10}));
  auto* w = b.node("HammingWindow", {"n"}, {"y"}, "w");
  set_attr(w, "periodic", int64_t(0));
  set_attr(w, "output_datatype", int64_t(onnx::TensorProto::DOUBLE));
  b.output("y");
  auto g = b.import();
  const graph::Node* n = find_node(*g, "w");
  EXPECT_EQ(n->op, ops::OpKind::HammingWindow);
  EXPECT_TRUE(n->inputs.empty());
  EXPECT_EQ(n->attrs.get_int("size", 0), 10);
  EXPECT_EQ(n->attrs.get_int("periodic", 1), 0);
  EXPECT_EQ(n->attrs.get_int("dtype", 0), int64_t(graph::DType::kF64));

  ModelBuilder rt(17);
  rt.input("n", {}, onnx::TensorProto::INT32);
  rt.node("HannWindow", {"n"}, {"y"}, "w");
  rt.output("y");
  // A size from a graph input is read at run time (a value symbol): the node keeps the input.
  auto grt = rt.import();
  ASSERT_EQ(grt->nodes().size(), 1u);
  ASSERT_EQ(grt->nodes()[0]->inputs.size(), 1u);
  EXPECT_EQ(grt->nodes()[0]->inputs[0]->name, "n");
}

TEST(OnnxSignal, DftAxisAttributeAndInput) {
  ModelBuilder b17(17);
  b17.input("x", {1, 10, 10, 1});
  auto* d17 = b17.node("DFT", {"x"}, {"y"}, "d");
  set_attr(d17, "onesided", int64_t(1));
  b17.output("y");
  auto g17 = b17.import();
  const graph::Node* n17 = find_node(*g17, "d");
  EXPECT_EQ(n17->attrs.get_int("axis", 0), 1);
  EXPECT_EQ(n17->attrs.get_int("onesided", 0), 1);
  EXPECT_EQ(n17->inputs.size(), 1u);

  ModelBuilder b20(20);
  b20.input("x", {1, 10, 10, 2});
  b20.init(i64_tensor("len", {}, {16}));
  b20.init(i64_tensor("axis", {}, {2}));
  auto* d20 = b20.node("DFT", {"x", "len", "axis"}, {"y"}, "d");
  set_attr(d20, "inverse", int64_t(1));
  b20.node("DFT", {"x"}, {"z"}, "d2");
  b20.output("y");
  b20.output("z");
  auto g20 = b20.import();
  const graph::Node* n20 = find_node(*g20, "d");
  EXPECT_EQ(n20->inputs.size(), 1u);
  EXPECT_EQ(n20->attrs.get_int("axis", 0), 2);
  EXPECT_EQ(n20->attrs.get_int("dft_length", 0), 16);
  EXPECT_EQ(n20->attrs.get_int("inverse", 0), 1);
  EXPECT_EQ(find_node(*g20, "d2")->attrs.get_int("axis", 0), -2);

  // The axis given at run time: kept as input 2; a complex transform keeps every dim, a
  // one-sided one makes each dim it may run along a value symbol.
  for (int onesided : {0, 1}) {
    ModelBuilder rt(20);
    rt.input("x", {1, 10, 10, 2});
    rt.input("axis", {}, onnx::TensorProto::INT64);
    auto* d = rt.node("DFT", {"x", "", "axis"}, {"y"}, "d");
    set_attr(d, "onesided", int64_t(onesided));
    rt.output("y");
    auto g = rt.import();
    ASSERT_EQ(find_node(*g, "d")->inputs.size(), 3u);
    graph::infer_types(*g);
    EXPECT_EQ(g->outputs[0]->type.str(),
              onesided ? "float32[y.v0,y.v1,y.v2,2]" : "float32[1,10,10,2]");
  }
}

TEST(OnnxSignal, StftAndMelWeightMatrix) {
  ModelBuilder b(17);
  b.input("s", {1, 128, 1});
  b.input("w", {16});
  b.input("rate", {}, onnx::TensorProto::INT32);
  b.input("lo", {});
  b.input("hi", {});
  b.init(i64_tensor("step", {}, {8}));
  b.init(i64_tensor("bins", {}, {8}));
  b.init(i64_tensor("len", {}, {16}));
  b.node("STFT", {"s", "step", "w"}, {"y"}, "st");
  b.node("MelWeightMatrix", {"bins", "len", "rate", "lo", "hi"}, {"m"}, "mel");
  b.output("y");
  b.output("m");
  auto g = b.import();
  const graph::Node* st = find_node(*g, "st");
  EXPECT_EQ(st->attrs.get_int("frame_step", 0), 8);
  EXPECT_FALSE(st->attrs.has("frame_length"));
  EXPECT_EQ(st->attrs.get_int("onesided", 0), 1);
  ASSERT_EQ(st->inputs.size(), 3u);
  EXPECT_EQ(st->inputs[1], nullptr);
  EXPECT_EQ(st->inputs[2]->name, "w");
  const graph::Node* mel = find_node(*g, "mel");
  EXPECT_EQ(mel->attrs.get_int("num_mel_bins", 0), 8);
  EXPECT_EQ(mel->attrs.get_int("dft_length", 0), 16);
  EXPECT_EQ(mel->attrs.get_int("dtype", -1), int64_t(graph::DType::kF32));
  ASSERT_EQ(mel->inputs.size(), 5u);
  EXPECT_EQ(mel->inputs[0], nullptr);
  EXPECT_EQ(mel->inputs[2]->name, "rate");
}

}  // namespace
}  // namespace ingot::frontend::testing

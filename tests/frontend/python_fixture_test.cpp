// A model written by the onnx Python package (data/make_fixtures.py), with weights in an external
// data file: checks the importer against an independent producer's layout conventions.
#include <gtest/gtest.h>

#include "onnx_builder.h"

namespace ingot::frontend::testing {
namespace {

using ops::OpKind;

TEST(OnnxPythonFixture, ConvWithExternalWeights) {
  auto g = import_onnx_file(INGOT_SOURCE_DIR "/tests/frontend/data/conv_external.onnx");
  ASSERT_EQ(g->inputs.size(), 1u);
  std::vector<graph::Dim> want_x = {graph::Dim::named("N"), graph::Dim::fixed(3),
                                    graph::Dim::fixed(4), graph::Dim::fixed(4)};
  EXPECT_EQ(g->inputs[0]->type.shape, want_x);
  EXPECT_EQ(op_sequence(*g), (std::vector<OpKind>{OpKind::Pad, OpKind::Conv, OpKind::Clip,
                                                  OpKind::Flatten, OpKind::Flatten, OpKind::Softmax,
                                                  OpKind::Shape, OpKind::Reshape}));
  const graph::Node* pad = find_node(*g, "pad");
  EXPECT_EQ(pad->attrs.get_ints("pads"), (Ints{0, 0, 1, 1, 0, 0, 1, 1}));
  EXPECT_EQ(pad->attrs.get_string("mode", ""), "edge");

  const graph::Node* conv = find_node(*g, "conv");
  const graph::Tensor& w = *conv->inputs[1]->constant;
  EXPECT_EQ(w.shape(), (Ints{2, 3, 3, 3}));
  for (int64_t i = 0; i < 54; ++i) ASSERT_EQ(w.get_f64(i), double(i) / 8) << i;
  EXPECT_EQ(f64_values(*conv->inputs[2]->constant), (std::vector<double>{0.5, -0.5}));

  const graph::Node* clip = find_node(*g, "clip");
  EXPECT_EQ(clip->inputs[0], conv->outputs[0]);
  EXPECT_EQ(clip->inputs[1]->name, "lo");
  EXPECT_EQ(clip->inputs[2], nullptr);
  EXPECT_EQ(g->outputs[0], find_node(*g, "sm")->outputs[0]);
}

}  // namespace
}  // namespace ingot::frontend::testing

// Graph pass separate_resize: a 2-D linear / cubic Resize becomes a chain of one-axis Resizes,
// innermost axis first, with the original output value last; nearest, integer, one-axis and
// tf_crop_and_resize Resizes are left alone. (Numbers: the ONNX node tests' resize cases with
// their own data, in tests/python/test_conformance.py, and DeepLab against ONNX Runtime in the
// zoo bench.)
#include "graph/transforms/separate_resize.h"

#include <gtest/gtest.h>

#include "graph/verifier.h"
#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::count_ops;
using testing::F32;
using testing::T;

struct OneResize {
  Graph g;
  Node* resize;
  OneResize(TensorType x_type, std::vector<double> scales, std::string mode,
            std::string ctm = "half_pixel") {
    Value* x = g.add_value("x", x_type);
    g.inputs = {x};
    Attrs a;
    a.set("mode", mode);
    a.set("coordinate_transformation_mode", ctm);
    a.set("scales", scales);
    if (ctm == "tf_crop_and_resize") a.set("roi", std::vector<double>(2 * scales.size(), 0.5));
    resize = g.add_node(OpKind::Resize, "up", {x}, {"y"}, a);
    g.outputs = {resize->outputs[0]};
    infer_types(g);
  }
};

TEST(SeparateResize, BilinearUpsampleBecomesTwoPassesInnermostFirst) {
  OneResize r(F32({1, 21, 16, 16}), {1, 1, 16, 16}, "linear");
  TensorType out = r.resize->outputs[0]->type;
  separate_resize(r.g);
  verify_graph(r.g);
  ASSERT_EQ(count_ops(r.g, OpKind::Resize), 2);
  const Node* first = r.resize->inputs[0]->producer;
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->inputs[0]->name, "x");
  EXPECT_EQ(first->attrs.get_floats("scales"), (std::vector<double>{1, 1, 1, 16}));
  EXPECT_EQ(first->outputs[0]->type, F32({1, 21, 16, 256}));
  EXPECT_EQ(r.resize->attrs.get_floats("scales"), (std::vector<double>{1, 1, 16, 1}));
  EXPECT_EQ(r.g.outputs[0], r.resize->outputs[0]);
  infer_types(r.g);  // the inferred types agree with the ones the pass set
  EXPECT_EQ(first->outputs[0]->type, F32({1, 21, 16, 256}));
  EXPECT_EQ(r.resize->outputs[0]->type, out);
}

TEST(SeparateResize, ThreeAxesMakeThreePasses) {
  OneResize r(F32({1, 2, 4, 6, 8}), {1, 1, 2, 0.5, 3}, "cubic", "align_corners");
  separate_resize(r.g);
  verify_graph(r.g);
  ASSERT_EQ(count_ops(r.g, OpKind::Resize), 3);
  const Node* middle = r.resize->inputs[0]->producer;
  const Node* first = middle->inputs[0]->producer;
  EXPECT_EQ(first->outputs[0]->type, F32({1, 2, 4, 6, 24}));
  EXPECT_EQ(middle->outputs[0]->type, F32({1, 2, 4, 3, 24}));
  EXPECT_EQ(middle->attrs.get_string("mode", ""), "cubic");
  EXPECT_EQ(middle->attrs.get_string("coordinate_transformation_mode", ""), "align_corners");
  EXPECT_EQ(r.resize->outputs[0]->type, F32({1, 2, 8, 3, 24}));
}

TEST(SeparateResize, LeavesInseparableResizesAlone) {
  for (auto [type, mode, ctm] : std::vector<std::tuple<TensorType, std::string, std::string>>{
           {F32({1, 3, 8, 8}), "nearest", "half_pixel"},
           {T(DType::kU8, {1, 3, 8, 8}), "linear", "half_pixel"},
           {F32({1, 3, 8, 8}), "linear", "tf_crop_and_resize"}}) {
    OneResize r(type, {1, 1, 2, 2}, mode, ctm);
    separate_resize(r.g);
    EXPECT_EQ(count_ops(r.g, OpKind::Resize), 1) << mode << " " << ctm;
  }
  OneResize one_axis(F32({1, 3, 8, 8}), {1, 1, 1, 2}, "linear");
  separate_resize(one_axis.g);
  EXPECT_EQ(count_ops(one_axis.g, OpKind::Resize), 1);
}

}  // namespace
}  // namespace ingot::graph

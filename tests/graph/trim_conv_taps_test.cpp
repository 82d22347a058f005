// Graph pass trim_conv_taps: taps that read only padding are cut from the weights and the pads
// shifted (DeepLab-style dilated 3x3 on a small map -> 1x1; one dim only; a stride), the output
// type is unchanged, and convs whose taps all reach the input are left alone. (Numbers: the
// aspp_tiny model against ONNX Runtime in tests/python/test_parity.py.)
#include "graph/transforms/trim_conv_taps.h"

#include <gtest/gtest.h>

#include <numeric>

#include "graph/transforms/rewrite_util.h"
#include "graph/verifier.h"
#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::F32;

// x[1, 2, H, W] -> Conv(kh x kw, dilations, pads) with weights 0, 1, 2, ... in order.
struct OneConv {
  Graph g;
  Node* conv;
  OneConv(int h, int w, int64_t kh, int64_t kw, std::vector<int64_t> dil, std::vector<int64_t> pads,
          std::vector<int64_t> strides = {1, 1}) {
    Value* x = g.add_value("x", F32({1, 2, h, w}));
    g.inputs = {x};
    std::vector<float> wv(size_t(3 * 2 * kh * kw));
    std::iota(wv.begin(), wv.end(), 0.0f);
    Value* wt = g.add_constant("w", f32_constant({3, 2, kh, kw}, wv));
    Attrs a;
    a.set("kernel_shape", std::vector<int64_t>{kh, kw});
    a.set("dilations", dil);
    a.set("pads", pads);
    a.set("strides", strides);
    conv = g.add_node(OpKind::Conv, "conv", {x, wt}, {"y"}, a);
    g.outputs = {conv->outputs[0]};
    infer_types(g);
  }
};

TEST(TrimConvTaps, DilatedBeyondTheMapBecomesOneByOne) {
  OneConv c(16, 16, 3, 3, {36, 36}, {36, 36, 36, 36});  // ASPP at 16 x 16
  TensorType before = c.conv->outputs[0]->type;
  trim_conv_taps(c.g);
  verify_graph(c.g);
  EXPECT_EQ(c.conv->attrs.get_ints("kernel_shape", {}), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(c.conv->attrs.get_ints("pads", {}), (std::vector<int64_t>{0, 0, 0, 0}));
  ASSERT_EQ(c.conv->inputs[1]->type, F32({3, 2, 1, 1}));
  const float* w = c.conv->inputs[1]->constant->data_as<float>();
  for (int64_t oi = 0; oi < 6; ++oi) EXPECT_EQ(w[oi], float(oi * 9 + 4)) << oi;  // the centre
  infer_types(c.g);
  EXPECT_EQ(c.conv->outputs[0]->type, before);
}

TEST(TrimConvTaps, OneDimAndStridesKeepTheOutput) {
  // Rows: dilation 8 on 5 rows, pads 8: only the centre row reaches. Columns: all taps reach.
  OneConv c(5, 9, 3, 3, {8, 1}, {8, 1, 8, 1}, {2, 2});
  TensorType before = c.conv->outputs[0]->type;
  trim_conv_taps(c.g);
  EXPECT_EQ(c.conv->attrs.get_ints("kernel_shape", {}), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(c.conv->attrs.get_ints("pads", {}), (std::vector<int64_t>{0, 1, 0, 1}));
  const float* w = c.conv->inputs[1]->constant->data_as<float>();
  EXPECT_EQ(w[0], 3.0f);  // row 1 of the first 3x3 filter: 3, 4, 5
  EXPECT_EQ(w[2], 5.0f);
  EXPECT_EQ(w[3], 12.0f);  // the next filter's row 1
  infer_types(c.g);
  EXPECT_EQ(c.conv->outputs[0]->type, before);
}

TEST(TrimConvTaps, StridedOutputKeepsItsSizeWithAZeroEndPad) {
  // 6 x 6, dilation 6, stride 2, pads 6: only the centre tap reaches; the least end pad would be
  // -1, zero keeps the 3 x 3 output.
  OneConv c(6, 6, 3, 3, {6, 6}, {6, 6, 6, 6}, {2, 2});
  TensorType before = c.conv->outputs[0]->type;
  trim_conv_taps(c.g);
  EXPECT_EQ(c.conv->attrs.get_ints("kernel_shape", {}), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(c.conv->attrs.get_ints("pads", {}), (std::vector<int64_t>{0, 0, 0, 0}));
  infer_types(c.g);
  EXPECT_EQ(c.conv->outputs[0]->type, before);
}

TEST(TrimConvTaps, LeavesConvsWhoseTapsAllReach) {
  OneConv c(16, 16, 3, 3, {12, 12}, {12, 12, 12, 12});  // 16 > 12: every tap reaches
  const Value* w = c.conv->inputs[1];
  trim_conv_taps(c.g);
  EXPECT_EQ(c.conv->inputs[1], w);
  EXPECT_EQ(c.conv->attrs.get_ints("kernel_shape", {}), (std::vector<int64_t>{3, 3}));
}

}  // namespace
}  // namespace ingot::graph

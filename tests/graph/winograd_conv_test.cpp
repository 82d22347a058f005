// Graph pass winograd_conv after layout_nchwc: a 3 x 3 stride-1 blocked conv becomes the input
// transform (reading the unpadded blocked input, the Pad's pads as its own), a MatMul by the
// transformed constant weights and the output transform (bias, summand, activation, the conv's
// output value); the policy decides the tile and which convs stay direct; other convs are left
// alone; the transforms' inference refuses bad attributes. (Numbers: tests/python/
// test_winograd.py against ONNX Runtime.)
#include <gtest/gtest.h>

#include "graph/transforms/dead_code.h"
#include "graph/transforms/layout_nchwc.h"
#include "graph/transforms/rewrite_util.h"
#include "graph/transforms/winograd_conv.h"
#include "graph/verifier.h"
#include "graph_test_util.h"
#include "ops/op.h"
#include "support/winograd.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::count_ops;
using testing::F32;
using testing::user_error;

const WinogradPolicy kTile4 = [](const WinogradConvShape&) { return 4; };

Value* constant(Graph& g, const std::string& name, std::vector<int64_t> shape, float value = 0.5f) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return g.add_constant(name, f32_constant(shape, std::vector<float>(size_t(n), value)));
}

Node* conv(Graph& g, const std::string& name, std::vector<Value*> ins, int64_t k,
           int64_t stride = 1, int64_t group = 1) {
  Attrs a;
  a.set("kernel_shape", std::vector<int64_t>{k, k});
  a.set("group", group);
  a.set("strides", std::vector<int64_t>{stride, stride});
  a.set("pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
  return g.add_node(OpKind::Conv, name, ins, {name}, a);
}

void run_passes(Graph& g, const WinogradPolicy& policy) {
  infer_types(g);
  convert_layout_nchwc(g, vector_channel_blocks(512));
  convert_winograd_conv(g, policy);
  remove_dead_code(g);
  verify_graph(g);
}

const Node* only(const Graph& g, OpKind op) {
  const Node* found = nullptr;
  for (const auto& n : g.nodes())
    if (n->op == op) {
      EXPECT_EQ(found, nullptr) << "two " << ops::op_name(op);
      found = n.get();
    }
  return found;
}

TEST(WinogradConv, ConvBecomesTransformsAroundAProduct) {
  Graph g;
  Value* x = g.add_value("x", F32({1, 40, 10, 9}));
  g.inputs = {x};
  Node* c = conv(g, "c", {x, constant(g, "w", {48, 40, 3, 3}), constant(g, "b", {48})}, 3);
  c->attrs.set("activation", std::string("Relu"));
  g.outputs = {c->outputs[0]};
  run_passes(g, kTile4);

  EXPECT_EQ(count_ops(g, OpKind::ConvNCHWc), 0);
  EXPECT_EQ(count_ops(g, OpKind::Pad), 0);  // the input transform pads its tiles itself
  const Node* in = only(g, OpKind::WinogradInputTransform);
  const Node* mm = only(g, OpKind::MatMul);
  const Node* out = only(g, OpKind::WinogradOutputTransform);
  ASSERT_TRUE(in && mm && out);
  EXPECT_EQ(in->inputs[0]->producer->op, OpKind::LayoutToBlocked);
  EXPECT_EQ(in->attrs.get_ints("pads"), (std::vector<int64_t>{1, 1, 1, 1}));
  // 40 channels in blocks of 16 (48 lanes); tiles: ceil(10/4) x ceil(9/4) = 9.
  EXPECT_EQ(in->outputs[0]->type.str(), F32({36, 9, 48}).str());
  EXPECT_EQ(mm->inputs[0], in->outputs[0]);
  ASSERT_TRUE(mm->inputs[1]->is_constant());
  EXPECT_EQ(mm->inputs[1]->type.str(), F32({36, 48, 48}).str());  // 48 outputs: 3 blocks of 16
  EXPECT_EQ(out->inputs[0], mm->outputs[0]);
  EXPECT_EQ(out->attrs.get_string("activation", ""), "Relu");
  ASSERT_GE(out->inputs.size(), 2u);
  EXPECT_EQ(out->inputs[1]->name, "b");
  EXPECT_EQ(out->outputs[0]->type.str(), F32({1, 3, 10, 9, 16}).str());
  // The graph output keeps its name and NCHW type.
  EXPECT_EQ(g.outputs[0]->name, "c");
  EXPECT_EQ(g.outputs[0]->type.str(), F32({1, 48, 10, 9}).str());
}

TEST(WinogradConv, WeightsAreGgGTransposedWithZeroPadding) {
  // One tap, W[1, 2, 1, 1] = 1 (the centre): U[r * 6 + s, 2, 1] = G[r][1] * G[s][1], zero
  // elsewhere, including the padding channels.
  Graph g;
  Value* x = g.add_value("x", F32({1, 40, 8, 8}));
  g.inputs = {x};
  std::vector<float> w(size_t(48 * 40 * 9), 0.0f);
  w[size_t((1 * 40 + 2) * 9 + 4)] = 1.0f;
  Node* c = conv(g, "c", {x, g.add_constant("w", f32_constant({48, 40, 3, 3}, w))}, 3);
  g.outputs = {c->outputs[0]};
  run_passes(g, kTile4);
  const Node* mm = only(g, OpKind::MatMul);
  ASSERT_NE(mm, nullptr);
  ASSERT_EQ(mm->inputs[1]->type.str(), F32({36, 48, 48}).str());
  const float* u = mm->inputs[1]->constant->data_as<float>();
  const winograd::Transforms t = winograd::transforms(4);
  for (int r = 0; r < 6; ++r)
    for (int s = 0; s < 6; ++s)
      for (int i = 0; i < 48; ++i)
        for (int o = 0; o < 48; ++o) {
          float want = i == 2 && o == 1 ? float(t.g_(r, 1) * t.g_(s, 1)) : 0.0f;
          ASSERT_FLOAT_EQ(u[((r * 6 + s) * 48 + i) * 48 + o], want)
              << r << "," << s << " ic " << i << " oc " << o;
        }
}

TEST(WinogradConv, SummandMovesToTheOutputTransform) {
  Graph g;
  Value* x = g.add_value("x", F32({1, 32, 8, 8}));
  Value* z = g.add_value("z", F32({1, 32, 8, 8}));
  g.inputs = {x, z};
  Node* c = conv(g, "c", {x, constant(g, "w", {32, 32, 3, 3}), nullptr, z}, 3);
  g.outputs = {c->outputs[0]};
  run_passes(g, [](const WinogradConvShape&) { return 2; });
  const Node* out = only(g, OpKind::WinogradOutputTransform);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->attrs.get_int("tile", 0), 2);
  ASSERT_EQ(out->inputs.size(), 3u);
  EXPECT_EQ(out->inputs[1], nullptr);                                // no bias
  EXPECT_EQ(out->inputs[2]->producer->op, OpKind::LayoutToBlocked);  // z, blocked
}

TEST(WinogradConv, OneByThreeIsTiledAlongItsThreeTapAxis) {
  // A 1x3 conv (pads 0, 1) on a 5x9 map: tiles of 1 x 4 outputs, 1 x 6 transformed elements.
  Graph g;
  Value* x = g.add_value("x", F32({1, 32, 5, 9}));
  g.inputs = {x};
  Attrs a;
  a.set("kernel_shape", std::vector<int64_t>{1, 3});
  a.set("pads", std::vector<int64_t>{0, 1, 0, 1});
  Node* c = g.add_node(OpKind::Conv, "c", {x, constant(g, "w", {32, 32, 1, 3})}, {"c"}, a);
  g.outputs = {c->outputs[0]};
  run_passes(g, kTile4);
  const Node* in = only(g, OpKind::WinogradInputTransform);
  const Node* mm = only(g, OpKind::MatMul);
  ASSERT_TRUE(in && mm);
  EXPECT_EQ(in->attrs.get_ints("kernel_shape"), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(in->attrs.get_ints("pads"), (std::vector<int64_t>{0, 1, 0, 1}));
  EXPECT_EQ(in->outputs[0]->type.str(), F32({6, 15, 32}).str());  // 5 rows x ceil(9 / 4)
  EXPECT_EQ(mm->inputs[1]->type.str(), F32({6, 32, 32}).str());
}

TEST(WinogradConv, OtherConvsStayDirect) {
  // A stride-2 3x3, a 1x1, a depthwise 3x3 and a 3x3 the policy declines (its shape noted).
  Graph g;
  Value* x = g.add_value("x", F32({1, 32, 16, 16}));
  g.inputs = {x};
  Value* s2 = conv(g, "s2", {x, constant(g, "w1", {32, 32, 3, 3})}, 3, 2)->outputs[0];
  Value* pw = conv(g, "pw", {s2, constant(g, "w2", {32, 32, 1, 1})}, 1)->outputs[0];
  Value* dw = conv(g, "dw", {pw, constant(g, "w3", {32, 1, 3, 3})}, 3, 1, 32)->outputs[0];
  Value* y = conv(g, "c", {dw, constant(g, "w4", {24, 32, 3, 3})}, 3)->outputs[0];
  g.outputs = {y};
  std::vector<WinogradConvShape> asked;
  run_passes(g, [&](const WinogradConvShape& s) {
    asked.push_back(s);
    return 0;
  });
  EXPECT_EQ(count_ops(g, OpKind::ConvNCHWc), 4);
  EXPECT_EQ(count_ops(g, OpKind::WinogradInputTransform), 0);
  ASSERT_EQ(asked.size(), 1u);  // only the last conv is eligible
  EXPECT_EQ(asked[0].ic, 32);
  EXPECT_EQ(asked[0].oc, 32);  // 24 channels in one block of 32
  EXPECT_EQ(asked[0].oh, 8);
}

TEST(WinogradConv, DefaultPolicy) {
  // ResNet-50's 3x3 convs: F(4x4) but at 512 channels on 7x7 (F(2x2)); few channels: direct.
  EXPECT_EQ(default_winograd_tile({1, 64, 64, 56, 56}), 4);
  EXPECT_EQ(default_winograd_tile({1, 256, 256, 14, 14}), 4);
  EXPECT_EQ(default_winograd_tile({1, 256, 256, 7, 7}), 4);
  EXPECT_EQ(default_winograd_tile({1, 512, 512, 7, 7}), 2);
  EXPECT_EQ(default_winograd_tile({1, 16, 16, 56, 56}), 0);
  EXPECT_EQ(default_winograd_tile({1, 2048, 2048, 7, 7}), 0);
}

TEST(WinogradConv, UnknownAlgorithmIsRefused) {
  EXPECT_NE(user_error([] { check_conv_algorithm("fft"); }).find("--conv-algorithm"),
            std::string::npos);
  EXPECT_EQ(user_error([] { check_conv_algorithm("winograd_f4"); }), "");
}

TEST(WinogradConv, TransformInferenceRefusesBadAttributes) {
  {
    testing::OneNode n(OpKind::WinogradInputTransform, {F32({1, 2, 8, 8, 16})}, [] {
      Attrs a;
      a.set("tile", int64_t(3));
      return a;
    }());
    EXPECT_NE(user_error([&] { n.infer(); }).find("'tile' must be 2 or 4"), std::string::npos);
  }
  {
    Attrs a;
    a.set("tile", int64_t(4));
    a.set("output_shape", std::vector<int64_t>{1, 1, 8, 8, 16});
    testing::OneNode n(OpKind::WinogradOutputTransform, {F32({36, 5, 16})}, a);
    EXPECT_NE(user_error([&] { n.infer(); }).find("does not hold 4 tiles"), std::string::npos);
  }
}

}  // namespace
}  // namespace ingot::graph

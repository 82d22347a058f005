// The layout plan (graph/transforms/layout_plan.h): which convs must share a channel block, the
// blocks such a class may take, and layout_nchwc applying a plan without adding conversions.
#include <gtest/gtest.h>

#include "graph/transforms/dead_code.h"
#include "graph/transforms/layout_nchwc.h"
#include "graph/transforms/layout_plan.h"
#include "graph/verifier.h"
#include "graph_test_util.h"
#include "ops/op.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::count_ops;
using testing::F32;

Value* weight(Graph& g, const std::string& name, std::vector<int64_t> shape) {
  return testing::filled_constant(g, name, std::move(shape), 0.25f);
}

Value* conv1x1(Graph& g, const std::string& name, Value* x, int64_t in, int64_t out) {
  Attrs a;
  a.set("kernel_shape", std::vector<int64_t>{1, 1});
  return g.add_node(OpKind::Conv, name, {x, weight(g, name + "_w", {out, in, 1, 1})}, {name}, a)
      ->outputs[0];
}

// x[1,8,6,6] -> a (8->48) -> Relu -> b (48->48) -> Add(relu, b) -> c (48->32) -> y: a and b meet
// in the residual Add (one class), c alone.
struct Residual {
  Graph g;
  Residual() {
    Value* x = g.add_value("x", F32({1, 8, 6, 6}));
    g.inputs = {x};
    Value* a = conv1x1(g, "a", x, 8, 48);
    Value* r = g.add_node(OpKind::Relu, "relu", {a}, {"r"})->outputs[0];
    Value* b = conv1x1(g, "b", r, 48, 48);
    Value* sum = g.add_node(OpKind::Add, "sum", {r, b}, {"s"})->outputs[0];
    g.outputs = {conv1x1(g, "c", sum, 48, 32)};
    infer_types(g);
  }
};

// The pass with `plan` on the residual graph: each ConvNCHWc's block; the graph must keep one
// conversion each way (x in, z out), none between the convs.
std::map<std::string, int64_t> planned_blocks(Residual& m, int vector_bits,
                                              std::map<std::string, int64_t> plan) {
  ChannelBlockPolicy policy = vector_channel_blocks(vector_bits);
  policy.planned = std::move(plan);
  convert_layout_nchwc(m.g, policy);
  remove_dead_code(m.g);
  verify_graph(m.g);
  EXPECT_EQ(count_ops(m.g, OpKind::LayoutToBlocked), 1);
  EXPECT_EQ(count_ops(m.g, OpKind::LayoutFromBlocked), 1);
  std::map<std::string, int64_t> blocks;
  for (const auto& n : m.g.nodes())
    if (n->op == OpKind::ConvNCHWc) blocks[n->name] = n->attrs.get_int("block", 0);
  return blocks;
}

TEST(LayoutPlan, TheBlocksAConvMayTakePadAtMostAnEighth) {
  // AVX2 (8 lanes): the default first, then one to three vectors that pad at most 1/8.
  EXPECT_EQ(channel_block_options(48, 256), (std::vector<int64_t>{16, 8, 24}));
  EXPECT_EQ(channel_block_options(32, 256), (std::vector<int64_t>{16, 8}));  // 48 pads 1/2
  EXPECT_EQ(channel_block_options(24, 256), (std::vector<int64_t>{8, 24}));
  EXPECT_EQ(channel_block_options(1000, 256), (std::vector<int64_t>{16, 8, 24}));
  EXPECT_EQ(channel_block_options(4, 256), (std::vector<int64_t>{8}));  // fewer than the lanes
  // AVX-512 (16 lanes).
  EXPECT_EQ(channel_block_options(48, 512), (std::vector<int64_t>{16, 48}));
  EXPECT_EQ(channel_block_options(256, 512), (std::vector<int64_t>{32, 16, 48}));
}

TEST(LayoutPlan, ConvsJoinedByAnElementwiseOpShareAClass) {
  Residual m;
  std::vector<ConvLayoutClass> classes = conv_layout_classes(m.g, vector_channel_blocks(256));
  ASSERT_EQ(classes.size(), 2u);
  EXPECT_EQ(classes[0].convs, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(classes[0].values, (std::vector<std::string>{"a", "r", "b", "s"}));
  // Its members, then the conv that reads its last value (c reads s in the class's block).
  EXPECT_EQ(classes[0].nodes, (std::vector<std::string>{"a", "relu", "b", "sum", "c"}));
  EXPECT_EQ(classes[0].blocks, (std::vector<int64_t>{16, 8, 24}));
  EXPECT_EQ(classes[1].convs, (std::vector<std::string>{"c"}));
  EXPECT_EQ(classes[1].blocks, (std::vector<int64_t>{16, 8}));
}

TEST(LayoutPlan, APlanOfClassesAddsNoConversion) {
  Residual m;
  EXPECT_EQ(planned_blocks(m, 256, {{"a", 24}, {"b", 24}, {"c", 8}}),
            (std::map<std::string, int64_t>{{"a", 24}, {"b", 24}, {"c", 8}}));
  // The Add runs on [1, 2, 6, 6, 24] blocks.
  for (const auto& n : m.g.nodes())
    if (n->op == OpKind::Add) {
      EXPECT_EQ(n->outputs[0]->type, F32({1, 2, 6, 6, 24}));
    }
}

// The same plan for AVX-512 code (judged through the policy of a 512-bit target on any host):
// 48 channels in one three-vector block of 48, the 32-channel conv in one-vector blocks of 16.
TEST(LayoutPlan, AnAvx512PlanTakesItsOwnBlocks) {
  Residual m;
  std::vector<ConvLayoutClass> classes = conv_layout_classes(m.g, vector_channel_blocks(512));
  ASSERT_EQ(classes.size(), 2u);
  EXPECT_EQ(classes[0].blocks, (std::vector<int64_t>{16, 48}));
  EXPECT_EQ(classes[1].blocks, (std::vector<int64_t>{32, 16}));
  EXPECT_EQ(planned_blocks(m, 512, {{"a", 48}, {"b", 48}, {"c", 16}}),
            (std::map<std::string, int64_t>{{"a", 48}, {"b", 48}, {"c", 16}}));
}

TEST(LayoutPlan, ABlockAConvMayNotTakeIsIgnored) {
  Residual m;
  ChannelBlockPolicy policy = vector_channel_blocks(256);
  policy.planned = {{"c", 24}};  // 32 channels would pad to 48
  convert_layout_nchwc(m.g, policy);
  for (const auto& n : m.g.nodes())
    if (n->op == OpKind::ConvNCHWc) {
      EXPECT_EQ(n->attrs.get_int("block", 0), 16) << n->name;
    }
}

// A channel Concat of two convs fixes their class at the default (its block follows the inputs'
// channel counts); so does a depthwise conv reading the NCHW input (its block is the input's).
TEST(LayoutPlan, AConcatOrADepthwiseConvOfAnInputFixesTheBlock) {
  Graph g;
  Value* x = g.add_value("x", F32({1, 16, 6, 6}));
  g.inputs = {x};
  Value* p = conv1x1(g, "p", x, 16, 32);
  Value* q = conv1x1(g, "q", x, 16, 32);
  Attrs cat;
  cat.set("axis", int64_t(1));
  Value* pq = g.add_node(OpKind::Concat, "cat", {p, q}, {"pq"}, cat)->outputs[0];
  Attrs dw;
  dw.set("kernel_shape", std::vector<int64_t>{3, 3});
  dw.set("group", int64_t(16));
  dw.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  Value* d =
      g.add_node(OpKind::Conv, "dw", {x, weight(g, "dw_w", {16, 1, 3, 3})}, {"d"}, dw)->outputs[0];
  Value* e = conv1x1(g, "e", d, 16, 32);
  g.outputs = {pq, e};
  infer_types(g);
  std::vector<ConvLayoutClass> classes = conv_layout_classes(g, vector_channel_blocks(256));
  ASSERT_EQ(classes.size(), 2u);
  EXPECT_EQ(classes[0].convs, (std::vector<std::string>{"p", "q"}));
  EXPECT_EQ(classes[0].blocks, (std::vector<int64_t>{16}));
  EXPECT_EQ(classes[1].convs, (std::vector<std::string>{"e"}));  // (dw's class has no writer)
  EXPECT_EQ(classes[1].blocks, (std::vector<int64_t>{16, 8}));
}

}  // namespace
}  // namespace ingot::graph

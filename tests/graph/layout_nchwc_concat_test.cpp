// Graph pass layout_nchwc on branching graphs, IR before/after: MaxPool / AveragePool of blocked
// values pool the blocks (attributes kept), a channel Concat of blocked branches concatenates
// the blocks, inputs in another block or NCHW are converted to the Concat's block, and channel
// counts that are not a multiple of any block keep the NCHW Concat. (Numbers: the inception_tiny,
// densenet_tiny and squeezenet_tiny models against ONNX Runtime in tests/python/test_parity.py.)
#include <gtest/gtest.h>

#include "graph/transforms/dead_code.h"
#include "graph/transforms/layout_nchwc.h"
#include "graph/transforms/rewrite_util.h"
#include "graph/verifier.h"
#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::count_ops;
using testing::F32;

Value* conv(Graph& g, const std::string& name, Value* x, int64_t cin, int64_t cout, int64_t k) {
  std::vector<int64_t> ws = {cout, cin, k, k};
  Value* w = g.add_constant(name + "_w",
                            f32_constant(ws, std::vector<float>(size_t(cout * cin * k * k), 0.5f)));
  Attrs a;
  a.set("kernel_shape", std::vector<int64_t>{k, k});
  a.set("pads", std::vector<int64_t>(4, k / 2));
  return g.add_node(OpKind::Conv, name, {x, w}, {name}, a)->outputs[0];
}

Value* pool(Graph& g, OpKind op, const std::string& name, Value* x, int64_t k, int64_t stride,
            int64_t pad, int64_t ceil_mode = 0) {
  Attrs a;
  a.set("kernel_shape", std::vector<int64_t>{k, k});
  a.set("strides", std::vector<int64_t>{stride, stride});
  a.set("pads", std::vector<int64_t>(4, pad));
  a.set("ceil_mode", ceil_mode);
  if (op == OpKind::AveragePool) a.set("count_include_pad", int64_t(1));
  return g.add_node(op, name, {x}, {name}, a)->outputs[0];
}

Value* concat(Graph& g, const std::string& name, std::vector<Value*> ins) {
  Attrs a;
  a.set("axis", int64_t(1));
  return g.add_node(OpKind::Concat, name, std::move(ins), {name}, a)->outputs[0];
}

const Node* node_named(const Graph& g, const std::string& name) {
  for (const auto& n : g.nodes())
    if (n->name == name) return n.get();
  return nullptr;
}

// An Inception block: stem conv (8 -> 32), then 1x1 (32), 3x3 (64), MaxPool 3x3/2 ceil and
// AveragePool 3x3 + 1x1 (32) branches of the stem, the four concatenated (160), a 1x1 after.
// `b3` channels of the 3x3 branch.
struct Inception {
  Graph g;
  explicit Inception(int64_t b3 = 64, int64_t stride = 1) {
    Value* x = g.add_value("x", F32({1, 8, 9, 9}));
    g.inputs = {x};
    Value* stem = conv(g, "stem", x, 8, 32, 1);
    if (stride == 2) stem = pool(g, OpKind::MaxPool, "down", stem, 2, 2, 0, 1);
    Value* b1 = conv(g, "b1", stem, 32, 32, 1);
    Value* b2 = conv(g, "b2", stem, 32, b3, 3);
    Value* b3v = pool(g, OpKind::MaxPool, "mp", stem, 3, 1, 1);
    Value* b4 = conv(g, "b4", pool(g, OpKind::AveragePool, "ap", stem, 3, 1, 1), 32, 32, 1);
    Value* cat = concat(g, "cat", {b1, b2, b3v, b4});
    g.outputs = {conv(g, "head", cat, 96 + b3, 16, 1)};
    infer_types(g);
  }
};

TEST(LayoutNchwcConcat, InceptionBranchesPoolsAndConcatStayBlocked) {
  Inception c;
  convert_layout_nchwc(c.g, vector_channel_blocks(512));
  remove_dead_code(c.g);
  verify_graph(c.g);
  EXPECT_EQ(count_ops(c.g, OpKind::LayoutToBlocked), 1);    // x
  EXPECT_EQ(count_ops(c.g, OpKind::LayoutFromBlocked), 1);  // the output
  EXPECT_EQ(count_ops(c.g, OpKind::MaxPool) + count_ops(c.g, OpKind::AveragePool), 0);
  const Node* mp = node_named(c.g, "mp");
  const Node* ap = node_named(c.g, "ap");
  ASSERT_TRUE(mp && ap);
  EXPECT_EQ(mp->op, OpKind::MaxPoolNCHWc);
  EXPECT_EQ(ap->op, OpKind::AveragePoolNCHWc);
  EXPECT_EQ(mp->outputs[0]->type, F32({1, 1, 9, 9, 32}));
  EXPECT_EQ(ap->attrs.get_int("count_include_pad", 0), 1);
  EXPECT_EQ(ap->attrs.get_ints("pads"), (std::vector<int64_t>{1, 1, 1, 1}));
  const Node* cat = node_named(c.g, "cat");
  ASSERT_TRUE(cat);
  EXPECT_EQ(cat->outputs[0]->type, F32({1, 5, 9, 9, 32}));  // 32 + 64 + 32 + 32 channels
  EXPECT_EQ(cat->attrs.get_int("axis", 0), 1);
  for (const Value* v : cat->inputs) {
    EXPECT_EQ(v->type.rank(), 5) << v->name;
    EXPECT_NE(v->producer->op, OpKind::LayoutToBlocked) << v->name;
  }
  EXPECT_EQ(node_named(c.g, "head")->inputs[0], cat->outputs[0]);
}

TEST(LayoutNchwcConcat, CeilModePoolKeepsItsOutputShape) {
  Inception c(64, 2);
  TensorType before = node_named(c.g, "down")->outputs[0]->type;
  EXPECT_EQ(before, F32({1, 32, 5, 5}));  // ceil((9 - 2) / 2) + 1 (floor: 4)
  convert_layout_nchwc(c.g, vector_channel_blocks(512));
  remove_dead_code(c.g);
  verify_graph(c.g);
  const Node* down = node_named(c.g, "down");
  EXPECT_EQ(down->op, OpKind::MaxPoolNCHWc);
  EXPECT_EQ(down->attrs.get_int("ceil_mode", 0), 1);
  EXPECT_EQ(down->outputs[0]->type, F32({1, 1, 5, 5, 32}));
}

TEST(LayoutNchwcConcat, AvxTwoBlocks) {
  Inception c;
  convert_layout_nchwc(c.g, vector_channel_blocks(256));  // 16-lane blocks for 32 and 64 channels
  remove_dead_code(c.g);
  verify_graph(c.g);
  EXPECT_EQ(node_named(c.g, "cat")->outputs[0]->type, F32({1, 10, 9, 9, 16}));
  EXPECT_EQ(count_ops(c.g, OpKind::LayoutToBlocked) + count_ops(c.g, OpKind::LayoutFromBlocked), 2);
}

TEST(LayoutNchwcConcat, ChannelsNotAMultipleOfTheBlockKeepTheNchwConcat) {
  Inception c(24);  // 24 channels: a 32-lane block with padding lanes
  convert_layout_nchwc(c.g, vector_channel_blocks(512));
  remove_dead_code(c.g);
  verify_graph(c.g);
  const Node* cat = node_named(c.g, "cat");
  EXPECT_EQ(cat->outputs[0]->type, F32({1, 120, 9, 9}));
  for (const Value* v : cat->inputs) EXPECT_EQ(v->producer->op, OpKind::LayoutFromBlocked);
  // The pools still run blocked; the head conv reads the NCHW concat through one conversion.
  EXPECT_EQ(node_named(c.g, "mp")->op, OpKind::MaxPoolNCHWc);
  EXPECT_EQ(node_named(c.g, "head")->inputs[0]->producer->op, OpKind::LayoutToBlocked);
}

TEST(LayoutNchwcConcat, OtherBlocksAndNchwInputsAreConvertedToTheConcatsBlock) {
  // On AVX-512: a (64 channels) is blocked by 32, b (48) by 16 and z (16) is a graph input.
  // 48 is no multiple of 32, so the Concat takes block 16: a is converted, b is read directly.
  Graph g;
  Value* x = g.add_value("x", F32({1, 8, 5, 5}));
  Value* z = g.add_value("z", F32({1, 16, 5, 5}));
  g.inputs = {x, z};
  Value* a = conv(g, "a", x, 8, 64, 1);
  Value* b = conv(g, "b", x, 8, 48, 3);
  Value* cat = concat(g, "cat", {a, b, z});
  g.outputs = {conv(g, "head", cat, 128, 32, 1)};
  infer_types(g);
  convert_layout_nchwc(g, vector_channel_blocks(512));
  remove_dead_code(g);
  verify_graph(g);
  const Node* c = node_named(g, "cat");
  EXPECT_EQ(c->outputs[0]->type, F32({1, 8, 5, 5, 16}));
  EXPECT_EQ(c->inputs[0]->producer->op, OpKind::LayoutToBlocked);  // a: from block 32
  EXPECT_EQ(c->inputs[1]->producer->op, OpKind::ConvNCHWc);        // b
  EXPECT_EQ(c->inputs[2]->producer->op, OpKind::LayoutToBlocked);  // z
  EXPECT_EQ(count_ops(g, OpKind::LayoutToBlocked), 3);             // x, a, z
}

TEST(LayoutNchwcConcat, UnblockablePoolsAndConcatsStayNchw) {
  // A window of 9x9 taps (too many to unroll), a MaxPool with Indices, a Concat of
  // non-blocked values and one along another axis.
  Graph g;
  Value* x = g.add_value("x", F32({1, 8, 9, 9}));
  g.inputs = {x};
  Value* c = conv(g, "c", x, 8, 32, 1);
  Value* big = pool(g, OpKind::AveragePool, "big", c, 9, 1, 0);
  Attrs ma;
  ma.set("kernel_shape", std::vector<int64_t>{2, 2});
  Node* with_idx = g.add_node(OpKind::MaxPool, "idx", {c}, {"idx_y", "idx_i"}, ma);
  Attrs ha;
  ha.set("axis", int64_t(2));
  Value* h = g.add_node(OpKind::Concat, "h", {c, c}, {"h"}, ha)->outputs[0];
  Value* plain = concat(g, "plain", {x, x});
  g.outputs = {big, with_idx->outputs[0], with_idx->outputs[1], h, plain};
  infer_types(g);
  convert_layout_nchwc(g, vector_channel_blocks(512));
  remove_dead_code(g);
  verify_graph(g);
  EXPECT_EQ(node_named(g, "big")->op, OpKind::AveragePool);
  EXPECT_EQ(node_named(g, "idx")->op, OpKind::MaxPool);
  EXPECT_EQ(node_named(g, "h")->outputs[0]->type.rank(), 4);
  EXPECT_EQ(node_named(g, "plain")->outputs[0]->type.rank(), 4);
  EXPECT_EQ(count_ops(g, OpKind::MaxPoolNCHWc) + count_ops(g, OpKind::AveragePoolNCHWc), 0);
}

}  // namespace
}  // namespace ingot::graph

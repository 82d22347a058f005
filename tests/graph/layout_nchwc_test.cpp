// Graph pass layout_nchwc on small graphs, IR before/after: a conv chain runs blocked between
// one LayoutToBlocked and one LayoutFromBlocked, shared and residual operands convert once,
// graph outputs keep their names and NCHW types, unsupported convs and targets are left alone;
// 1-D and 3-D convs ([N, C/c, W, c], [N, C/c, D, H, W, c]) with their elementwise ops and
// pooling; ConvNCHWc's inference for 3 spatial dims. (Numbers: the conv_chain_odd, conv3d_odd
// and conv1d_odd models against ONNX Runtime in tests/python/test_parity.py.)
#include <gtest/gtest.h>

#include <sstream>

#include "graph/transforms/dead_code.h"
#include "graph/transforms/layout_nchwc.h"
#include "graph/transforms/pass_manager.h"
#include "graph/transforms/rewrite_util.h"
#include "graph/verifier.h"
#include "graph_test_util.h"
#include "ops/op.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::count_ops;
using testing::F32;
using testing::square_conv;
using testing::user_error;

Value* weight(Graph& g, const std::string& name, std::vector<int64_t> shape) {
  return testing::filled_constant(g, name, std::move(shape), 0.5f);
}

// The pass, then dead-code removal and the verifier, as the pass manager runs them.
void run_layout_pass(Graph& g, int vector_bits) {
  convert_layout_nchwc(g, vector_channel_blocks(vector_bits));
  remove_dead_code(g);
  verify_graph(g);
}

// x[1,8,10,10] -> c1 3x3 (8->24) -> dw 3x3 depthwise (24) -> c2 1x1 (24->24, summand = c1)
//   -> y; a Relu reads c1 too (stays NCHW).
struct Chain {
  Graph g;
  Chain() {
    Value* x = g.add_value("x", F32({1, 8, 10, 10}));
    g.inputs = {x};
    Value* c1 = square_conv(g, "c1", {x, weight(g, "w1", {24, 8, 3, 3})}, 3, 1, 1)->outputs[0];
    Value* dw = square_conv(g, "dw", {c1, weight(g, "wd", {24, 1, 3, 3})}, 3, 24, 1)->outputs[0];
    Value* y =
        square_conv(g, "c2", {dw, weight(g, "w2", {24, 24, 1, 1}), nullptr, c1}, 1)->outputs[0];
    Value* r = g.add_node(OpKind::Relu, "relu", {c1}, {"r"})->outputs[0];
    g.outputs = {y, r};
    infer_types(g);
  }
};

TEST(LayoutNchwc, ChainRunsBlockedBetweenOneConversionEachWay) {
  Chain c;
  run_layout_pass(c.g, 512);
  EXPECT_EQ(count_ops(c.g, OpKind::Conv), 0);
  EXPECT_EQ(count_ops(c.g, OpKind::ConvNCHWc), 3);
  EXPECT_EQ(count_ops(c.g, OpKind::LayoutToBlocked), 1);  // x, once
  // y (graph output) and c1 for the Relu; none between the convs.
  EXPECT_EQ(count_ops(c.g, OpKind::LayoutFromBlocked), 2);
  for (const auto& n : c.g.nodes()) {
    if (n->op != OpKind::ConvNCHWc) continue;
    EXPECT_EQ(n->inputs[0]->type.rank(), 5) << n->name;
    const Node* from = n->inputs[0]->producer;
    if (n->name == "c1") {
      // The direct conv reads its input through an explicit zero Pad of the spatial dims and
      // has no padding of its own.
      ASSERT_EQ(from->op, OpKind::Pad);
      EXPECT_EQ(from->attrs.get_ints("pads"), (std::vector<int64_t>{0, 0, 1, 1, 0, 0, 0, 1, 1, 0}));
      EXPECT_EQ(from->attrs.get_string("mode", ""), "constant");
      EXPECT_EQ(from->outputs[0]->type, F32({1, 1, 12, 12, 8}));
      EXPECT_EQ(n->attrs.get_ints("pads"), (std::vector<int64_t>{0, 0, 0, 0}));
      from = from->inputs[0]->producer;
    }
    if (n->name == "dw") {  // the depthwise conv keeps its pads (its rule guards the border)
      EXPECT_EQ(n->attrs.get_ints("pads"), (std::vector<int64_t>{1, 1, 1, 1}));
    }
    EXPECT_EQ(from->op == OpKind::ConvNCHWc || from->op == OpKind::LayoutToBlocked, true)
        << n->name;
  }
  EXPECT_EQ(count_ops(c.g, OpKind::Pad), 1);
  // Outputs keep names and NCHW types; 24 channels sit in one 32-lane block on AVX-512.
  ASSERT_EQ(c.g.outputs.size(), 2u);
  EXPECT_EQ(c.g.outputs[0]->name, "c2");
  EXPECT_EQ(c.g.outputs[0]->type, F32({1, 24, 10, 10}));
  EXPECT_EQ(c.g.outputs[0]->producer->op, OpKind::LayoutFromBlocked);
  EXPECT_EQ(c.g.outputs[0]->producer->inputs[0]->type, F32({1, 1, 10, 10, 32}));
  Node* c2 = c.g.outputs[0]->producer->inputs[0]->producer;
  ASSERT_EQ(c2->op, OpKind::ConvNCHWc);
  EXPECT_EQ(c2->inputs[3]->producer->name, "c1");  // the summand, blocked, from c1 directly
  EXPECT_EQ(c2->attrs.get_int("block", 0), 32);
  // Fewer channels than lanes (x: 8 < 16): block = C (NHWC), no padding lanes.
  for (const auto& n : c.g.nodes()) {
    if (n->op == OpKind::LayoutToBlocked) {
      EXPECT_EQ(n->outputs[0]->type, F32({1, 1, 10, 10, 8}));
    }
  }
}

// x -> c1 (8->24) -> Sigmoid -> s; gate = GlobalAveragePool(s) [1,24,1,1]; Mul(s, gate) -> c2:
// the elementwise ops and the pooling run blocked, so the chain keeps one conversion each way.
TEST(LayoutNchwc, ElementwiseAndGlobalPoolingStayBlocked) {
  Graph g;
  Value* x = g.add_value("x", F32({1, 8, 6, 6}));
  g.inputs = {x};
  Value* c1 = square_conv(g, "c1", {x, weight(g, "w1", {24, 8, 1, 1})}, 1)->outputs[0];
  Value* s = g.add_node(OpKind::Sigmoid, "sig", {c1}, {"s"})->outputs[0];
  Value* gate = g.add_node(OpKind::GlobalAveragePool, "gap", {s}, {"gate"})->outputs[0];
  Value* m = g.add_node(OpKind::Mul, "se", {s, gate}, {"m"})->outputs[0];
  Value* half = g.add_constant("half", f32_constant({}, {0.5f}));
  Value* a = g.add_node(OpKind::Add, "shift", {m, half}, {"a"})->outputs[0];
  g.outputs = {square_conv(g, "c2", {a, weight(g, "w2", {24, 24, 1, 1})}, 1)->outputs[0]};
  infer_types(g);
  run_layout_pass(g, 512);
  EXPECT_EQ(count_ops(g, OpKind::LayoutToBlocked), 1);    // x
  EXPECT_EQ(count_ops(g, OpKind::LayoutFromBlocked), 1);  // the output
  EXPECT_EQ(count_ops(g, OpKind::GlobalAveragePool), 0);
  for (const auto& n : g.nodes()) {
    if (n->op == OpKind::ReduceMean) {
      EXPECT_EQ(n->attrs.get_ints("axes"), (std::vector<int64_t>{2, 3}));
      EXPECT_EQ(n->outputs[0]->type, F32({1, 1, 1, 1, 32}));
    }
    if (n->op == OpKind::Sigmoid || n->op == OpKind::Mul || n->op == OpKind::Add) {
      EXPECT_EQ(n->outputs[0]->type, F32({1, 1, 6, 6, 32})) << n->name;
    }
  }
}

TEST(LayoutNchwc, PerChannelConstantsAreBlockedAtCompileTime) {
  // A BatchNormalization left after a conv (fold_batch_norm's Mul and Add by [1, C, 1, 1]
  // constants): the constants become blocked constants, [1, 1, 1, 1, 32] with zero padding
  // lanes, no LayoutToBlocked kernel per run.
  Graph g;
  Value* x = g.add_value("x", F32({1, 8, 6, 6}));
  g.inputs = {x};
  Value* c1 = square_conv(g, "c1", {x, weight(g, "w1", {24, 8, 1, 1})}, 1)->outputs[0];
  std::vector<float> scale(24);
  for (size_t c = 0; c < scale.size(); ++c) scale[c] = 1.0f + float(c);
  Value* sv = g.add_constant("scale", f32_constant({1, 24, 1, 1}, scale));
  Value* m = g.add_node(OpKind::Mul, "bn_scale", {c1, sv}, {"m"})->outputs[0];
  g.outputs = {square_conv(g, "c2", {m, weight(g, "w2", {24, 24, 1, 1})}, 1)->outputs[0]};
  infer_types(g);
  run_layout_pass(g, 512);
  EXPECT_EQ(count_ops(g, OpKind::LayoutToBlocked), 1);  // x alone
  for (const auto& n : g.nodes()) {
    if (n->op != OpKind::Mul) continue;
    const Value* k = n->inputs[1];
    ASSERT_TRUE(k->is_constant());
    ASSERT_EQ(k->type, F32({1, 1, 1, 1, 32}));
    EXPECT_EQ(k->constant->get_f64(5), 6.0);
    EXPECT_EQ(k->constant->get_f64(30), 0.0);  // a padding lane
  }
}

TEST(LayoutNchwc, ElementwiseWithAnUnblockableOperandStaysNchw) {
  // Div is not finite at the zero padding lanes, and a [1,1,6,6] operand broadcasts over
  // channels: both keep NCHW (a conversion back and forth around them).
  Graph g;
  Value* x = g.add_value("x", F32({1, 8, 6, 6}));
  Value* z = g.add_value("z", F32({1, 1, 6, 6}));
  g.inputs = {x, z};
  Value* c1 = square_conv(g, "c1", {x, weight(g, "w1", {24, 8, 1, 1})}, 1)->outputs[0];
  Value* d = g.add_node(OpKind::Div, "div", {c1, c1}, {"d"})->outputs[0];
  Value* m = g.add_node(OpKind::Mul, "mul", {d, z}, {"m"})->outputs[0];
  g.outputs = {square_conv(g, "c2", {m, weight(g, "w2", {24, 24, 1, 1})}, 1)->outputs[0]};
  infer_types(g);
  run_layout_pass(g, 512);
  EXPECT_EQ(count_ops(g, OpKind::LayoutToBlocked), 2);  // x, m
  for (const auto& n : g.nodes())
    if (n->op == OpKind::Div || n->op == OpKind::Mul) {
      EXPECT_EQ(n->outputs[0]->type.rank(), 4);
    }
}

TEST(LayoutNchwc, BlockFollowsTheVectorWidth) {
  Chain c;
  run_layout_pass(c.g, 256);  // AVX2: 24 channels = 3 blocks of 8
  EXPECT_EQ(c.g.outputs[0]->producer->inputs[0]->type, F32({1, 3, 10, 10, 8}));
}

TEST(LayoutNchwc, NoDefaultSchedulesNoChange) {
  Chain c;
  std::ostringstream dump;
  run_optimization_passes(c.g, PassOptions{}, dump);  // no channel blocks: no default schedules
  EXPECT_EQ(count_ops(c.g, OpKind::ConvNCHWc), 0);
  EXPECT_EQ(count_ops(c.g, OpKind::LayoutToBlocked), 0);
}

TEST(LayoutNchwc, GroupedConvsTakeBlocksTheirGroupsFit) {
  // 64 channels: 16 groups of 4 (narrower than a vector: one vector block spanning groups),
  // then 4 groups of 16 (one or more whole blocks per group).
  for (int bits : {512, 256}) {
    Graph g;
    Value* x = g.add_value("x", F32({1, 64, 8, 8}));
    g.inputs = {x};
    Value* a = square_conv(g, "narrow", {x, weight(g, "wn", {64, 4, 3, 3})}, 3, 16, 1)->outputs[0];
    Value* b = square_conv(g, "wide", {a, weight(g, "ww", {64, 16, 3, 3})}, 3, 4, 1)->outputs[0];
    g.outputs = {b};
    infer_types(g);
    run_layout_pass(g, bits);
    int64_t lanes = bits == 512 ? 16 : 8;
    EXPECT_EQ(count_ops(g, OpKind::ConvNCHWc), 2) << bits;
    EXPECT_EQ(count_ops(g, OpKind::LayoutToBlocked), 1) << bits;  // none between the convs
    Node* wide = g.outputs[0]->producer->inputs[0]->producer;
    ASSERT_EQ(wide->op, OpKind::ConvNCHWc);
    EXPECT_EQ(wide->attrs.get_int("block", 0), 16) << bits;
    Node* pad = wide->inputs[0]->producer;  // the explicit padding of the wide conv's input
    ASSERT_EQ(pad->op, OpKind::Pad);
    Node* narrow = pad->inputs[0]->producer;
    ASSERT_EQ(narrow->op, OpKind::ConvNCHWc);
    EXPECT_EQ(narrow->attrs.get_int("block", 0), lanes) << bits;
    EXPECT_EQ(narrow->inputs[0]->type.shape.back().value, lanes) << bits;
  }
}

TEST(LayoutNchwc, LeavesGroupedAndRuntimeWeightConvs) {
  // 4 groups of 3 of 12 channels fill no block (3 does not divide a vector).
  Graph g;
  Value* x = g.add_value("x", F32({1, 12, 6, 6}));
  Value* wr = g.add_value("w_runtime", F32({8, 12, 1, 1}));
  g.inputs = {x, wr};
  Value* a = square_conv(g, "grouped", {x, weight(g, "wg", {12, 3, 3, 3})}, 3, 4, 1)->outputs[0];
  Value* b = square_conv(g, "runtime_w", {a, wr}, 1)->outputs[0];
  g.outputs = {b};
  infer_types(g);
  run_layout_pass(g, 512);
  EXPECT_EQ(count_ops(g, OpKind::Conv), 2);
  EXPECT_EQ(count_ops(g, OpKind::ConvNCHWc), 0);
  EXPECT_EQ(count_ops(g, OpKind::LayoutToBlocked) + count_ops(g, OpKind::LayoutFromBlocked), 0);
}

Node* conv3d(Graph& g, const std::string& name, std::vector<Value*> ins,
             std::vector<int64_t> kernel, std::vector<int64_t> strides, std::vector<int64_t> pads,
             int64_t group = 1) {
  Attrs a;
  a.set("kernel_shape", kernel);
  a.set("strides", strides);
  a.set("pads", pads);
  a.set("group", group);
  return g.add_node(OpKind::Conv, name, ins, {name}, a);
}

// An R(2+1)D-style block on x[1,3,4,9,9]: (1,3,3) stride (1,2,2) 3->24, Relu, (3,1,1) 24->40
// with a per-channel [1,40,1,1,1] Mul gate and a residual Add of a strided 1x1x1 conv, then
// global average pooling: all of it runs blocked, [N, C/c, D, H, W, c].
TEST(LayoutNchwc, ThreeDConvChainRunsBlocked) {
  Graph g;
  Value* x = g.add_value("x", F32({1, 3, 4, 9, 9}));
  Value* gate = g.add_value("gate", F32({1, 40, 1, 1, 1}));
  g.inputs = {x, gate};
  Value* s = conv3d(g, "s", {x, weight(g, "ws", {24, 3, 1, 3, 3})}, {1, 3, 3}, {1, 2, 2},
                    {0, 1, 1, 0, 1, 1})
                 ->outputs[0];
  Value* r = g.add_node(OpKind::Relu, "relu", {s}, {"r"})->outputs[0];
  Value* t = conv3d(g, "t", {r, weight(g, "wt", {40, 24, 3, 1, 1})}, {3, 1, 1}, {1, 1, 1},
                    {1, 0, 0, 1, 0, 0})
                 ->outputs[0];
  Value* m = g.add_node(OpKind::Mul, "m", {t, gate}, {"m"})->outputs[0];
  Value* d = conv3d(g, "d", {r, weight(g, "wd", {40, 24, 1, 1, 1})}, {1, 1, 1}, {1, 1, 1},
                    {0, 0, 0, 0, 0, 0})
                 ->outputs[0];
  Value* a = g.add_node(OpKind::Add, "a", {m, d}, {"a"})->outputs[0];
  g.outputs = {g.add_node(OpKind::GlobalAveragePool, "gap", {a}, {"p"})->outputs[0]};
  infer_types(g);
  run_layout_pass(g, 512);
  EXPECT_EQ(count_ops(g, OpKind::Conv), 0);
  EXPECT_EQ(count_ops(g, OpKind::ConvNCHWc), 3);
  EXPECT_EQ(count_ops(g, OpKind::LayoutToBlocked), 2);    // x and the gate
  EXPECT_EQ(count_ops(g, OpKind::LayoutFromBlocked), 1);  // the output
  EXPECT_EQ(count_ops(g, OpKind::GlobalAveragePool), 0);
  for (const auto& n : g.nodes()) {
    if (n->op == OpKind::ConvNCHWc) {
      EXPECT_EQ(n->inputs[0]->type.rank(), 6) << n->name;
    }
    if (n->op == OpKind::Relu) {
      EXPECT_EQ(n->outputs[0]->type, F32({1, 1, 4, 5, 5, 32}));
    }
    if (n->op == OpKind::Mul || n->op == OpKind::Add) {
      EXPECT_EQ(n->outputs[0]->type, F32({1, 3, 4, 5, 5, 16})) << n->name;  // 40 in 16s
    }
    if (n->op == OpKind::ReduceMean) {
      EXPECT_EQ(n->attrs.get_ints("axes"), (std::vector<int64_t>{2, 3, 4}));
      EXPECT_EQ(n->outputs[0]->type, F32({1, 3, 1, 1, 1, 16}));
    }
    if (n->op == OpKind::LayoutToBlocked && n->inputs[0]->name == "x") {
      EXPECT_EQ(n->outputs[0]->type, F32({1, 1, 4, 9, 9, 3}));  // 3 channels: block 3
    }
  }
  EXPECT_EQ(g.outputs[0]->name, "p");
  EXPECT_EQ(g.outputs[0]->type, F32({1, 40, 1, 1, 1}));
}

TEST(LayoutNchwc, OneDConvsRunBlocked) {
  Graph g;
  Value* x = g.add_value("x", F32({2, 8, 30}));
  g.inputs = {x};
  Attrs a;
  a.set("kernel_shape", std::vector<int64_t>{3});
  a.set("strides", std::vector<int64_t>{2});
  a.set("pads", std::vector<int64_t>{1, 0});
  Value* c = g.add_node(OpKind::Conv, "c", {x, weight(g, "w", {16, 8, 3})}, {"c"}, a)->outputs[0];
  g.outputs = {g.add_node(OpKind::Relu, "relu", {c}, {"y"})->outputs[0]};
  infer_types(g);
  run_layout_pass(g, 256);
  EXPECT_EQ(count_ops(g, OpKind::ConvNCHWc), 1);
  for (const auto& n : g.nodes())
    if (n->op == OpKind::ConvNCHWc) {
      EXPECT_EQ(n->outputs[0]->type, F32({2, 1, 15, 16}));  // AVX2: 16 channels, one block
    }
  EXPECT_EQ(g.outputs[0]->type, F32({2, 16, 15}));
}

TEST(LayoutNchwc, LeavesDepthwiseThreeDConvs) {
  // Depthwise blocked convolutions are 2-D only; a depthwise 3-D conv stays NCDHW.
  Graph g;
  Value* x = g.add_value("x", F32({1, 16, 4, 6, 6}));
  g.inputs = {x};
  g.outputs = {conv3d(g, "dw", {x, weight(g, "w", {16, 1, 3, 3, 3})}, {3, 3, 3}, {1, 1, 1},
                      {1, 1, 1, 1, 1, 1}, 16)
                   ->outputs[0]};
  infer_types(g);
  run_layout_pass(g, 512);
  EXPECT_EQ(count_ops(g, OpKind::Conv), 1);
  EXPECT_EQ(count_ops(g, OpKind::ConvNCHWc), 0);
}

// ConvNCHWc's own inference for 3 spatial dims: the output dims from strides and pads, and
// user errors for pads of the wrong rank and for an input that does not hold W's channels.
TEST(LayoutNchwc, ConvNchwcInfersThreeDimsAndRejectsBadOperands) {
  Graph g;
  Value* x = g.add_value("x", F32({1, 2, 5, 7, 9, 16}));  // 20..32 channels in 16-lane blocks
  Attrs a;
  a.set("kernel_shape", std::vector<int64_t>{3, 3, 3});
  a.set("strides", std::vector<int64_t>{1, 2, 2});
  a.set("pads", std::vector<int64_t>{1, 1, 0, 1, 1, 2});
  a.set("block", int64_t(16));
  Node* c = g.add_node(OpKind::ConvNCHWc, "c", {x, weight(g, "w", {40, 24, 3, 3, 3})}, {"y"}, a);
  const ops::OpInfo& info = ops::op_info(OpKind::ConvNCHWc);
  std::vector<TensorType> t = info.infer(*c);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0], F32({1, 3, 5, 4, 5, 16}));
  c->attrs.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  EXPECT_NE(user_error([&] { info.infer(*c); }).find("must be 3-D"), std::string::npos);
  c->attrs.set("pads", std::vector<int64_t>{1, 1, 0, 1, 1, 2});
  c->inputs[1] = weight(g, "w_big", {40, 48, 3, 3, 3});  // 48 channels need 3 blocks
  EXPECT_NE(user_error([&] { info.infer(*c); }).find("does not hold the 48 channels"),
            std::string::npos);
}

}  // namespace
}  // namespace ingot::graph

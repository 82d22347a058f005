// convert_bfloat16_convs (`--dtype bfloat16` on CPU targets, after layout_nchwc): blocked convs
// of groups = 1 over an even channel count read bfloat16 weights and a shared Cast of their
// input (an explicit zero Pad moves after the Cast), a conv read only by such convs writes
// bfloat16 itself, a stem over an image of 3 channels reads it in one block of 4 lanes, and
// depthwise convs, summands, biases and graph outputs stay float32; ConvNCHWc's inference checks
// the bfloat16 form. (Numbers: the CNN of tests/python/test_bfloat16.py against a numpy emulation
// and ONNX Runtime.)
#include <gtest/gtest.h>

#include <sstream>
#include <tuple>

#include "graph/transforms/convert_bfloat16_convs.h"
#include "graph/transforms/dead_code.h"
#include "graph/transforms/layout_nchwc.h"
#include "graph/transforms/pass_manager.h"
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

// x[1,3,10,10] -> stem 3x3 (3->16) -> a 1x1 (16->32) -> b 3x3 pad 1 (32->32) -> c 1x1 (32->16,
// summand: the stem) -> y; dw 3x3 depthwise (16) reads the stem too, e 1x1 (16->32) reads only
// dw (MobileNetV2's form) -> z.
struct Net {
  Graph g;
  Value *stem, *a, *b, *c, *dw, *e;
  Net() {
    Value* x = g.add_value("x", F32({1, 3, 10, 10}));
    g.inputs = {x};
    stem = square_conv(g, "stem", {x, weight(g, "ws", {16, 3, 3, 3})}, 3, 1, 1)->outputs[0];
    a = square_conv(g, "a", {stem, weight(g, "wa", {32, 16, 1, 1})}, 1)->outputs[0];
    b = square_conv(g, "b", {a, weight(g, "wb", {32, 32, 3, 3})}, 3, 1, 1)->outputs[0];
    c = square_conv(g, "c", {b, weight(g, "wc", {16, 32, 1, 1}), nullptr, stem}, 1)->outputs[0];
    dw = square_conv(g, "dw", {stem, weight(g, "wd", {16, 1, 3, 3})}, 3, 16, 1)->outputs[0];
    e = square_conv(g, "e", {dw, weight(g, "we", {32, 16, 1, 1})}, 1)->outputs[0];
    g.outputs = {c, e};
    infer_types(g);
    convert_layout_nchwc(g, vector_channel_blocks(512));
  }
  Node* blocked(const std::string& name) {
    for (const auto& n : g.nodes())
      if (n->name == name) return n.get();
    return nullptr;
  }
};

TEST(ConvertBFloat16Convs, EvenChannelConvsTakeBFloat16AndConvsReadOnlyByThemWriteIt) {
  Net net;
  BFloat16Stats stats = convert_bfloat16_convs(net.g);
  infer_types(net.g);
  remove_dead_code(net.g);
  verify_graph(net.g);
  EXPECT_EQ(stats.products, 5);  // the stem, a, b, c, e
  EXPECT_EQ(stats.constants, 5);
  // (The stem's weights [16, 3, 3, 3] in float32, [16, 4, 3, 3] in bfloat16.)
  EXPECT_EQ(stats.constant_bytes_saved,
            (32 * 16 + 32 * 32 * 9 + 16 * 32 + 32 * 16) * 2 + 16 * 3 * 9 * 4 - 16 * 4 * 9 * 2);
  Node *stem = net.blocked("stem"), *a = net.blocked("a"), *b = net.blocked("b"),
       *c = net.blocked("c"), *dw = net.blocked("dw"), *e = net.blocked("e");
  ASSERT_TRUE(stem && a && b && c && dw && e);
  for (Node* n : {stem, a, b, c, e}) {
    EXPECT_EQ(n->op, OpKind::ConvNCHWc) << n->name;
    EXPECT_EQ(n->inputs[0]->type.dtype, DType::kBF16) << n->name;
    EXPECT_EQ(n->inputs[1]->type.dtype, DType::kBF16) << n->name;
  }
  // The stem's image of 3 channels: cast, then one block of 4 lanes, then padded; its weights
  // given a zero input channel.
  EXPECT_EQ(stem->inputs[1]->constant->shape(), (std::vector<int64_t>{16, 4, 3, 3}));
  EXPECT_EQ(stem->inputs[1]->constant->get_f64(3 * 9), 0.0);
  EXPECT_EQ(stem->inputs[1]->constant->get_f64(4 * 9), 0.5);
  const Node* stem_pad = stem->inputs[0]->producer;
  ASSERT_EQ(stem_pad->op, OpKind::Pad);
  const Node* to_blocked = stem_pad->inputs[0]->producer;
  ASSERT_EQ(to_blocked->op, OpKind::LayoutToBlocked);
  EXPECT_EQ(to_blocked->attrs.get_int("block", 0), 4);
  EXPECT_EQ(to_blocked->inputs[0]->producer->op, OpKind::Cast);
  EXPECT_EQ(to_blocked->inputs[0]->producer->inputs[0], net.g.inputs[0]);
  // The depthwise conv reads and sums float32; its one reader is converted, so it writes
  // bfloat16 (MobileNetV2's form: no Cast kernel between it and the pointwise conv).
  EXPECT_EQ(dw->inputs[0]->type.dtype, DType::kF32);
  EXPECT_EQ(dw->inputs[1]->type.dtype, DType::kF32);
  EXPECT_EQ(dw->outputs[0]->type.dtype, DType::kBF16);
  EXPECT_EQ(e->inputs[0], dw->outputs[0]);
  EXPECT_EQ(dw->inputs[1]->type.dtype, DType::kF32);
  // a and b are read only by converted convs: they write bfloat16, and b's zero Pad pads a's
  // bfloat16 output directly; c (a graph output's) and the stem (the summand's, the depthwise
  // conv's) write float32, a reads the stem's through a Cast.
  EXPECT_EQ(a->outputs[0]->type.dtype, DType::kBF16);
  EXPECT_EQ(b->outputs[0]->type.dtype, DType::kBF16);
  const Node* pad = b->inputs[0]->producer;
  ASSERT_EQ(pad->op, OpKind::Pad);
  EXPECT_EQ(pad->inputs[0], a->outputs[0]);
  EXPECT_EQ(c->inputs[0], b->outputs[0]);
  EXPECT_EQ(c->outputs[0]->type.dtype, DType::kF32);
  EXPECT_EQ(c->inputs[3]->type.dtype, DType::kF32);  // the summand
  EXPECT_EQ(stem->outputs[0]->type.dtype, DType::kF32);
  EXPECT_EQ(a->inputs[0]->producer->op, OpKind::Cast);
  EXPECT_EQ(a->inputs[0]->producer->inputs[0], stem->outputs[0]);
  EXPECT_EQ(count_ops(net.g, OpKind::Cast), 2);  // the image's, the stem's output's
  EXPECT_EQ(count_ops(net.g, OpKind::Pad), 2);   // the stem's, b's (bfloat16; dw keeps its pads)
}

// Input channels ending inside a block (MobileNetV2's 144 in blocks of 32): the bfloat16
// weights get zero input channels up to whole blocks (24 -> 32 here), the dot tile's contract;
// within one block, up to a pair (6 in a block of 8 stays 6).
TEST(ConvertBFloat16Convs, WeightsCoverWholeInputBlocks) {
  for (auto [ic, block, covered] : {std::tuple{24, 16, 32}, std::tuple{6, 8, 6}}) {
    Graph g;
    Value* x = g.add_value("x", F32({1, ic, 6, 6}));
    g.inputs = {x};
    Attrs to;
    to.set("block", int64_t(block));
    Value* xb = g.add_node(OpKind::LayoutToBlocked, "to", {x}, {"xb"}, to)->outputs[0];
    Attrs a;
    a.set("kernel_shape", std::vector<int64_t>{1, 1});
    a.set("block", int64_t(16));
    Node* c =
        g.add_node(OpKind::ConvNCHWc, "conv", {xb, weight(g, "w", {32, ic, 1, 1})}, {"yb"}, a);
    Attrs from;
    from.set("channels", int64_t(32));
    g.outputs = {
        g.add_node(OpKind::LayoutFromBlocked, "from", {c->outputs[0]}, {"y"}, from)->outputs[0]};
    infer_types(g);
    EXPECT_EQ(convert_bfloat16_convs(g).products, 1);
    infer_types(g);
    verify_graph(g);
    const Tensor& w = *c->inputs[1]->constant;
    ASSERT_EQ(w.shape(), (std::vector<int64_t>{32, covered, 1, 1}));
    for (int64_t o : {0, 31})
      for (int64_t i = 0; i < covered; ++i)
        EXPECT_EQ(w.get_f64(o * covered + i), i < ic ? 0.5 : 0.0) << o << "," << i;
    EXPECT_EQ(c->inputs[0]->type.dtype, DType::kBF16);
  }
}

// In the pass list: only with --dtype bfloat16 and channel blocks (a CPU target).
TEST(ConvertBFloat16Convs, RunsAsAPassOnlyWithDtypeBFloat16OnBlockedTargets) {
  for (bool bf16 : {false, true}) {
    Graph g;
    Value* x = g.add_value("x", F32({1, 16, 6, 6}));
    g.inputs = {x};
    g.outputs = {square_conv(g, "a", {x, weight(g, "wa", {32, 16, 1, 1})}, 1)->outputs[0]};
    infer_types(g);
    std::ostringstream log;
    PassOptions o{.opt_level = 1, .bfloat16 = bf16};
    o.channel_blocks = vector_channel_blocks(512);
    run_optimization_passes(g, o, log);
    EXPECT_EQ(count_ops(g, OpKind::ConvNCHWc), 1);
    EXPECT_EQ(count_ops(g, OpKind::Cast), bf16 ? 1 : 0);
    EXPECT_EQ(g.outputs[0]->type.dtype, DType::kF32);
  }
}

// ConvNCHWc's inference: bfloat16 X with bfloat16 W, groups 1, even channels and block;
// out_dtype float32 or bfloat16; a float32 summand.
TEST(ConvertBFloat16Convs, BlockedConvInferenceChecksTheBFloat16Form) {
  auto infer = [](DType x_t, DType w_t, int ic, int block, int64_t out_dtype) {
    Graph g;
    Value* x = g.add_value("x", testing::T(x_t, {1, (ic + block - 1) / block, 4, 4, block}));
    g.inputs = {x};
    std::vector<int64_t> shape = {16, ic, 1, 1};
    const int64_t n = 16 * ic;
    TensorPtr w = w_t == DType::kF32
                      ? testing::f32_tensor(shape, std::vector<float>(size_t(n)))
                      : std::make_shared<Tensor>(w_t, shape, std::vector<uint8_t>(size_t(n) * 2));
    Attrs a;
    a.set("kernel_shape", std::vector<int64_t>{1, 1});
    a.set("block", int64_t(16));
    if (out_dtype >= 0) a.set("out_dtype", out_dtype);
    Node* c = g.add_node(OpKind::ConvNCHWc, "conv", {x, g.add_constant("w", w)}, {"y"}, a);
    g.outputs = {c->outputs[0]};
    infer_types(g);
    return c->outputs[0]->type.dtype;
  };
  const int64_t bf = int64_t(DType::kBF16), f = int64_t(DType::kF32);
  EXPECT_EQ(infer(DType::kBF16, DType::kBF16, 16, 16, -1), DType::kF32);
  EXPECT_EQ(infer(DType::kBF16, DType::kBF16, 16, 16, bf), DType::kBF16);
  EXPECT_EQ(infer(DType::kF32, DType::kF32, 16, 16, bf), DType::kBF16);
  EXPECT_EQ(infer(DType::kF32, DType::kF32, 16, 16, f), DType::kF32);
  EXPECT_NE(user_error([&] { infer(DType::kBF16, DType::kBF16, 6, 3, -1); })
                .find("a bfloat16 blocked conv takes group = 1 and input channels (6) and a "
                      "block (3) in multiples of 2"),
            std::string::npos);
  EXPECT_NE(user_error([&] { infer(DType::kBF16, DType::kBF16, 24, 16, -1); })
                .find("a bfloat16 blocked conv takes its 24 input channels in whole blocks of 16 "
                      "or one block"),
            std::string::npos);
  EXPECT_EQ(infer(DType::kBF16, DType::kBF16, 12, 16, -1), DType::kF32);
  EXPECT_NE(user_error([&] {
              infer(DType::kBF16, DType::kF32, 16, 16, -1);
            }).find("needs a float32 (or bfloat16) blocked input"),
            std::string::npos);
  EXPECT_NE(user_error([&] {
              infer(DType::kF32, DType::kF32, 16, 16, int64_t(DType::kF16));
            }).find("out_dtype float16 is not float32 or (groups = 1 or depthwise) bfloat16"),
            std::string::npos);
}

}  // namespace
}  // namespace ingot::graph

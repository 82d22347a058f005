// Type inference for Conv (pads, strides, dilations, groups, auto_pad), Gemm and MatMul.
#include <gtest/gtest.h>

#include "graph_test_util.h"
#include "ops/op.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::F32;
using testing::OneNode;
using testing::user_error;
using V = std::vector<int64_t>;

Attrs conv_attrs(V strides, V pads, V dilations = {1, 1}, int64_t group = 1) {
  Attrs a;
  a.set("strides", strides);
  a.set("pads", pads);
  a.set("dilations", dilations);
  a.set("group", group);
  return a;
}

TEST(InferConv, ResNetStem) {
  // 224 + 3 + 3 - 7 = 223; 223 / 2 + 1 = 112.
  OneNode t(OpKind::Conv, {F32({"N", 3, 224, 224}), F32({64, 3, 7, 7})},
            conv_attrs({2, 2}, {3, 3, 3, 3}));
  EXPECT_EQ(t.infer(), F32({"N", 64, 112, 112}));
  EXPECT_EQ(t.node->attrs.get_ints("kernel_shape"), (V{7, 7}));
  // FLOPs: 2 * (3*7*7) MACs per output * 64*112*112 outputs (symbolic N counts as 1).
  EXPECT_DOUBLE_EQ(ops::op_info(OpKind::Conv).flops(*t.node), 2.0 * 147 * 64 * 112 * 112);
}

TEST(InferConv, DefaultsAreFilled) {
  OneNode t(OpKind::Conv, {F32({1, 2, 5, 6}), F32({4, 2, 3, 3})});
  EXPECT_EQ(t.infer(), F32({1, 4, 3, 4}));
  const Attrs& a = t.node->attrs;
  EXPECT_EQ(a.get_ints("strides"), (V{1, 1}));
  EXPECT_EQ(a.get_ints("dilations"), (V{1, 1}));
  EXPECT_EQ(a.get_ints("pads"), (V{0, 0, 0, 0}));
  EXPECT_EQ(a.get_int("group", 0), 1);
}

TEST(InferConv, DilationAndAsymmetricPads) {
  // Effective kernel (3-1)*2+1 = 5. H: 10 + 1 + 2 - 5 = 8 -> 8/3+1 = 3. W: 10 + 0 + 0 - 5 = 5 -> 6.
  OneNode t(OpKind::Conv, {F32({1, 1, 10, 10}), F32({1, 1, 3, 3})},
            conv_attrs({3, 1}, {1, 0, 2, 0}, {2, 2}));
  EXPECT_EQ(t.infer(), F32({1, 1, 3, 6}));
}

TEST(InferConv, GroupsAndDepthwise) {
  OneNode dw(OpKind::Conv, {F32({1, 32, 8, 8}), F32({32, 1, 3, 3})},
             conv_attrs({1, 1}, {1, 1, 1, 1}, {1, 1}, 32));
  EXPECT_EQ(dw.infer(), F32({1, 32, 8, 8}));
  OneNode bad(OpKind::Conv, {F32({1, 6, 8, 8}), F32({4, 4, 3, 3})},
              conv_attrs({1, 1}, {0, 0, 0, 0}, {1, 1}, 2), 1, "c");
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'c' (Conv): input X has 6 channels but W float32[4,4,3,3] with group=2 "
            "expects 8");
}

TEST(InferConv, AutoPadSame) {
  // in 7, stride 2, k 3: out = ceil(7/2) = 4; total pad = (4-1)*2 + 3 - 7 = 2 -> 1/1.
  // in 6, stride 2, k 4: out 3; total = 2*2 + 4 - 6 = 2... use k=4 on W: total 2 -> 1/1.
  Attrs upper;
  upper.set("auto_pad", std::string("SAME_UPPER"));
  upper.set("strides", V{2, 2});
  OneNode u(OpKind::Conv, {F32({1, 1, 7, 8}), F32({1, 1, 3, 2})}, upper);
  // W dim: in 8, k 2, s 2: out 4, total = 3*2 + 2 - 8 = 0.
  EXPECT_EQ(u.infer(), F32({1, 1, 4, 4}));
  EXPECT_EQ(u.node->attrs.get_ints("pads"), (V{1, 0, 1, 0}));
  EXPECT_FALSE(u.node->attrs.has("auto_pad"));

  // Odd total padding: in 5, k 4, s 1: out 5, total = 4 + 4 - 5 = 3.
  // SAME_UPPER puts the extra at the end (1, 2); SAME_LOWER at the beginning (2, 1).
  Attrs up1, low1;
  up1.set("auto_pad", std::string("SAME_UPPER"));
  low1.set("auto_pad", std::string("SAME_LOWER"));
  OneNode u1(OpKind::Conv, {F32({1, 1, 5}), F32({1, 1, 4})}, up1);
  OneNode l1(OpKind::Conv, {F32({1, 1, 5}), F32({1, 1, 4})}, low1);
  EXPECT_EQ(u1.infer(), F32({1, 1, 5}));
  EXPECT_EQ(l1.infer(), F32({1, 1, 5}));
  EXPECT_EQ(u1.node->attrs.get_ints("pads"), (V{1, 2}));
  EXPECT_EQ(l1.node->attrs.get_ints("pads"), (V{2, 1}));
}

TEST(InferConv, AutoPadValidAndErrors) {
  Attrs valid;
  valid.set("auto_pad", std::string("VALID"));
  valid.set("pads", V{5, 5, 5, 5});  // ignored under VALID
  OneNode v(OpKind::Conv, {F32({1, 1, 6, 6}), F32({2, 1, 3, 3})}, valid);
  EXPECT_EQ(v.infer(), F32({1, 2, 4, 4}));
  EXPECT_EQ(v.node->attrs.get_ints("pads"), (V{0, 0, 0, 0}));

  Attrs bad;
  bad.set("auto_pad", std::string("SAME"));
  OneNode b(OpKind::Conv, {F32({1, 1, 6, 6}), F32({2, 1, 3, 3})}, bad, 1, "c");
  EXPECT_EQ(user_error([&] { b.infer(); }),
            "node 'c' (Conv): attribute 'auto_pad' has invalid value \"SAME\" (valid: NOTSET, "
            "SAME_UPPER, SAME_LOWER, VALID)");
  Attrs strides;
  strides.set("strides", V{1});
  OneNode s(OpKind::Conv, {F32({1, 1, 6, 6}), F32({2, 1, 3, 3})}, strides, 1, "c");
  EXPECT_EQ(user_error([&] { s.infer(); }),
            "node 'c' (Conv): attribute 'strides' has 1 values, expected 2 (one per spatial dim)");
}

TEST(InferConv, Conv3dWithBias) {
  Graph g;
  Value* x = g.add_value("x", F32({2, 4, 5, 6, 7}));
  Value* w = g.add_value("w", F32({8, 4, 1, 2, 3}));
  Value* b = g.add_value("b", F32({8}));
  g.inputs = {x, w, b};
  Node* n = g.add_node(OpKind::Conv, "c3", {x, w, b}, {"y"});
  g.outputs = n->outputs;
  infer_types(g);
  EXPECT_EQ(n->outputs[0]->type, F32({2, 8, 5, 5, 5}));
}

TEST(InferGemm, TransposesAndBias) {
  Attrs a;
  a.set("transA", int64_t(1));
  a.set("transB", int64_t(1));
  OneNode t(OpKind::Gemm, {F32({5, 3}), F32({4, 5}), F32({4})}, a);  // A^T: 3x5, B^T: 5x4
  EXPECT_EQ(t.infer(), F32({3, 4}));
  EXPECT_DOUBLE_EQ(t.node->attrs.get_float("alpha", 0), 1.0);
  EXPECT_DOUBLE_EQ(t.node->attrs.get_float("beta", 0), 1.0);
  // 2*M*N*K + 2*M*N for beta*C.
  EXPECT_DOUBLE_EQ(ops::op_info(OpKind::Gemm).flops(*t.node), 2.0 * 3 * 4 * 5 + 2.0 * 12);

  OneNode bad(OpKind::Gemm, {F32({2, 3}), F32({4, 5})}, {}, 1, "fc");
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'fc' (Gemm): the inner dimensions of A and B differ (3 vs 4)");
}

TEST(InferMatMul, BatchingAndPromotion) {
  EXPECT_EQ(OneNode(OpKind::MatMul, {F32({2, 3}), F32({3, 4})}).infer(), F32({2, 4}));
  EXPECT_EQ(OneNode(OpKind::MatMul, {F32({"B", 1, 5, 3}), F32({7, 3, 4})}).infer(),
            F32({"B", 7, 5, 4}));
  EXPECT_EQ(OneNode(OpKind::MatMul, {F32({3}), F32({2, 3, 4})}).infer(), F32({2, 4}));
  EXPECT_EQ(OneNode(OpKind::MatMul, {F32({2, 5, 3}), F32({3})}).infer(), F32({2, 5}));
  EXPECT_EQ(OneNode(OpKind::MatMul, {F32({3}), F32({3})}).infer(), F32({}));
  OneNode t(OpKind::MatMul, {F32({"N", 8, 16}), F32({16, 32})});
  t.infer();
  EXPECT_DOUBLE_EQ(ops::op_info(OpKind::MatMul).flops(*t.node), 2.0 * 8 * 32 * 16);
}

TEST(InferMatMul, Errors) {
  OneNode k(OpKind::MatMul, {F32({2, 3}), F32({4, 5})}, {}, 1, "mm");
  EXPECT_EQ(user_error([&] { k.infer(); }),
            "node 'mm' (MatMul): inner dimensions of A float32[2,3] and B float32[4,5] differ "
            "(3 vs 4)");
  OneNode b(OpKind::MatMul, {F32({2, 2, 3}), F32({4, 3, 5})}, {}, 1, "mm");
  EXPECT_EQ(user_error([&] { b.infer(); }),
            "node 'mm' (MatMul): shapes [2] and [4] do not broadcast");
}

}  // namespace
}  // namespace ingot::graph

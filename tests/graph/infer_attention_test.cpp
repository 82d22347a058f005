// Type inference of Attention: 3-D and 4-D output shapes, the past cache's present outputs and
// qk_matmul_output, explicit attributes, and errors naming the node; RotaryEmbedding.
#include <gtest/gtest.h>

#include <cmath>

#include "graph_test_util.h"
#include "ops/op.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::F32;
using testing::OneNode;
using testing::T;
using testing::user_error;

TEST(InferAttention, FourDimensionalGroupedWithPastAndAllOutputs) {
  Graph g;
  Value* q = g.add_value("q", F32({"N", 8, 3, 16}));
  Value* k = g.add_value("k", F32({"N", 2, 5, 16}));
  Value* v = g.add_value("v", F32({"N", 2, 5, 10}));
  Value* pk = g.add_value("pk", F32({"N", 2, 7, 16}));
  Value* pv = g.add_value("pv", F32({"N", 2, 7, 10}));
  g.inputs = {q, k, v, pk, pv};
  Node* n = g.add_node(OpKind::Attention, "att", {q, k, v, nullptr, pk, pv},
                       {"y", "present_k", "present_v", "qk"});
  g.outputs = n->outputs;
  infer_types(g);
  EXPECT_EQ(n->outputs[0]->type, F32({"N", 8, 3, 10}));
  EXPECT_EQ(n->outputs[1]->type, F32({"N", 2, 12, 16}));
  EXPECT_EQ(n->outputs[2]->type, F32({"N", 2, 12, 10}));
  EXPECT_EQ(n->outputs[3]->type, F32({"N", 8, 3, 12}));
  EXPECT_DOUBLE_EQ(n->attrs.get_float("scale", 0), 0.25);  // 1/sqrt(head size 16)
  EXPECT_EQ(n->attrs.get_int("q_num_heads", 0), 8);
  EXPECT_EQ(n->attrs.get_int("kv_num_heads", 0), 2);
  EXPECT_EQ(n->attrs.get_int("is_causal", -1), 0);
  EXPECT_EQ(n->attrs.get_int("qk_matmul_output_mode", -1), 0);
  EXPECT_EQ(n->attrs.get_int("left_window_size", 0), -1);
  EXPECT_DOUBLE_EQ(n->attrs.get_float("softcap", -1), 0);
}

TEST(InferAttention, ThreeDimensionalSplitsHeadsFromHidden) {
  Attrs a;
  a.set("q_num_heads", int64_t(6));
  a.set("kv_num_heads", int64_t(3));
  a.set("scale", 0.1);
  a.set("softmax_precision", int64_t(1));
  OneNode t(OpKind::Attention,
            {F32({2, 4, 48}), F32({2, 9, 24}), F32({2, 9, 15}), T(DType::kBool, {4, 9})}, a, 3);
  EXPECT_EQ(t.infer(0), F32({2, 4, 30}));  // 6 heads of value size 5
  EXPECT_EQ(t.infer(1), F32({2, 3, 9, 8}));
  EXPECT_DOUBLE_EQ(t.node->attrs.get_float("scale", 0), 0.1);
  EXPECT_FALSE(t.node->attrs.has("softmax_precision"));
}

TEST(InferAttention, ErrorsNameTheNode) {
  Attrs heads;
  heads.set("q_num_heads", int64_t(4));
  heads.set("kv_num_heads", int64_t(3));
  OneNode gqa(OpKind::Attention, {F32({1, 2, 16}), F32({1, 2, 12}), F32({1, 2, 12})}, heads, 1,
              "att");
  EXPECT_EQ(user_error([&] { gqa.infer(); }),
            "node 'att' (Attention): q_num_heads 4 is not a multiple of kv_num_heads 3");

  OneNode no_heads(OpKind::Attention, {F32({1, 2, 16}), F32({1, 2, 16}), F32({1, 2, 16})}, {}, 1,
                   "att");
  EXPECT_EQ(user_error([&] { no_heads.infer(); }),
            "node 'att' (Attention): attribute 'q_num_heads' must be positive for 3-D inputs");

  OneNode size(OpKind::Attention, {F32({1, 2, 3, 8}), F32({1, 2, 5, 4}), F32({1, 2, 5, 4})}, {}, 1,
               "att");
  EXPECT_EQ(user_error([&] { size.infer(); }),
            "node 'att' (Attention): head sizes of 'Q' and 'K' differ (8 vs 4)");

  OneNode mask(OpKind::Attention,
               {F32({1, 2, 3, 8}), F32({1, 2, 5, 8}), F32({1, 2, 5, 8}), F32({3, 6})}, {}, 1,
               "att");
  EXPECT_EQ(user_error([&] { mask.infer(); }),
            "node 'att' (Attention): the last dim of 'attn_mask' float32[3,6] must be static and "
            "at most the key length 5");

  Attrs bad_mode;
  bad_mode.set("qk_matmul_output_mode", int64_t(4));
  OneNode mode(OpKind::Attention, {F32({1, 2, 3, 8}), F32({1, 2, 5, 8}), F32({1, 2, 5, 8})},
               bad_mode, 1, "att");
  EXPECT_EQ(user_error([&] { mode.infer(); }),
            "node 'att' (Attention): attribute 'qk_matmul_output_mode' must be 0 to 3, got 4");
}

TEST(InferAttention, PastKeyAndValueGoTogether) {
  Graph g;
  Value* q = g.add_value("q", F32({1, 2, 3, 8}));
  Value* pk = g.add_value("pk", F32({1, 2, 4, 8}));
  g.inputs = {q, pk};
  Node* n = g.add_node(OpKind::Attention, "att", {q, q, q, nullptr, pk}, {"y"});
  g.outputs = n->outputs;
  EXPECT_EQ(user_error([&] { infer_types(g); }),
            "node 'att' (Attention): inputs 'past_key' and 'past_value' must be given together");
}

TEST(InferRotary, ResolvesAttributesAndChecksCaches) {
  OneNode r4(OpKind::RotaryEmbedding,
             {F32({2, 4, 3, 8}), F32({50, 4}), F32({50, 4}), T(DType::kI64, {2, 3})});
  EXPECT_EQ(r4.infer(), F32({2, 4, 3, 8}));
  EXPECT_EQ(r4.node->attrs.get_int("num_heads", 0), 4);
  EXPECT_EQ(r4.node->attrs.get_int("rotary_embedding_dim", 0), 8);
  EXPECT_EQ(r4.node->attrs.get_int("interleaved", -1), 0);

  Attrs a;
  a.set("num_heads", int64_t(4));
  a.set("rotary_embedding_dim", int64_t(4));
  OneNode r3(OpKind::RotaryEmbedding, {F32({2, 3, 32}), F32({2, 3, 2}), F32({2, 3, 2})}, a);
  EXPECT_EQ(r3.infer(), F32({2, 3, 32}));

  OneNode bad(OpKind::RotaryEmbedding, {F32({2, 3, 32}), F32({2, 3, 4}), F32({2, 3, 4})}, a, 1,
              "rope");
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'rope' (RotaryEmbedding): input 'cos_cache' float32[2,3,4] must be [batch, "
            "sequence, 2]");
  Attrs odd;
  odd.set("rotary_embedding_dim", int64_t(3));
  OneNode odd_dim(OpKind::RotaryEmbedding, {F32({2, 4, 3, 8}), F32({2, 3, 1}), F32({2, 3, 1})}, odd,
                  1, "rope");
  EXPECT_EQ(user_error([&] { odd_dim.infer(); }),
            "node 'rope' (RotaryEmbedding): attribute 'rotary_embedding_dim' 3 must be even and "
            "at most the head size 8");
}

}  // namespace
}  // namespace ingot::graph

// Type inference of the ops added for ONNX conformance (issue 4): MaxPool's Indices output,
// GlobalMaxPool, MaxUnpool (output_shape from a constant), LRN, Shrink, EyeLike, ReverseSequence,
// CumProd, Det and BitCast, with their attribute normalisation and user errors.
#include <gtest/gtest.h>

#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::F32;
using testing::OneNode;
using testing::T;
using testing::user_error;

TEST(InferPoolExtra, MaxPoolIndicesAndStorageOrder) {
  Attrs a;
  a.set("kernel_shape", std::vector<int64_t>{2, 2});
  a.set("strides", std::vector<int64_t>{2, 2});
  a.set("storage_order", int64_t(1));
  OneNode two(OpKind::MaxPool, {F32({1, 3, 5, 5})}, a, 2);
  EXPECT_EQ(two.infer(0), F32({1, 3, 2, 2}));
  EXPECT_EQ(two.g.outputs[1]->type, T(DType::kI64, {1, 3, 2, 2}));
  EXPECT_EQ(two.node->attrs.get_int("storage_order", 0), 1);

  // Without Indices the attribute has no meaning and is dropped.
  OneNode one(OpKind::MaxPool, {F32({1, 3, 5, 5})}, a);
  one.infer();
  EXPECT_FALSE(one.node->attrs.has("storage_order"));

  a.set("storage_order", int64_t(2));
  OneNode bad(OpKind::MaxPool, {F32({1, 3, 5, 5})}, a, 2);
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'n' (MaxPool): attribute 'storage_order' must be 0 or 1, got 2");
}

TEST(InferPoolExtra, GlobalMaxPool) {
  OneNode n(OpKind::GlobalMaxPool, {T(DType::kI32, {"N", 3, 5, 7})});
  EXPECT_EQ(n.infer(), T(DType::kI32, {"N", 3, 1, 1}));
  OneNode low(OpKind::GlobalMaxPool, {F32({3, 5})});
  EXPECT_NE(user_error([&] { low.infer(); }), "");
}

TEST(InferPoolExtra, MaxUnpoolShapes) {
  Attrs a;
  a.set("kernel_shape", std::vector<int64_t>{2, 2});
  a.set("strides", std::vector<int64_t>{2, 2});
  OneNode n(OpKind::MaxUnpool, {F32({1, 1, 2, 2}), T(DType::kI64, {1, 1, 2, 2})}, a);
  EXPECT_EQ(n.infer(), F32({1, 1, 4, 4}));
  EXPECT_EQ(n.node->attrs.get_ints("pads"), (std::vector<int64_t>{0, 0, 0, 0}));

  // output_shape from a constant input becomes the attribute.
  Graph g;
  Value* x = g.add_value("x", F32({1, 1, 2, 2}));
  Value* i = g.add_value("i", T(DType::kI64, {1, 1, 2, 2}));
  g.inputs = {x, i};
  Value* shape = g.add_constant("shape", testing::i64_vector({1, 1, 5, 5}));
  Node* u = g.add_node(OpKind::MaxUnpool, "u", {x, i, shape}, {"y"}, a);
  g.outputs = u->outputs;
  infer_types(g);
  EXPECT_EQ(g.outputs[0]->type, F32({1, 1, 5, 5}));
  EXPECT_EQ(u->inputs.size(), 2u);
  EXPECT_EQ(u->attrs.get_ints("output_shape"), (std::vector<int64_t>{1, 1, 5, 5}));

  Attrs small = a;
  small.set("output_shape", std::vector<int64_t>{1, 1, 3, 5});
  OneNode s(OpKind::MaxUnpool, {F32({1, 1, 2, 2}), T(DType::kI64, {1, 1, 2, 2})}, small);
  EXPECT_EQ(user_error([&] { s.infer(); }),
            "node 'n' (MaxUnpool): input 'output_shape' is smaller than the unpooled shape "
            "[1,1,4,4] in dim 2");
  OneNode i32(OpKind::MaxUnpool, {F32({1, 1, 2, 2}), T(DType::kI32, {1, 1, 2, 2})}, a);
  EXPECT_EQ(user_error([&] { i32.infer(); }),
            "node 'n' (MaxUnpool): input 'I' must be int64, got int32");
}

TEST(InferNormExtra, LRNDefaults) {
  Attrs a;
  a.set("size", int64_t(3));
  OneNode n(OpKind::LRN, {F32({2, 5, 4, 4})}, a);
  EXPECT_EQ(n.infer(), F32({2, 5, 4, 4}));
  EXPECT_DOUBLE_EQ(n.node->attrs.get_float("alpha", 0), 1e-4);
  EXPECT_DOUBLE_EQ(n.node->attrs.get_float("beta", 0), 0.75);
  EXPECT_DOUBLE_EQ(n.node->attrs.get_float("bias", 0), 1.0);
  OneNode missing(OpKind::LRN, {F32({2, 5, 4, 4})});
  EXPECT_EQ(user_error([&] { missing.infer(); }),
            "node 'n' (LRN): missing required attribute 'size'");
}

TEST(InferActivationExtra, ShrinkNumeric) {
  OneNode n(OpKind::Shrink, {T(DType::kI32, {4})});
  EXPECT_EQ(n.infer(), T(DType::kI32, {4}));
  EXPECT_DOUBLE_EQ(n.node->attrs.get_float("lambd", 0), 0.5);
  EXPECT_DOUBLE_EQ(n.node->attrs.get_float("bias", 1), 0.0);
  OneNode b(OpKind::Shrink, {T(DType::kBool, {4})});
  EXPECT_EQ(user_error([&] { b.infer(); }),
            "node 'n' (Shrink): input 'input' must be numeric, got bool");
}

TEST(InferRearrangeExtra, EyeLikeAndReverseSequence) {
  OneNode eye(OpKind::EyeLike, {T(DType::kI32, {3, 4})});
  EXPECT_EQ(eye.infer(), T(DType::kI32, {3, 4}));
  EXPECT_EQ(eye.node->attrs.get_int("k", 7), 0);
  Attrs f;
  f.set("dtype", int64_t(DType::kF32));
  OneNode eyef(OpKind::EyeLike, {T(DType::kI32, {3, 4})}, f);
  EXPECT_EQ(eyef.infer(), F32({3, 4}));
  OneNode eye3(OpKind::EyeLike, {F32({2, 3, 4})});
  EXPECT_EQ(user_error([&] { eye3.infer(); }),
            "node 'n' (EyeLike): input must be 2-D, got float32[2,3,4]");

  Attrs rs;
  rs.set("batch_axis", int64_t(0));
  rs.set("time_axis", int64_t(1));
  OneNode r(OpKind::ReverseSequence, {F32({4, 6, 2}), T(DType::kI64, {4})}, rs);
  EXPECT_EQ(r.infer(), F32({4, 6, 2}));
  OneNode dflt(OpKind::ReverseSequence, {F32({6, 4}), T(DType::kI64, {4})});
  dflt.infer();
  EXPECT_EQ(dflt.node->attrs.get_int("batch_axis", -1), 1);
  EXPECT_EQ(dflt.node->attrs.get_int("time_axis", -1), 0);
  OneNode wrong(OpKind::ReverseSequence, {F32({6, 4}), T(DType::kI64, {6})});
  EXPECT_NE(user_error([&] { wrong.infer(); }), "");
  rs.set("time_axis", int64_t(0));
  OneNode same(OpKind::ReverseSequence, {F32({4, 6}), T(DType::kI64, {4})}, rs);
  EXPECT_EQ(user_error([&] { same.infer(); }),
            "node 'n' (ReverseSequence): attributes 'batch_axis' = 0 and 'time_axis' = 0 must be 0 "
            "and 1 in some order");
}

TEST(InferCumulative, CumProdLikeCumSum) {
  Graph g;
  Value* x = g.add_value("x", T(DType::kI32, {2, 3}));
  g.inputs = {x};
  Value* axis = g.add_constant("axis", testing::i64_tensor({}, {-1}));
  Node* n = g.add_node(OpKind::CumProd, "cp", {x, axis}, {"y"});
  g.outputs = n->outputs;
  infer_types(g);
  EXPECT_EQ(g.outputs[0]->type, T(DType::kI32, {2, 3}));
  EXPECT_EQ(n->inputs.size(), 1u);
  EXPECT_EQ(n->attrs.get_int("axis", -1), 1);
  EXPECT_EQ(n->attrs.get_int("exclusive", -1), 0);
}

TEST(InferMatrix, DetShapes) {
  OneNode batched(OpKind::Det, {F32({"B", 3, 3})});
  EXPECT_EQ(batched.infer(), F32({"B"}));
  OneNode single(OpKind::Det, {F32({2, 2})});
  EXPECT_EQ(single.infer(), F32({}));
  OneNode rect(OpKind::Det, {F32({2, 3})});
  EXPECT_NE(user_error([&] { rect.infer(); }), "");
  OneNode ints(OpKind::Det, {T(DType::kI32, {2, 2})});
  EXPECT_EQ(user_error([&] { ints.infer(); }),
            "node 'n' (Det): input 'X' must be a float tensor, got int32");
}

TEST(InferElementwiseExtra, BitCastSameWidth) {
  Attrs a;
  a.set("to", int64_t(DType::kI32));
  OneNode n(OpKind::BitCast, {F32({2, 3})}, a);
  EXPECT_EQ(n.infer(), T(DType::kI32, {2, 3}));
  Attrs u8;
  u8.set("to", int64_t(DType::kU8));
  OneNode b(OpKind::BitCast, {T(DType::kBool, {4})}, u8);
  EXPECT_EQ(b.infer(), T(DType::kU8, {4}));
  OneNode wide(OpKind::BitCast, {T(DType::kI64, {4})}, a);
  EXPECT_EQ(user_error([&] { wide.infer(); }),
            "node 'n' (BitCast): cannot reinterpret int64 (64 bits) as int32 (32 bits)");
}

}  // namespace
}  // namespace ingot::graph

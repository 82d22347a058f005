// Type inference for shape and data-movement ops: Reshape (0, -1, symbols), Flatten,
// Transpose, Concat, Split, Squeeze/Unsqueeze, Gather, Pad, Shape.
#include <gtest/gtest.h>

#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::F32;
using testing::OneNode;
using testing::T;
using testing::user_error;
using V = std::vector<int64_t>;

Attrs with(const char* name, AttrValue v) {
  Attrs a;
  a.set(name, std::move(v));
  return a;
}

// Reshape(x, constant shape).
struct ReshapeGraph {
  Graph g;
  Node* node;
  ReshapeGraph(TensorType x, V shape, Attrs a = {}) {
    Value* in = g.add_value("x", std::move(x));
    g.inputs = {in};
    Value* s = g.add_constant("s", testing::i64_vector(shape));
    node = g.add_node(OpKind::Reshape, "rs", {in, s}, {"y"}, std::move(a));
    g.outputs = node->outputs;
  }
  TensorType infer() {
    infer_types(g);
    return node->outputs[0]->type;
  }
};

TEST(InferReshape, ZeroAndMinusOne) {
  EXPECT_EQ(ReshapeGraph(F32({2, 3, 4}), {0, -1}).infer(), F32({2, 12}));
  EXPECT_EQ(ReshapeGraph(F32({2, 3, 4}), {-1}).infer(), F32({24}));
  EXPECT_EQ(ReshapeGraph(F32({2, 3, 4}), {4, 0, 2}).infer(), F32({4, 3, 2}));
  EXPECT_EQ(ReshapeGraph(F32({"N", 3, 4}), {0, -1}).infer(), F32({"N", 12}));
  EXPECT_EQ(ReshapeGraph(F32({"N", 3, 4}), {-1, 12}).infer(), F32({"N", 12}));
  EXPECT_EQ(ReshapeGraph(F32({0, 3}), {3, 0}, with("allowzero", int64_t(1))).infer(), F32({3, 0}));
}

TEST(InferReshape, Errors) {
  EXPECT_EQ(user_error([] {
              ReshapeGraph(F32({2, 3}), {4, 2}).infer();
            }),
            "node 'rs' (Reshape): cannot reshape float32[2,3] (6 elements) to [4,2] (8 elements)");
  EXPECT_EQ(user_error([] {
              ReshapeGraph(F32({2, 3}), {-1, -1}).infer();
            }),
            "node 'rs' (Reshape): shape has more than one -1");
  EXPECT_EQ(user_error([] {
              ReshapeGraph(F32({2, 3}), {4, -1}).infer();
            }),
            "node 'rs' (Reshape): cannot reshape [2,3] to [4,1]: 6 elements are not divisible "
            "by 4");
  Graph g;
  Value* x = g.add_value("x", F32({2, 3}));
  Value* s = g.add_value("s", T(DType::kI64, {2, 1}));  // a run-time shape must be 1-D
  g.inputs = {x, s};
  Node* n = g.add_node(OpKind::Reshape, "rs", {x, s}, {"y"});
  g.outputs = n->outputs;
  EXPECT_EQ(user_error([&] { infer_types(g); }),
            "node 'rs' (Reshape): input 'shape' must be a compile-time constant; it is the graph "
            "input 's' (specialise it with --specialize-inputs)");
}

TEST(InferShapeOps, Flatten) {
  EXPECT_EQ(OneNode(OpKind::Flatten, {F32({2, 3, 4, 5})}).infer(), F32({2, 60}));
  EXPECT_EQ(OneNode(OpKind::Flatten, {F32({2, 3, 4})}, with("axis", int64_t(-1))).infer(),
            F32({6, 4}));
  EXPECT_EQ(OneNode(OpKind::Flatten, {F32({2, 3})}, with("axis", int64_t(0))).infer(), F32({1, 6}));
  EXPECT_EQ(OneNode(OpKind::Flatten, {F32({"N", 3, 4})}).infer(), F32({"N", 12}));
  OneNode t(OpKind::Flatten, {F32({2, 3, 4})}, with("axis", int64_t(-1)));
  t.infer();
  EXPECT_EQ(t.node->attrs.get_int("axis", -9), 2);
}

TEST(InferShapeOps, Transpose) {
  OneNode d(OpKind::Transpose, {F32({"N", 3, 5})});
  EXPECT_EQ(d.infer(), F32({5, 3, "N"}));
  EXPECT_EQ(d.node->attrs.get_ints("perm"), (V{2, 1, 0}));
  OneNode p(OpKind::Transpose, {F32({2, 3, 5, 7})}, with("perm", V{0, -1, 1, 2}));
  EXPECT_EQ(p.infer(), F32({2, 7, 3, 5}));
  EXPECT_EQ(p.node->attrs.get_ints("perm"), (V{0, 3, 1, 2}));
  OneNode bad(OpKind::Transpose, {F32({2, 3})}, with("perm", V{0}), 1, "t");
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 't' (Transpose): attribute 'perm' has 1 entries for an input of rank 2");
}

TEST(InferShapeOps, Concat) {
  OneNode c(OpKind::Concat, {F32({"N", 2, 4}), F32({"N", 3, 4}), F32({"N", 5, 4})},
            with("axis", int64_t(-2)));
  EXPECT_EQ(c.infer(), F32({"N", 10, 4}));
  EXPECT_EQ(c.node->attrs.get_int("axis", -9), 1);
  OneNode bad(OpKind::Concat, {F32({2, 3}), F32({2, 4})}, with("axis", int64_t(0)), 1, "cat");
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'cat' (Concat): inputs float32[2,3] and float32[2,4] differ in dim 1 (concat "
            "axis is 0)");
}

TEST(InferShapeOps, Split) {
  OneNode even(OpKind::Split, {F32({6, "N"})}, {}, 3);
  infer_types(even.g);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(even.node->outputs[i]->type, F32({2, "N"}));
  EXPECT_EQ(even.node->attrs.get_ints("split"), (V{2, 2, 2}));

  Attrs sizes;
  sizes.set("axis", int64_t(-1));
  sizes.set("split", V{1, 4});
  OneNode s(OpKind::Split, {F32({2, 5})}, sizes, 2);
  infer_types(s.g);
  EXPECT_EQ(s.node->outputs[0]->type, F32({2, 1}));
  EXPECT_EQ(s.node->outputs[1]->type, F32({2, 4}));
  EXPECT_EQ(s.node->attrs.get_int("axis", -9), 1);

  // Uneven (opset 18 num_outputs): 7 into 3 -> 3, 3, 1.
  OneNode u(OpKind::Split, {F32({7})}, {}, 3);
  infer_types(u.g);
  EXPECT_EQ(u.node->attrs.get_ints("split"), (V{3, 3, 1}));

  Attrs wrong;
  wrong.set("split", V{1, 2});
  OneNode w(OpKind::Split, {F32({4})}, wrong, 2, "sp");
  EXPECT_EQ(user_error([&] { infer_types(w.g); }),
            "node 'sp' (Split): split sizes sum to 3 but dim 0 of float32[4] is 4");
}

TEST(InferShapeOps, SqueezeUnsqueeze) {
  OneNode sq(OpKind::Squeeze, {F32({1, "N", 1, 3})}, with("axes", V{-2}));
  EXPECT_EQ(sq.infer(), F32({1, "N", 3}));
  EXPECT_EQ(sq.node->attrs.get_ints("axes"), (V{2}));
  OneNode all(OpKind::Squeeze, {F32({1, 3, 1})});
  EXPECT_EQ(all.infer(), F32({3}));
  EXPECT_EQ(all.node->attrs.get_ints("axes"), (V{0, 2}));
  OneNode bad(OpKind::Squeeze, {F32({2, 3})}, with("axes", V{1}), 1, "sq");
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'sq' (Squeeze): cannot squeeze axis 1 of float32[2,3]: its size is 3, not 1");

  OneNode un(OpKind::Unsqueeze, {F32({"N", 3})}, with("axes", V{-1, 0}));
  EXPECT_EQ(un.infer(), F32({1, "N", 3, 1}));
  EXPECT_EQ(un.node->attrs.get_ints("axes"), (V{0, 3}));
}

TEST(InferShapeOps, Gather) {
  OneNode g(OpKind::Gather, {F32({5, 4, 3}), T(DType::kI64, {2, 7})}, with("axis", int64_t(-2)));
  EXPECT_EQ(g.infer(), F32({5, 2, 7, 3}));
  EXPECT_EQ(g.node->attrs.get_int("axis", -9), 1);
  EXPECT_EQ(OneNode(OpKind::Gather, {F32({5, 4}), T(DType::kI32, {})}).infer(), F32({4}));
  OneNode bad(OpKind::Gather, {F32({5}), F32({2})}, {}, 1, "g");
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'g' (Gather): input 'indices' must be int32 or int64, got float32[2]");
}

TEST(InferShapeOps, CenterCropPad) {
  Attrs a = with("shape", V{5, 2});
  a.set("axes", V{-1, 1});
  OneNode c(OpKind::CenterCropPad, {F32({"N", 4, 3})}, a);
  EXPECT_EQ(c.infer(), F32({"N", 2, 5}));
  EXPECT_EQ(c.node->attrs.get_ints("axes"), (V{2, 1}));
  OneNode all(OpKind::CenterCropPad, {F32({4, 3})}, with("shape", V{1, 7}));
  EXPECT_EQ(all.infer(), F32({1, 7}));
  OneNode bad(OpKind::CenterCropPad, {F32({4, 3})}, with("shape", V{1}), 1, "c");
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'c' (CenterCropPad): input 'shape' has 1 values for 2 axes");
}

TEST(InferShapeOps, PadAndShape) {
  OneNode p(OpKind::Pad, {F32({1, 3, 4, 4})}, with("pads", V{0, 0, 1, 2, 0, 0, 3, -1}));
  EXPECT_EQ(p.infer(), F32({1, 3, 8, 5}));
  EXPECT_EQ(p.node->attrs.get_string("mode", ""), "constant");

  OneNode s(OpKind::Shape, {F32({"N", 3, 4})});
  EXPECT_EQ(s.infer(), T(DType::kI64, {3}));
  Attrs range;
  range.set("start", int64_t(-2));
  OneNode s2(OpKind::Shape, {F32({"N", 3, 4})}, range);
  EXPECT_EQ(s2.infer(), T(DType::kI64, {2}));
  // The known part of the shape became a constant [3, 4] and the node is gone.
  ASSERT_TRUE(s2.g.outputs[0]->is_constant());
  EXPECT_EQ(s2.g.outputs[0]->constant->get_i64(0), 3);
  EXPECT_EQ(s2.g.outputs[0]->constant->get_i64(1), 4);
  EXPECT_TRUE(s2.g.nodes().empty());
}

}  // namespace
}  // namespace ingot::graph

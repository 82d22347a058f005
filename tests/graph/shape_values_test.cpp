// Shape-value propagation in infer_types: Shape -> Gather -> Unsqueeze -> Concat -> Reshape
// chains become a Reshape with a constant shape.
#include <gtest/gtest.h>

#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::F32;
using testing::i64_tensor;
using testing::i64_vector;
using V = std::vector<int64_t>;

// y = Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])) : flatten all but dim 0.
struct FlattenChain {
  Graph g;
  Node* reshape;
  explicit FlattenChain(TensorType xt) {
    Value* x = g.add_value("x", std::move(xt));
    g.inputs = {x};
    Node* shape = g.add_node(OpKind::Shape, "shape", {x}, {"s"});
    Value* zero = g.add_constant("zero", i64_tensor({}, {0}));
    Attrs ax0;
    ax0.set("axis", int64_t(0));
    Node* gather = g.add_node(OpKind::Gather, "gather", {shape->outputs[0], zero}, {"d0"}, ax0);
    Attrs axes;
    axes.set("axes", V{0});
    Node* unsq = g.add_node(OpKind::Unsqueeze, "unsq", {gather->outputs[0]}, {"d0v"}, axes);
    Value* minus1 = g.add_constant("m1", i64_vector({-1}));
    Node* cat = g.add_node(OpKind::Concat, "cat", {unsq->outputs[0], minus1}, {"shp"}, ax0);
    reshape = g.add_node(OpKind::Reshape, "rs", {x, cat->outputs[0]}, {"y"});
    g.outputs = reshape->outputs;
  }
};

TEST(ShapeValues, ChainBecomesConstant) {
  FlattenChain c(F32({2, 3, 4}));
  infer_types(c.g);
  ASSERT_EQ(c.g.nodes().size(), 1u);
  EXPECT_EQ(c.g.nodes()[0].get(), c.reshape);
  const Value* shape = c.reshape->inputs[1];
  ASSERT_TRUE(shape->is_constant());
  EXPECT_EQ(shape->name, "shp");
  EXPECT_EQ(shape->constant->shape(), (V{2}));
  EXPECT_EQ(shape->constant->get_i64(0), 2);
  EXPECT_EQ(shape->constant->get_i64(1), -1);
  EXPECT_EQ(c.reshape->outputs[0]->type, F32({2, 12}));
}

// With a symbolic dim the chain stays (it would compute the shape at run time), its value is
// known as expressions of the symbols, and the Reshape's output is [N, 12].
TEST(ShapeValues, SymbolicShapeStaysANodeWithSymbolicValues) {
  FlattenChain c(F32({"N", 3, 4}));
  infer_types(c.g);
  EXPECT_EQ(c.reshape->outputs[0]->type, F32({"N", 12}));
  const Value* shape = c.reshape->inputs[1];
  EXPECT_FALSE(shape->is_constant());
  ASSERT_EQ(shape->symbolic_value.size(), 2u);
  EXPECT_EQ(shape->symbolic_value[0], SymExpr::symbol("N"));
  EXPECT_EQ(shape->symbolic_value[1], SymExpr(-1));
}

TEST(ShapeValues, ArithmeticCastAndBroadcast) {
  // Shape(x) = [6, 4]; Mul([6,4], [2]) = [12, 8]; Div by [3, 2] = [4, 4]; Sub 1 = [3, 3];
  // Cast to int32 keeps the values.
  Graph g;
  Value* x = g.add_value("x", F32({6, 4}));
  g.inputs = {x};
  Node* s = g.add_node(OpKind::Shape, "s", {x}, {"s"});
  Node* m =
      g.add_node(OpKind::Mul, "m", {s->outputs[0], g.add_constant("two", i64_vector({2}))}, {"m"});
  Node* d = g.add_node(OpKind::Div, "d", {m->outputs[0], g.add_constant("div", i64_vector({3, 2}))},
                       {"d"});
  Node* sub = g.add_node(OpKind::Sub, "sub",
                         {d->outputs[0], g.add_constant("one", i64_tensor({}, {1}))}, {"sub"});
  Attrs to;
  to.set("to", int64_t(DType::kI32));
  Node* cast = g.add_node(OpKind::Cast, "cast", {sub->outputs[0]}, {"out"}, to);
  g.outputs = cast->outputs;
  infer_types(g);
  EXPECT_TRUE(g.nodes().empty());
  const Value* out = g.outputs[0];
  ASSERT_TRUE(out->is_constant());
  EXPECT_EQ(out->name, "out");
  EXPECT_EQ(out->type.dtype, DType::kI32);
  EXPECT_EQ(out->constant->get_i64(0), 3);
  EXPECT_EQ(out->constant->get_i64(1), 3);
}

}  // namespace
}  // namespace ingot::graph

// Symbolic shape inference (docs/dynamic-shapes.md section 1): the shapes a decoder exported
// with symbolic `seq` and `past` computes (Reshape with -1 and with shapes built from Shape,
// the KV Concat, Range over a symbolic length, Expand of the causal mask) stay closed
// expressions; window ops' closed forms agree with static inference at every size; binding the
// symbols makes every type static again.
#include <gtest/gtest.h>

#include "graph/transforms/bind_input_shapes.h"
#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::F32;
using testing::i64_tensor;
using testing::i64_vector;
using testing::OneNode;
using testing::T;
using V = std::vector<int64_t>;

const SymExpr seq = SymExpr::symbol("seq");
const SymExpr past = SymExpr::symbol("past");

Attrs axis_attr(int64_t axis) {
  Attrs a;
  a.set("axis", axis);
  return a;
}

// Shape(x)[start:end] as a node output.
Value* shape_slice(Graph& g, Value* x, int64_t start, int64_t end, const std::string& name) {
  Attrs a;
  a.set("start", start);
  a.set("end", end);
  return g.add_node(OpKind::Shape, name, {x}, {name + "_out"}, a)->outputs[0];
}

TEST(InferSymbolic, ReshapeMinusOneDividesExactly) {
  Graph g;
  Value* x = g.add_value("x", F32({1, "seq", 768}));
  g.inputs = {x};
  Node* flat =
      g.add_node(OpKind::Reshape, "flat", {x, g.add_constant("s", i64_vector({-1, 768}))}, {"y"});
  Node* heads =
      g.add_node(OpKind::Reshape, "heads",
                 {flat->outputs[0], g.add_constant("h", i64_vector({1, -1, 12, 64}))}, {"z"});
  g.outputs = {heads->outputs[0]};
  infer_types(g);
  EXPECT_EQ(flat->outputs[0]->type, F32({"seq", 768}));
  EXPECT_EQ(heads->outputs[0]->type, F32({1, "seq", 12, 64}));
}

TEST(InferSymbolic, ReshapeToAShapeBuiltFromShape) {
  // Reshape(x, Concat(Shape(x)[0:2], [12, 64])): the export's split of the hidden dim.
  Graph g;
  Value* x = g.add_value("x", F32({"batch", "seq", 768}));
  g.inputs = {x};
  Value* lead = shape_slice(g, x, 0, 2, "lead");
  Node* cat = g.add_node(OpKind::Concat, "cat", {lead, g.add_constant("t", i64_vector({12, 64}))},
                         {"shp"}, axis_attr(0));
  Node* rs = g.add_node(OpKind::Reshape, "rs", {x, cat->outputs[0]}, {"y"});
  g.outputs = {rs->outputs[0]};
  infer_types(g);
  EXPECT_EQ(rs->outputs[0]->type, F32({"batch", "seq", 12, 64}));
}

TEST(InferSymbolic, KvConcatAndItsShapeRoundTrip) {
  // present = Concat(past_k, k, axis=-2); then Reshape(present, Concat([1], Shape(present)[1:]))
  // as the export writes it: [1, 4, past+seq, 16] throughout.
  Graph g;
  Value* pk = g.add_value("pk", F32({1, 4, "past", 16}));
  Value* k = g.add_value("k", F32({1, 4, "seq", 16}));
  g.inputs = {pk, k};
  Node* present = g.add_node(OpKind::Concat, "present", {pk, k}, {"present"}, axis_attr(-2));
  Value* tail = shape_slice(g, present->outputs[0], 1, 4, "tail");
  Node* cat = g.add_node(OpKind::Concat, "cat", {g.add_constant("one", i64_vector({1})), tail},
                         {"shp"}, axis_attr(0));
  Node* rs = g.add_node(OpKind::Reshape, "rs", {present->outputs[0], cat->outputs[0]}, {"y"});
  g.outputs = {rs->outputs[0], present->outputs[0]};
  infer_types(g);
  const TensorType want{DType::kF32,
                        {Dim::fixed(1), Dim::fixed(4), Dim::of(past + seq), Dim::fixed(16)}};
  EXPECT_EQ(present->outputs[0]->type, want);
  EXPECT_EQ(rs->outputs[0]->type, want);
  EXPECT_EQ(want.str(), "float32[1,4,past+seq,16]");
}

TEST(InferSymbolic, RangeOverASymbolicLengthAndTheCausalMaskExpand) {
  // pos = Range(0, Squeeze(Shape(ids)[1:2]), 1) + past; mask = Expand(m, [1, 1, seq, past+seq]).
  Graph g;
  Value* ids = g.add_value("ids", T(DType::kI64, {1, "seq"}));
  Value* pk = g.add_value("pk", F32({1, 4, "past", 16}));
  Value* m = g.add_value("m", T(DType::kBool, {1, 1, 1, 1}));
  g.inputs = {ids, pk, m};
  Value* s = g.add_node(OpKind::Squeeze, "s", {shape_slice(g, ids, 1, 2, "sq")}, {"s_out"},
                        [] {
                          Attrs a;
                          a.set("axes", V{0});
                          return a;
                        }())
                 ->outputs[0];
  Value* p = g.add_node(OpKind::Squeeze, "p", {shape_slice(g, pk, 2, 3, "ps")}, {"p_out"},
                        [] {
                          Attrs a;
                          a.set("axes", V{0});
                          return a;
                        }())
                 ->outputs[0];
  Value* zero = g.add_constant("zero", i64_tensor({}, {0}));
  Value* one = g.add_constant("onei", i64_tensor({}, {1}));
  Node* pos = g.add_node(OpKind::Range, "pos", {zero, s, one}, {"pos"});
  Node* total = g.add_node(OpKind::Add, "total", {p, s}, {"total"});
  Node* keys = g.add_node(OpKind::Range, "keys", {zero, total->outputs[0], one}, {"keys"});
  Node* unsq = g.add_node(OpKind::Unsqueeze, "u", {total->outputs[0]}, {"u"}, [] {
    Attrs a;
    a.set("axes", V{0});
    return a;
  }());
  Node* cat = g.add_node(OpKind::Concat, "cat",
                         {g.add_constant("ones", i64_vector({1, 1})),
                          shape_slice(g, ids, 1, 2, "q"), unsq->outputs[0]},
                         {"shp"}, axis_attr(0));
  Node* ex = g.add_node(OpKind::Expand, "ex", {m, cat->outputs[0]}, {"mask"});
  g.outputs = {pos->outputs[0], keys->outputs[0], ex->outputs[0]};
  infer_types(g);
  EXPECT_EQ(pos->outputs[0]->type, T(DType::kI64, {"seq"}));
  EXPECT_EQ(keys->outputs[0]->type.str(), "int64[past+seq]");
  EXPECT_EQ(ex->outputs[0]->type.str(), "bool[1,1,seq,past+seq]");
  EXPECT_EQ(total->outputs[0]->symbolic_value, std::vector<SymExpr>{past + seq});

  // Binding the symbols makes every type static again (the same graph, as --input-shapes does).
  bind_input_shapes(g, {{"ids", {1, 5}}, {"pk", {1, 4, 3, 16}}});
  infer_types(g);
  EXPECT_EQ(ex->outputs[0]->type, T(DType::kBool, {1, 1, 5, 8}));
  for (const auto& n : g.nodes())
    for (const Value* v : n->outputs) EXPECT_TRUE(v->type.is_static()) << v->name;
}

// A shape that the model's caller gives (a graph input) is read at run time: each output dim is
// a value symbol named after the output (ops/value_symbols.h), and later nodes see it as a dim.
TEST(InferSymbolic, ShapeFromAGraphInputIsAValueSymbol) {
  Graph g;
  Value* x = g.add_value("x", F32({2, 6}));
  Value* shp = g.add_value("shp", T(DType::kI64, {2}));
  g.inputs = {x, shp};
  Node* rs = g.add_node(OpKind::Reshape, "rs", {x, shp}, {"y"});
  Node* relu = g.add_node(OpKind::Relu, "relu", {rs->outputs[0]}, {"z"});
  g.outputs = relu->outputs;
  infer_types(g);
  const graph::TensorType want{DType::kF32, {Dim::named("y.v0"), Dim::named("y.v1")}};
  EXPECT_EQ(rs->outputs[0]->type, want);
  EXPECT_EQ(relu->outputs[0]->type, want);
}

// Pools and convolutions over a symbolic spatial dim: the closed form (floordiv, ceil mode's
// min) evaluates to what static inference gives at each size.
TEST(InferSymbolic, WindowClosedFormsAgreeWithStaticInference) {
  struct Case {
    OpKind op;
    V kernel, strides, pads;
    int64_t ceil_mode;
  };
  const Case cases[] = {{OpKind::MaxPool, {3}, {2}, {1, 1}, 0},
                        {OpKind::MaxPool, {3}, {2}, {1, 0}, 1},
                        {OpKind::AveragePool, {2}, {3}, {0, 1}, 1},
                        {OpKind::MaxPool, {5}, {4}, {2, 2}, 1}};
  for (const Case& c : cases) {
    Attrs a;
    a.set("kernel_shape", c.kernel);
    a.set("strides", c.strides);
    a.set("pads", c.pads);
    a.set("ceil_mode", c.ceil_mode);
    TensorType sym = OneNode(c.op, {F32({1, 2, "L"})}, a).infer();
    ASSERT_FALSE(sym.shape[2].is_static());
    for (int64_t len = c.kernel[0]; len < 40; ++len) {
      TensorType fixed = OneNode(c.op, {F32({1, 2, int(len)})}, a).infer();
      EXPECT_EQ(sym.shape[2].expr.evaluate({{"L", len}}), fixed.shape[2].value)
          << sym.shape[2].str() << " at L=" << len << " ceil_mode=" << c.ceil_mode;
    }
  }
}

}  // namespace
}  // namespace ingot::graph

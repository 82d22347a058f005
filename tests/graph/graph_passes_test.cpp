// Graph structure operations and passes: users, replace_all_uses, topo_sort, dead code,
// bind_input_shapes, the verifier and the printer.
#include <gtest/gtest.h>

#include "graph/printer.h"
#include "graph/transforms/bind_input_shapes.h"
#include "graph/transforms/dead_code.h"
#include "graph/verifier.h"
#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::F32;
using testing::user_error;
using V = std::vector<int64_t>;

TEST(GraphOps, TopoSortUsersAndCycle) {
  Graph g;
  Value* x = g.add_value("x", F32({2}));
  g.inputs = {x};
  // Insert the consumer first: b = Relu(a), then a = Neg(x).
  Value* a_placeholder = g.add_value("tmp", F32({2}));
  Node* b = g.add_node(OpKind::Relu, "b", {a_placeholder}, {"b"});
  Node* a = g.add_node(OpKind::Neg, "a", {x}, {"a"});
  g.replace_all_uses(a_placeholder, a->outputs[0]);
  g.outputs = b->outputs;
  EXPECT_EQ(g.users(a->outputs[0]), (std::vector<Node*>{b}));
  g.topo_sort();
  EXPECT_EQ(g.nodes()[0].get(), a);
  EXPECT_EQ(g.nodes()[1].get(), b);
  EXPECT_EQ(g.find_value("a"), a->outputs[0]);
  EXPECT_EQ(g.find_value("nope"), nullptr);

  a->inputs[0] = b->outputs[0];  // a -> b -> a
  EXPECT_EQ(user_error([&] { g.topo_sort(); }), "graph has a cycle through node 'a' (Neg)");
}

TEST(GraphOps, RemoveDeadCode) {
  Graph g;
  Value* x = g.add_value("x", F32({2}));
  g.inputs = {x};
  Value* unused_const = g.add_constant("c", testing::i64_vector({1}));
  Node* dead = g.add_node(OpKind::Exp, "dead", {x}, {"d"});
  Node* live = g.add_node(OpKind::Relu, "live", {x}, {"y"});
  g.outputs = live->outputs;
  (void)unused_const;
  (void)dead;
  remove_dead_code(g);
  ASSERT_EQ(g.nodes().size(), 1u);
  EXPECT_EQ(g.nodes()[0].get(), live);
  EXPECT_EQ(g.find_value("c"), nullptr);
  EXPECT_EQ(g.find_value("d"), nullptr);
  EXPECT_EQ(g.find_value("x"), x);  // graph inputs stay
  EXPECT_EQ(g.values().size(), 2u);
}

Graph conv_graph() {
  Graph g;
  g.name = "net";
  Value* x = g.add_value("x", F32({"N", 3, 8, 8}));
  g.inputs = {x};
  Value* w = g.add_value("w", F32({4, 3, 3, 3}));
  g.inputs.push_back(w);
  Attrs a;
  a.set("pads", V{1, 1, 1, 1});
  Node* c = g.add_node(OpKind::Conv, "conv1", {x, w}, {"conv1_out"}, a);
  Node* r = g.add_node(OpKind::Relu, "relu1", {c->outputs[0]}, {"y"});
  g.outputs = r->outputs;
  return g;
}

TEST(BindInputShapes, BindsSymbolEverywhere) {
  Graph g = conv_graph();
  infer_types(g);
  bind_input_shapes(g, {{"x", {5, 3, 8, 8}}});
  EXPECT_EQ(g.inputs[0]->type, F32({5, 3, 8, 8}));
  EXPECT_EQ(g.find_value("conv1_out")->type, F32({5, 4, 8, 8}));
  EXPECT_EQ(g.find_value("y")->type, F32({5, 4, 8, 8}));
}

TEST(BindInputShapes, Errors) {
  Graph g = conv_graph();
  EXPECT_EQ(user_error([&] {
              bind_input_shapes(g, {{"img", {1, 3, 8, 8}}});
            }),
            "unknown input 'img' in input shapes; the model's inputs are: x, w");
  EXPECT_EQ(user_error([&] {
              bind_input_shapes(g, {{"x", {1, 3}}});
            }),
            "input 'x' has rank 4 (float32[N,3,8,8]) but the given shape [1,3] has rank 2");
}

TEST(BindInputShapes, OverridesStaticDimsAndRemembersSymbols) {
  Graph g = conv_graph();
  bind_input_shapes(g, {{"x", {2, 5, 8, 8}}});
  EXPECT_EQ(g.find_value("x")->type, F32({2, 5, 8, 8}));
  EXPECT_EQ(g.find_value("x")->declared_symbols, (std::vector<std::string>{"N", "", "", ""}));
}

TEST(BindInputShapes, ConflictingSymbol) {
  Graph g;
  Value* a = g.add_value("a", F32({"N"}));
  Value* b = g.add_value("b", F32({"N"}));
  g.inputs = {a, b};
  EXPECT_EQ(user_error([&] {
              bind_input_shapes(g, {{"a", {2}}, {"b", {3}}});
            }),
            "symbol 'N' is bound to both 2 and 3 (input 'b')");
}

TEST(Verifier, AcceptsInferredGraph) {
  Graph g = conv_graph();
  infer_types(g);
  EXPECT_NO_THROW(verify_graph(g));
}

TEST(Verifier, RejectsUninferredAndOutOfOrder) {
  Graph g = conv_graph();
  try {
    verify_graph(g);
    FAIL() << "expected an InternalError";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("output 'conv1_out' of node 'conv1' (Conv) has type "
                                         "float32[] but inference gives float32[N,4,8,8]"),
              std::string::npos)
        << e.what();
  }
  Graph h;
  Value* x = h.add_value("x", F32({2}));
  h.inputs = {x};
  Value* later = h.add_value("later", F32({2}));
  Node* use = h.add_node(OpKind::Relu, "use", {later}, {"u"});
  h.outputs = use->outputs;
  try {
    verify_graph(h);
    FAIL() << "expected an InternalError";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("node 'use' (Relu) uses 'later' before it is defined"),
              std::string::npos)
        << e.what();
  }
}

TEST(Printer, OneNodePerLine) {
  Graph g = conv_graph();
  g.add_constant("k", testing::i64_vector({1, -1}));
  infer_types(g);
  EXPECT_EQ(print_graph(g),
            "graph net(%x: float32[N,3,8,8], %w: float32[4,3,3,3]) {\n"
            "  %k: int64[2] = constant [1, -1]\n"
            "  %conv1_out: float32[N,4,8,8] = Conv(%x, %w) {dilations=[1,1], group=1, "
            "kernel_shape=[3,3], pads=[1,1,1,1], strides=[1,1]}\n"
            "  %y: float32[N,4,8,8] = Relu(%conv1_out)\n"
            "  return %y\n"
            "}\n");
}

}  // namespace
}  // namespace ingot::graph

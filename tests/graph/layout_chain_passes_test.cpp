// The layout-chain passes on small graphs, IR before/after: fold_transpose_matmul (a Transpose
// read by a MatMul becomes its perm_a / perm_b) and collapse_reshape_transpose (Transpose and
// Reshape chains merged, identities dropped). Numbers through the kernels: tests/lower
// (compute rule with perm_a / perm_b) and tests/driver (attention end to end).
#include <gtest/gtest.h>

#include "graph/transforms/collapse_reshape_transpose.h"
#include "graph/transforms/fold_transpose_matmul.h"
#include "graph/transforms/infer_types.h"
#include "graph/transforms/rewrite_util.h"
#include "graph/verifier.h"
#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::count_ops;
using testing::F32;
using testing::i64_vector;

Value* transpose(Graph& g, Value* x, std::vector<int64_t> perm, const std::string& name) {
  Attrs a;
  a.set("perm", perm);
  return g.add_node(OpKind::Transpose, name, {x}, {name}, a)->outputs[0];
}

Value* reshape(Graph& g, Value* x, std::vector<int64_t> shape, const std::string& name) {
  Value* s = g.add_constant(name + "_s", testing::i64_vector(shape));
  return g.add_node(OpKind::Reshape, name, {x, s}, {name})->outputs[0];
}

Node* producer(const Graph& g, int output) {
  return g.outputs.at(size_t(output))->producer;
}

// Attention scores as BERT exports them: q, k [1, seq 4, heads 2, dh 3] ->
// MatMul(Transpose(q, 0213), Transpose(k, 0231)) -> [1, 2, 4, 4].
struct Scores {
  Graph g;
  Value *q, *k;
  Node* mm = nullptr;
  Scores() {
    q = g.add_value("q", F32({1, 4, 2, 3}));
    k = g.add_value("k", F32({1, 4, 2, 3}));
    g.inputs = {q, k};
    Value* qt = transpose(g, q, {0, 2, 1, 3}, "qt");
    Value* kt = transpose(g, k, {0, 2, 3, 1}, "kt");
    mm = g.add_node(OpKind::MatMul, "mm", {qt, kt}, {"s"});
    g.outputs = {mm->outputs[0]};
    infer_types(g);
  }
};

TEST(FoldTransposeMatmul, AttentionOperandsReadThroughTheirPermutations) {
  Scores s;
  TensorType before = s.mm->outputs[0]->type;
  EXPECT_EQ(count_ops(s.g, OpKind::Transpose), 2);
  fold_transpose_matmul(s.g);
  s.g.remove_dead();
  verify_graph(s.g);  // re-infers the MatMul's type from the permuted operands
  EXPECT_EQ(count_ops(s.g, OpKind::Transpose), 0);
  EXPECT_EQ(s.mm->inputs[0], s.q);
  EXPECT_EQ(s.mm->inputs[1], s.k);
  EXPECT_EQ(s.mm->attrs.get_ints("perm_a"), (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_EQ(s.mm->attrs.get_ints("perm_b"), (std::vector<int64_t>{0, 2, 3, 1}));
  EXPECT_EQ(s.mm->outputs[0]->type, before);
  EXPECT_EQ(s.mm->outputs[0]->type, F32({1, 2, 4, 4}));
}

TEST(FoldTransposeMatmul, AnIdentityChainDropsTheAttribute) {
  Graph g;
  Value* a = g.add_value("a", F32({2, 5, 3}));
  Value* x = g.add_value("x", F32({2, 3, 4}));
  g.inputs = {a, x};
  // Transposed twice by 021: the view is x itself.
  Value* t = transpose(g, transpose(g, x, {0, 2, 1}, "t1"), {0, 2, 1}, "t2");
  Node* mm = g.add_node(OpKind::MatMul, "mm", {a, t}, {"y"});
  g.outputs = {mm->outputs[0]};
  infer_types(g);
  fold_transpose_matmul(g);
  g.remove_dead();
  verify_graph(g);
  EXPECT_EQ(mm->inputs[1], x);
  EXPECT_FALSE(mm->attrs.has("perm_b"));
  EXPECT_EQ(count_ops(g, OpKind::Transpose), 0);
}

TEST(FoldTransposeMatmul, ChainsCompose) {
  Graph g;
  Value* a = g.add_value("a", F32({3, 2, 5}));  // by 102: [2, 3, 5], then by 021: [2, 5, 3]
  Value* x = g.add_value("x", F32({4, 3, 2}));  // by 210: [2, 3, 4]
  g.inputs = {a, x};
  Value* at = transpose(g, transpose(g, a, {1, 0, 2}, "a1"), {0, 2, 1}, "a2");
  Value* xt = transpose(g, x, {2, 1, 0}, "xt");
  Node* mm = g.add_node(OpKind::MatMul, "mm", {at, xt}, {"y"});
  g.outputs = {mm->outputs[0]};
  infer_types(g);
  fold_transpose_matmul(g);
  g.remove_dead();
  verify_graph(g);
  EXPECT_EQ(mm->inputs[0], a);
  EXPECT_EQ(mm->inputs[1], x);
  EXPECT_EQ(mm->attrs.get_ints("perm_a"), (std::vector<int64_t>{1, 2, 0}));
  EXPECT_EQ(mm->attrs.get_ints("perm_b"), (std::vector<int64_t>{2, 1, 0}));
  EXPECT_EQ(mm->outputs[0]->type, F32({2, 5, 4}));
  EXPECT_EQ(count_ops(g, OpKind::Transpose), 0);
}

TEST(FoldTransposeMatmul, LeavesConstantsOneDOperandsAndOtherReaders) {
  Graph g;
  Value* a = g.add_value("a", F32({3, 4}));
  Value* v = g.add_value("v", F32({4}));
  g.inputs = {a, v};
  Value* w = g.add_constant("w", f32_constant({5, 4}, std::vector<float>(20, 1.0f)));
  Value* wt = transpose(g, w, {1, 0}, "wt");  // constant: left to constant folding
  Value* vt = transpose(g, v, {0}, "vt");     // 1-D: numpy promotion, not a matrix
  Value* at = transpose(g, a, {1, 0}, "at");  // also a graph output: folded, Transpose kept
  Node* m1 = g.add_node(OpKind::MatMul, "m1", {a, wt}, {"y1"});
  Node* m2 = g.add_node(OpKind::MatMul, "m2", {a, vt}, {"y2"});
  Node* m3 = g.add_node(OpKind::MatMul, "m3", {at, a}, {"y3"});
  g.outputs = {m1->outputs[0], m2->outputs[0], m3->outputs[0], at};
  infer_types(g);
  fold_transpose_matmul(g);
  g.remove_dead();
  verify_graph(g);
  EXPECT_EQ(m1->inputs[1], wt);
  EXPECT_EQ(m2->inputs[1], vt);
  EXPECT_EQ(m3->inputs[0], a);
  EXPECT_EQ(m3->attrs.get_ints("perm_a"), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(count_ops(g, OpKind::Transpose), 3);
}

TEST(MatMulPermutation, InferenceChecksThePermutation) {
  testing::OneNode bad(OpKind::MatMul, {F32({2, 3}), F32({3, 4})});
  bad.node->attrs.set("perm_a", std::vector<int64_t>{0, 0});
  EXPECT_NE(testing::user_error([&] { bad.infer(); }).find("is not a permutation"),
            std::string::npos);
  testing::OneNode ok(OpKind::MatMul, {F32({3, 2}), F32({4, 3})});
  ok.node->attrs.set("perm_a", std::vector<int64_t>{1, 0});
  ok.node->attrs.set("perm_b", std::vector<int64_t>{1, 0});
  EXPECT_EQ(ok.infer(), F32({2, 4}));
}

TEST(CollapseReshapeTranspose, TransposeChainsComposeAndInversesVanish) {
  Graph g;
  Value* x = g.add_value("x", F32({2, 3, 4}));
  g.inputs = {x};
  // 120 then 120 is 201; 201 then 120 is the identity.
  Value* t2 = transpose(g, transpose(g, x, {1, 2, 0}, "t1"), {1, 2, 0}, "t2");
  Value* t3 = transpose(g, t2, {1, 2, 0}, "t3");
  Node* neg = g.add_node(OpKind::Neg, "neg", {t3}, {"n"});
  g.outputs = {t2, neg->outputs[0]};
  infer_types(g);
  collapse_reshape_transpose(g);
  g.remove_dead();
  verify_graph(g);
  EXPECT_EQ(neg->inputs[0], x);  // t3 = identity of x
  Node* t = producer(g, 0);
  ASSERT_EQ(t->op, OpKind::Transpose);
  EXPECT_EQ(t->inputs[0], x);
  EXPECT_EQ(t->attrs.get_ints("perm"), (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(count_ops(g, OpKind::Transpose), 1);
}

TEST(CollapseReshapeTranspose, UnitDimTransposeBecomesReshapeAndReshapesMerge) {
  Graph g;
  Value* x = g.add_value("x", F32({1, 6, 1, 4}));
  g.inputs = {x};
  // Moves only the 1s: [6, 1, 4, 1] in the same data order.
  Value* t = transpose(g, x, {1, 0, 3, 2}, "t");
  Value* r = reshape(g, reshape(g, t, {6, 4}, "r1"), {2, 3, 4}, "r2");
  Attrs ua;
  ua.set("axes", std::vector<int64_t>{0});
  Value* u = g.add_node(OpKind::Unsqueeze, "u", {r}, {"u"}, ua)->outputs[0];
  Node* neg = g.add_node(OpKind::Neg, "neg", {u}, {"n"});
  g.outputs = {neg->outputs[0]};
  infer_types(g);
  collapse_reshape_transpose(g);
  g.remove_dead();
  verify_graph(g);
  EXPECT_EQ(count_ops(g, OpKind::Transpose), 0);
  EXPECT_EQ(count_ops(g, OpKind::Unsqueeze), 0);
  ASSERT_EQ(count_ops(g, OpKind::Reshape), 1);  // x -> [1, 2, 3, 4] in one step
  Node* last = neg->inputs[0]->producer;
  ASSERT_EQ(last->op, OpKind::Reshape);
  EXPECT_EQ(last->inputs[0], x);
  EXPECT_EQ(last->inputs[1]->constant->get_i64(1), 2);
  EXPECT_EQ(neg->inputs[0]->type, F32({1, 2, 3, 4}));
}

TEST(CollapseReshapeTranspose, KeepsRealTransposesAndGraphOutputs) {
  Graph g;
  Value* x = g.add_value("x", F32({2, 3}));
  g.inputs = {x};
  Value* t = transpose(g, x, {1, 0}, "t");   // moves data
  Value* r = reshape(g, x, {2, 3}, "same");  // same shape, but a graph output
  g.outputs = {t, r};
  infer_types(g);
  collapse_reshape_transpose(g);
  g.remove_dead();
  verify_graph(g);
  EXPECT_EQ(count_ops(g, OpKind::Transpose), 1);
  EXPECT_EQ(count_ops(g, OpKind::Reshape), 1);
}

}  // namespace
}  // namespace ingot::graph

// Batched constant folding: infer_types keeps foldable nodes waiting and hands them to the
// ConstantFolder together; one batch is one library built and run. Values are checked against
// hand-computed ones; the counts show when batches are handed over and how a batch that does
// not lower falls back to one node at a time.
#include <gtest/gtest.h>

#include <cstring>

#include "driver/constant_eval.h"
#include "graph/graph_test_util.h"
#include "graph/transforms/infer_types.h"

namespace ingot::driver {
namespace {

using graph::Dim;
using graph::DType;
using ops::OpKind;

using graph::testing::f32_tensor;
using graph::testing::i64_tensor;

std::vector<float> values(const graph::Value* v) {
  EXPECT_TRUE(v->is_constant()) << v->name;
  if (!v->is_constant()) return {};
  const float* p = v->constant->data_as<float>();
  return std::vector<float>(p, p + v->constant->num_elements());
}

graph::Value* f32_input(graph::Graph& g, const std::string& name, std::vector<int64_t> dims) {
  std::vector<Dim> shape;
  for (int64_t d : dims) shape.push_back(Dim::fixed(d));
  graph::Value* x = g.add_value(name, graph::TensorType{DType::kF32, shape});
  g.inputs.push_back(x);
  return x;
}

TEST(FoldBatch, ConstantChainFoldsAsOneModule) {
  // s = Transpose(MatMul(a, b)) + c, all constants, read by a run-time Add: one batch of three.
  graph::Graph g;
  graph::Value* x = f32_input(g, "x", {2, 2});
  graph::Value* a = g.add_constant("a", f32_tensor({2, 3}, {1, 2, 3, 4, 5, 6}));
  graph::Value* b = g.add_constant("b", f32_tensor({3, 2}, {1, 0, 0, 1, 1, 1}));
  graph::Value* c = g.add_constant("c", f32_tensor({2, 2}, {10, 20, 30, 40}));
  graph::Value* m = g.add_node(OpKind::MatMul, "mm", {a, b}, {"m"})->outputs[0];
  graph::Value* t = g.add_node(OpKind::Transpose, "tr", {m}, {"t"})->outputs[0];
  graph::Value* s = g.add_node(OpKind::Add, "add", {t, c}, {"s"})->outputs[0];
  graph::Node* y = g.add_node(OpKind::Add, "y", {x, s}, {"y"});
  g.outputs = {y->outputs[0]};
  ConstantFolder folder;
  graph::infer_types(g, folder.evaluator());
  ASSERT_EQ(g.nodes().size(), 1u);
  // a.b = [[4, 5], [10, 11]]; transposed [[4, 10], [5, 11]]; + c.
  EXPECT_EQ(values(y->inputs[1]), (std::vector<float>{14, 30, 35, 51}));
  EXPECT_EQ(y->inputs[1]->name, "s");
  EXPECT_EQ(folder.stats().nodes, 3);
  EXPECT_EQ(folder.stats().batches, 1);
  EXPECT_EQ(folder.stats().modules, 1);
  EXPECT_EQ(folder.stats().declined, 0);
}

TEST(FoldBatch, InferenceThatNeedsAWaitingValueHandsTheBatchOver) {
  // shape = Where(Equal(c, -1), ones, c) waits; Reshape's inference needs its value, so the
  // batch (Equal, Where) goes first, then the Reshape (now of constants) waits in a second
  // batch handed over when the run-time Add reads it.
  graph::Graph g;
  graph::Value* x = f32_input(g, "x", {3, 2});
  graph::Value* c = g.add_constant("c", i64_tensor({2}, {-1, 2}));
  graph::Value* neg = g.add_constant("neg", i64_tensor({}, {-1}));
  graph::Value* ones = g.add_constant("ones", i64_tensor({2}, {3, 1}));
  graph::Value* data = g.add_constant("data", f32_tensor({6}, {1, 2, 3, 4, 5, 6}));
  graph::Value* eq = g.add_node(OpKind::Equal, "eq", {c, neg}, {"eq"})->outputs[0];
  graph::Value* shape = g.add_node(OpKind::Where, "where", {eq, ones, c}, {"shape"})->outputs[0];
  graph::Value* r = g.add_node(OpKind::Reshape, "reshape", {data, shape}, {"r"})->outputs[0];
  graph::Node* y = g.add_node(OpKind::Add, "y", {x, r}, {"y"});
  g.outputs = {y->outputs[0]};
  ConstantFolder folder;
  graph::infer_types(g, folder.evaluator());
  ASSERT_EQ(g.nodes().size(), 1u);
  EXPECT_EQ(g.outputs[0]->type.str(), "float32[3,2]");
  EXPECT_EQ(values(y->inputs[1]), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(folder.stats().nodes, 3);
  EXPECT_EQ(folder.stats().batches, 2);
  EXPECT_EQ(folder.stats().modules, 2);
}

TEST(FoldBatch, BatchThatDoesNotLowerFallsBackNodeByNode) {
  // Det of a 257x257 matrix infers but does not lower (larger than lowering supports): the
  // batch (a, det, b, e) falls back to single nodes; a and b (which reads a) fold, det stays,
  // and e, which reads det, stays too.
  graph::Graph g;
  graph::Value* x = f32_input(g, "x", {2});
  graph::Value* c1 = g.add_constant("c1", f32_tensor({2}, {1, 2}));
  graph::Value* big = g.add_constant("big", f32_tensor({257, 257}, std::vector<float>(257 * 257)));
  graph::Value* one = g.add_constant("one", f32_tensor({}, {1}));
  graph::Value* a = g.add_node(OpKind::Add, "a", {c1, c1}, {"a"})->outputs[0];
  graph::Value* det = g.add_node(OpKind::Det, "det", {big}, {"det"})->outputs[0];
  graph::Value* b = g.add_node(OpKind::Mul, "b", {a, c1}, {"b"})->outputs[0];
  graph::Value* e = g.add_node(OpKind::Add, "e", {det, one}, {"e"})->outputs[0];
  graph::Node* y1 = g.add_node(OpKind::Add, "y1", {x, b}, {"y1"});
  graph::Node* y2 = g.add_node(OpKind::Add, "y2", {x, e}, {"y2"});
  g.outputs = {y1->outputs[0], y2->outputs[0]};
  ConstantFolder folder;
  graph::infer_types(g, folder.evaluator());
  EXPECT_EQ(values(y1->inputs[1]), (std::vector<float>{2, 8}));
  EXPECT_FALSE(y2->inputs[1]->is_constant());
  std::vector<std::string> left;
  for (const auto& n : g.nodes()) left.push_back(n->name);
  EXPECT_EQ(left, (std::vector<std::string>{"det", "e", "y1", "y2"}));
  EXPECT_EQ(g.outputs[1]->type.str(), "float32[2]");
  EXPECT_EQ(folder.stats().nodes, 2);
  EXPECT_EQ(folder.stats().declined, 2);
  EXPECT_EQ(folder.stats().batches, 1);
  EXPECT_EQ(folder.stats().modules, 2);  // a and b, one at a time
}

TEST(FoldBatch, IdentityOfAConstantIsThatConstant) {
  // No library is built: the Identity's output becomes a constant sharing the input's buffer.
  graph::Graph g;
  graph::Value* x = f32_input(g, "x", {2});
  graph::Value* w = g.add_constant("w", f32_tensor({2}, {3, 4}));
  graph::Value* id = g.add_node(OpKind::Identity, "id", {w}, {"w_copy"})->outputs[0];
  graph::Node* y = g.add_node(OpKind::Mul, "y", {x, id}, {"y"});
  g.outputs = {y->outputs[0]};
  ConstantFolder folder;
  graph::InferTypesStats stats;
  graph::infer_types(g, folder.evaluator(), &stats);
  ASSERT_EQ(g.nodes().size(), 1u);
  EXPECT_EQ(y->inputs[1]->constant.get(), w->constant.get());
  EXPECT_EQ(y->inputs[1]->name, "w_copy");
  EXPECT_EQ(stats.identities_folded, 1);
  EXPECT_EQ(stats.batches, 0);
  EXPECT_EQ(folder.stats().modules, 0);
}

TEST(FoldBatch, CastLikeOfAConstantFoldsThoughItsDtypeSourceIsARunTimeValue) {
  // CastLike(c, x) (Cast with a second input): inference takes x's dtype and drops x, so the
  // node then reads constants only and folds (an attention export pads with such a value).
  graph::Graph g;
  graph::Value* x = f32_input(g, "x", {2});
  graph::Value* c = g.add_constant("c", i64_tensor({2}, {-3, 5}));
  graph::Value* cast = g.add_node(OpKind::Cast, "castlike", {c, x}, {"c_f32"})->outputs[0];
  graph::Node* y = g.add_node(OpKind::Add, "y", {x, cast}, {"y"});
  g.outputs = {y->outputs[0]};
  ConstantFolder folder;
  graph::infer_types(g, folder.evaluator());
  ASSERT_EQ(g.nodes().size(), 1u);
  EXPECT_EQ(values(y->inputs[1]), (std::vector<float>{-3, 5}));
  EXPECT_EQ(folder.stats().nodes, 1);
}

TEST(FoldBatch, OutputsOverSixteenMillionElementsStay) {
  // Expand of a constant scalar to 4097 x 4096 (just over 2^24 elements) is not evaluated.
  graph::Graph g;
  graph::Value* x = f32_input(g, "x", {4097, 4096});
  graph::Value* one = g.add_constant("one", f32_tensor({}, {1}));
  graph::Value* shape = g.add_constant("shape", i64_tensor({2}, {4097, 4096}));
  graph::Value* big = g.add_node(OpKind::Expand, "expand", {one, shape}, {"big"})->outputs[0];
  g.outputs = {g.add_node(OpKind::Add, "y", {x, big}, {"y"})->outputs[0]};
  ConstantFolder folder;
  graph::infer_types(g, folder.evaluator());
  EXPECT_EQ(g.nodes().size(), 2u);
  EXPECT_EQ(folder.stats().batches, 0);
}

TEST(FoldBatch, WithoutAnEvaluatorNothingFolds) {
  // --disabled-pass fold_constants: Identity and arithmetic on constants stay nodes.
  graph::Graph g;
  graph::Value* w = g.add_constant("w", f32_tensor({2}, {3, 4}));
  graph::Value* id = g.add_node(OpKind::Identity, "id", {w}, {"w_copy"})->outputs[0];
  g.outputs = {g.add_node(OpKind::Add, "add", {id, w}, {"y"})->outputs[0]};
  graph::InferTypesStats stats;
  graph::infer_types(g, {}, &stats);
  EXPECT_EQ(g.nodes().size(), 2u);
  EXPECT_EQ(stats.identities_folded, 0);
  EXPECT_EQ(stats.batches, 0);
}

}  // namespace
}  // namespace ingot::driver

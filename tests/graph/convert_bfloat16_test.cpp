// convert_bfloat16 (`--dtype bfloat16`): MatMul / Gemm by constant weights read bfloat16
// weights (rounded to nearest even) and a Cast of their activation, shared by the products that
// read it, and write float32 (out_dtype); products of two activations, the bias and everything
// else stay float32, and the graph infers and verifies afterwards.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "graph/transforms/convert_bfloat16.h"
#include "graph/transforms/pass_manager.h"
#include "graph/verifier.h"
#include "graph_test_util.h"

namespace ingot::graph::testing {
namespace {

using ops::OpKind;

TEST(ConvertBFloat16, ProductsByConstantWeightsTakeBFloat16OperandsAndWriteFloat32) {
  Graph g;
  Value* x = g.add_value("x", F32({2, 4}));
  g.inputs = {x};
  // 1 + 2^-8 is a tie between 1 and 1 + 2^-7: to the even 1; 1 + 3 * 2^-8 up to 1 + 2^-6.
  const float tie_down = 1.0f + std::ldexp(1.0f, -8), tie_up = 1.0f + 3 * std::ldexp(1.0f, -8);
  std::vector<float> wv(12, tie_down);
  wv[1] = tie_up;
  Value* w = g.add_constant("w", f32_tensor({4, 3}, wv));
  Value* v = g.add_constant("v", f32_tensor({4, 3}, std::vector<float>(12, 0.5f)));
  Value* bias = g.add_constant("bias", f32_tensor({3}, {1, 2, 3}));
  // q = x w and k = Gemm(x, v, bias) share x's Cast; s = q k^T multiplies two activations.
  Value* q = g.add_node(OpKind::MatMul, "q", {x, w}, {"q"})->outputs[0];
  Value* k = g.add_node(OpKind::Gemm, "k", {x, v, bias}, {"k"})->outputs[0];
  Attrs trans;
  trans.set("transB", int64_t(1));
  Value* s = g.add_node(OpKind::Gemm, "s", {q, k}, {"s"}, trans)->outputs[0];
  g.outputs = {s};
  infer_types(g);

  BFloat16Stats stats = convert_bfloat16(g);
  infer_types(g);
  verify_graph(g);
  EXPECT_EQ(stats.products, 2);
  EXPECT_EQ(stats.constants, 2);
  EXPECT_EQ(stats.constant_bytes_saved, 2 * 12 * 2);
  Node* qn = q->producer;
  Node* kn = k->producer;
  // The weights: bfloat16 copies, rounded to nearest even; the bias stays float32.
  ASSERT_EQ(qn->inputs[1]->type.dtype, DType::kBF16);
  EXPECT_EQ(qn->inputs[1]->constant->get_f64(0), 1.0);
  EXPECT_EQ(qn->inputs[1]->constant->get_f64(1), 1.0 + std::ldexp(1.0, -6));
  EXPECT_EQ(kn->inputs[1]->type.dtype, DType::kBF16);
  EXPECT_EQ(kn->inputs[1]->constant->get_f64(0), 0.5);
  EXPECT_EQ(kn->inputs[2], bias);
  EXPECT_EQ(bias->type.dtype, DType::kF32);
  // One Cast of x to bfloat16, read by both products.
  std::vector<Node*> x_users = g.users(x);
  ASSERT_EQ(x_users.size(), 1u);
  EXPECT_EQ(x_users[0]->op, OpKind::Cast);
  EXPECT_EQ(x_users[0]->outputs[0]->type.dtype, DType::kBF16);
  EXPECT_EQ(qn->inputs[0], x_users[0]->outputs[0]);
  EXPECT_EQ(kn->inputs[0], x_users[0]->outputs[0]);
  // Both write float32; the product of two activations is float32 throughout.
  EXPECT_EQ(q->type.dtype, DType::kF32);
  EXPECT_EQ(k->type.dtype, DType::kF32);
  EXPECT_EQ(s->producer->inputs[0], q);
  EXPECT_EQ(s->type.dtype, DType::kF32);
  EXPECT_FALSE(s->producer->attrs.has("out_dtype"));
  EXPECT_EQ(count_ops(g, OpKind::Cast), 1);
  // The float32 weights have no reader left and are gone from the graph.
  for (const auto& n : g.nodes())
    for (Value* in : n->inputs) EXPECT_TRUE(in != w && in != v) << n->describe();
}

// A Gemm with transB by a constant [N, K] reads a bfloat16 copy stored [K, N] (the bfloat16
// rule's form; ResNet's classifier ran many times slower through the row rule's strided reads
// before) and transB is cleared.
TEST(ConvertBFloat16, AGemmsTransposedWeightIsStoredAsKByN) {
  Graph g;
  Value* x = g.add_value("x", F32({1, 2}));
  g.inputs = {x};
  Value* w = g.add_constant("w", f32_tensor({3, 2}, {1, 2, 3, 4, 5, 6}));  // [N, K]
  Attrs trans;
  trans.set("transB", int64_t(1));
  Node* gemm = g.add_node(OpKind::Gemm, "fc", {x, w}, {"y"}, trans);
  g.outputs = {gemm->outputs[0]};
  infer_types(g);
  convert_bfloat16(g);
  infer_types(g);
  verify_graph(g);
  const Value* wb = gemm->inputs[1];
  ASSERT_EQ(wb->type.dtype, DType::kBF16);
  EXPECT_EQ(wb->constant->shape(), (std::vector<int64_t>{2, 3}));
  const std::vector<double> want = {1, 3, 5, 2, 4, 6};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(wb->constant->get_f64(int64_t(i)), want[i]);
  EXPECT_EQ(gemm->attrs.get_int("transB", 1), 0);
  EXPECT_EQ(gemm->outputs[0]->type.shape, F32({1, 3}).shape);
}

TEST(ConvertBFloat16, OutDtypeIsOnlyForBFloat16OperandsAccumulatedInFloat32) {
  Graph g;
  Value* x = g.add_value("x", F32({2, 4}));
  g.inputs = {x};
  Value* w = g.add_constant("w", f32_tensor({4, 3}, std::vector<float>(12, 0.5f)));
  Attrs out;
  out.set("out_dtype", int64_t(DType::kF32));
  g.outputs = {g.add_node(OpKind::MatMul, "mm", {x, w}, {"y"}, out)->outputs[0]};
  EXPECT_NE(user_error([&] { infer_types(g); }).find("out_dtype float32 is only for bfloat16"),
            std::string::npos);
}

// In the pass list: only with --dtype bfloat16 (PassOptions::bfloat16), at every level.
TEST(ConvertBFloat16, RunsAsAPassOnlyWithDtypeBFloat16) {
  for (bool bf16 : {false, true}) {
    Graph g;
    Value* x = g.add_value("x", F32({2, 4}));
    g.inputs = {x};
    Value* w = g.add_constant("w", f32_tensor({4, 3}, std::vector<float>(12, 0.5f)));
    Value* m = g.add_node(OpKind::MatMul, "mm", {x, w}, {"m"})->outputs[0];
    g.outputs = {g.add_node(OpKind::Relu, "relu", {m}, {"y"})->outputs[0]};
    infer_types(g);
    std::ostringstream log;
    run_optimization_passes(g, {.opt_level = 0, .bfloat16 = bf16}, log);
    EXPECT_EQ(count_ops(g, OpKind::Cast), bf16 ? 1 : 0);
    EXPECT_EQ(m->producer->inputs[1]->type.dtype, bf16 ? DType::kBF16 : DType::kF32);
    EXPECT_EQ(g.outputs[0]->type.dtype, DType::kF32);
  }
}

}  // namespace
}  // namespace ingot::graph::testing

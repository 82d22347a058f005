// convert_float16 (`--dtype float16`): float32 constants become float16, float32 inputs enter
// and outputs leave through Casts (the interface keeps its names and dtypes), Casts to float32
// inside cast to float16, and the graph infers and verifies afterwards.
#include <gtest/gtest.h>

#include <sstream>

#include "graph/transforms/convert_float16.h"
#include "graph/transforms/pass_manager.h"
#include "graph/verifier.h"
#include "graph_test_util.h"
#include "support/half.h"

namespace ingot::graph::testing {
namespace {

using ops::OpKind;

TEST(ConvertFloat16, ConstantsAndActivationsBecomeFloat16BehindAFloat32Interface) {
  Graph g;
  Value* x = g.add_value("x", F32({2, 4}));
  Value* i = g.add_value("i", T(DType::kI64, {2, 3}));
  g.inputs = {x, i};
  Value* w = g.add_constant("w", f32_tensor({4, 3}, std::vector<float>(12, 0.1f)));
  Value* m = g.add_node(OpKind::MatMul, "mm", {x, w}, {"m"})->outputs[0];
  Attrs to_f32;
  to_f32.set("to", int64_t(DType::kF32));
  Value* c = g.add_node(OpKind::Cast, "cast", {i}, {"c"}, to_f32)->outputs[0];
  Value* s = g.add_node(OpKind::Add, "add", {m, c}, {"s"})->outputs[0];
  Value* y = g.add_node(OpKind::Relu, "relu", {s}, {"y"})->outputs[0];
  g.outputs = {y, m};  // m is also read inside
  infer_types(g);

  Float16Stats stats = convert_float16(g);
  infer_types(g);
  verify_graph(g);
  EXPECT_EQ(stats.constants, 1);
  EXPECT_EQ(stats.constant_bytes_saved, 12 * 2);
  EXPECT_EQ(stats.inputs, 1);  // i is int64
  EXPECT_EQ(stats.outputs, 2);
  // The weights: float16, rounded to nearest.
  EXPECT_EQ(w->type.dtype, DType::kF16);
  EXPECT_EQ(w->constant->get_f64(0), round_to_half(double(0.1f)));
  // The interface: the same values, names and dtypes.
  EXPECT_EQ(g.inputs, (std::vector<Value*>{x, i}));
  EXPECT_EQ(x->type.dtype, DType::kF32);
  ASSERT_EQ(g.outputs, (std::vector<Value*>{y, m}));
  for (Value* out : g.outputs) {
    EXPECT_EQ(out->type.dtype, DType::kF32);
    ASSERT_NE(out->producer, nullptr);
    EXPECT_EQ(out->producer->op, OpKind::Cast);
    EXPECT_EQ(out->producer->inputs[0]->type.dtype, DType::kF16);
    EXPECT_EQ(out->producer->inputs[0]->name, out->name + "_float16");
  }
  // Inside: x enters through one Cast to float16; the MatMul, the Cast of i, the Add and the
  // Relu are float16; the Add reads the MatMul's float16 value, not the output m.
  std::vector<Node*> x_users = g.users(x);
  ASSERT_EQ(x_users.size(), 1u);
  EXPECT_EQ(x_users[0]->op, OpKind::Cast);
  EXPECT_EQ(x_users[0]->outputs[0]->type.dtype, DType::kF16);
  for (const auto& n : g.nodes()) {
    if (n->op == OpKind::MatMul || n->op == OpKind::Add || n->op == OpKind::Relu) {
      EXPECT_EQ(n->outputs[0]->type.dtype, DType::kF16) << n->describe();
    }
    if (n->op == OpKind::Add) {
      EXPECT_NE(n->inputs[0], m);
    }
  }
  EXPECT_EQ(c->type.dtype, DType::kF16);
  EXPECT_EQ(count_ops(g, OpKind::Cast), 4);  // i, x in; y, m out
}

// In the pass list: only with --dtype float16 (PassOptions::float16), at every level, after the
// fusions (a decomposed float32 pattern is fused first, then converted).
TEST(ConvertFloat16, RunsAsAPassOnlyWithDtypeFloat16) {
  for (bool half : {false, true}) {
    Graph g;
    Value* x = g.add_value("x", F32({2, 4}));
    g.inputs = {x};
    Value* w = g.add_constant("w", f32_tensor({4, 3}, std::vector<float>(12, 0.5f)));
    Value* m = g.add_node(OpKind::MatMul, "mm", {x, w}, {"m"})->outputs[0];
    g.outputs = {g.add_node(OpKind::Relu, "relu", {m}, {"y"})->outputs[0]};
    infer_types(g);
    std::ostringstream log;
    run_optimization_passes(g, {.opt_level = 0, .float16 = half}, log);
    EXPECT_EQ(count_ops(g, OpKind::Cast), half ? 2 : 0);
    EXPECT_EQ(w->type.dtype, half ? DType::kF16 : DType::kF32);
    EXPECT_EQ(g.outputs[0]->type.dtype, DType::kF32);
  }
}

}  // namespace
}  // namespace ingot::graph::testing

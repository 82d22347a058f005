// The graph optimisation passes on small graphs, IR before/after: remove_identity, cse,
// fold_batch_norm (weights checked against the closed form), fuse_epilogue, and the pass
// manager's levels, disabled passes and errors. (Numbers of fused kernels: tests/lower.)
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "graph/transforms/cse.h"
#include "graph/transforms/fold_batch_norm.h"
#include "graph/transforms/fold_gemm_alpha.h"
#include "graph/transforms/fuse_epilogue.h"
#include "graph/transforms/fuse_gelu.h"
#include "graph/transforms/fuse_layer_norm.h"
#include "graph/transforms/infer_types.h"
#include "graph/transforms/pass_manager.h"
#include "graph/transforms/remove_identity.h"
#include "graph/transforms/rewrite_util.h"
#include "graph/verifier.h"
#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::count_ops;
using testing::F32;
using testing::user_error;

// x[1,2,3,3] -> Conv(w[2,2,1,1], b) -> BN -> Add(., r) -> Relu -> y;  r = Neg(x)
struct ConvBlock {
  Graph g;
  Node* conv = nullptr;
  std::vector<float> w = {1, 2, 3, 4}, b = {0.5f, -1}, scale = {2, 3}, shift = {0.1f, 0.2f},
                     mean = {1, -1}, var = {3, 0.25f};
  ConvBlock() {
    Value* x = g.add_value("x", F32({1, 2, 3, 3}));
    g.inputs = {x};
    Value* wv = g.add_constant("w", f32_constant({2, 2, 1, 1}, w));
    Value* bv = g.add_constant("b", f32_constant({2}, b));
    Attrs ca;
    ca.set("kernel_shape", std::vector<int64_t>{1, 1});
    conv = g.add_node(OpKind::Conv, "conv", {x, wv, bv}, {"c"}, ca);
    Attrs ba;
    ba.set("epsilon", 1e-5);
    Node* bn = g.add_node(
        OpKind::BatchNormalization, "bn",
        {conv->outputs[0], g.add_constant("s", f32_constant({2}, scale)),
         g.add_constant("sh", f32_constant({2}, shift)),
         g.add_constant("m", f32_constant({2}, mean)), g.add_constant("v", f32_constant({2}, var))},
        {"bn"}, ba);
    Value* r = g.add_node(OpKind::Neg, "neg", {x}, {"r"})->outputs[0];
    Value* s = g.add_node(OpKind::Add, "add", {bn->outputs[0], r}, {"s"})->outputs[0];
    g.outputs = {g.add_node(OpKind::Relu, "relu", {s}, {"y"})->outputs[0]};
    infer_types(g);
  }
};

TEST(FoldBatchNorm, ScalesWeightsAndBiasPerChannel) {
  ConvBlock cb;
  fold_batch_norm(cb.g);
  verify_graph(cb.g);
  EXPECT_EQ(count_ops(cb.g, OpKind::BatchNormalization), 0);
  ASSERT_EQ(cb.conv->outputs[0]->name, "bn");  // the Conv took over the BN's output value
  const float* w = cb.conv->inputs[1]->constant->data_as<float>();
  const float* b = cb.conv->inputs[2]->constant->data_as<float>();
  for (int o = 0; o < 2; ++o) {
    double s = cb.scale[o] / std::sqrt(double(cb.var[o]) + 1e-5);
    EXPECT_NEAR(w[o * 2], cb.w[o * 2] * s, 1e-6);
    EXPECT_NEAR(w[o * 2 + 1], cb.w[o * 2 + 1] * s, 1e-6);
    EXPECT_NEAR(b[o], (cb.b[o] - cb.mean[o]) * s + cb.shift[o], 1e-6);
  }
}

TEST(FoldBatchNorm, LeavesBatchNormWithRuntimeParametersOrSharedConv) {
  Graph g;
  Value* x = g.add_value("x", F32({1, 1, 2, 2}));
  Value* mean = g.add_value("mean", F32({1}));
  g.inputs = {x, mean};
  Attrs ca;
  ca.set("kernel_shape", std::vector<int64_t>{1, 1});
  Node* conv = g.add_node(OpKind::Conv, "conv",
                          {x, g.add_constant("w", f32_constant({1, 1, 1, 1}, {2}))}, {"c"}, ca);
  auto one = [&](const char* n) { return g.add_constant(n, f32_constant({1}, {1})); };
  Node* bn = g.add_node(OpKind::BatchNormalization, "bn",
                        {conv->outputs[0], one("s"), one("sh"), mean, one("v")}, {"y"});
  g.outputs = {bn->outputs[0], conv->outputs[0]};
  infer_types(g);
  fold_batch_norm(g);
  EXPECT_EQ(count_ops(g, OpKind::BatchNormalization), 1);
}

TEST(FoldBatchNorm, OtherBatchNormsBecomePerChannelMulAndAdd) {
  // A pre-activation BN (after a Neg, as DenseNet's after a Concat): y = x * s + (B - mean * s).
  Graph g;
  Value* x = g.add_value("x", F32({1, 2, 3, 3}));
  g.inputs = {x};
  Value* r = g.add_node(OpKind::Neg, "neg", {x}, {"r"})->outputs[0];
  std::vector<float> scale = {2, 3}, shift = {0.1f, 0.2f}, mean = {1, -1}, var = {3, 0.25f};
  Node* bn = g.add_node(
      OpKind::BatchNormalization, "bn",
      {r, g.add_constant("s", f32_constant({2}, scale)),
       g.add_constant("sh", f32_constant({2}, shift)), g.add_constant("m", f32_constant({2}, mean)),
       g.add_constant("v", f32_constant({2}, var))},
      {"y"});
  g.outputs = {bn->outputs[0]};
  infer_types(g);
  fold_batch_norm(g);
  verify_graph(g);
  EXPECT_EQ(count_ops(g, OpKind::BatchNormalization), 0);
  ASSERT_EQ(g.outputs[0]->producer->op, OpKind::Add);
  Node* add = g.outputs[0]->producer;
  Node* mul = add->inputs[0]->producer;
  ASSERT_EQ(mul->op, OpKind::Mul);
  EXPECT_EQ(mul->inputs[0], r);
  ASSERT_EQ(mul->inputs[1]->type, F32({1, 2, 1, 1}));
  const float* sv = mul->inputs[1]->constant->data_as<float>();
  const float* bv = add->inputs[1]->constant->data_as<float>();
  for (int c = 0; c < 2; ++c) {
    double s = scale[c] / std::sqrt(double(var[c]) + 1e-5);
    EXPECT_NEAR(sv[c], s, 1e-6);
    EXPECT_NEAR(bv[c], shift[c] - mean[c] * s, 1e-6);
  }
  EXPECT_EQ(g.outputs[0]->type, F32({1, 2, 3, 3}));
}

// Gemm's alpha goes into a constant B (B' = alpha * B, alpha = 1); a run-time B keeps it.
TEST(FoldGemmAlpha, ScalesAConstantWeightOnly) {
  Graph g;
  Value* x = g.add_value("x", F32({2, 3}));
  Value* r = g.add_value("r", F32({3, 2}));
  g.inputs = {x, r};
  Attrs a;
  a.set("alpha", 0.5);
  Node* folded =
      g.add_node(OpKind::Gemm, "g1",
                 {x, g.add_constant("w", f32_constant({3, 2}, {1, 2, 3, 4, 5, 6}))}, {"y1"}, a);
  Node* kept = g.add_node(OpKind::Gemm, "g2", {x, r}, {"y2"}, a);
  g.outputs = {folded->outputs[0], kept->outputs[0]};
  infer_types(g);
  fold_gemm_alpha(g);
  EXPECT_EQ(folded->attrs.get_float("alpha", 0.0), 1.0);
  ASSERT_TRUE(folded->inputs[1]->is_constant());
  const float* w = folded->inputs[1]->constant->data_as<float>();
  EXPECT_EQ(std::vector<float>(w, w + 6), (std::vector<float>{0.5f, 1, 1.5f, 2, 2.5f, 3}));
  EXPECT_EQ(kept->attrs.get_float("alpha", 0.0), 0.5);
  EXPECT_EQ(kept->inputs[1], r);
}

TEST(FuseEpilogue, AbsorbsResidualAddAndRelu) {
  ConvBlock cb;
  fold_batch_norm(cb.g);
  fuse_epilogue(cb.g);
  verify_graph(cb.g);
  EXPECT_EQ(count_ops(cb.g, OpKind::Add), 0);
  EXPECT_EQ(count_ops(cb.g, OpKind::Relu), 0);
  ASSERT_EQ(cb.conv->inputs.size(), 4u);
  EXPECT_EQ(cb.conv->inputs[3]->name, "r");
  EXPECT_EQ(cb.conv->attrs.get_string("activation", ""), "Relu");
  EXPECT_EQ(cb.g.outputs[0], cb.conv->outputs[0]);
  EXPECT_EQ(cb.conv->outputs[0]->name, "y");
  // The residual's producer (Neg) now comes before the Conv.
  EXPECT_EQ(cb.g.nodes().front()->op, OpKind::Neg);
  // Inference accepts the fused form again.
  infer_types(cb.g);
}

TEST(FuseEpilogue, ClipWithConstantBoundsAndNotPastAnActivation) {
  Graph g;
  Value* x = g.add_value("x", F32({1, 1, 2, 2}));
  g.inputs = {x};
  Attrs ca;
  ca.set("kernel_shape", std::vector<int64_t>{1, 1});
  Node* conv = g.add_node(OpKind::Conv, "conv",
                          {x, g.add_constant("w", f32_constant({1, 1, 1, 1}, {2}))}, {"c"}, ca);
  Value* c = g.add_node(OpKind::Clip, "clip",
                        {conv->outputs[0], g.add_constant("lo", f32_constant({}, {0})),
                         g.add_constant("hi", f32_constant({}, {6}))},
                        {"c6"})
                 ->outputs[0];
  Value* r = g.add_node(OpKind::Relu, "relu", {c}, {"y"})->outputs[0];
  g.outputs = {r};
  infer_types(g);
  fuse_epilogue(g);
  EXPECT_EQ(conv->attrs.get_string("activation", ""), "Clip");
  EXPECT_EQ(conv->attrs.get_floats("activation_params", {}), (std::vector<double>{0, 6}));
  EXPECT_EQ(count_ops(g, OpKind::Relu), 1);  // nothing fuses after the activation
}

// x[2,4] -> decomposed layer norm over the last axis (as exporters emit it) -> y
struct DecomposedLayerNorm {
  Graph g;
  Value* x = nullptr;
  Value* d = nullptr;
  explicit DecomposedLayerNorm(bool affine, bool pow_form = true) {
    x = g.add_value("x", F32({2, 4}));
    g.inputs = {x};
    Attrs ra;
    ra.set("axes", std::vector<int64_t>{-1});
    ra.set("keepdims", int64_t(1));
    Value* mean = g.add_node(OpKind::ReduceMean, "mean", {x}, {"mean"}, ra)->outputs[0];
    d = g.add_node(OpKind::Sub, "sub", {x, mean}, {"d"})->outputs[0];
    Value* sq = pow_form ? g.add_node(OpKind::Pow, "pow",
                                      {d, g.add_constant("two", f32_constant({}, {2}))}, {"sq"})
                               ->outputs[0]
                         : g.add_node(OpKind::Mul, "sq", {d, d}, {"sq"})->outputs[0];
    Value* var = g.add_node(OpKind::ReduceMean, "var", {sq}, {"var"}, ra)->outputs[0];
    Value* e = g.add_node(OpKind::Add, "add_eps",
                          {var, g.add_constant("eps", f32_constant({}, {1e-6f}))}, {"e"})
                   ->outputs[0];
    Value* s = g.add_node(OpKind::Sqrt, "sqrt", {e}, {"s"})->outputs[0];
    Value* y = g.add_node(OpKind::Div, "div", {d, s}, {"n"})->outputs[0];
    if (affine) {
      y = g.add_node(OpKind::Mul, "gamma",
                     {y, g.add_constant("g", f32_constant({4}, {1, 2, 3, 4}))}, {"gy"})
              ->outputs[0];
      y = g.add_node(OpKind::Add, "beta", {y, g.add_constant("b", f32_constant({4}, {0, 1, 0, 1}))},
                     {"y"})
              ->outputs[0];
    }
    g.outputs = {y};
    infer_types(g);
  }
};

TEST(FuseLayerNorm, DecomposedFormsBecomeOneNode) {
  for (bool affine : {true, false})
    for (bool pow_form : {true, false}) {
      DecomposedLayerNorm m(affine, pow_form);
      fuse_layer_norm(m.g);
      verify_graph(m.g);
      ASSERT_EQ(m.g.nodes().size(), 1u) << affine << pow_form;
      const Node& ln = *m.g.nodes()[0];
      EXPECT_EQ(ln.op, OpKind::LayerNormalization);
      EXPECT_EQ(ln.attrs.get_int("axis", -1), 1);
      EXPECT_NEAR(ln.attrs.get_float("epsilon", 0), 1e-6, 1e-12);
      EXPECT_EQ(ln.inputs[0], m.x);
      EXPECT_EQ(ln.inputs.size(), affine ? 3u : 2u);
      EXPECT_EQ(ln.outputs[0], m.g.outputs[0]);
      const float* scale = ln.inputs[1]->constant->data_as<float>();
      EXPECT_EQ(scale[3], affine ? 4.0f : 1.0f);
      infer_types(m.g);  // the fused node is a valid LayerNormalization
    }
}

TEST(FuseLayerNorm, IntermediateReadElsewhereBlocksTheFusion) {
  DecomposedLayerNorm m(false);
  m.g.outputs.push_back(m.d);  // the centred values are also a model output
  fuse_layer_norm(m.g);
  EXPECT_EQ(count_ops(m.g, OpKind::LayerNormalization), 0);
}

TEST(FuseGelu, BothAssociationsOfTheErfForm) {
  for (int form = 0; form < 2; ++form) {
    Graph g;
    Value* x = g.add_value("x", F32({3}));
    g.inputs = {x};
    Value* q = form == 0
                   ? g.add_node(OpKind::Div, "div",
                                {x, g.add_constant("r2", f32_constant({}, {1.4142135f}))}, {"q"})
                         ->outputs[0]
                   : g.add_node(OpKind::Mul, "mulq",
                                {x, g.add_constant("ir2", f32_constant({}, {0.70710678f}))}, {"q"})
                         ->outputs[0];
    Value* e = g.add_node(OpKind::Erf, "erf", {q}, {"e"})->outputs[0];
    Value* a =
        g.add_node(OpKind::Add, "add", {e, g.add_constant("one", f32_constant({}, {1}))}, {"a"})
            ->outputs[0];
    Value* half = g.add_constant("half", f32_constant({}, {0.5f}));
    Value* y;
    if (form == 0) {  // (x * a) * 0.5
      y = g.add_node(OpKind::Mul, "m2",
                     {g.add_node(OpKind::Mul, "m1", {x, a}, {"xa"})->outputs[0], half}, {"y"})
              ->outputs[0];
    } else {  // a * (x * 0.5)
      y = g.add_node(OpKind::Mul, "m2",
                     {a, g.add_node(OpKind::Mul, "m1", {x, half}, {"xh"})->outputs[0]}, {"y"})
              ->outputs[0];
    }
    g.outputs = {y};
    infer_types(g);
    fuse_gelu(g);
    verify_graph(g);
    ASSERT_EQ(g.nodes().size(), 1u) << form;
    EXPECT_EQ(g.nodes()[0]->op, OpKind::Gelu);
    EXPECT_EQ(g.nodes()[0]->inputs[0], x);
    EXPECT_EQ(g.nodes()[0]->outputs[0]->name, "y");
  }
}

TEST(FuseEpilogue, MatMulBiasRowResidualAndGelu) {
  Graph g;
  Value* x = g.add_value("x", F32({3, 5}));
  Value* r = g.add_value("r", F32({3, 4}));
  g.inputs = {x, r};
  Node* mm =
      g.add_node(OpKind::MatMul, "mm",
                 {x, g.add_constant("w", f32_constant({5, 4}, std::vector<float>(20, 1)))}, {"m"});
  Value* b =
      g.add_node(OpKind::Add, "bias",
                 {g.add_constant("b", f32_constant({1, 4}, {1, 2, 3, 4})), mm->outputs[0]}, {"mb"})
          ->outputs[0];
  Value* s = g.add_node(OpKind::Add, "res", {b, r}, {"s"})->outputs[0];
  g.outputs = {g.add_node(OpKind::Gelu, "gelu", {s}, {"y"})->outputs[0]};
  infer_types(g);
  fuse_epilogue(g);
  verify_graph(g);
  ASSERT_EQ(g.nodes().size(), 1u);
  ASSERT_EQ(mm->inputs.size(), 4u);
  EXPECT_EQ(mm->inputs[2]->type.str(), "float32[4]");  // the [1, 4] row as a bias vector
  EXPECT_EQ(mm->inputs[3], r);
  EXPECT_EQ(mm->attrs.get_string("activation", ""), "Gelu");
  EXPECT_EQ(mm->fused, (std::vector<std::string>{"Add", "Add", "Gelu"}));
  infer_types(g);
}

TEST(RemoveIdentity, BypassesAllButGraphOutputs) {
  Graph g;
  Value* x = g.add_value("x", F32({2}));
  g.inputs = {x};
  Value* a = g.add_node(OpKind::Identity, "id1", {x}, {"a"})->outputs[0];
  Value* b = g.add_node(OpKind::Relu, "relu", {a}, {"b"})->outputs[0];
  Value* c = g.add_node(OpKind::Identity, "id2", {b}, {"c"})->outputs[0];
  g.outputs = {c};
  infer_types(g);
  remove_identity(g);
  verify_graph(g);
  EXPECT_EQ(count_ops(g, OpKind::Identity), 1);  // id2 names a graph output
  EXPECT_EQ(g.nodes()[0]->op, OpKind::Relu);
  EXPECT_EQ(g.nodes()[0]->inputs[0], x);
}

TEST(Cse, MergesEqualNodesAndEqualSmallConstants) {
  Graph g;
  Value* x = g.add_value("x", F32({2}));
  g.inputs = {x};
  Value* k1 = g.add_constant("k1", f32_constant({2}, {1, 2}));
  Value* k2 = g.add_constant("k2", f32_constant({2}, {1, 2}));
  Value* a = g.add_node(OpKind::Add, "a", {x, k1}, {"a"})->outputs[0];
  Value* b = g.add_node(OpKind::Add, "b", {x, k2}, {"b"})->outputs[0];  // same after merging
  Value* c = g.add_node(OpKind::Mul, "c", {x, k2}, {"c"})->outputs[0];  // different op
  Value* s = g.add_node(OpKind::Sum, "s", {a, b, c}, {"y"})->outputs[0];
  g.outputs = {s};
  infer_types(g);
  eliminate_common_subexpressions(g);
  verify_graph(g);
  EXPECT_EQ(count_ops(g, OpKind::Add), 1);
  EXPECT_EQ(count_ops(g, OpKind::Mul), 1);
  const Node* sum = g.nodes().back().get();
  EXPECT_EQ(sum->inputs[0], sum->inputs[1]);
}

TEST(PassManager, LevelsDisabledPassesTimesAndErrors) {
  {
    ConvBlock cb;
    std::ostringstream log;
    run_optimization_passes(cb.g, {.opt_level = 0}, log);
    EXPECT_EQ(count_ops(cb.g, OpKind::BatchNormalization), 1);
  }
  // The channel-blocked layout is the only place convolutions get their blocks: it runs from
  // -O1 (with the schedule layer's blocks), not at -O0 (the plain NCHW loop nest).
  for (int level : {0, 1}) {
    ConvBlock cb;
    std::ostringstream log;
    run_optimization_passes(
        cb.g, {.opt_level = level, .channel_blocks = vector_channel_blocks(512)}, log);
    EXPECT_EQ(count_ops(cb.g, OpKind::ConvNCHWc), level) << level;
    EXPECT_EQ(count_ops(cb.g, OpKind::BatchNormalization), 1) << level;  // (folded from -O2)
  }
  {
    ConvBlock cb;
    std::ostringstream log;
    run_optimization_passes(cb.g,
                            {.opt_level = 2,
                             .disabled = {"fuse_epilogue"},
                             .print_ir_after = {"fold_batch_norm"},
                             .print_times = true},
                            log);
    EXPECT_EQ(count_ops(cb.g, OpKind::BatchNormalization), 0);
    EXPECT_EQ(count_ops(cb.g, OpKind::Relu), 1);
    EXPECT_NE(log.str().find("pass fold_batch_norm"), std::string::npos) << log.str();
    EXPECT_NE(log.str().find("// IR after fold_batch_norm"), std::string::npos);
    EXPECT_EQ(log.str().find("pass fuse_epilogue"), std::string::npos);
  }
  EXPECT_EQ(user_error([] { check_pass_names({"fold_bn"}, "--disabled-pass"); }),
            "--disabled-pass: unknown pass 'fold_bn' (valid: fold_constants, remove_identity, cse, "
            "collapse_reshape_transpose, fuse_qdq, fuse_integer_matmul, fold_gemm_alpha, "
            "fold_batch_norm, "
            "trim_conv_taps, separate_resize, "
            "fuse_layer_norm, fuse_gelu, "
            "fuse_softmax, fuse_swish, fold_transpose_matmul, fuse_epilogue, convert_float16, "
            "convert_bfloat16, "
            "layout_nchwc, fuse_qconv_residual, winograd_conv, convert_bfloat16_convs, dead_code, "
            "fuse_ops)");
}

}  // namespace
}  // namespace ingot::graph

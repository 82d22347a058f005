// fuse_gelu's tanh form and fuse_softmax on small graphs, IR before/after: the operand orders
// exporters emit fuse, wrong constants, other axes and intermediates read elsewhere do not.
#include <gtest/gtest.h>

#include "graph/transforms/fuse_gelu.h"
#include "graph/transforms/fuse_softmax.h"
#include "graph/transforms/infer_types.h"
#include "graph/transforms/rewrite_util.h"
#include "graph/verifier.h"
#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::count_ops;
using testing::F32;

struct TanhGeluOptions {
  int cube = 0;       // 0: Pow(x, 3); 1: (x * x) * x; 2: x * (x * x)
  bool swap = false;  // the other operand order in every Add/Mul with a constant and in x + c x^3
  bool half_first = false;  // y = x * (0.5 * a) instead of (0.5 * x) * a
  float c3 = 0.044715f;
  float s = 0.7978845608f;
  float one = 1.0f;
};

// x[2,3] -> 0.5 * x * (1 + tanh(s * (x + c3 * x^3))) -> y, as exporters decompose it.
struct DecomposedTanhGelu {
  Graph g;
  Value* x = nullptr;
  Value* cube = nullptr;
  Value* inner = nullptr;
  explicit DecomposedTanhGelu(const TanhGeluOptions& o) {
    x = g.add_value("x", F32({2, 3}));
    g.inputs = {x};
    int id = 0;
    auto bin = [&](OpKind op, Value* a, Value* b) {
      std::string n = "t" + std::to_string(id++);
      return g.add_node(op, n, {a, b}, {n})->outputs[0];
    };
    auto k = [&](float v) {
      return g.add_constant("k" + std::to_string(id++), f32_constant({}, {v}));
    };
    // Binary op with a constant, in the chosen operand order.
    auto with_k = [&](OpKind op, Value* a, float v) {
      return o.swap ? bin(op, k(v), a) : bin(op, a, k(v));
    };
    if (o.cube == 0) cube = bin(OpKind::Pow, x, k(3));
    if (o.cube == 1) cube = bin(OpKind::Mul, bin(OpKind::Mul, x, x), x);
    if (o.cube == 2) cube = bin(OpKind::Mul, x, bin(OpKind::Mul, x, x));
    Value* c = with_k(OpKind::Mul, cube, o.c3);
    inner = o.swap ? bin(OpKind::Add, c, x) : bin(OpKind::Add, x, c);
    Value* sc = with_k(OpKind::Mul, inner, o.s);
    Value* t = g.add_node(OpKind::Tanh, "tanh", {sc}, {"th"})->outputs[0];
    Value* a = with_k(OpKind::Add, t, o.one);
    Value* y = o.half_first ? bin(OpKind::Mul, x, with_k(OpKind::Mul, a, 0.5f))
                            : bin(OpKind::Mul, with_k(OpKind::Mul, x, 0.5f), a);
    g.outputs = {y};
    infer_types(g);
  }
};

TEST(FuseGeluTanh, ExporterFormsBecomeOneGelu) {
  for (int cube = 0; cube < 3; ++cube)
    for (bool swap : {false, true})
      for (bool half_first : {false, true}) {
        DecomposedTanhGelu m({.cube = cube, .swap = swap, .half_first = half_first});
        fuse_gelu(m.g);
        verify_graph(m.g);
        ASSERT_EQ(m.g.nodes().size(), 1u) << cube << swap << half_first;
        const Node& gelu = *m.g.nodes()[0];
        EXPECT_EQ(gelu.op, OpKind::Gelu);
        EXPECT_EQ(gelu.attrs.get_string("approximate", ""), "tanh");
        EXPECT_EQ(gelu.inputs[0], m.x);
        EXPECT_EQ(gelu.outputs[0], m.g.outputs[0]);
        infer_types(m.g);  // the fused node is a valid Gelu
        EXPECT_EQ(m.g.outputs[0]->type.str(), "float32[2,3]");
      }
}

TEST(FuseGeluTanh, ConstantsWithinTheToleranceFuse) {
  // float32 rounding of sqrt(2 / pi) and 0.044715 and a 5e-5 relative deviation are accepted.
  DecomposedTanhGelu m({.c3 = 0.044715f * (1 + 5e-5f), .s = 0.79788456f});
  fuse_gelu(m.g);
  EXPECT_EQ(count_ops(m.g, OpKind::Gelu), 1);
}

TEST(FuseGeluTanh, WrongConstantsAreRefused) {
  for (const TanhGeluOptions& o : {TanhGeluOptions{.c3 = 0.05f}, TanhGeluOptions{.s = 0.8f},
                                   TanhGeluOptions{.one = 2.0f}, TanhGeluOptions{.c3 = 0.0447f}}) {
    DecomposedTanhGelu m(o);
    size_t before = m.g.nodes().size();
    fuse_gelu(m.g);
    verify_graph(m.g);
    EXPECT_EQ(count_ops(m.g, OpKind::Gelu), 0) << o.c3 << " " << o.s << " " << o.one;
    EXPECT_EQ(m.g.nodes().size(), before);
  }
  {  // x^2 instead of x^3
    DecomposedTanhGelu m({});
    for (const auto& n : m.g.nodes())
      if (n->op == OpKind::Pow) n->inputs[1] = m.g.add_constant("two", f32_constant({}, {2}));
    infer_types(m.g);
    fuse_gelu(m.g);
    EXPECT_EQ(count_ops(m.g, OpKind::Gelu), 0);
  }
}

TEST(FuseGeluTanh, IntermediateReadElsewhereBlocksTheFusion) {
  for (bool inner : {false, true}) {
    DecomposedTanhGelu m({});
    m.g.outputs.push_back(inner ? m.inner : m.cube);  // also a model output
    fuse_gelu(m.g);
    verify_graph(m.g);
    EXPECT_EQ(count_ops(m.g, OpKind::Gelu), 0) << inner;
    EXPECT_EQ(count_ops(m.g, OpKind::Tanh), 1);
  }
  {  // x^3 also read by another node
    DecomposedTanhGelu m({});
    Value* other = m.g.add_node(OpKind::Neg, "neg", {m.cube}, {"neg"})->outputs[0];
    m.g.outputs.push_back(other);
    infer_types(m.g);
    fuse_gelu(m.g);
    EXPECT_EQ(count_ops(m.g, OpKind::Gelu), 0);
  }
}

TEST(FuseGeluTanh, ErfFormStillFusesAsNone) {
  Graph g;
  Value* x = g.add_value("x", F32({3}));
  g.inputs = {x};
  Value* q = g.add_node(OpKind::Div, "div",
                        {x, g.add_constant("r2", f32_constant({}, {1.4142135f}))}, {"q"})
                 ->outputs[0];
  Value* e = g.add_node(OpKind::Erf, "erf", {q}, {"e"})->outputs[0];
  Value* a =
      g.add_node(OpKind::Add, "add", {e, g.add_constant("one", f32_constant({}, {1}))}, {"a"})
          ->outputs[0];
  Value* xa = g.add_node(OpKind::Mul, "m1", {x, a}, {"xa"})->outputs[0];
  g.outputs = {
      g.add_node(OpKind::Mul, "m2", {xa, g.add_constant("h", f32_constant({}, {0.5f}))}, {"y"})
          ->outputs[0]};
  infer_types(g);
  fuse_gelu(g);
  ASSERT_EQ(g.nodes().size(), 1u);
  EXPECT_EQ(g.nodes()[0]->attrs.get_string("approximate", ""), "none");
}

// x[2,3,4] -> Exp(x - ReduceMax(x)) / ReduceSum(Exp(..)) over `axis` (or without the max) -> y
struct DecomposedSoftmax {
  Graph g;
  Value* x = nullptr;
  Value* e = nullptr;
  DecomposedSoftmax(bool with_max, int64_t axis, int64_t max_axis, int64_t keepdims = 1) {
    x = g.add_value("x", F32({2, 3, 4}));
    g.inputs = {x};
    auto reduce_attrs = [&](int64_t a) {
      Attrs ra;
      ra.set("axes", std::vector<int64_t>{a});
      ra.set("keepdims", keepdims);
      return ra;
    };
    Value* d = x;
    if (with_max) {
      Value* m =
          g.add_node(OpKind::ReduceMax, "max", {x}, {"m"}, reduce_attrs(max_axis))->outputs[0];
      d = g.add_node(OpKind::Sub, "sub", {x, m}, {"d"})->outputs[0];
    }
    e = g.add_node(OpKind::Exp, "exp", {d}, {"e"})->outputs[0];
    Value* s = g.add_node(OpKind::ReduceSum, "sum", {e}, {"s"}, reduce_attrs(axis))->outputs[0];
    g.outputs = {g.add_node(OpKind::Div, "div", {e, s}, {"y"})->outputs[0]};
    infer_types(g);
  }
};

TEST(FuseSoftmax, WithAndWithoutTheMaxBecomeOneSoftmax) {
  for (bool with_max : {true, false})
    for (int64_t axis : {-1, 1, 0}) {
      DecomposedSoftmax m(with_max, axis, axis);
      fuse_softmax(m.g);
      verify_graph(m.g);
      ASSERT_EQ(m.g.nodes().size(), 1u) << with_max << axis;
      const Node& sm = *m.g.nodes()[0];
      EXPECT_EQ(sm.op, OpKind::Softmax);
      EXPECT_EQ(sm.attrs.get_int("axis", -9), axis < 0 ? axis + 3 : axis);
      EXPECT_EQ(sm.inputs[0], m.x);
      EXPECT_EQ(sm.outputs[0], m.g.outputs[0]);
      EXPECT_EQ(sm.outputs[0]->name, "y");
      infer_types(m.g);  // the fused node is a valid Softmax
      EXPECT_EQ(m.g.outputs[0]->type.str(), "float32[2,3,4]");
    }
}

TEST(FuseSoftmax, NegativeAndPositiveSpellingsOfOneAxisMatch) {
  DecomposedSoftmax m(true, 2, -1);
  fuse_softmax(m.g);
  ASSERT_EQ(m.g.nodes().size(), 1u);
  EXPECT_EQ(m.g.nodes()[0]->attrs.get_int("axis", -9), 2);
}

TEST(FuseSoftmax, MismatchesAreRefused) {
  {  // max over another axis: the Sub stays and Softmax covers only Exp / ReduceSum of (x - m)
    DecomposedSoftmax m(true, 2, 1);
    fuse_softmax(m.g);
    verify_graph(m.g);
    EXPECT_EQ(count_ops(m.g, OpKind::ReduceMax), 1);
    EXPECT_EQ(count_ops(m.g, OpKind::Sub), 1);
    ASSERT_EQ(count_ops(m.g, OpKind::Softmax), 1);
    for (const auto& n : m.g.nodes())
      if (n->op == OpKind::Softmax) {
        EXPECT_NE(n->inputs[0], m.x);
      }
  }
  {  // keepdims = 0: the [3,4] sum broadcasts along the wrong axis
    DecomposedSoftmax m(false, 0, 0, 0);
    size_t before = m.g.nodes().size();
    fuse_softmax(m.g);
    EXPECT_EQ(count_ops(m.g, OpKind::Softmax), 0);
    EXPECT_EQ(m.g.nodes().size(), before);
  }
  {  // Exp also a model output
    DecomposedSoftmax m(true, -1, -1);
    m.g.outputs.push_back(m.e);
    fuse_softmax(m.g);
    EXPECT_EQ(count_ops(m.g, OpKind::Softmax), 0);
  }
  {  // Exp read by a third node
    DecomposedSoftmax m(false, -1, -1);
    m.g.outputs.push_back(m.g.add_node(OpKind::Neg, "neg", {m.e}, {"n"})->outputs[0]);
    infer_types(m.g);
    fuse_softmax(m.g);
    EXPECT_EQ(count_ops(m.g, OpKind::Softmax), 0);
  }
}

}  // namespace
}  // namespace ingot::graph

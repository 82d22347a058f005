// fuse_ops on small graphs: which nodes share a fusion group (injective chains, prologues into
// reductions and normalisations, elementwise epilogues onto a reduction) and which stay alone
// (values read outside the group, graph outputs, broadcast recomputation, Conv, a second
// reduction). Kernels and numbers of fused groups: tests/lower/fused_group_test.cpp.
#include "graph/transforms/fuse_ops.h"

#include <gtest/gtest.h>

#include "graph/printer.h"
#include "graph/transforms/rewrite_util.h"
#include "graph/verifier.h"
#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::F32;

// A graph built node by node; `node(name)` finds a node after fusion.
struct Builder {
  Graph g;
  Value* input(const std::string& name, TensorType t) {
    Value* v = g.add_value(name, std::move(t));
    g.inputs.push_back(v);
    return v;
  }
  Value* constant(const std::string& name, std::vector<int64_t> shape, std::vector<float> vals) {
    return g.add_constant(name, f32_constant(std::move(shape), vals));
  }
  Value* op(OpKind k, const std::string& name, std::vector<Value*> ins, Attrs a = {}) {
    return g.add_node(k, name, std::move(ins), {name}, std::move(a))->outputs[0];
  }
  void finish(std::vector<Value*> outs) {
    g.outputs = std::move(outs);
    infer_types(g);
    fuse_ops(g);
    verify_graph(g);
  }
  int group(const std::string& name) const {
    for (const auto& n : g.nodes())
      if (n->name == name) return n->fusion_group;
    ADD_FAILURE() << "no node " << name;
    return -2;
  }
};

Attrs axes_attr(std::vector<int64_t> axes, int64_t keepdims) {
  Attrs a;
  a.set("axes", std::move(axes));
  a.set("keepdims", keepdims);
  return a;
}

TEST(FuseOps, InjectiveChainIsOneGroup) {
  Builder b;
  Value* x = b.input("x", F32({2, 3, 4}));
  Value* r = b.op(OpKind::Relu, "relu", {x});
  Attrs perm;
  perm.set("perm", std::vector<int64_t>{0, 2, 1});
  Value* t = b.op(OpKind::Transpose, "tr", {r}, perm);
  Value* y = b.op(OpKind::Add, "add", {t, b.constant("c", {3}, {1, 2, 3})});
  b.finish({y});
  EXPECT_GE(b.group("add"), 0);
  EXPECT_EQ(b.group("relu"), b.group("add"));
  EXPECT_EQ(b.group("tr"), b.group("add"));
  EXPECT_NE(print_graph(b.g).find("# group"), std::string::npos);
}

TEST(FuseOps, ProloguesAndEpilogueOfAReduction) {
  // y = Sqrt(ReduceMean((x - c)^2, axis 1) + eps): one group with the reduction in the middle.
  Builder b;
  Value* x = b.input("x", F32({4, 8}));
  Value* d = b.op(OpKind::Sub, "sub", {x, b.constant("c", {8}, std::vector<float>(8, 0.5f))});
  Value* sq = b.op(OpKind::Mul, "sq", {d, d});
  Value* m = b.op(OpKind::ReduceMean, "mean", {sq}, axes_attr({1}, 0));
  Value* e = b.op(OpKind::Add, "eps", {m, b.constant("e", {}, {1e-5f})});
  Value* y = b.op(OpKind::Sqrt, "sqrt", {e});
  b.finish({y});
  int grp = b.group("sqrt");
  EXPECT_GE(grp, 0);
  for (const char* n : {"sub", "sq", "mean", "eps"}) EXPECT_EQ(b.group(n), grp) << n;
}

TEST(FuseOps, ElementwiseProloguesIntoSoftmax) {
  Builder b;
  Value* x = b.input("x", F32({2, 4, 16}));
  Value* mask = b.input("mask", F32({2, 1, 16}));
  Value* s = b.op(OpKind::Div, "scale", {x, b.constant("k", {}, {8})});
  Value* a = b.op(OpKind::Add, "mask_add", {s, mask});
  Attrs ax;
  ax.set("axis", int64_t(-1));
  Value* y = b.op(OpKind::Softmax, "softmax", {a}, ax);
  b.finish({y});
  EXPECT_GE(b.group("softmax"), 0);
  EXPECT_EQ(b.group("scale"), b.group("softmax"));
  EXPECT_EQ(b.group("mask_add"), b.group("softmax"));
}

TEST(FuseOps, ValuesReadOutsideOrGraphOutputsStayOut) {
  Builder b;
  Value* x = b.input("x", F32({8}));
  Value* e = b.op(OpKind::Exp, "exp", {x});  // read by two groups
  Value* p = b.op(OpKind::Neg, "neg", {e});
  Value* q = b.op(OpKind::Abs, "abs", {e});
  Value* r = b.op(OpKind::Relu, "relu", {x});  // a graph output, also read by sig
  Value* s = b.op(OpKind::Sigmoid, "sig", {r});
  b.finish({p, q, r, s});
  EXPECT_EQ(b.group("exp"), -1);
  EXPECT_EQ(b.group("relu"), -1);
  EXPECT_EQ(b.group("neg"), -1);  // nothing left to fuse with
  EXPECT_EQ(b.group("sig"), -1);
}

TEST(FuseOps, NoRecomputationPerBroadcastCopy) {
  // A squeeze-excite gate: Sigmoid of [1, C, 1, 1] times x[1, C, H, W] keeps Sigmoid apart.
  Builder b;
  Value* x = b.input("x", F32({1, 4, 5, 5}));
  Value* z = b.input("z", F32({1, 4, 1, 1}));
  Value* s = b.op(OpKind::Sigmoid, "gate", {z});
  Value* y = b.op(OpKind::Mul, "scale", {x, s});
  b.finish({y});
  EXPECT_EQ(b.group("gate"), -1);
  EXPECT_EQ(b.group("scale"), -1);
}

TEST(FuseOps, ConvAndSecondReductionStayOut) {
  Builder b;
  Value* x = b.input("x", F32({1, 2, 4, 4}));
  Attrs ca;
  ca.set("kernel_shape", std::vector<int64_t>{1, 1});
  Value* c = b.op(OpKind::Conv, "conv", {x, b.constant("w", {2, 2, 1, 1}, {1, 0, 0, 1})}, ca);
  Value* s = b.op(OpKind::ReduceSum, "sum_w", {c}, axes_attr({3}, 0));
  Value* m = b.op(OpKind::ReduceMax, "max_h", {s}, axes_attr({2}, 0));
  Value* y = b.op(OpKind::Neg, "neg", {m});
  b.finish({y});
  EXPECT_EQ(b.group("conv"), -1);
  EXPECT_GE(b.group("neg"), 0);
  EXPECT_EQ(b.group("max_h"), b.group("neg"));  // epilogue onto the last reduction
  EXPECT_EQ(b.group("sum_w"), -1);              // one reduction per group
}

TEST(FuseOps, EpilogueNeedsTheReductionShape) {
  // ReduceSum [4,8] -> [4,1], then Div(x, sum) is [4,8]: a normalisation step, not an
  // epilogue of the reduction (its output is larger); the Div and the sum stay apart.
  Builder b;
  Value* x = b.input("x", F32({4, 8}));
  Value* s = b.op(OpKind::ReduceSum, "sum", {x}, axes_attr({1}, 1));
  Value* y = b.op(OpKind::Div, "div", {x, s});
  b.finish({y});
  EXPECT_EQ(b.group("sum"), -1);
  EXPECT_EQ(b.group("div"), -1);
}

}  // namespace
}  // namespace ingot::graph

// Concat built in place by lower_graph: with every dim before the axis of extent 1, each input's
// producer writes straight into its slice of the workspace output and no Concat kernel runs;
// graph inputs, repeats and values already given a slice elsewhere are copied into theirs; batch
// > 1 and graph outputs keep the Concat kernel. Offsets are checked by hand, numbers through the
// loop-IR interpreter against closed forms.
#include <gtest/gtest.h>

#include <cmath>

#include "graph/transforms/fuse_ops.h"
#include "graph/transforms/infer_types.h"
#include "lower/lower_graph.h"
#include "rule_test_util.h"

namespace ingot::testing {
namespace {

using graph::Attrs;
using graph::Value;
using ops::OpKind;
using tir::ArgRef;
using tir::DataType;

struct Net : TestNet {
  Value* concat(const std::string& name, std::vector<Value*> ins, int64_t axis = 1) {
    Attrs a;
    a.set("axis", axis);
    return op(OpKind::Concat, name, std::move(ins), a);
  }
  tir::IRModule lower() {
    graph::infer_types(g);
    return lower::lower_graph(g);
  }
};

int count_concat_kernels(const tir::IRModule& m) {
  int n = 0;
  for (const tir::PrimFunc& f : m.kernels)
    if (!f.source_ops.empty() && f.source_ops[0] == "Concat") ++n;
  return n;
}

std::vector<double> concat_channels(const std::vector<std::vector<double>>& parts) {
  std::vector<double> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

std::vector<double> map(const std::vector<double>& v, double (*f)(double)) {
  std::vector<double> out;
  for (double e : v) out.push_back(f(e));
  return out;
}

double relu(double v) {
  return std::max(v, 0.0);
}
double neg(double v) {
  return -v;
}
double sigmoid(double v) {
  return 1 / (1 + std::exp(-v));
}
double exp_(double v) {
  return std::exp(v);
}

// x[1,2,3,3] -> Relu -> a; x2[1,3,3,3] -> Neg -> b; Concat(a, b) -> c[1,5,3,3] -> Exp -> y.
TEST(ConcatInPlace, ChannelConcatOfBatchOneHasNoKernel) {
  Net n;
  Value* x = n.input("x", {1, 2, 3, 3});
  Value* x2 = n.input("x2", {1, 3, 3, 3});
  Value* c = n.concat("c", {n.op(OpKind::Relu, "a", {x}), n.op(OpKind::Neg, "b", {x2})});
  n.g.outputs = {n.op(OpKind::Exp, "y", {c})};
  tir::IRModule m = n.lower();
  ASSERT_EQ(m.kernels.size(), 3u);  // Relu, Neg, Exp
  EXPECT_EQ(count_concat_kernels(m), 0);
  const ArgRef a = kernel_call(m, "a_Relu").args[1], b = kernel_call(m, "b_Neg").args[1];
  const ArgRef cin = kernel_call(m, "y_Exp").args[0];
  ASSERT_EQ(a.kind, ArgRef::kWorkspace);
  ASSERT_EQ(b.kind, ArgRef::kWorkspace);
  EXPECT_EQ(cin.kind, ArgRef::kWorkspace);
  EXPECT_EQ(a.value, cin.value);
  EXPECT_EQ(b.value, cin.value + 2 * 9 * 4);  // after a's 18 floats
  EXPECT_EQ(m.workspace_bytes, 192u);         // c alone: 180 bytes
  HostTensor tx = random_f32({1, 2, 3, 3}, 1), tx2 = random_f32({1, 3, 3, 3}, 2);
  HostTensor out(DataType::f32(), {1, 5, 3, 3});
  run_module(m, {&tx, &tx2}, {&out});
  expect_near_all(out.values(),
                  map(concat_channels({map(tx.values(), relu), map(tx2.values(), neg)}), exp_),
                  1e-6);
}

TEST(ConcatInPlace, FuseOpsLeavesItAloneSoNoKernelCopies) {
  // Without the in-place plan, fuse_ops would fuse the Relu and Neg producers into the Concat.
  Net n;
  Value* x = n.input("x", {1, 2, 3, 3});
  Value* c = n.concat("c", {n.op(OpKind::Relu, "a", {x}), n.op(OpKind::Neg, "b", {x})});
  n.g.outputs = {n.op(OpKind::Exp, "y", {c})};
  graph::infer_types(n.g);
  graph::fuse_ops(n.g);
  for (const auto& node : n.g.nodes()) EXPECT_EQ(node->fusion_group, -1) << node->name;
  tir::IRModule m = lower::lower_graph(n.g);
  EXPECT_EQ(m.kernels.size(), 3u);
  EXPECT_EQ(count_concat_kernels(m), 0);
}

TEST(ConcatInPlace, BatchOfTwoAndGraphOutputsKeepTheKernel) {
  for (bool batch2 : {true, false}) {
    Net n;
    Value* x = n.input("x", {batch2 ? 2 : 1, 2, 3});
    Value* c = n.concat("c", {n.op(OpKind::Relu, "a", {x}), n.op(OpKind::Neg, "b", {x})});
    // batch 2: the slices interleave; batch 1: c is a graph output (written by its kernel).
    n.g.outputs = {batch2 ? n.op(OpKind::Exp, "y", {c}) : c};
    tir::IRModule m = n.lower();
    EXPECT_EQ(count_concat_kernels(m), 1) << batch2;
    HostTensor tx = random_f32({batch2 ? 2 : 1, 2, 3}, 3);
    HostTensor out(DataType::f32(), {batch2 ? 2 : 1, 4, 3});
    run_module(m, {&tx}, {&out});
    std::vector<double> want;
    for (int i = 0; i < (batch2 ? 2 : 1); ++i) {
      for (int j = 0; j < 6; ++j) want.push_back(relu(tx.get(i * 6 + j)));
      for (int j = 0; j < 6; ++j) want.push_back(-tx.get(i * 6 + j));
    }
    if (batch2) want = map(want, exp_);
    expect_near_all(out.values(), want, 1e-6);
  }
}

TEST(ConcatInPlace, InputsRepeatsAndSecondConcatsAreCopiedIntoTheirSlices) {
  // c = Concat(x, a, a) and d = Concat(a, b): x is a graph input and a appears three times; a
  // gets one slice (in c), the other three inputs are copied, b is written in place in d.
  Net n;
  Value* x = n.input("x", {1, 2, 4});
  Value* a = n.op(OpKind::Relu, "a", {x});
  Value* b = n.op(OpKind::Neg, "b", {x});
  Value* c = n.concat("c", {x, a, a});
  Value* d = n.concat("d", {a, b});
  n.g.outputs = {n.op(OpKind::Exp, "y", {c}), n.op(OpKind::Sigmoid, "z", {d})};
  tir::IRModule m = n.lower();
  EXPECT_EQ(count_concat_kernels(m), 0);
  int copies = 0;
  for (const tir::PrimFunc& f : m.kernels)
    copies += f.source_ops == std::vector<std::string>{"Concat (copy into its slice)"};
  EXPECT_EQ(copies, 3);
  EXPECT_EQ(m.kernels.size(), 7u);  // Relu, Neg, 3 copies, Exp, Sigmoid
  const ArgRef cin = kernel_call(m, "y_Exp").args[0];
  EXPECT_EQ(kernel_call(m, "a_Relu").args[1].value, cin.value + 32);
  EXPECT_EQ(kernel_call(m, "c_Concat_copy0").args[0].kind, ArgRef::kInput);
  EXPECT_EQ(kernel_call(m, "c_Concat_copy0").args[1].value, cin.value);
  EXPECT_EQ(kernel_call(m, "c_Concat_copy2").args[0].value, cin.value + 32);  // from a's slice
  EXPECT_EQ(kernel_call(m, "c_Concat_copy2").args[1].value, cin.value + 64);
  const ArgRef din = kernel_call(m, "z_Sigmoid").args[0];
  EXPECT_EQ(kernel_call(m, "b_Neg").args[1].value, din.value + 32);
  EXPECT_EQ(kernel_call(m, "d_Concat_copy0").args[1].value, din.value);
  HostTensor tx = random_f32({1, 2, 4}, 4);
  HostTensor oy(DataType::f32(), {1, 6, 4}), oz(DataType::f32(), {1, 4, 4});
  run_module(m, {&tx}, {&oy, &oz});
  std::vector<double> xs = tx.values(), as = map(xs, relu), bs = map(xs, neg);
  expect_near_all(oy.values(), map(concat_channels({xs, as, as}), exp_), 1e-6);
  expect_near_all(oz.values(), map(concat_channels({as, bs}), sigmoid), 1e-6);
}

TEST(ConcatInPlace, NestedConcatsShareTheOuterBuffer) {
  // DenseNet's dense block: c1 = [a, b], d = Sigmoid(c1), c2 = [c1, d]: a, b and d are written
  // into c2's buffer, c1 is its first half; no kernel copies anything.
  Net n;
  Value* x = n.input("x", {1, 1, 2, 3});
  Value* c1 = n.concat("c1", {n.op(OpKind::Relu, "a", {x}), n.op(OpKind::Neg, "b", {x})});
  Value* c2 = n.concat("c2", {c1, n.op(OpKind::Sigmoid, "d", {c1})});
  n.g.outputs = {n.op(OpKind::Exp, "y", {c2})};
  tir::IRModule m = n.lower();
  ASSERT_EQ(m.kernels.size(), 4u);
  EXPECT_EQ(count_concat_kernels(m), 0);
  int64_t base = kernel_call(m, "y_Exp").args[0].value;
  EXPECT_EQ(kernel_call(m, "a_Relu").args[1].value, base);
  EXPECT_EQ(kernel_call(m, "b_Neg").args[1].value, base + 24);
  EXPECT_EQ(kernel_call(m, "d_Sigmoid").args[0].value, base);
  EXPECT_EQ(kernel_call(m, "d_Sigmoid").args[1].value, base + 48);
  EXPECT_EQ(m.workspace_bytes, 128u);  // c2: 96 bytes
  HostTensor tx = random_f32({1, 1, 2, 3}, 5);
  HostTensor out(DataType::f32(), {1, 4, 2, 3});
  run_module(m, {&tx}, {&out});
  std::vector<double> c1v = concat_channels({map(tx.values(), relu), map(tx.values(), neg)});
  expect_near_all(out.values(), map(concat_channels({c1v, map(c1v, sigmoid)}), exp_), 1e-6);
}

TEST(ConcatInPlace, AnyAxisAfterUnitDims) {
  // Axis 2 of [1, 1, h, 3] and axis 0 (no dims before it) are contiguous slices too.
  for (int64_t axis : {0, 2}) {
    Net n;
    Value* x = n.input("x", {1, 1, 2, 3});
    Value* x2 = n.input("x2", {1, 1, 2, 3});
    Value* c = n.concat("c", {n.op(OpKind::Relu, "a", {x}), n.op(OpKind::Neg, "b", {x2})}, axis);
    n.g.outputs = {n.op(OpKind::Exp, "y", {c})};
    tir::IRModule m = n.lower();
    EXPECT_EQ(count_concat_kernels(m), 0) << axis;
    EXPECT_EQ(kernel_call(m, "b_Neg").args[1].value, kernel_call(m, "y_Exp").args[0].value + 24);
    HostTensor tx = random_f32({1, 1, 2, 3}, 6), tx2 = random_f32({1, 1, 2, 3}, 7);
    HostTensor out(DataType::f32(),
                   axis == 0 ? std::vector<int64_t>{2, 1, 2, 3} : std::vector<int64_t>{1, 1, 4, 3});
    run_module(m, {&tx, &tx2}, {&out});
    expect_near_all(out.values(),
                    map(concat_channels({map(tx.values(), relu), map(tx2.values(), neg)}), exp_),
                    1e-6);
  }
}

TEST(ConcatInPlace, BufferLivesUntilTheLastReaderOfAnySlice) {
  // a is read again after the Concat's only reader; the kernels between (e, f) must not take
  // c's bytes while a still lives there.
  Net n;
  Value* x = n.input("x", {1, 2, 8});
  Value* a = n.op(OpKind::Relu, "a", {x});
  Value* c = n.concat("c", {a, n.op(OpKind::Neg, "b", {x})});
  Value* d = n.op(OpKind::Exp, "d", {c});
  Value* e = n.op(OpKind::Sigmoid, "e", {d});
  Value* f = n.op(OpKind::Neg, "f", {e});
  n.g.outputs = {n.op(OpKind::Abs, "y", {f}), n.op(OpKind::Sigmoid, "z", {a})};
  tir::IRModule m = n.lower();
  EXPECT_EQ(count_concat_kernels(m), 0);
  int64_t base = kernel_call(m, "d_Exp").args[0].value, end = base + 4 * 32;
  for (const char* k : {"e_Sigmoid", "f_Neg"}) {
    ArgRef out = kernel_call(m, k).args[1];
    EXPECT_TRUE(out.value >= end || out.value + 4 * 32 <= base) << k;
  }
  HostTensor tx = random_f32({1, 2, 8}, 8);
  HostTensor oy(DataType::f32(), {1, 4, 8}), oz(DataType::f32(), {1, 2, 8});
  run_module(m, {&tx}, {&oy, &oz});
  std::vector<double> want;
  for (double v : concat_channels({map(tx.values(), relu), map(tx.values(), neg)}))
    want.push_back(std::abs(-sigmoid(std::exp(v))));
  expect_near_all(oy.values(), want, 1e-6);
  expect_near_all(oz.values(), map(map(tx.values(), relu), sigmoid), 1e-6);
}

}  // namespace
}  // namespace ingot::testing

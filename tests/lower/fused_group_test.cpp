// Fused groups (graph::fuse_ops) lowered to one kernel each: intermediates inlined (no
// workspace; elementwise members by the schedule's compute_inline), reductions with prologues and
// epilogues, a producer that cannot be inlined kept in the kernel, and the TIR helpers of
// lower/fuse_group.h. Numbers come from the loop-IR interpreter and are checked against closed
// forms.
#include "lower/fuse_group.h"

#include <gtest/gtest.h>

#include <cmath>

#include "graph/transforms/fuse_ops.h"
#include "graph/transforms/infer_types.h"
#include "graph/transforms/rewrite_util.h"
#include "lower/lower_graph.h"
#include "rule_test_util.h"
#include "schedule/rules/default_rules.h"
#include "tir/op.h"
#include "tir/region_analysis.h"
#include "tir/substitute.h"

namespace ingot::testing {
namespace {

using graph::Attrs;
using graph::Value;
using ops::OpKind;
using tir::DataType;

struct Net : TestNet {
  tir::IRModule lower(std::vector<Value*> outs, bool fuse = true) {
    g.outputs = std::move(outs);
    graph::infer_types(g);
    if (fuse) graph::fuse_ops(g);
    return lower::lower_graph(g);
  }
};

TEST(FusedGroup, InjectiveChainIsOneKernelWithoutWorkspace) {
  // y = Transpose(Neg(Exp(Relu(x))), [1, 0]) + w
  auto build = [](Net& n) {
    Value* x = n.input("x", {2, 3});
    Value* a = n.op(OpKind::Relu, "relu", {x});
    Value* b = n.op(OpKind::Exp, "exp", {a});
    Value* c = n.op(OpKind::Neg, "neg", {b});
    Attrs perm;
    perm.set("perm", std::vector<int64_t>{1, 0});
    Value* t = n.op(OpKind::Transpose, "tr", {c}, perm);
    return n.op(OpKind::Add, "add", {t, n.constant("w", {2}, {1, 2})});
  };
  Net fused, apart;
  tir::IRModule m = fused.lower({build(fused)});
  tir::IRModule m0 = apart.lower({build(apart)}, false);
  EXPECT_EQ(m0.kernels.size(), 5u);
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(m.workspace_bytes, 0u);
  EXPECT_EQ(m.kernels[0].params.size(), 3u);  // x, w, y
  EXPECT_EQ(m.kernels[0].source_ops,
            (std::vector<std::string>{"Relu", "Exp", "Neg", "Transpose", "Add"}));

  HostTensor in(DataType::f32(), {2, 3}, {-1, 0.5, 2, -3, 1, 0});
  HostTensor out(DataType::f32(), {3, 2});
  run_module(m, {&in}, {&out});
  std::vector<double> want;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) want.push_back(-std::exp(std::max(in.get(j * 3 + i), 0.0)) + j + 1);
  expect_near_all(out.values(), want, 1e-6);

  // The members are blocks storing intermediates the kernel's root allocates; its schedule (the
  // injective rule) inlines them one by one, leaving one nest and no intermediate.
  const tir::Block* root = m.kernels[0].body.as<tir::BlockRealize>()->block_node();
  EXPECT_EQ(root->alloc_buffers.size(), 4u);
  tir::IRModule scheduled = m;
  schedule::assign_schedule_rules(scheduled, "llvm");  // (lowering names no rule)
  EXPECT_EQ(scheduled.kernels[0].schedule_rule, "injective");
  schedule::apply_default_schedules(scheduled, 512);
  const std::string& trace = scheduled.kernels[0].schedule_trace;
  size_t inlines = 0;
  for (size_t at = trace.find("compute_inline"); at != std::string::npos;
       at = trace.find("compute_inline", at + 1))
    ++inlines;
  EXPECT_EQ(inlines, 4u) << trace;
  EXPECT_TRUE(
      scheduled.kernels[0].body.as<tir::BlockRealize>()->block_node()->alloc_buffers.empty());
  HostTensor out2(DataType::f32(), {3, 2});
  run_module(scheduled, {&in}, {&out2});
  expect_near_all(out2.values(), want, 1e-6);
}

TEST(FusedGroup, ReductionWithProloguesAndEpilogue) {
  // y[i] = sqrt(mean_j((x[i,j] - c[j])^2) + 1e-5), and a reshape-like Squeeze prologue.
  Net n;
  Value* x = n.input("x", {4, 1, 6});
  Attrs sq;
  sq.set("axes", std::vector<int64_t>{1});
  Value* xs = n.op(OpKind::Squeeze, "squeeze", {x}, sq);
  std::vector<float> c = {0.5f, -0.25f, 0, 1, 2, -1};
  Value* d = n.op(OpKind::Sub, "sub", {xs, n.constant("c", {6}, c)});
  Value* p = n.op(OpKind::Mul, "sq", {d, d});
  Attrs ra;
  ra.set("axes", std::vector<int64_t>{1});
  ra.set("keepdims", int64_t(0));
  Value* mean = n.op(OpKind::ReduceMean, "mean", {p}, ra);
  Value* e = n.op(OpKind::Add, "eps", {mean, n.constant("eps", {}, {1e-5f})});
  Value* y = n.op(OpKind::Sqrt, "sqrt", {e});
  tir::IRModule m = n.lower({y});
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(m.workspace_bytes, 0u);
  HostTensor in = random_f32({4, 1, 6}, 5);
  HostTensor out(DataType::f32(), {4});
  run_module(m, {&in}, {&out});
  std::vector<double> want;
  for (int i = 0; i < 4; ++i) {
    double s = 0;
    for (int j = 0; j < 6; ++j) s += std::pow(in.get(i * 6 + j) - c[j], 2);
    want.push_back(std::sqrt(s / 6 + 1e-5));
  }
  expect_near_all(out.values(), want, 1e-6);
}

// A reduction over an outer axis (LogSoftmax's expanded form, axis 0) with its prologue and its
// reader: the reduction is block "reduce" (compute/reduce.cpp, kept innermost dim), the Exp
// inlined into it, and its result stays a tensor of the kernel that the Log reads (as in TVM,
// reverse_compute_inline never moves a store into a reduction block, which writes its output at
// every step); the lanes-reduction schedule decomposes its init.
TEST(FusedGroup, ReductionOverAnOuterAxisIntoItsReader) {
  Net n;
  Value* x = n.input("x", {3, 4, 5});
  Value* e = n.op(OpKind::Exp, "exp", {x});
  Attrs ra;
  ra.set("axes", std::vector<int64_t>{0});
  Value* sum = n.op(OpKind::ReduceSum, "sum", {e}, ra);
  Value* y = n.op(OpKind::Log, "log", {sum});
  tir::IRModule m = n.lower({y});
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_GT(m.workspace_bytes, 0u);                              // the sums
  schedule::apply_default_schedules(m, CpuVectorIsa::x86(512));  // the inlining is the rule's
  const std::string& trace = m.kernels[0].schedule_trace;
  EXPECT_NE(trace.find("\"compute_inline\""), std::string::npos) << trace;
  EXPECT_EQ(trace.find("reverse_compute_inline"), std::string::npos) << trace;
  EXPECT_NE(trace.find("decompose_reduction"), std::string::npos) << trace;
  HostTensor in = random_f32({3, 4, 5}, 7);
  HostTensor out(DataType::f32(), {1, 4, 5});
  run_module(m, {&in}, {&out});
  std::vector<double> want;
  for (int j = 0; j < 20; ++j) {
    double s = 0;
    for (int i = 0; i < 3; ++i) s += std::exp(double(in.get(i * 20 + j)));
    want.push_back(std::log(s));
  }
  expect_near_all(out.values(), want, 1e-6);
}

TEST(FusedGroup, ProloguesIntoSoftmax) {
  Net n;
  Value* x = n.input("x", {2, 20});
  Value* mask = n.input("mask", {1, 20});
  Value* s = n.op(OpKind::Div, "scale", {x, n.constant("k", {}, {4})});
  Value* a = n.op(OpKind::Add, "mask_add", {s, mask});
  Attrs ax;
  ax.set("axis", int64_t(1));
  Value* y = n.op(OpKind::Softmax, "softmax", {a}, ax);
  tir::IRModule m = n.lower({y});
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(m.workspace_bytes, 0u);
  HostTensor in = random_f32({2, 20}, 7, -4, 4), mk = random_f32({1, 20}, 8, -2, 0);
  HostTensor out(DataType::f32(), {2, 20});
  run_module(m, {&in, &mk}, {&out});
  std::vector<double> want;
  for (int i = 0; i < 2; ++i) {
    std::vector<double> z;
    double mx = -1e30, sum = 0;
    for (int j = 0; j < 20; ++j) z.push_back(in.get(i * 20 + j) / 4 + mk.get(j));
    for (double v : z) mx = std::max(mx, v);
    for (double v : z) sum += std::exp(v - mx);
    for (double v : z) want.push_back(std::exp(v - mx) / sum);
  }
  expect_near_all(out.values(), want, 1e-6);
}

TEST(FusedGroup, ProducerThatCannotBeInlinedIsKeptInTheKernel) {
  // Concat writes its output in one nest per input: it stays a stored tensor in the kernel.
  Net n;
  Value* x = n.input("x", {2, 2});
  Value* z = n.input("z", {2, 3});
  Attrs ax;
  ax.set("axis", int64_t(1));
  Value* c = n.op(OpKind::Concat, "cat", {x, z}, ax);
  Value* y = n.op(OpKind::Relu, "relu", {c});
  tir::IRModule m = n.lower({y});
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(m.kernels[0].params.size(), 4u);  // x, z, the concatenation, y
  EXPECT_GT(m.workspace_bytes, 0u);
  HostTensor in_x(DataType::f32(), {2, 2}, {-1, 2, 3, -4});
  HostTensor in_z(DataType::f32(), {2, 3}, {5, -6, 7, -8, 9, 10});
  HostTensor out(DataType::f32(), {2, 5});
  run_module(m, {&in_x, &in_z}, {&out});
  expect_near_all(out.values(), {0, 2, 5, 0, 7, 3, 0, 0, 9, 10});
}

// The TIR helpers on hand-built nests.
TEST(FusedGroup, MatchAndInlineHelpers) {
  using namespace tir;
  Buffer t = Buffer::make("t", DataType::f32(), std::vector<int64_t>{4, 1});
  Buffer x = Buffer::make("x", DataType::f32(), std::vector<int64_t>{4, 1});
  Buffer y = Buffer::make("y", DataType::f32(), std::vector<int64_t>{4});
  Buffer s = Buffer::make("s", DataType::f32(), std::vector<int64_t>{1});
  Var i("i"), j("j");
  // t[i, 0] = x[i, 0] * 2
  Stmt prod = For::make(i, i64(0), i64(4), ForKind::kSerial,
                        BufferStore::make(t, x.load({i, i64(0)}) * 2.0, {i, i64(0)}));
  auto store = lower::match_elementwise_store(prod, t);
  ASSERT_TRUE(store.has_value());
  // Not a single store into t: wrong buffer, or an index that is not the loop variable.
  EXPECT_FALSE(lower::match_elementwise_store(prod, x).has_value());
  Stmt shifted = For::make(i, i64(0), i64(3), ForKind::kSerial,
                           BufferStore::make(t, x.load({i, i64(0)}), {i + i64(1), i64(0)}));
  EXPECT_FALSE(lower::match_elementwise_store(shifted, t).has_value());
  // y[j] = t[3 - j, 0] + 1 becomes x[3 - j, 0] * 2 + 1.
  Stmt cons = For::make(j, i64(0), i64(4), ForKind::kSerial,
                        BufferStore::make(y, t.load({i64(3) - j, i64(0)}) + 1.0, {j}));
  EXPECT_TRUE(lower::reads_buffer(cons, t));
  Stmt inl = lower::inline_loads(cons, t, *store);
  EXPECT_FALSE(lower::reads_buffer(inl, t));
  EXPECT_TRUE(lower::reads_buffer(inl, x));
  // Reverse: a producer block storing s once, a reader block storing o at its own index.
  auto nest = [](const std::string& name, const Buffer& out, std::function<Expr(Expr)> value) {
    Var v("v"), l("l");
    Stmt st = BufferStore::make(out, value(v), {Expr(v)});
    return For::make(
        l, i64(0), i64(1), ForKind::kSerial,
        BlockRealize::make({l}, make_const(DataType::boolean(), 1),
                           make_block(name, {{v, i64(0), i64(1), IterKind::kSpatial}}, st)));
  };
  Buffer o = Buffer::make("o", DataType::f32(), std::vector<int64_t>{1});
  Stmt sum_into_s = nest("sum", s, [&](Expr) { return x.load({i64(0), i64(0)}); });
  Stmt reader_ok = nest("reader", o, [&](Expr v) { return s.load({v}) + 1.0; });
  EXPECT_TRUE(lower::stores_once(sum_into_s, s));
  EXPECT_TRUE(lower::reads_at_own_index(reader_ok, s, o));
  // A producer that stores s twice, or a reader of s at another index, does not fit.
  Stmt twice = SeqStmt::make({sum_into_s, sum_into_s});
  EXPECT_FALSE(lower::stores_once(twice, s));
  EXPECT_FALSE(lower::stores_once(reader_ok, s));  // it loads s
  Stmt reader_elsewhere = nest("elsewhere", o, [&](Expr v) { return s.load({v * 0}) + 1.0; });
  EXPECT_FALSE(lower::reads_at_own_index(reader_elsewhere, s, o));
}

}  // namespace
}  // namespace ingot::testing

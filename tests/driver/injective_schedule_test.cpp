// The injective rule (schedule/rules/injective.h) on lowered kernels: its default point gives
// the loop kinds compute rules set before it existed (outer loop parallel, inner vectorized),
// and random points of its design space (fused parallel and vector loops, a flat copy split
// into parallel chunks, no parallel loop at all, a softmax's rows over fused loops) are
// compiled, run through the runtime and checked against the closed form, with threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "codegen/build.h"
#include "compiled_model.h"
#include "driver/loop_passes.h"
#include "graph/transforms/infer_types.h"
#include "graph/transforms/rewrite_util.h"
#include "lower/lower_graph.h"
#include "schedule/rules/default_rules.h"
#include "schedule/rules/injective.h"
#include "tir/visitor.h"
#include "tune/task.h"

namespace ingot::testing {
namespace {

constexpr int64_t kN = 4, kC = 3, kH = 8, kW = 64, kSize = kN * kC * kH * kW;

// x[4,3,8,64] -> relu(x + c[64]), Transpose(x, [0,2,1,3]), x itself (a flat copy of 6144
// elements) and Softmax(x) over the last axis (a row block per [n, c, h]).
tir::IRModule lowered_model(bool second_relu = false) {
  graph::Graph g;
  graph::TensorType t{graph::DType::kF32, {}};
  for (int64_t d : {kN, kC, kH, kW}) t.shape.push_back(graph::Dim::fixed(d));
  graph::Value* x = g.add_value("x", t);
  g.inputs = {x};
  std::vector<float> c(kW);
  for (int64_t i = 0; i < kW; ++i) c[size_t(i)] = float(i % 9) * 0.25f - 1.0f;
  graph::Value* cv = g.add_constant("c", graph::f32_constant({kW}, c));
  graph::Value* sum = g.add_node(ops::OpKind::Add, "add", {x, cv}, {"sum"})->outputs[0];
  graph::Value* relu = g.add_node(ops::OpKind::Relu, "relu", {sum}, {"relu"})->outputs[0];
  graph::Attrs perm;
  perm.set("perm", std::vector<int64_t>{0, 2, 1, 3});
  graph::Value* tr = g.add_node(ops::OpKind::Transpose, "tr", {x}, {"tr"}, perm)->outputs[0];
  graph::Value* sm = g.add_node(ops::OpKind::Softmax, "sm", {x}, {"sm"})->outputs[0];
  g.outputs = {relu, tr, x, sm};
  if (second_relu)
    g.outputs.push_back(g.add_node(ops::OpKind::Relu, "r2", {x}, {"r2"})->outputs[0]);
  graph::infer_types(g);
  tir::IRModule m = lower::lower_graph(g);
  schedule::assign_schedule_rules(m, "llvm");  // as compile_model does after lowering
  return m;
}

float bias(int64_t w) {
  return float(w % 9) * 0.25f - 1.0f;
}

struct LoopKinds : tir::IRVisitor {
  void visit_For(const tir::For* op, const tir::Stmt& s) override {
    kinds.push_back(op->kind);
    tir::IRVisitor::visit_For(op, s);
  }
  std::vector<tir::ForKind> kinds;
};

// Every injective kernel scheduled from `seed` (0: the default point), compiled and run.
void expect_correct(uint64_t seed, std::set<std::string>* traces = nullptr) {
  tir::IRModule mod = lowered_model();
  int injective = 0;
  for (tir::PrimFunc& f : mod.kernels) {
    if (f.schedule_rule != schedule::kInjectiveRule) continue;
    ++injective;
    schedule::Schedule s(f, seed);
    if (seed > 0) s.set_sampling_policy({.ignore_given = true});
    schedule::schedule_injective(s, CpuVectorIsa::x86(512));
    if (traces) traces->insert(s.trace().to_python_script());
    f = schedule::scheduled_kernel(f, s);
  }
  ASSERT_EQ(injective, 5);  // add, relu, transpose, the output copy, softmax
  driver::run_loop_passes(mod);
  std::filesystem::path dir = temp_dir("injective");
  std::string so = (dir / ("m" + std::to_string(seed) + ".so")).string();
  codegen::build_shared_library(mod, codegen::Target::host(), so);
  IngotModel* model = nullptr;
  IngotSession* session = nullptr;
  ASSERT_EQ(ingot_model_load(so.c_str(), &model), INGOT_OK) << ingot_last_error();
  ASSERT_EQ(ingot_session_create(model, &session), INGOT_OK) << ingot_last_error();
  std::vector<float> x(kSize);
  for (int64_t i = 0; i < kSize; ++i) x[size_t(i)] = float((i * 37) % 101) * 0.02f - 1.0f;
  ASSERT_EQ(ingot_session_set_input_copy(session, 0, x.data(), x.size() * sizeof(float)), INGOT_OK);
  ASSERT_EQ(ingot_session_run(session), INGOT_OK) << ingot_last_error();
  DLTensor relu, tr, copy, soft;
  ASSERT_EQ(ingot_session_output(session, 0, &relu), INGOT_OK);
  ASSERT_EQ(ingot_session_output(session, 1, &tr), INGOT_OK);
  ASSERT_EQ(ingot_session_output(session, 2, &copy), INGOT_OK);
  ASSERT_EQ(ingot_session_output(session, 3, &soft), INGOT_OK);
  auto* r = static_cast<const float*>(relu.data);
  auto* t = static_cast<const float*>(tr.data);
  auto* c = static_cast<const float*>(copy.data);
  auto* sm = static_cast<const float*>(soft.data);
  for (int64_t row = 0; row < kN * kC * kH; ++row) {
    const float* xr = x.data() + row * kW;
    double mx = *std::max_element(xr, xr + kW), sum = 0;
    for (int64_t w = 0; w < kW; ++w) sum += std::exp(double(xr[w]) - mx);
    for (int64_t w = 0; w < kW; ++w)
      ASSERT_NEAR(sm[row * kW + w], std::exp(double(xr[w]) - mx) / sum, 1e-6) << "softmax " << row;
  }
  for (int64_t n = 0; n < kN; ++n)
    for (int64_t ch = 0; ch < kC; ++ch)
      for (int64_t h = 0; h < kH; ++h)
        for (int64_t w = 0; w < kW; ++w) {
          int64_t i = ((n * kC + ch) * kH + h) * kW + w;
          int64_t j = ((n * kH + h) * kC + ch) * kW + w;
          ASSERT_EQ(r[i], std::max(x[size_t(i)] + bias(w), 0.0f)) << "relu at " << i;
          ASSERT_EQ(t[j], x[size_t(i)]) << "transpose at " << j;
          ASSERT_EQ(c[i], x[size_t(i)]) << "copy at " << i;
        }
  ingot_session_free(session);
  ingot_model_free(model);
}

TEST(InjectiveRule, LoweringEmitsBlocksThatTheRuleSchedules) {
  tir::IRModule mod = lowered_model();
  schedule::apply_default_schedules(mod, 512);
  for (const tir::PrimFunc& f : mod.kernels) {
    ASSERT_EQ(f.schedule_rule, schedule::kInjectiveRule) << f.name;
    ASSERT_FALSE(f.schedule_trace.empty()) << f.name;
  }
  // The default point: outermost loop parallel, innermost vectorized (a flat copy: one
  // vectorized loop).
  for (const tir::PrimFunc& f : mod.kernels) {
    LoopKinds k;
    k.visit(f.body);
    ASSERT_FALSE(k.kinds.empty()) << f.name;
    EXPECT_EQ(k.kinds.back(), tir::ForKind::kVectorized) << f.name;
    if (k.kinds.size() > 1) {
      EXPECT_EQ(k.kinds.front(), tir::ForKind::kParallel) << f.name;
    }
  }
}

TEST(InjectiveRule, EqualComputationsShareATask) {
  // Relu(x + c) and Relu(x) in two kernels: the same block-form compute (block names do not
  // come from the tensors), so one tuning task, whose trace applies to both.
  tir::IRModule mod = lowered_model(true);
  std::vector<tune::Task> tasks = tune::extract_tasks(mod, "llvm");
  EXPECT_EQ(tasks.size(), mod.kernels.size() - 1);
  bool shared = false;
  for (const tune::Task& t : tasks) {
    if (t.kernels.size() < 2) continue;
    shared = true;
    EXPECT_EQ(mod.kernels[size_t(t.kernels[0])].name, "relu_Relu");
    EXPECT_EQ(mod.kernels[size_t(t.kernels[1])].name, "r2_Relu");
  }
  EXPECT_TRUE(shared);
}

TEST(InjectiveRule, DefaultPointIsCorrect) {
  expect_correct(0);
}

TEST(InjectiveRule, RandomPointsAreCorrect) {
  std::set<std::string> traces;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE(seed);
    expect_correct(seed, &traces);
  }
  // The seeds reach several points of the space (the kernels' traces differ).
  EXPECT_GT(traces.size(), 8u);
}

}  // namespace
}  // namespace ingot::testing

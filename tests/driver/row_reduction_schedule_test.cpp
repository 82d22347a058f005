// Reductions inside rows (schedule/rules/row_reduction.h) and their lane loops on lowered
// kernels: the default point splits a contiguous reduction of at least 16 into 16 lanes of
// partial results (rfactor) and leaves a strided one serial; the lane counts offered follow the
// target's vector width; every lane count of the space, for AVX-512 and AVX2 widths, compiled,
// run through the runtime and checked against closed forms (sums, maxima, softmax), with tails
// and over two loops; lane loops come out of lowering as blocks that the rule vectorizes.
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
#include "schedule/rules/row_reduction.h"
#include "tir/visitor.h"

namespace ingot::testing {
namespace {

// x[6, 5, 37]: ReduceSum over the last axis (37 = two strips of 16 and a tail of 5),
// ReduceMax over the last two axes (a reduction over two loops), Softmax over the last axis,
// and Softmax over axis 1 (strided: no split by default).
constexpr int64_t kA = 6, kB = 5, kL = 37;

tir::IRModule lowered_model() {
  graph::Graph g;
  graph::TensorType t{graph::DType::kF32, {}};
  for (int64_t d : {kA, kB, kL}) t.shape.push_back(graph::Dim::fixed(d));
  graph::Value* x = g.add_value("x", t);
  g.inputs = {x};
  auto axes = [](std::vector<int64_t> a) {
    graph::Attrs at;
    at.set("axes", a);
    at.set("keepdims", int64_t(0));
    return at;
  };
  graph::Attrs axis1;
  axis1.set("axis", int64_t(1));
  g.outputs = {g.add_node(ops::OpKind::ReduceSum, "sum", {x}, {"sum"}, axes({2}))->outputs[0],
               g.add_node(ops::OpKind::ReduceMax, "max", {x}, {"max"}, axes({1, 2}))->outputs[0],
               g.add_node(ops::OpKind::Softmax, "sm", {x}, {"sm"})->outputs[0],
               g.add_node(ops::OpKind::Softmax, "sm1", {x}, {"sm1"}, axis1)->outputs[0]};
  graph::infer_types(g);
  tir::IRModule m = lower::lower_graph(g);
  schedule::assign_schedule_rules(m, "llvm");  // as compile_model does after lowering
  return m;
}

float input(int64_t i) {
  return float((i * 37) % 101) * 0.05f - 2.5f;
}

// The kernels scheduled by the injective rule for `isa`, each reduction forced to the lanes
// `pick` chooses among its candidates (the row's parallel choice left at its default); returns
// the rfactor calls made.
int schedule_module(tir::IRModule& mod, const CpuVectorIsa& isa,
                    const std::function<size_t(size_t)>& pick,
                    std::set<std::vector<int64_t>>* candidates = nullptr) {
  int rfactors = 0;
  for (tir::PrimFunc& f : mod.kernels) {
    if (f.schedule_rule != schedule::kInjectiveRule) continue;
    // A first pass at the default point reads each sampling instruction's candidates.
    schedule::Schedule probe(f);
    schedule::schedule_injective(probe, isa);
    schedule::SamplingPolicy policy;
    int k = 0;
    for (const schedule::Instruction& inst : probe.trace().instructions) {
      if (inst.kind != "sample_categorical") continue;
      auto cands = inst.attrs.at("candidates").get<std::vector<int64_t>>();
      if (cands.front() == 0 && k > 0) {  // a reduction's lanes (0: no split)
        if (candidates) candidates->insert(cands);
        policy.forced[k] = int64_t(pick(cands.size()) % cands.size());
      }
      ++k;
    }
    schedule::Schedule s(f);
    s.set_sampling_policy(policy);
    schedule::schedule_injective(s, isa);
    for (const schedule::Instruction& inst : s.trace().instructions)
      rfactors += inst.kind == "rfactor";
    f = schedule::scheduled_kernel(f, s);
  }
  return rfactors;
}

void expect_correct(tir::IRModule mod) {
  driver::run_loop_passes(mod);
  std::filesystem::path dir = temp_dir("row_reduction");
  static int n = 0;
  std::string so = (dir / ("m" + std::to_string(n++) + ".so")).string();
  codegen::build_shared_library(mod, codegen::Target::host(), so);
  IngotModel* model = nullptr;
  IngotSession* session = nullptr;
  ASSERT_EQ(ingot_model_load(so.c_str(), &model), INGOT_OK) << ingot_last_error();
  ASSERT_EQ(ingot_session_create(model, &session), INGOT_OK) << ingot_last_error();
  std::vector<float> x(kA * kB * kL);
  for (size_t i = 0; i < x.size(); ++i) x[i] = input(int64_t(i));
  ASSERT_EQ(ingot_session_set_input_copy(session, 0, x.data(), x.size() * sizeof(float)), INGOT_OK);
  ASSERT_EQ(ingot_session_run(session), INGOT_OK) << ingot_last_error();
  DLTensor out[4];
  for (int k = 0; k < 4; ++k) ASSERT_EQ(ingot_session_output(session, k, &out[k]), INGOT_OK);
  auto at = [&](int64_t a, int64_t b, int64_t l) { return x[size_t((a * kB + b) * kL + l)]; };
  auto* sum = static_cast<const float*>(out[0].data);
  auto* mx = static_cast<const float*>(out[1].data);
  auto* sm = static_cast<const float*>(out[2].data);
  auto* sm1 = static_cast<const float*>(out[3].data);
  for (int64_t a = 0; a < kA; ++a) {
    float row_max = -INFINITY;
    for (int64_t b = 0; b < kB; ++b) {
      double s = 0, m = -INFINITY, e = 0;
      for (int64_t l = 0; l < kL; ++l) {
        s += at(a, b, l);
        m = std::max(m, double(at(a, b, l)));
        row_max = std::max(row_max, at(a, b, l));
      }
      ASSERT_NEAR(sum[a * kB + b], s, 1e-4) << "sum " << a << "," << b;
      for (int64_t l = 0; l < kL; ++l) e += std::exp(at(a, b, l) - m);
      for (int64_t l = 0; l < kL; ++l)
        ASSERT_NEAR(sm[(a * kB + b) * kL + l], std::exp(at(a, b, l) - m) / e, 1e-6);
    }
    ASSERT_EQ(mx[a], row_max) << "max " << a;
    for (int64_t l = 0; l < kL; ++l) {
      double m = -INFINITY, e = 0;
      for (int64_t b = 0; b < kB; ++b) m = std::max(m, double(at(a, b, l)));
      for (int64_t b = 0; b < kB; ++b) e += std::exp(at(a, b, l) - m);
      for (int64_t b = 0; b < kB; ++b)
        ASSERT_NEAR(sm1[(a * kB + b) * kL + l], std::exp(at(a, b, l) - m) / e, 1e-6);
    }
  }
  ingot_session_free(session);
  ingot_model_free(model);
}

TEST(RowReductionRule, DefaultSplitsContiguousReductionsIntoSixteenLanes) {
  tir::IRModule mod = lowered_model();
  std::set<std::vector<int64_t>> cands;
  // The default point: ReduceSum's sum, ReduceMax's max (inner loop 37), softmax's max and sum
  // are split; the strided softmax's two reductions (over 5) are not.
  tir::IRModule def = mod;
  int rfactors = 0;
  for (tir::PrimFunc& f : def.kernels) {
    if (f.schedule_rule != schedule::kInjectiveRule) continue;
    schedule::Schedule s(f);
    schedule::schedule_injective(s, CpuVectorIsa::x86(512));
    for (const schedule::Instruction& inst : s.trace().instructions) {
      if (inst.kind != "split") continue;
      auto factors = inst.inputs.at(1);
      if (factors.size() == 2 && factors[1] == schedule::kDefaultReductionLanes) ++rfactors;
    }
    f = schedule::scheduled_kernel(f, s);
  }
  EXPECT_EQ(rfactors, 4);
  expect_correct(def);
  // The lanes offered: 0 and 1, 2 and 4 registers of float32 up to the loop's extent.
  tir::IRModule m512 = mod, m256 = mod;
  auto none = [](size_t) -> size_t { return 0; };
  schedule_module(m512, CpuVectorIsa::x86(512), none, &cands);
  EXPECT_TRUE(cands.count({0, 16, 32}));  // extent 37 on AVX-512: 64 does not fit
  cands.clear();
  schedule_module(m256, CpuVectorIsa::x86(256), none, &cands);
  EXPECT_TRUE(cands.count({0, 8, 16, 32}));
  EXPECT_TRUE(cands.count({0}) == 0);  // a reduction with nothing to choose has no instruction
}

// The loops of each "lanes" block in f: their kinds, in order.
std::vector<tir::ForKind> lane_loop_kinds(const tir::PrimFunc& f) {
  struct Finder : tir::IRVisitor {
    void visit_For(const tir::For* op, const tir::Stmt& s) override {
      if (auto* br = op->body.as<tir::BlockRealize>();
          br != nullptr && br->block_node()->name_hint.starts_with("lanes"))
        kinds.push_back(op->kind);
      tir::IRVisitor::visit_For(op, s);
    }
    std::vector<tir::ForKind> kinds;
  } finder;
  finder.visit(f.body);
  return finder.kinds;
}

TEST(RowReductionRule, LaneLoopsAreBlocksTheRuleVectorizes) {
  // Softmax's scaling pass over the last axis is a lane loop: a "lanes" block over a serial
  // loop after lowering, vectorized by the injective rule; the strided softmax has none.
  tir::IRModule mod = lowered_model();
  int with_lanes = 0;
  for (tir::PrimFunc& f : mod.kernels) {
    std::vector<tir::ForKind> before = lane_loop_kinds(f);
    if (before.empty()) continue;
    ++with_lanes;
    for (tir::ForKind k : before) EXPECT_EQ(k, tir::ForKind::kSerial) << f.name;
    schedule::Schedule s(f);
    schedule::schedule_injective(s, CpuVectorIsa::x86(512));
    f = schedule::scheduled_kernel(f, s);
    for (tir::ForKind k : lane_loop_kinds(f)) EXPECT_EQ(k, tir::ForKind::kVectorized) << f.name;
  }
  EXPECT_EQ(with_lanes, 1);  // sm
}

TEST(RowReductionRule, EveryLaneCountIsCorrect) {
  for (int bits : {512, 256}) {
    for (size_t choice = 0; choice < 4; ++choice) {
      SCOPED_TRACE(::testing::Message() << bits << " bits, candidate " << choice);
      tir::IRModule mod = lowered_model();
      int rfactors = schedule_module(mod, CpuVectorIsa::x86(bits), [&](size_t) { return choice; });
      if (choice == 0) {
        EXPECT_EQ(rfactors, 0);
      } else if (choice < 3) {
        EXPECT_GT(rfactors, 0);
      }
      expect_correct(mod);
    }
  }
}

// A whole-tensor reduction at a kernel's root (DynamicQuantizeLinear's range: max and min over
// x[19, 40], 40 = two strips of 16 and a tail of 8): the injective rule splits each into 16 lanes
// as it does a row's, and the kernel still quantizes as ONNX defines it (closed form below).
TEST(RowReductionRule, RootReductionsSplitIntoLanesToo) {
  constexpr int64_t kR = 19, kC = 40;
  graph::Graph g;
  graph::Value* x = g.add_value(
      "x", graph::TensorType{graph::DType::kF32, {graph::Dim::fixed(kR), graph::Dim::fixed(kC)}});
  g.inputs = {x};
  graph::Node* dq =
      g.add_node(ops::OpKind::DynamicQuantizeLinear, "dq", {x}, {"y", "y_scale", "y_zero_point"});
  g.outputs = dq->outputs;
  graph::infer_types(g);
  tir::IRModule mod = lower::lower_graph(g);
  schedule::assign_schedule_rules(mod, "llvm");
  int rfactors = 0;
  for (tir::PrimFunc& f : mod.kernels) {
    ASSERT_EQ(f.schedule_rule, schedule::kInjectiveRule) << f.name;
    schedule::Schedule s(f);
    schedule::schedule_injective(s, CpuVectorIsa::x86(512));
    for (const schedule::Instruction& inst : s.trace().instructions)
      rfactors += inst.kind == "rfactor";
    f = schedule::scheduled_kernel(f, s);
  }
  EXPECT_EQ(rfactors, 2);  // max and min
  driver::run_loop_passes(mod);
  std::string so = (temp_dir("row_reduction") / "dq.so").string();
  codegen::build_shared_library(mod, codegen::Target::host(), so);
  IngotModel* model = nullptr;
  IngotSession* session = nullptr;
  ASSERT_EQ(ingot_model_load(so.c_str(), &model), INGOT_OK) << ingot_last_error();
  ASSERT_EQ(ingot_session_create(model, &session), INGOT_OK) << ingot_last_error();
  std::vector<float> xs(kR * kC);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = input(int64_t(i)) * (i == 613 ? 3.0f : 1.0f);
  ASSERT_EQ(ingot_session_set_input_copy(session, 0, xs.data(), xs.size() * sizeof(float)),
            INGOT_OK);
  ASSERT_EQ(ingot_session_run(session), INGOT_OK) << ingot_last_error();
  DLTensor out[3];
  for (int k = 0; k < 3; ++k) ASSERT_EQ(ingot_session_output(session, k, &out[k]), INGOT_OK);
  // ONNX: the range includes 0; scale = (max - min) / 255; zero point = saturate(round(-min /
  // scale)); y = saturate(round(x / scale) + zero point), rounding half to even.
  float hi = 0, lo = 0;
  for (float v : xs) hi = std::max(hi, v), lo = std::min(lo, v);
  const float scale = (hi - lo) / 255.0f;
  const float zp = std::nearbyint(std::clamp(-lo / scale, 0.0f, 255.0f));
  EXPECT_EQ(*static_cast<const float*>(out[1].data), scale);
  EXPECT_EQ(float(*static_cast<const uint8_t*>(out[2].data)), zp);
  auto* y = static_cast<const uint8_t*>(out[0].data);
  for (size_t i = 0; i < xs.size(); ++i)
    ASSERT_EQ(float(y[i]), std::clamp(std::nearbyint(xs[i] / scale) + zp, 0.0f, 255.0f)) << i;
  ingot_session_free(session);
  ingot_model_free(model);
}

}  // namespace
}  // namespace ingot::testing

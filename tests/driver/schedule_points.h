// Test helpers for schedule rules on compiled models: the module a compile lowers (it stops
// there), that module built with one rule's kernels at a random point of the rule's design
// space, every trace checked to replay to the same kernel, and a tied table's model (a Gather
// and, transposed, a product of one constant) with the traces of its injective kernels.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include "codegen/build.h"
#include "codegen/target.h"
#include "driver/compile.h"
#include "driver/loop_passes.h"
#include "driver/onnx_model_builder.h"
#include "schedule/rules/default_rules.h"
#include "schedule/rules/injective.h"
#include "schedule/trace.h"
#include "tir/structural_equal.h"

namespace ingot::testing {

// The lowered, unscheduled module of `onnx` compiled with `o`, its rules assigned.
inline tir::IRModule lowered_module(const std::string& onnx, const std::filesystem::path& dir,
                                    driver::CompileOptions o = {}) {
  tir::IRModule mod;
  o.after_lower = [&](const tir::IRModule& m) {
    mod = m;
    return false;
  };
  std::ostringstream dump;
  driver::compile_model(onnx, (dir / "unused.so").string(), o, dump);
  schedule::assign_schedule_rules(mod, "llvm");
  return mod;
}

// `unscheduled` with every kernel of rule `rule` scheduled under `policy` from `seed` (each trace
// added to `traces` and checked to replay to the same kernel), the other kernels at their
// default, built for the host into `so`.
inline void build_point(const tir::IRModule& unscheduled, const std::string& rule, uint64_t seed,
                        const schedule::SamplingPolicy& policy, const std::string& so,
                        std::set<std::string>& traces) {
  const schedule::ScheduleRule* r = schedule::find_schedule_rule(rule, "llvm");
  ASSERT_NE(r, nullptr) << rule;
  const schedule::RuleTarget target = driver::rule_target(codegen::Target::host());
  tir::IRModule mod = unscheduled;
  for (tir::PrimFunc& f : mod.kernels) {
    if (f.schedule_rule != rule) continue;
    schedule::Schedule s(f, seed);
    s.set_sampling_policy(policy);
    r->apply(s, target);
    traces.insert(s.trace().to_python_script());
    schedule::Schedule again = schedule::Trace::from_json(s.trace().to_json()).replay(f);
    EXPECT_TRUE(tir::structural_equal(again.func(), s.func())) << f.name;
    f = schedule::scheduled_kernel(f, s);
  }
  schedule::apply_default_schedules(mod, target);
  driver::run_loop_passes(mod);
  codegen::build_shared_library(mod, codegen::Target::host(), so);
}

// `unscheduled` with every kernel of rule `rule` at the random point `seed` of its design space
// (build_point with every decision drawn).
inline void build_random_point(const tir::IRModule& unscheduled, const std::string& rule,
                               uint64_t seed, const std::string& so,
                               std::set<std::string>& traces) {
  build_point(unscheduled, rule, seed, {.ignore_given = true}, so, traces);
}

// ids [seq] -> e = Gather(W, ids) [seq, width]; logits = MatMul(e, W^T) [seq, vocab], W random
// [vocab, width] (seed): the model file in `dir`.
inline std::string tied_table_model(const std::filesystem::path& dir, int64_t vocab, int64_t width,
                                    const std::vector<float>& w) {
  OnnxModelBuilder b(13);
  b.input("ids", {0}, onnx::TensorProto::INT64, {"seq"});
  b.initializer("W", {vocab, width}, w);
  b.node("Gather", {"W", "ids"}, {"e"});
  OnnxModelBuilder::attr_ints(b.node("Transpose", {"W"}, {"wt"}), "perm", {1, 0});
  b.node("MatMul", {"e", "wt"}, {"logits"});
  b.output("logits");
  const std::string path = (dir / "tied.onnx").string();
  b.save(path);
  return path;
}

// Checks that every kernel of the scheduled `mod` has a trace that replays on its unscheduled
// form to the same kernel; returns the traces of the injective rule's kernels.
inline std::vector<schedule::Trace> injective_traces_replayed(const tir::IRModule& mod,
                                                              const tir::IRModule& unscheduled) {
  std::vector<schedule::Trace> out;
  for (size_t k = 0; k < mod.kernels.size(); ++k) {
    const tir::PrimFunc& f = mod.kernels[k];
    EXPECT_FALSE(f.schedule_trace.empty()) << f.name;
    if (f.schedule_trace.empty()) continue;
    schedule::Trace t = schedule::Trace::from_json(nlohmann::json::parse(f.schedule_trace));
    EXPECT_TRUE(tir::structural_equal(t.replay(unscheduled.kernels[k]).func(), f)) << f.name;
    if (f.schedule_rule == schedule::kInjectiveRule) out.push_back(t);
  }
  return out;
}

}  // namespace ingot::testing

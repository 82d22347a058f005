// Test helpers for schedule rules on compiled models: the module a compile lowers (it stops
// there), and that module built with one rule's kernels at a random point of the rule's design
// space, every trace checked to replay to the same kernel.
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
#include "schedule/rules/default_rules.h"
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

// `unscheduled` with every kernel of rule `rule` at the random point `seed` of its design space
// (each trace added to `traces` and checked to replay to the same kernel), the other kernels at
// their default, built for the host into `so`.
inline void build_random_point(const tir::IRModule& unscheduled, const std::string& rule,
                               uint64_t seed, const std::string& so,
                               std::set<std::string>& traces) {
  const schedule::ScheduleRule* r = schedule::find_schedule_rule(rule, "llvm");
  ASSERT_NE(r, nullptr) << rule;
  const schedule::RuleTarget target = driver::rule_target(codegen::Target::host());
  tir::IRModule mod = unscheduled;
  for (tir::PrimFunc& f : mod.kernels) {
    if (f.schedule_rule != rule) continue;
    schedule::Schedule s(f, seed);
    s.set_sampling_policy({.ignore_given = true});
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

}  // namespace ingot::testing

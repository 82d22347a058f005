// The default-schedule stage on lowered models: every rule is found in the registry by its name
// and target kind, each scheduled kernel keeps its trace, and that trace replayed on the
// unscheduled kernel gives the same function (the property tuning records rely on), for the
// blocked conv, depthwise conv, dense matmul and injective (layout conversion) rules on both x86
// vector widths.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/small_conv_model.h"
#include "rule_test_util.h"
#include "schedule/rules/default_rules.h"
#include "tir/structural_equal.h"

namespace ingot::testing {
namespace {

tir::IRModule lowered(int vector_bits) {
  return lowered_small_conv_model(vector_bits);
}

TEST(DefaultRules, EveryKernelsTraceReplaysToItsSchedule) {
  for (int bits : {512, 256}) {
    SCOPED_TRACE(bits);
    tir::IRModule before = lowered(bits);
    tir::IRModule after = before;
    schedule::apply_default_schedules(after, bits);
    std::set<std::string> rules;
    for (size_t k = 0; k < before.kernels.size(); ++k) {
      const tir::PrimFunc& f = before.kernels[k];
      const tir::PrimFunc& s = after.kernels[k];
      if (f.schedule_rule.empty()) {
        EXPECT_TRUE(s.schedule_trace.empty()) << s.name;
        continue;
      }
      rules.insert(f.schedule_rule);
      EXPECT_EQ(s.schedule_rule, f.schedule_rule);
      ASSERT_FALSE(s.schedule_trace.empty()) << s.name;
      schedule::Trace t = schedule::Trace::from_json(nlohmann::json::parse(s.schedule_trace));
      schedule::Schedule r = t.replay(f);
      // (Functions, not bodies: the buffers a schedule made, a global cache or a constant's new
      // layout, are parameters, matched by position.)
      EXPECT_TRUE(tir::structural_equal(r.func(), s)) << s.name;
    }
    // (injective: the layout conversions into and out of channel blocks)
    EXPECT_EQ(rules, (std::set<std::string>{"blocked_conv2d", "depthwise_conv_nchwc", "injective",
                                            "dense_matmul"}));
    // Scheduling twice changes nothing: kernels with a trace are left alone.
    tir::IRModule again = after;
    schedule::apply_default_schedules(again, bits);
    for (size_t k = 0; k < after.kernels.size(); ++k)
      EXPECT_TRUE(tir::structural_equal(again.kernels[k].body, after.kernels[k].body));
    std::string script = schedule::schedule_traces_to_python(after);
    EXPECT_NE(script.find("rule depthwise_conv_nchwc\n"), std::string::npos) << script;
    EXPECT_NE(script.find("sch.tensorize("), std::string::npos);
  }
}

TEST(DefaultRules, RulesAreKeyedByNameAndTargetKind) {
  EXPECT_NE(schedule::find_schedule_rule("dense_matmul", "llvm"), nullptr);
  EXPECT_NE(schedule::find_schedule_rule("blocked_conv2d", "llvm"), nullptr);
  EXPECT_NE(schedule::find_schedule_rule("depthwise_conv_nchwc", "llvm"), nullptr);
  EXPECT_EQ(schedule::find_schedule_rule("dense_matmul", "cuda"), nullptr);
  EXPECT_EQ(schedule::find_schedule_rule("no_such_rule", "llvm"), nullptr);
  // A kernel naming a rule the target kind lacks is an internal error, not a silent skip.
  tir::IRModule m = lowered(512);
  EXPECT_THROW(schedule::apply_default_schedules(m, schedule::RuleTarget{"cuda", {}}),
               InternalError);
}

}  // namespace
}  // namespace ingot::testing

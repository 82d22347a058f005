// Tuning tasks and records: task keys group kernels by computation and target (not by name or
// weights), records round-trip through JSON lines (a bad line is named by file and line), and
// applying records schedules each kernel of a recorded task by the best record's trace, leaving
// the rest to the default rules and counting records of other targets or traces that no longer
// replay as skipped.
#include <gtest/gtest.h>

#include <algorithm>

#include <filesystem>
#include <fstream>

#include "common/small_conv_model.h"
#include "schedule/rules/conv2d.h"
#include "schedule/rules/default_rules.h"
#include "schedule/schedule.h"
#include "support/error.h"
#include "tir/structural_equal.h"
#include "tune/records.h"
#include "tune/task.h"

namespace ingot::testing {
namespace {

const std::string kTarget = "llvm -mcpu=x86-64-v4";

// The index of the first kernel of the module with that rule.
size_t kernel_with_rule(const tir::IRModule& m, const std::string& rule) {
  for (size_t k = 0; k < m.kernels.size(); ++k)
    if (m.kernels[k].schedule_rule == rule) return k;
  ADD_FAILURE() << "no kernel with rule " << rule;
  return 0;
}

// A record for blocked conv kernel k of m: its rule run with the strip height (the second
// sampling decision, after the output blocks per tile) forced to candidate `index`.
tune::TuningRecord record_for(const tir::IRModule& m, size_t k, int index, double seconds) {
  const tir::PrimFunc& f = m.kernels[k];
  schedule::Schedule s(f);
  s.set_sampling_policy({.forced = {{1, index}}});
  schedule::find_schedule_rule(f.schedule_rule, "llvm")->apply(s, {"llvm", CpuVectorIsa::x86(512)});
  return {tune::task_key(f, kTarget),
          kTarget,
          f.schedule_rule,
          f.name,
          s.trace().to_json(),
          seconds,
          ""};
}

TEST(TuneTasks, KeysFollowTheComputationAndTarget) {
  tir::IRModule m = lowered_small_conv_model(512, /*second_conv=*/true);
  std::vector<tune::Task> tasks = tune::extract_tasks(m, kTarget);
  // dense 16->32, depthwise, dense2 32->32, matmul: four computations; and four injective-rule
  // kernels (blocks): x into channel blocks, the zero Pad before each dense conv (16 and 32
  // input channels: two computations), and the three convs' [1, 32, 12, 12] outputs back to
  // NCHW, one computation of weight 3.
  ASSERT_EQ(tasks.size(), 8u);
  std::vector<int> layout_weights;
  for (const tune::Task& t : tasks) {
    EXPECT_EQ(t.key.size(), 16u);
    if (t.rule == "injective") {
      layout_weights.push_back(t.weight());
      continue;
    }
    EXPECT_EQ(t.weight(), 1);
  }
  std::sort(layout_weights.begin(), layout_weights.end());  // (in order of first appearance)
  EXPECT_EQ(layout_weights, (std::vector<int>{1, 1, 1, 3}));
  // The same conv under another name and with other weights is the same task.
  size_t dense =
      size_t(std::find_if(tasks.begin(), tasks.end(),
                          [](const tune::Task& t) { return t.rule == "blocked_conv2d"; }) -
             tasks.begin());
  ASSERT_LT(dense, tasks.size());
  tir::PrimFunc renamed = m.kernels[size_t(tasks[dense].kernels[0])];
  renamed.name = "another_layer";
  EXPECT_EQ(tune::task_key(renamed, kTarget), tasks[dense].key);
  // Another target is another task.
  EXPECT_NE(tune::task_key(renamed, "llvm -mcpu=znver3"), tasks[dense].key);
  // A module with the dense conv twice: one task of weight 2.
  tir::IRModule twice = m;
  twice.kernels.push_back(renamed);
  std::vector<tune::Task> t2 = tune::extract_tasks(twice, kTarget);
  ASSERT_EQ(t2.size(), 8u);
  EXPECT_EQ(t2[dense].weight(), 2);
}

TEST(TuneRecords, JsonLinesRoundTripAndErrorsNameTheLine) {
  tir::IRModule m = lowered_small_conv_model(512);
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "ingot_records_test";
  std::filesystem::create_directories(dir);
  std::string path = (dir / "r.jsonl").string();
  std::filesystem::remove(path);
  tune::TuningRecord a = record_for(m, kernel_with_rule(m, "blocked_conv2d"), 1, 2e-5);
  tune::TuningRecord failed = a;
  failed.error = "timed out", failed.seconds = -1;
  tune::append_record(path, a);
  tune::append_record(path, failed);
  std::vector<tune::TuningRecord> back = tune::read_records(path);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].task, a.task);
  EXPECT_EQ(back[0].trace, a.trace);
  EXPECT_DOUBLE_EQ(back[0].seconds, 2e-5);
  EXPECT_TRUE(back[0].ok());
  EXPECT_FALSE(back[1].ok());
  EXPECT_EQ(back[1].error, "timed out");
  std::ofstream(path, std::ios::app) << "{\"task\": 3}\n";
  try {
    tune::read_records(path);
    ADD_FAILURE() << "a malformed record was read";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":3: not a tuning record"), std::string::npos)
        << e.what();
  }
}

TEST(TuneRecords, BestRecordScheduleReplacesTheDefault) {
  tir::IRModule m = lowered_small_conv_model(512);
  size_t conv = kernel_with_rule(m, "blocked_conv2d");
  // Two measured records of the conv task (the faster wins), a failed one, one of another
  // target and one whose trace does not replay on any kernel of this module.
  tune::TuningRecord slow = record_for(m, conv, 0, 3e-5), fast = record_for(m, conv, 1, 1e-5);
  tune::TuningRecord failed = record_for(m, conv, 2, 1e-9);
  failed.error = "wrong result", failed.seconds = -1;
  tune::TuningRecord other = fast;
  other.target = "llvm -mcpu=znver3", other.task = tune::task_key(m.kernels[conv], other.target);
  tir::IRModule applied = m;
  tune::RecordsApplied a = tune::apply_records(applied, {slow, fast, failed, other}, kTarget);
  EXPECT_EQ(a.kernels_from_records, 1);
  EXPECT_EQ(a.tasks_from_records, 1);
  // The other scheduled kernels: depthwise, matmul and the layout conversions.
  const int scheduled =
      int(std::count_if(m.kernels.begin(), m.kernels.end(),
                        [](const tir::PrimFunc& f) { return !f.schedule_rule.empty(); }));
  EXPECT_EQ(a.kernels_default, scheduled - 1);
  EXPECT_EQ(a.records_skipped, 1);  // the other target's
  EXPECT_EQ(nlohmann::json::parse(applied.kernels[conv].schedule_trace), fast.trace);
  EXPECT_NE(tune::describe(a).find("1 kernels (1 tasks) from records"), std::string::npos);
  // The default stage then schedules the rest and leaves the recorded kernel as it is.
  schedule::apply_default_schedules(applied, 512);
  tir::IRModule defaults = m;
  schedule::apply_default_schedules(defaults, 512);
  EXPECT_FALSE(tir::structural_equal(applied.kernels[conv].body, defaults.kernels[conv].body));
  for (size_t k = 0; k < m.kernels.size(); ++k) {
    if (k == conv) continue;
    EXPECT_TRUE(tir::structural_equal(applied.kernels[k], defaults.kernels[k]));
  }
  // A record whose trace no longer replays (a rule changed since) is skipped: defaults run.
  tune::TuningRecord stale = fast;
  stale.trace["instructions"][0]["attrs"]["name"] = "no_such_block";
  tir::IRModule again = m;
  a = tune::apply_records(again, {stale}, kTarget);
  EXPECT_EQ(a.kernels_from_records, 0);
  EXPECT_EQ(a.kernels_default, scheduled);
  EXPECT_EQ(a.records_skipped, 1);
  EXPECT_TRUE(again.kernels[conv].schedule_trace.empty());
}

TEST(TuneRecords, ConfirmedRecordsOutrankLuckyFirstMeasurements) {
  tir::IRModule m = lowered_small_conv_model(512);
  size_t conv = kernel_with_rule(m, "blocked_conv2d");
  // Trial 1 was measured once at 1 us (luck); confirmed, the default is 3 us and trial 2 is 2 us.
  tune::TuningRecord lucky = record_for(m, conv, 1, 1e-6), other = record_for(m, conv, 2, 4e-6);
  tune::TuningRecord def = record_for(m, conv, 0, 3e-6), confirmed = other;
  def.confirmed = true, confirmed.confirmed = true, confirmed.seconds = 2e-6;
  std::map<std::string, tune::TuningRecord> best =
      tune::best_records({lucky, other, def, confirmed});
  ASSERT_EQ(best.size(), 1u);
  EXPECT_TRUE(best.begin()->second.confirmed);
  EXPECT_DOUBLE_EQ(best.begin()->second.seconds, 2e-6);
  EXPECT_EQ(best.begin()->second.trace, other.trace);
  // The flag survives the JSON round trip.
  EXPECT_TRUE(tune::record_from_json(tune::record_to_json(confirmed), "x").confirmed);
  EXPECT_FALSE(tune::record_from_json(tune::record_to_json(lucky), "x").confirmed);
  // Without confirmed records, the fastest of all.
  best = tune::best_records({other, lucky});
  EXPECT_DOUBLE_EQ(best.begin()->second.seconds, 1e-6);
}

// Records timed inside the whole model outrank confirmed ones: trial 2, confirmed faster than
// the default alone, is slower in the model, so the default wins; an in-model record with an
// error does not count.
TEST(TuneRecords, InModelRecordsOutrankConfirmedOnes) {
  tir::IRModule m = lowered_small_conv_model(512);
  size_t conv = kernel_with_rule(m, "blocked_conv2d");
  tune::TuningRecord def = record_for(m, conv, 0, 3e-6), fast = record_for(m, conv, 2, 2e-6);
  def.confirmed = fast.confirmed = true;
  tune::TuningRecord def_in = def, fast_in = fast;
  def_in.origin = fast_in.origin = "in-model";
  def_in.seconds = 5e-6, fast_in.seconds = 6e-6;
  EXPECT_TRUE(def_in.in_model());
  std::map<std::string, tune::TuningRecord> best = tune::best_records({def, fast, def_in, fast_in});
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best.begin()->second.trace, def.trace);
  EXPECT_DOUBLE_EQ(best.begin()->second.seconds, 5e-6);
  // The origin survives the JSON round trip.
  EXPECT_TRUE(tune::record_from_json(tune::record_to_json(fast_in), "x").in_model());
  // The tuned model's outputs differed: only the default's in-model record counts.
  def_in.seconds = 7e-6, fast_in.error = "the tuned model's outputs differ";
  best = tune::best_records({def, fast, def_in, fast_in});
  EXPECT_EQ(best.begin()->second.trace, def.trace);
}

// Graph-level decisions (conv algorithms, layouts) name nodes: they apply to the model whose
// graph digest they carry, or to any when they carry none (records before session 41); their
// model survives the JSON round trip, and compile's schedules skip them.
TEST(TuneRecords, GraphDecisionsApplyToTheirModelOnly) {
  auto decision = [](const char* rule, const char* conv, int64_t value, const char* model) {
    tune::TuningRecord r{
        std::string(rule) + ":" + conv,
        "llvm",
        rule,
        conv,
        nlohmann::json{{rule == std::string(tune::kConvLayoutRule) ? "block" : "tile", value}},
        1e-3,
        ""};
    r.model = model;
    return r;
  };
  std::vector<tune::TuningRecord> rs = {
      decision(tune::kConvLayoutRule, "a", 8, "0123456789abcdef"),
      decision(tune::kConvLayoutRule, "b", 24, ""),
      decision(tune::kConvLayoutRule, "c", 8, "fedcba9876543210"),
      decision(tune::kConvAlgorithmRule, "a", 4, "0123456789abcdef"),
      decision(tune::kConvAlgorithmRule, "c", 2, "fedcba9876543210")};
  EXPECT_EQ(tune::conv_layout_blocks(rs, "llvm", "0123456789abcdef"),
            (std::map<std::string, int64_t>{{"a", 8}, {"b", 24}}));
  EXPECT_EQ(tune::conv_layout_blocks(rs, "llvm", "fedcba9876543210"),
            (std::map<std::string, int64_t>{{"b", 24}, {"c", 8}}));
  EXPECT_TRUE(tune::conv_layout_blocks(rs, "llvm -mcpu=znver3", "0123456789abcdef").count("b") ==
              0);  // another target
  EXPECT_EQ(tune::conv_algorithm_tiles(rs, "llvm", "0123456789abcdef"),
            (std::map<std::string, int>{{"a", 4}}));
  EXPECT_EQ(tune::record_from_json(tune::record_to_json(rs[0]), "x").model, "0123456789abcdef");
  EXPECT_FALSE(tune::record_to_json(rs[1]).contains("model"));
  for (const tune::TuningRecord& r : rs) EXPECT_TRUE(tune::is_graph_decision(r));
}

}  // namespace
}  // namespace ingot::testing

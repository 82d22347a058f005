// Tuning records: JSON-lines I/O, best-per-task selection and replay onto a module.
#include "tune/records.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "schedule/rules/default_rules.h"
#include "schedule/trace.h"
#include "support/error.h"
#include "tune/task.h"

namespace ingot::tune {

using nlohmann::json;

json record_to_json(const TuningRecord& r) {
  json j = {{"task", r.task},
            {"target", r.target},
            {"rule", r.rule},
            {"kernel", r.kernel},
            {"trace", r.trace}};
  if (r.error.empty()) {
    j["seconds"] = r.seconds;
  } else {
    j["error"] = r.error;
  }
  if (r.confirmed) j["confirmed"] = true;
  if (!r.worker.empty()) j["worker"] = r.worker;
  if (!r.origin.empty()) j["origin"] = r.origin;
  if (!r.model.empty()) j["model"] = r.model;
  return j;
}

TuningRecord record_from_json(const json& j, const std::string& where) {
  TuningRecord r;
  try {
    r.task = j.at("task").get<std::string>();
    r.target = j.at("target").get<std::string>();
    r.rule = j.at("rule").get<std::string>();
    r.kernel = j.value("kernel", "");
    r.trace = j.at("trace");
    r.error = j.value("error", "");
    if (r.error.empty()) r.seconds = j.at("seconds").get<double>();
    r.confirmed = j.value("confirmed", false);
    r.worker = j.value("worker", "");
    r.origin = j.value("origin", "");
    r.model = j.value("model", "");
  } catch (const json::exception& e) {
    fail_user("{}: not a tuning record ({})", where, e.what());
  }
  return r;
}

std::vector<TuningRecord> read_records(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail_user("--tuning-records: cannot read '{}'", path);
  std::vector<TuningRecord> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string where = fmt::format("{}:{}", path, n);
    json j;
    try {
      j = json::parse(line);
    } catch (const json::exception& e) {
      fail_user("{}: not JSON ({})", where, e.what());
    }
    out.push_back(record_from_json(j, where));
  }
  return out;
}

void append_record(const std::string& path, const TuningRecord& r) {
  std::ofstream out(path, std::ios::app);
  out << record_to_json(r).dump() << "\n";
  out.flush();
  if (!out) fail_user("cannot append a tuning record to '{}'", path);
}

std::map<std::string, TuningRecord> best_records(const std::vector<TuningRecord>& records) {
  // The measurement a task's best comes from: its records measured in the whole model where it
  // has any (tier 2), else its confirmed ones (1), else any (0).
  auto tier = [](const TuningRecord& r) { return r.in_model() ? 2 : r.confirmed ? 1 : 0; };
  std::map<std::string, int> top;
  for (const TuningRecord& r : records)
    if (r.ok()) top[r.task] = std::max(top[r.task], tier(r));
  std::map<std::string, TuningRecord> best;
  for (const TuningRecord& r : records) {
    if (!r.ok() || tier(r) < top[r.task]) continue;
    auto it = best.find(r.task);
    if (it == best.end() || r.seconds < it->second.seconds) best[r.task] = r;
  }
  return best;
}

bool decision_applies(const TuningRecord& r, const char* rule, const std::string& target,
                      const std::string& model) {
  return r.rule == rule && r.target == target && r.ok() && (r.model.empty() || r.model == model);
}

std::vector<TuningRecord> recorded_decisions(const std::string& path, const char* rule,
                                             const std::string& target, const std::string& model) {
  std::vector<TuningRecord> decisions;
  if (!std::filesystem::exists(path)) return decisions;
  for (TuningRecord& r : read_records(path))
    if (decision_applies(r, rule, target, model)) decisions.push_back(std::move(r));
  return decisions;
}

std::map<std::string, int> conv_algorithm_tiles(const std::vector<TuningRecord>& records,
                                                const std::string& target,
                                                const std::string& model) {
  std::map<std::string, int> tiles;
  for (const TuningRecord& r : records)
    if (decision_applies(r, kConvAlgorithmRule, target, model))
      tiles[r.kernel] = r.trace.value("tile", 0);
  return tiles;
}

std::map<std::string, int64_t> conv_layout_blocks(const std::vector<TuningRecord>& records,
                                                  const std::string& target,
                                                  const std::string& model) {
  std::map<std::string, int64_t> blocks;
  for (const TuningRecord& r : records)
    if (decision_applies(r, kConvLayoutRule, target, model))
      blocks[r.kernel] = r.trace.value("block", int64_t(0));
  return blocks;
}

std::string trace_decisions(const nlohmann::json& trace) {
  std::string out;
  for (const nlohmann::json& i : trace.at("instructions"))
    if (!i.at("decision").is_null()) out += i.at("decision").dump() + " ";
  return out;
}

bool is_graph_decision(const TuningRecord& r) {
  return r.rule == kConvAlgorithmRule || r.rule == kConvLayoutRule;
}

RecordsApplied apply_records(tir::IRModule& mod, const std::vector<TuningRecord>& records,
                             const std::string& target) {
  RecordsApplied a;
  std::vector<TuningRecord> schedules;  // (the graph decisions took effect in the graph passes)
  for (const TuningRecord& r : records)
    if (!is_graph_decision(r)) schedules.push_back(r);
  std::map<std::string, TuningRecord> best = best_records(schedules);
  std::set<std::string> used, failed;
  for (tir::PrimFunc& f : mod.kernels) {
    if (f.schedule_rule.empty() || !f.schedule_trace.empty()) continue;
    std::string key = task_key(f, target);
    auto it = best.find(key);
    if (it == best.end() || it->second.target != target || failed.count(key)) {
      ++a.kernels_default;
      continue;
    }
    try {
      schedule::Trace t = schedule::Trace::from_json(it->second.trace);
      f = schedule::scheduled_kernel(f, t.replay(f));
      used.insert(key);
      ++a.kernels_from_records;
    } catch (const UserError&) {
      // A trace that no longer replays (an older rule's) is stale: the default schedule runs.
      failed.insert(key);
      ++a.kernels_default;
    }
  }
  a.tasks_from_records = int(used.size());
  a.records_skipped = int(best.size() - used.size());
  return a;
}

std::string describe(const RecordsApplied& a) {
  return fmt::format(
      "tuning records: {} kernels ({} tasks) from records, {} with the default schedule, {} "
      "records skipped (another target or compute, or not replaying)",
      a.kernels_from_records, a.tasks_from_records, a.kernels_default, a.records_skipped);
}

}  // namespace ingot::tune

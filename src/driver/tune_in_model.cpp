// check_in_model (see tune_in_model.h).
#include "driver/tune_in_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "driver/compile.h"
#include "driver/tune_model_variants.h"
#include "tune/records.h"

namespace ingot::driver {

namespace {

constexpr size_t kInModelRanks = 3;  // finalists per task timed in the model

// A task's schedules to time in the model: its default, then its confirmed records with other
// decisions, fastest first, one per point.
struct Candidates {
  const tune::Task* task = nullptr;
  std::vector<const tune::TuningRecord*> schedules;  // [0]: the default
};

// The task's kernels' fastest calls in one build, averaged (-1: none in its profile).
double task_ms(const tune::Task& task, const tir::IRModule& model, const tune::Measurement& m) {
  double sum = 0;
  int n = 0;
  for (int k : task.kernels) {
    auto it = m.kernel_ms.find(model.kernels[size_t(k)].name);
    if (it == m.kernel_ms.end()) continue;
    sum += it->second, ++n;
  }
  return n ? sum / n : -1;
}

// Writes the records file of one build: the graph decisions and one schedule per task.
std::string write_build_records(const std::filesystem::path& path,
                                const std::vector<tune::TuningRecord>& decisions,
                                const std::vector<const tune::TuningRecord*>& schedules) {
  std::filesystem::remove(path);
  for (const tune::TuningRecord& r : decisions) tune::append_record(path.string(), r);
  for (const tune::TuningRecord* r : schedules) tune::append_record(path.string(), *r);
  if (!std::filesystem::exists(path)) std::ofstream(path.string()).flush();
  return path.string();
}

}  // namespace

void check_in_model(const std::string& model_path, const TuneOptions& options,
                    const std::vector<const tune::Task*>& tasks, const tir::IRModule& model,
                    const std::string& target, bool graph_decisions,
                    const std::filesystem::path& dir, TuneReport& report, std::ostream& log) {
  const std::vector<tune::TuningRecord> records = tune::read_records(options.records);
  std::vector<tune::TuningRecord> decisions;
  std::map<std::string, const tune::TuningRecord*> defaults;
  std::map<std::string, std::vector<const tune::TuningRecord*>> confirmed;  // per task
  std::set<std::string> checked;  // by an earlier run (--resume): not again
  for (const tune::TuningRecord& r : records) {
    if (tune::is_graph_decision(r)) decisions.push_back(r);
    if (r.ok() && r.origin == "default") defaults.try_emplace(r.task, &r);
    if (r.in_model()) checked.insert(r.task);
    if (r.confirmed && r.ok() && !r.in_model()) confirmed[r.task].push_back(&r);
  }
  std::vector<Candidates> changed;
  for (const tune::Task* task : tasks) {
    auto d = defaults.find(task->key);
    if (d == defaults.end() || checked.count(task->key)) continue;
    std::vector<const tune::TuningRecord*>& finalists = confirmed[task->key];
    std::stable_sort(finalists.begin(), finalists.end(),
                     [](const auto* a, const auto* b) { return a->seconds < b->seconds; });
    Candidates c{task, {d->second}};
    std::set<std::string> points = {tune::trace_decisions(d->second->trace)};
    for (const tune::TuningRecord* r : finalists)
      if (c.schedules.size() <= kInModelRanks &&
          points.insert(tune::trace_decisions(r->trace)).second)
        c.schedules.push_back(r);
    if (c.schedules.size() > 1) changed.push_back(std::move(c));
  }
  if (changed.empty() && !graph_decisions) {
    log << "in the model: no task to check (none has a confirmed schedule other than its "
           "default that was not checked before)\n";
    return;
  }
  std::ostringstream quiet;  // (the compiles' own lines are not the tuner's)
  CompileOptions co = options.compile;
  // 1. The finalists: the graph decisions with default schedules, then one build per rank.
  if (!changed.empty()) {
    size_t ranks = 0;
    for (const Candidates& c : changed) ranks = std::max(ranks, c.schedules.size() - 1);
    std::vector<tune::MeasureJob> jobs;
    std::vector<std::string> names;
    for (size_t r = 0; r <= ranks; ++r) {
      std::vector<const tune::TuningRecord*> chosen;
      for (const Candidates& c : changed)
        if (r > 0 && r < c.schedules.size()) chosen.push_back(c.schedules[r]);
      std::string stem = fmt::format("in_model_{}", r);
      co.tuning_records = write_build_records(dir / (stem + ".jsonl"), decisions, chosen);
      jobs.push_back({(dir / (stem + ".so")).string(), (dir / (stem + ".npz")).string()});
      compile_model(model_path, jobs.back().artifact, co, quiet);
      names.push_back(r == 0 ? std::string("default schedules")
                             : fmt::format("finalists of rank {}", r));
    }
    std::optional<VariantTimes> times = time_model_variants(
        jobs, names, options.measure, "in the model", "the confirmation round", log);
    if (!times) return;
    for (const Candidates& c : changed) {
      std::vector<double> ms(c.schedules.size(), -1);
      for (size_t r = 0; r < c.schedules.size(); ++r)
        if (times->usable[r]) ms[r] = task_ms(*c.task, model, times->runs[r]);
      if (ms[0] <= 0) continue;  // (not in the profile)
      ++report.model_checked;
      size_t pick = 0;
      for (size_t r = 1; r < ms.size(); ++r)
        if (ms[r] > 0 && ms[r] < ms[pick]) pick = r;
      report.model_kept_default += pick == 0;
      const std::string& kernel = model.kernels[size_t(c.task->kernels.front())].name;
      std::string cells;
      for (size_t r = 0; r < ms.size(); ++r) {
        if (ms[r] <= 0) continue;
        tune::TuningRecord rec{c.task->key,  target, c.task->rule, kernel, c.schedules[r]->trace,
                               ms[r] * 1e-3, ""};
        rec.confirmed = true;
        rec.origin = "in-model";
        tune::append_record(options.records, rec);
        cells += fmt::format("{}{} {:.6g}", cells.empty() ? "" : ", ",
                             r == 0 ? std::string("default") : fmt::format("#{}", r), ms[r]);
      }
      log << fmt::format("{}: in the model {} ms per call -> {}\n", kernel, cells,
                         pick == 0 ? std::string("the default") : fmt::format("#{}", pick));
    }
  }
  // 2. The whole model, untuned against tuned (the records as compile reads them now).
  std::string def_so = (dir / "model_default.so").string();
  std::string tuned_so = (dir / "model_tuned.so").string();
  co.tuning_records.clear();
  compile_model(model_path, def_so, co, quiet);
  co.tuning_records = options.records;
  compile_model(model_path, tuned_so, co, quiet);
  std::optional<VariantTimes> whole =
      time_model_variants({{def_so, (dir / "model_default.npz").string()},
                           {tuned_so, (dir / "model_tuned.npz").string()}},
                          {"untuned", "tuned"}, options.measure, "in the model", "nothing", log);
  if (!whole) return;
  report.model_default_s = whole->runs[0].seconds, report.model_tuned_s = whole->runs[1].seconds;
  report.model_calls = tune::whole_model_options(options.measure).repeat;
}

}  // namespace ingot::driver

// `ingot tune` (see tune.h): tasks of the lowered model, a one-kernel artifact per candidate,
// measurement in a child process, records appended per trial.
#include "driver/tune.h"

#include "tir/transforms/apply_param_layouts.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <random>
#include <set>
#include <sstream>

#include "codegen/build.h"
#include "codegen/target.h"
#include "driver/loop_passes.h"
#include "driver/tune_conv_algorithms.h"
#include "driver/tune_conv_layouts.h"
#include "driver/tune_harness.h"
#include "driver/tune_in_model.h"
#include "ingot/runtime.h"
#include "schedule/rules/default_rules.h"
#include "support/channel_block.h"
#include "support/error.h"
#include "support/host_caches.h"
#include "tir/transforms/lower_blocks.h"
#include "tune/cost_model.h"
#include "tune/evolve.h"
#include "tune/features.h"
#include "tune/mutate.h"
#include "tune/records.h"
#include "tune/remote.h"
#include "tune/task.h"
#include "tune/task_scheduler.h"

namespace ingot::driver {

namespace {

using Clock = std::chrono::steady_clock;

// A trace's sampling decisions as one string (the identity of a point of the design space).

// The task's rule run on kernel f: the default point, or (seeded) fresh decisions. nullopt with
// `error` set when the rule refuses the point.
// `forced`: decisions by ordinal (a mutation of a measured candidate), the rest drawn.
std::optional<tir::PrimFunc> candidate(const tir::PrimFunc& f, const schedule::ScheduleRule& rule,
                                       const schedule::RuleTarget& rt, uint64_t seed,
                                       bool default_point,
                                       const std::map<int, nlohmann::json>* forced,
                                       std::string* decisions, std::string* error) {
  schedule::Schedule s(f, seed);
  if (forced) {
    s.set_sampling_policy({.ignore_given = true, .forced = *forced});
  } else if (!default_point) {
    s.set_sampling_policy({.ignore_given = true});
  }
  try {
    rule.apply(s, rt);
  } catch (const UserError& e) {
    *error = std::string("invalid schedule: ") + e.what();
    return std::nullopt;
  } catch (const InternalError& e) {
    *error = std::string("rule failed: ") + e.what();
    return std::nullopt;
  }
  *decisions = tune::trace_decisions(s.trace().to_json());
  return schedule::scheduled_kernel(f, s);
}

// The cost model's view of a scheduled kernel: its loop IR after lower_blocks.
tune::KernelFeatures features_of(const tir::PrimFunc& scheduled, int threads) {
  return tune::extract_features(tir::lower_blocks(scheduled), threads);
}

// A candidate that passed its measurement: its time, trace and artifact.
struct Finalist {
  double seconds;
  nlohmann::json trace;
  std::string artifact;
  bool is_default;
};

// A built candidate waiting for its measurement.
struct Built {
  tune::TuningRecord rec;
  std::string artifact;
  bool is_default;
  bool new_trial;  // false: the default of a resumed task, measured again for its outputs
  tune::KernelFeatures features;
};

// A measurement and the worker that made it ("" locally).
struct Measured {
  tune::Measurement m;
  std::string worker;
};
using MeasureFn = std::function<std::vector<Measured>(const std::vector<tune::MeasureJob>&)>;

constexpr size_t kFinalists = 3;   // fastest candidates measured again
constexpr int kConfirmRounds = 3;  // rounds over them and the default, alternating

// Builds the artifact of a trace (a candidate measured by an earlier, resumed run) into `stem`.so;
// "" when it no longer builds.
using RebuildFn = std::function<std::string(const nlohmann::json& trace, const std::string& stem)>;

// The confirmation round: one fast measurement on a shared machine is as likely luck as
// speed, so the fastest candidates and the default schedule are measured again, in turn, and
// each gets a confirmed record with its fastest time; compile chooses among those. A point
// measured twice (a resumed run's default, recorded before and measured again as the reference)
// is a finalist once.
void confirm(std::vector<Finalist> measured, const tune::Task& task, const std::string& kernel,
             const std::string& target, const std::filesystem::path& dir,
             const TuneOptions& options, const MeasureFn& measure, const RebuildFn& rebuild,
             TaskTuning& tt, std::ostream& log) {
  if (measured.size() < 2 || !measured[0].is_default) return;
  std::vector<Finalist> finalists = {measured[0]};
  std::sort(measured.begin() + 1, measured.end(),
            [](const Finalist& a, const Finalist& b) { return a.seconds < b.seconds; });
  std::set<std::string> points = {tune::trace_decisions(measured[0].trace)};
  for (size_t k = 1; k < measured.size() && finalists.size() <= kFinalists; ++k) {
    Finalist fin = measured[k];
    if (!points.insert(tune::trace_decisions(fin.trace)).second) continue;
    if (fin.artifact.empty())
      fin.artifact = rebuild(fin.trace, (dir / fmt::format("resumed_{}", k)).string());
    if (!fin.artifact.empty()) finalists.push_back(fin);
  }
  if (finalists.size() < 2) return;
  std::vector<double> best(finalists.size(), -1);
  std::vector<tune::MeasureJob> jobs;  // round by round, so the finalists alternate
  for (int round = 0; round < kConfirmRounds; ++round)
    for (size_t k = 0; k < finalists.size(); ++k)
      jobs.push_back(
          {finalists[k].artifact, (dir / fmt::format("confirm_{}_{}.npz", round, k)).string()});
  std::vector<Measured> results = measure(jobs);
  for (size_t j = 0; j < results.size(); ++j) {
    size_t k = j % finalists.size();
    const tune::Measurement& m = results[j].m;
    if (m.ok() && (best[k] < 0 || m.seconds < best[k])) best[k] = m.seconds;
  }
  tt.best_s = -1;
  for (size_t k = 0; k < finalists.size(); ++k) {
    tune::TuningRecord rec{task.key, target, task.rule, kernel, finalists[k].trace, best[k], ""};
    rec.confirmed = true;
    rec.origin = "confirmation";
    if (best[k] < 0) rec.error = "failed when measured again";
    tune::append_record(options.records, rec);
    if (!rec.ok()) continue;
    if (k == 0) tt.default_s = best[k];
    if (tt.best_s < 0 || best[k] < tt.best_s) tt.best_s = best[k];
  }
  log << fmt::format("{}: measured again, alternating ({} rounds): default {}, best {}\n", kernel,
                     kConfirmRounds, format_ms(tt.default_s), format_ms(tt.best_s));
}

// Everything the search keeps for one task between its batches.
struct TaskState {
  const tune::Task* task = nullptr;
  const tir::PrimFunc* f = nullptr;
  const schedule::ScheduleRule* rule = nullptr;
  tir::IRModule harness;
  TaskTuning tt;
  int cap = 0;      // most new trials (the default included)
  int attempt = 0;  // seeds drawn so far
  bool active = true;
  bool finished_before = false;  // confirmed by the run that --resume continues
  std::set<std::string> seen;    // decision strings already measured
  std::string baseline;          // the default schedule's outputs
  std::vector<Finalist> measured, earlier;
  std::vector<double> best_after;  // best seconds after each trial (the scheduler's view)
  // Points of the design space realized by the model-guided search, by decision string.
  struct Point {
    tir::PrimFunc func;
    nlohmann::json trace;
    tune::KernelFeatures features;
  };
  std::map<std::string, Point> points;
};

// What a batch needs besides its task.
struct Search {
  const TuneOptions& options;
  const codegen::Target& target;
  const std::string& target_str;
  const schedule::RuleTarget& rule_target;
  const std::filesystem::path& dir;
  const MeasureFn& measure;
  std::ostream& log;
  Clock::time_point start;
  int planned = 0, made = 0, tasks = 0;
  bool live = false;
  tune::CostModel* model = nullptr;  // null: random points and mutations only
  int threads = 1;                   // of the measured runs (a feature)
  // The model's record on candidates it had not seen: pairs of one batch's guided candidates
  // whose measured order its scores predicted, of all such pairs.
  int pairs_right = 0, pairs = 0;
};

// Builds candidate c of task `t` alone into stem.so; the error, or "".
std::string build(const Search& s, const TaskState& t, const tir::PrimFunc& c,
                  const std::string& stem) {
  try {
    tir::IRModule m = t.harness;
    m.kernels = {c};
    tir::apply_param_layouts(m);
    run_loop_passes(m, s.target.is_gpu());
    codegen::BuildOptions bo;
    bo.threads = 1;
    codegen::build_shared_library(m, s.target, stem + ".so", bo);
    return "";
  } catch (const std::exception& e) {
    return std::string("build failed: ") + e.what();
  }
}

// Records a finished trial (an error, or a measurement checked against the default's). A
// default measured again only as the reference of a resumed task is not a new trial.
bool finish(Search& s, TaskState& t, int position, tune::TuningRecord rec,
            const std::string& artifact, const tune::Measurement* meas, const std::string& worker,
            bool is_default, bool new_trial, tune::KernelFeatures* features = nullptr) {
  TaskTuning& tt = t.tt;
  rec.worker = worker;
  if (meas && !meas->ok()) rec.error = meas->error;
  if (meas && meas->ok()) {
    if (is_default) {
      t.baseline = meas->outputs;
      rec.seconds = meas->seconds;
    } else {
      double diff = tune::max_relative_difference(meas->outputs, t.baseline);
      if (diff > 1e-4) {
        rec.error = fmt::format("wrong result (max relative difference {:.3g})", diff);
      } else {
        rec.seconds = meas->seconds;
      }
    }
  }
  if (!rec.error.empty()) rec.seconds = -1;
  if (rec.ok()) t.measured.push_back({rec.seconds, rec.trace, artifact, is_default});
  if (rec.ok() && is_default) tt.default_s = rec.seconds;
  if (!new_trial) return rec.ok();
  if (rec.ok() && s.model && features) s.model->add(t.task->key, std::move(*features), rec.seconds);
  tune::append_record(s.options.records, rec);
  ++tt.trials;
  if (!rec.ok()) ++tt.failed;
  if (rec.ok() && (tt.best_s < 0 || rec.seconds < tt.best_s)) tt.best_s = rec.seconds;
  tt.curve.push_back(tt.best_s);
  t.best_after.push_back(tt.best_s);
  ++s.made;
  double elapsed = std::chrono::duration<double>(Clock::now() - s.start).count();
  double eta = elapsed / s.made * std::max(0, s.planned - s.made);
  std::string result = rec.ok() ? fmt::format("{} {:.1f} GFLOP/s", format_ms(rec.seconds),
                                              t.task->flops / rec.seconds * 1e-9)
                                : rec.error;
  std::string gain =
      tt.default_s > 0 && tt.best_s > 0 ? fmt::format(" {:.2f}x", tt.default_s / tt.best_s) : "";
  s.log << fmt::format(
      "{}task {}/{} {} (x{}): trial {}/{}: {} (default {}, best {}{}) "
      "[{:.0f} s, ETA {:.0f} s]{}",
      s.live ? "\r\033[K" : "", position + 1, s.tasks, t.f->name, t.task->weight(), tt.trials,
      t.cap, result, format_ms(tt.default_s), format_ms(tt.best_s), gain, elapsed, eta,
      s.live ? "" : "\n");
  s.log.flush();
  return rec.ok();
}

// Up to `count` points of task t chosen by the model-guided evolutionary search
// (tune/evolve.h), each realized in t.points; with whether the model picked it (else: an
// epsilon-greedy random point).
std::vector<tune::EvolvePick> guided_points(const Search& s, TaskState& t, size_t count,
                                            std::mt19937_64& rng) {
  tune::SearchSpace space;
  space.realize = [&](const std::map<int, nlohmann::json>* forced,
                      uint64_t seed) -> std::optional<tune::SpacePoint> {
    if (forced) {  // a point realized before: its decisions are its identity
      std::string key;
      for (const auto& [ordinal, d] : *forced) key += d.dump() + " ";
      auto it = t.points.find(key);
      if (it != t.points.end()) return tune::SpacePoint{key, it->second.trace};
    }
    std::string decisions, error;
    std::optional<tir::PrimFunc> c =
        candidate(*t.f, *t.rule, s.rule_target, seed, false, forced, &decisions, &error);
    if (!c) return std::nullopt;
    auto [it, fresh] = t.points.try_emplace(decisions);
    if (fresh)
      it->second = {*c, nlohmann::json::parse(c->schedule_trace), features_of(*c, s.threads)};
    return tune::SpacePoint{decisions, it->second.trace};
  };
  space.score = [&](const std::vector<std::string>& keys) {
    std::vector<const tune::KernelFeatures*> kernels;
    for (const std::string& k : keys) kernels.push_back(&t.points.at(k).features);
    return s.model->predict(kernels);
  };
  // The population's seed: the fastest measured points.
  std::vector<const Finalist*> best;
  for (const std::vector<Finalist>* v : {&t.measured, &t.earlier})
    for (const Finalist& m : *v) best.push_back(&m);
  std::sort(best.begin(), best.end(),
            [](const Finalist* x, const Finalist* y) { return x->seconds < y->seconds; });
  std::vector<nlohmann::json> elites;
  for (size_t k = 0; k < best.size() && elites.size() < 8; ++k) elites.push_back(best[k]->trace);
  return tune::evolve(space, elites, t.seen, count, tune::EvolveOptions{}, rng);
}

// One batch of task t: its default alone (the reference outputs) first, then up to `size` new
// points of the rule's design space, built here and measured together. Points come from the
// model-guided search once the cost model is trained and the task is past its warm-up, else
// at random and (after the warm-up) half as mutations of the fastest so far.
void run_batch(Search& s, TaskState& t, int position, size_t size) {
  std::vector<Built> built;
  std::vector<tune::MeasureJob> jobs;
  std::map<size_t, double> predicted;  // the model's score of built candidate k (guided)
  bool default_has_choices = true;
  // Builds a candidate for measurement, or records why there is none (a default that does not
  // build ends the task).
  auto take = [&](int a, const std::optional<tir::PrimFunc>& c, const std::string& error,
                  const char* origin, bool fresh, tune::KernelFeatures features) {
    tune::TuningRecord rec{t.task->key,      s.target_str, t.task->rule, t.f->name,
                           nlohmann::json(), -1,           error};
    rec.origin = origin;
    std::string stem = (s.dir / fmt::format("t{}_{}", t.tt.index, a)).string();
    if (c) {
      rec.trace = nlohmann::json::parse(c->schedule_trace);
      rec.error = build(s, t, *c, stem);
      if (rec.error.empty()) {
        built.push_back({rec, stem + ".so", a == 0, fresh, std::move(features)});
        jobs.push_back({stem + ".so", stem + ".npz"});
        return;
      }
    }
    finish(s, t, position, rec, "", nullptr, "", a == 0, fresh);  // refused, or not built
    if (a == 0) t.active = false;
  };
  size_t want = t.attempt == 0 ? 1 : size;
  bool guided = t.attempt > 0 && t.tt.trials >= 3 && s.model && s.model->ready();
  if (guided) {
    want = std::min<size_t>(want, size_t(std::max(0, t.cap - t.tt.trials)));
    uint64_t seed = s.options.seed * 1000003ull + uint64_t(t.tt.index) * 7919ull +
                    uint64_t(t.attempt) * 104729ull;
    std::mt19937_64 rng(seed);
    std::vector<tune::EvolvePick> picks = guided_points(s, t, want, rng);
    for (const tune::EvolvePick& pick : picks) {
      const TaskState::Point& p = t.points.at(pick.key);
      t.seen.insert(pick.key);
      size_t before = built.size();
      take(t.attempt++, p.func, "", pick.by_model ? "model" : "random", true, p.features);
      if (built.size() > before) predicted[before] = pick.score;  // checked when measured
    }
    if (picks.empty()) t.active = false;  // the search found nothing new to measure
  }
  while (!guided && built.size() < want &&
         (t.attempt == 0 || t.tt.trials + int(built.size()) < t.cap) && t.attempt < 4 * t.cap) {
    int a = t.attempt++;
    uint64_t seed = s.options.seed * 1000003ull + uint64_t(t.tt.index) * 7919ull + uint64_t(a);
    // After the warm-up, half the candidates are mutations of one of the three fastest measured
    // so far (the evolutionary step), the others fresh random points.
    std::mt19937_64 rng(seed);
    std::optional<std::map<int, nlohmann::json>> forced;
    if (a > 0 && t.tt.trials >= 3 && rng() % 2 == 0) {
      std::vector<const Finalist*> top;
      for (const std::vector<Finalist>* v : {&t.measured, &t.earlier})
        for (const Finalist& m : *v) top.push_back(&m);
      std::sort(top.begin(), top.end(),
                [](const Finalist* x, const Finalist* y) { return x->seconds < y->seconds; });
      if (top.size() > 3) top.resize(3);
      if (!top.empty()) forced = tune::mutate_decisions(top[rng() % top.size()]->trace, rng);
    }
    std::string decisions, error;
    std::optional<tir::PrimFunc> c = candidate(*t.f, *t.rule, s.rule_target, seed, a == 0,
                                               forced ? &*forced : nullptr, &decisions, &error);
    // A mutation the rule refuses (a later choice whose candidates depended on the changed
    // one) is no trial; nor is a point already measured.
    if (!c && a > 0) continue;
    bool fresh = !c || t.seen.insert(decisions).second;
    if (!fresh && a > 0) continue;
    if (a == 0) default_has_choices = !decisions.empty();
    take(a, c, error,
         a == 0   ? "default"
         : forced ? "mutation"
                  : "random",
         fresh, c && s.model ? features_of(*c, s.threads) : tune::KernelFeatures());
  }
  std::vector<Measured> results = s.measure(jobs);
  for (const auto& [i, si] : predicted)
    for (const auto& [j, sj] : predicted) {
      if (j <= i || !results[i].m.ok() || !results[j].m.ok() || si == sj) continue;
      ++s.pairs;
      if ((si > sj) == (results[i].m.seconds < results[j].m.seconds)) ++s.pairs_right;
    }
  for (size_t k = 0; k < built.size(); ++k) {
    bool ok =
        finish(s, t, position, built[k].rec, built[k].artifact, &results[k].m, results[k].worker,
               built[k].is_default, built[k].new_trial, &built[k].features);
    // No reference outputs, or a rule without choices: nothing more to do for this task.
    if (built[k].is_default && (!ok || !default_has_choices)) t.active = false;
  }
  if (t.attempt >= 4 * t.cap) t.active = false;  // the space is (nearly) exhausted
}

}  // namespace

TuneReport tune_model(const std::string& model_path, const TuneOptions& given, std::ostream& log) {
  TuneOptions options = given;  // (its cache state resolved below)
  if (options.trials < 1) fail_user("--trials: {} is not a positive count", options.trials);
  if (options.records.empty()) fail_user("-o: a records file is required");
  Clock::time_point start = Clock::now();
  // 1. The lowered, unscheduled module and its tasks.
  if (codegen::Target::parse(options.compile.target).kind == codegen::Target::kC)
    fail_user(
        "ingot tune: the c target has no schedules to search (its kernels are plain loop nests "
        "that the C compiler optimizes); tune an llvm, opencl or cuda target");
  codegen::Target target = codegen::Target::parse(options.compile.target);
  std::filesystem::path dir = options.workdir;
  bool own_dir = dir.empty();
  if (!own_dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) fail_user("--workdir: cannot create {}: {}", dir.string(), ec.message());
  }
  if (own_dir) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ingot-tune-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) fail_user("cannot create a directory for tuning candidates");
    dir = tmpl;
  }
  // 0. Graph-level decisions: each 3x3 stride-1 conv's algorithm, measured in the model; the
  //    tasks are then the kernels of the chosen algorithms.
  TuneReport report;
  report.target = target.str();
  if (options.cost_model != "xgb" && options.cost_model != "none")
    fail_user("--cost-model: '{}' is not one of xgb, none", options.cost_model);
  if (options.conv_layout != "auto" && options.conv_layout != "default")
    fail_user("--conv-layout: '{}' is not one of auto, default", options.conv_layout);
  // The decisions name nodes: they belong to this model's graph (its digest, as compile sees it).
  std::string digest;
  {
    CompileOptions probe = options.compile;
    probe.static_shapes_only = true;
    probe.after_lower = [](const tir::IRModule&) { return false; };
    std::ostringstream quiet;
    digest = compile_model(model_path, "", probe, quiet).graph_digest;
  }
  bool new_decisions = false, new_layouts = false;
  std::vector<tune::TuningRecord> conv_decisions =
      choose_conv_algorithms(model_path, digest, options, target, dir, report, new_decisions, log);
  const std::map<std::string, int> conv_tiles =
      tune::conv_algorithm_tiles(conv_decisions, target.str(), digest);
  // Then the channel block of each class of convolutions, with those algorithms.
  std::vector<tune::TuningRecord> layout_decisions = choose_conv_layouts(
      model_path, digest, options, target, conv_tiles, dir, report, new_layouts, log);
  tir::IRModule model;
  CompileOptions co = options.compile;
  co.static_shapes_only = true;
  co.conv_tiles = conv_tiles;
  co.conv_blocks = tune::conv_layout_blocks(layout_decisions, target.str(), digest);
  co.after_lower = [&model](const tir::IRModule& m) {
    model = m;
    return false;
  };
  compile_model(model_path, "", co, log);
  std::string tstr = target.str();
  const schedule::RuleTarget rt = rule_target(target);
  std::vector<tune::Task> all = tune::extract_tasks(model, tstr);
  std::vector<int> chosen = options.tasks;
  if (chosen.empty())
    for (size_t t = 0; t < all.size(); ++t) chosen.push_back(int(t));
  for (int t : chosen)
    if (t < 0 || t >= int(all.size()))
      fail_user("--tasks: task {} does not exist (the model has {} tasks)", t, all.size());
  // Where each candidate's timed runs start from: as inside this model (auto: its constants
  // evicted between runs when the model outgrows the last-level cache, its inputs just written).
  // The cache compared is the measured one where the model is past the measurement's first
  // working set but fits the size sysfs reports (a guest may report its host's whole L3).
  const uint64_t footprint = model.constants.size() + model.workspace_bytes;
  const uint64_t reported = last_level_cache_bytes();
  uint64_t llc = reported;
  if (options.measure.cache_state == "auto" && options.cache_reach &&
      footprint > kCacheSweepFirstBytes && footprint <= reported)
    if (uint64_t reach = options.cache_reach(); reach > 0) llc = std::min(reported, reach);
  options.measure.cache_state =
      tune::resolve_cache_state(options.measure.cache_state, footprint, llc);
  report.cache_state = options.measure.cache_state;
  if (given.measure.cache_state == "auto")
    log << fmt::format(
        "candidates timed from a {} cache: the model's constants and workspace take {:.1f} MiB, "
        "the last-level cache {:.1f} MiB{}\n",
        options.measure.cache_state, double(footprint) / double(1 << 20),
        double(llc) / double(1 << 20),
        llc < reported ? fmt::format(" as reads reach it ({:.1f} MiB reported)",
                                     double(reported) / double(1 << 20))
                       : "");
  // The options are good: the conv decisions join the records (compile reads them there).
  if (new_decisions)
    for (const tune::TuningRecord& r : conv_decisions) tune::append_record(options.records, r);
  if (new_layouts)
    for (const tune::TuningRecord& r : layout_decisions) tune::append_record(options.records, r);
  // 2. Where candidates are measured: here, one after the other, or on the workers of a Redis
  //    server, a batch at a time.
  std::unique_ptr<tune::RemoteMeasurer> remote;
  if (!options.workers.empty())
    remote =
        std::make_unique<tune::RemoteMeasurer>(tune::parse_redis_url(options.workers, "--workers"),
                                               options.measure, options.worker_wait_s);
  const int batch = options.batch > 0 ? options.batch : 8;
  // The cost model: loaded for a warm start, trained as measurements arrive.
  std::unique_ptr<tune::CostModel> cost_model;
  std::string model_file =
      options.cost_model_file.empty() ? options.records + ".model.json" : options.cost_model_file;
  // The measured runs' threads (a feature): the runtime's default unless given, as the
  // measuring process will pick it (physical cores among the CPUs this process may use).
  const int threads =
      options.measure.threads > 0 ? options.measure.threads : ingot_get_num_threads();
  if (options.cost_model == "xgb") {
    cost_model = std::make_unique<tune::CostModel>(threads, options.seed);
    if ((options.resume || !options.cost_model_file.empty()) &&
        std::filesystem::exists(model_file)) {
      cost_model->load(model_file);
      log << fmt::format("cost model: loaded {}\n", model_file);
    }
  }
  MeasureFn measure = [&](const std::vector<tune::MeasureJob>& jobs) {
    std::vector<Measured> out;
    if (remote && !jobs.empty()) {
      std::vector<tune::Measurement> r = remote->measure(jobs);
      for (size_t k = 0; k < r.size(); ++k) out.push_back({r[k], remote->workers()[k]});
    } else {
      for (tune::Measurement& m : tune::measure_artifacts(jobs, options.measure))
        out.push_back({std::move(m), ""});
    }
    return out;
  };
  // 3. Per task: its state, with what a resumed run (--resume) already measured. Each task may
  //    take up to twice its share of the trials by FLOPs x calls (at least 2).
  std::vector<tune::TuningRecord> prior;
  if (options.resume && std::filesystem::exists(options.records))
    prior = tune::read_records(options.records);
  double total = 0;
  for (int t : chosen) total += all[size_t(t)].flops * all[size_t(t)].weight();
  std::vector<TaskState> states(chosen.size());
  Search search{options, target, tstr, rt, dir, measure, log, start};
  search.model = cost_model.get();
  search.threads = threads;
  search.tasks = int(chosen.size());
  search.live = options.live;
  search.planned = options.trials;
  for (size_t n = 0; n < chosen.size(); ++n) {
    TaskState& t = states[n];
    t.task = &all[size_t(chosen[n])];
    t.f = &model.kernels[size_t(t.task->kernels[0])];
    t.rule = schedule::find_schedule_rule(t.task->rule, rt.kind);
    INGOT_ICHECK(t.rule != nullptr, "tune: no rule {}", t.task->rule);
    t.tt = TaskTuning{chosen[n], t.task->key,      t.task->rule,
                      t.f->name, t.task->weight(), t.task->flops};
    double share = total > 0 ? t.task->flops * t.task->weight() / total : 1.0 / chosen.size();
    t.cap = chosen.size() == 1 ? options.trials
                               : std::max(2, int(std::lround(2 * options.trials * share)));
    for (const tune::TuningRecord& r : prior) {
      if (r.task != t.task->key || r.in_model()) continue;  // the model check: not a trial
      if (r.confirmed) {
        t.finished_before = true;
        if (r.ok() && (t.tt.best_s < 0 || r.seconds < t.tt.best_s)) t.tt.best_s = r.seconds;
        continue;
      }
      t.seen.insert(tune::trace_decisions(r.trace));
      ++t.tt.trials;
      if (!r.ok()) ++t.tt.failed;
      if (r.ok()) t.earlier.push_back({r.seconds, r.trace, "", false});
      if (r.ok() && cost_model) {  // what the resumed run measured teaches the model again
        try {
          schedule::Schedule sch = schedule::Trace::from_json(r.trace).replay(*t.f);
          cost_model->add(t.task->key, features_of(schedule::scheduled_kernel(*t.f, sch), threads),
                          r.seconds);
        } catch (const UserError&) {
          // a trace that no longer replays teaches nothing
        }
      }
      t.best_after.push_back(r.ok() && (t.best_after.empty() || t.best_after.back() <= 0 ||
                                        r.seconds < t.best_after.back())
                                 ? r.seconds
                             : t.best_after.empty() ? -1
                                                    : t.best_after.back());
    }
    search.planned -= std::min(t.tt.trials, options.trials);
    if (t.finished_before) {
      log << fmt::format("task {}/{} {}: finished in the resumed run ({} trials)\n", n + 1,
                         chosen.size(), t.f->name, t.tt.trials);
      t.active = false;
      continue;
    }
    t.harness = harness_for(model, t.task->kernels[0]);
  }
  // 4. Every task's default first (the reference outputs), then batches to the task the
  //    scheduler picks (tune/task_scheduler.h) until the trials are spent.
  // The model is retrained when the samples have grown by an eighth (at least 8) since the last
  // training; each training is saved.
  size_t trained_on = 0;
  int trainings = 0;
  double training_s = 0;
  auto retrain = [&] {
    if (!cost_model || cost_model->samples() < trained_on + std::max<size_t>(8, trained_on / 8))
      return;
    Clock::time_point t0 = Clock::now();
    if (!cost_model->train()) return;
    training_s += std::chrono::duration<double>(Clock::now() - t0).count();
    ++trainings;
    trained_on = cost_model->samples();
    cost_model->save(model_file);
  };
  retrain();
  int spent = 0;
  for (size_t n = 0; n < states.size(); ++n) {
    if (states[n].finished_before) continue;
    int before = states[n].tt.trials;
    run_batch(search, states[n], int(n), 1);
    spent += states[n].tt.trials - before;
  }
  while (spent < search.planned) {
    std::vector<tune::TaskProgress> progress;
    for (const TaskState& t : states)
      progress.push_back(
          {double(t.task->weight()), t.best_after, t.cap, t.active && !t.finished_before});
    int pick = tune::next_task(progress);
    if (pick < 0) break;
    TaskState& t = states[size_t(pick)];
    int before = t.tt.trials;
    // A task in its warm-up gets only the warm-up's trials, so every task has its few before
    // any gets a full batch.
    int size = std::min(batch, search.planned - spent);
    tune::TaskSchedulerOptions warm;
    if (t.tt.trials < 1 + warm.warmup) size = std::min(size, 1 + warm.warmup - t.tt.trials);
    run_batch(search, t, pick, size_t(size));
    if (t.tt.trials == before && t.attempt >= 4 * t.cap) t.active = false;
    spent += std::max(1, t.tt.trials - before);
    retrain();
  }
  if (options.live) log << "\n";
  if (cost_model)
    log << fmt::format(
        "cost model: {} measured candidates, trained {} times ({:.1f} s){}; on new candidates "
        "it ordered {} of {} pairs as measured{}\n",
        cost_model->samples(), trainings, training_s,
        trainings ? ", saved to " + model_file : std::string(), search.pairs_right, search.pairs,
        search.pairs ? fmt::format(" ({:.0f}%)", 100.0 * search.pairs_right / search.pairs)
                     : std::string());
  // 5. Confirmation rounds, and the report.
  for (size_t n = 0; n < states.size(); ++n) {
    TaskState& t = states[n];
    if (!t.finished_before) {
      RebuildFn rebuild = [&](const nlohmann::json& trace, const std::string& stem) {
        try {
          schedule::Schedule sch = schedule::Trace::from_json(trace).replay(*t.f);
          return build(search, t, schedule::scheduled_kernel(*t.f, sch), stem).empty()
                     ? stem + ".so"
                     : std::string();
        } catch (const UserError&) {
          return std::string();
        }
      };
      std::vector<Finalist> finalists = t.measured;
      finalists.insert(finalists.end(), t.earlier.begin(), t.earlier.end());
      confirm(finalists, *t.task, t.f->name, tstr, dir, options, measure, rebuild, t.tt, log);
    }
    report.tasks.push_back(t.tt);
  }
  // 6. The tuned kernels inside the whole model (with workers: not this machine's to time).
  if (!remote) {
    std::vector<const tune::Task*> tasks;
    for (const TaskState& t : states) tasks.push_back(t.task);
    check_in_model(model_path, options, tasks, model, tstr,
                   !conv_decisions.empty() || !layout_decisions.empty(), dir, report, log);
  }
  if (own_dir) std::filesystem::remove_all(dir);
  report.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  return report;
}

}  // namespace ingot::driver

// `ingot tune` (see tune.h): tasks of the lowered model, a one-kernel artifact per candidate,
// measurement in a child process, records appended per trial.
#include "driver/tune.h"

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
#include <set>

#include "codegen/build.h"
#include "codegen/target.h"
#include "driver/loop_passes.h"
#include "schedule/rules/default_rules.h"
#include "support/channel_block.h"
#include "support/error.h"
#include "tir/visitor.h"
#include "tune/records.h"
#include "tune/remote.h"
#include "tune/task.h"

namespace ingot::driver {

namespace {

using Clock = std::chrono::steady_clock;

// The parameters a kernel stores to.
std::set<const tir::BufferNode*> written_params(const tir::PrimFunc& f) {
  struct Stores : tir::IRVisitor {
    std::set<const tir::BufferNode*> seen;
    void visit_BufferStore(const tir::BufferStore* op, const tir::Stmt& s) override {
      seen.insert(op->buffer.get());
      tir::IRVisitor::visit_BufferStore(op, s);
    }
  } v;
  v.visit_stmt(f.body);
  std::set<const tir::BufferNode*> out;
  for (const tir::Buffer& b : f.params)
    if (v.seen.count(b.get())) out.insert(b.get());
  return out;
}

int64_t bytes_of(const tir::Buffer& b, std::vector<int64_t>* shape) {
  int64_t n = 1;
  for (const tir::Expr& d : b->shape) {
    auto* imm = d.as<tir::IntImm>();
    INGOT_ICHECK(imm != nullptr, "tune: parameter {} has a symbolic shape", b->name);
    shape->push_back(imm->value);
    n *= imm->value;
  }
  return n * b->dtype.bits / 8;
}

// A module running kernel k of `model` alone: the kernel's constants copied from the model, the
// parameters it writes as outputs, the others as inputs (kernels[0] is replaced per candidate).
tir::IRModule harness_for(const tir::IRModule& model, int k) {
  const tir::KernelCall* call = nullptr;
  for (const tir::KernelCall& c : model.entry)
    if (c.kernel == k) {
      call = &c;
      break;
    }
  INGOT_ICHECK(call != nullptr, "tune: kernel {} is never called", model.kernels[size_t(k)].name);
  const tir::PrimFunc& f = model.kernels[size_t(k)];
  std::set<const tir::BufferNode*> written = written_params(f);
  tir::IRModule h;
  h.model_name = "tune_" + f.name;
  h.kernels = {f};
  tir::KernelCall run{0, {}};
  for (size_t p = 0; p < f.params.size(); ++p) {
    const tir::Buffer& b = f.params[p];
    const tir::ArgRef& a = call->args[p];
    tir::TensorDesc d;
    d.name = fmt::format("p{}_{}", p, b->name);
    d.dtype = b->dtype;
    int64_t bytes = bytes_of(b, &d.shape);
    d.dim_names.assign(d.shape.size(), "");
    if (a.kind == tir::ArgRef::kConstant && !written.count(b.get())) {
      size_t at = (h.constants.size() + 63) / 64 * 64;
      h.constants.resize(at);
      auto src = model.constants.begin() + std::ptrdiff_t(a.value);
      h.constants.insert(h.constants.end(), src, src + bytes);
      run.args.push_back({tir::ArgRef::kConstant, int64_t(at)});
    } else if (written.count(b.get())) {
      run.args.push_back({tir::ArgRef::kOutput, int64_t(h.outputs.size())});
      h.outputs.push_back(d);
    } else {
      run.args.push_back({tir::ArgRef::kInput, int64_t(h.inputs.size())});
      h.inputs.push_back(d);
    }
  }
  h.entry = {run};
  return h;
}

// A trace's sampling decisions as one string (the identity of a point of the design space).
std::string decisions_of(const nlohmann::json& trace) {
  std::string out;
  for (const nlohmann::json& i : trace.at("instructions"))
    if (!i.at("decision").is_null()) out += i.at("decision").dump() + " ";
  return out;
}

// The task's rule run on kernel f: the default point, or (seeded) fresh decisions. nullopt with
// `error` set when the rule refuses the point.
std::optional<tir::PrimFunc> candidate(const tir::PrimFunc& f, const schedule::ScheduleRule& rule,
                                       const schedule::RuleTarget& rt, uint64_t seed,
                                       bool default_point, std::string* decisions,
                                       std::string* error) {
  schedule::Schedule s(f, seed);
  if (!default_point) s.set_sampling_policy({.ignore_given = true});
  try {
    rule.apply(s, rt);
  } catch (const UserError& e) {
    *error = std::string("invalid schedule: ") + e.what();
    return std::nullopt;
  } catch (const InternalError& e) {
    *error = std::string("rule failed: ") + e.what();
    return std::nullopt;
  }
  *decisions = decisions_of(s.trace().to_json());
  return schedule::scheduled_kernel(f, s);
}

std::string ms(double s) {
  return s > 0 ? fmt::format("{:.4f} ms", s * 1e3) : "-";
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
};

// A measurement and the worker that made it ("" locally).
struct Measured {
  tune::Measurement m;
  std::string worker;
};
using MeasureFn = std::function<std::vector<Measured>(const std::vector<tune::MeasureJob>&)>;

constexpr size_t kFinalists = 3;   // fastest candidates measured again
constexpr int kConfirmRounds = 3;  // rounds over them and the default, alternating

// The confirmation round: one fast measurement on a shared machine is as likely luck as
// speed, so the fastest candidates and the default schedule are measured again, in turn, and
// each gets a confirmed record with its fastest time; compile chooses among those.
// Builds the artifact of a trace (a candidate measured by an earlier, resumed run) into `stem`.so;
// "" when it no longer builds.
using RebuildFn = std::function<std::string(const nlohmann::json& trace, const std::string& stem)>;

void confirm(std::vector<Finalist> measured, const tune::Task& task, const std::string& kernel,
             const std::string& target, const std::filesystem::path& dir,
             const TuneOptions& options, const MeasureFn& measure, const RebuildFn& rebuild,
             TaskTuning& tt, std::ostream& log) {
  if (measured.size() < 2 || !measured[0].is_default) return;
  std::vector<Finalist> finalists = {measured[0]};
  std::sort(measured.begin() + 1, measured.end(),
            [](const Finalist& a, const Finalist& b) { return a.seconds < b.seconds; });
  for (size_t k = 1; k < measured.size() && finalists.size() <= kFinalists; ++k) {
    Finalist fin = measured[k];
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
    if (best[k] < 0) rec.error = "failed when measured again";
    tune::append_record(options.records, rec);
    if (!rec.ok()) continue;
    if (k == 0) tt.default_s = best[k];
    if (tt.best_s < 0 || best[k] < tt.best_s) tt.best_s = best[k];
  }
  log << fmt::format("{}: confirmed over {} rounds: default {}, best {}\n", kernel, kConfirmRounds,
                     ms(tt.default_s), ms(tt.best_s));
}

}  // namespace

TuneReport tune_model(const std::string& model_path, const TuneOptions& options,
                      std::ostream& log) {
  if (options.trials < 1) fail_user("--trials: {} is not a positive count", options.trials);
  if (options.records.empty()) fail_user("-o: a records file is required");
  Clock::time_point start = Clock::now();
  // 1. The lowered, unscheduled module.
  tir::IRModule model;
  CompileOptions co = options.compile;
  co.after_lower = [&model](const tir::IRModule& m) {
    model = m;
    return false;
  };
  compile_model(model_path, "", co, log);
  codegen::Target target = codegen::Target::parse(options.compile.target);
  std::string tstr = target.str();
  schedule::RuleTarget rt{"llvm", target.is_aarch64() ? CpuVectorIsa::aarch64_neon()
                                                      : CpuVectorIsa::x86(target.vector_bits)};
  std::vector<tune::Task> all = tune::extract_tasks(model, tstr);
  std::vector<int> chosen = options.tasks;
  if (chosen.empty())
    for (size_t t = 0; t < all.size(); ++t) chosen.push_back(int(t));
  for (int t : chosen)
    if (t < 0 || t >= int(all.size()))
      fail_user("--tasks: task {} does not exist (the model has {} tasks)", t, all.size());
  // 2. Trials per task in proportion to its weighted FLOPs (at least the default and one more).
  double total = 0;
  for (int t : chosen) total += all[size_t(t)].flops * all[size_t(t)].weight();
  std::filesystem::path dir = options.workdir;
  bool own_dir = dir.empty();
  if (own_dir) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ingot-tune-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) fail_user("cannot create a directory for tuning candidates");
    dir = tmpl;
  }
  // 3. Where candidates are measured: here, one after the other, or on the workers of a Redis
  //    server, a batch at a time.
  std::unique_ptr<tune::RemoteMeasurer> remote;
  if (!options.workers.empty())
    remote =
        std::make_unique<tune::RemoteMeasurer>(tune::parse_redis_url(options.workers, "--workers"),
                                               options.measure, options.worker_wait_s);
  const int batch = options.batch > 0 ? options.batch : remote ? 8 : 1;
  MeasureFn measure = [&](const std::vector<tune::MeasureJob>& jobs) {
    std::vector<Measured> out;
    if (remote && !jobs.empty()) {
      std::vector<tune::Measurement> r = remote->measure(jobs);
      for (size_t k = 0; k < r.size(); ++k) out.push_back({r[k], remote->workers()[k]});
    } else {
      for (const tune::MeasureJob& j : jobs)
        out.push_back({tune::measure_artifact(j.artifact, j.outputs, options.measure), ""});
    }
    return out;
  };
  // 4. With --resume, what an earlier run of the same records file measured: finished tasks
  //    (confirmed) are skipped, the others continue past the points already measured.
  std::vector<tune::TuningRecord> prior;
  if (options.resume && std::filesystem::exists(options.records))
    prior = tune::read_records(options.records);
  TuneReport report;
  report.target = tstr;
  // Progress: the trials planned over all tasks and those made so far (for the ETA).
  auto budget_of = [&](const tune::Task& t) {
    double share = total > 0 ? t.flops * t.weight() / total : 1.0 / double(chosen.size());
    return std::max(2, int(std::lround(options.trials * share)));
  };
  int planned = 0, made = 0;
  for (int t : chosen) planned += budget_of(all[size_t(t)]);
  auto progress = [&]() {
    double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    double eta = made > 0 ? elapsed / made * std::max(0, planned - made) : 0;
    return fmt::format("[{:.0f} s, ETA {:.0f} s]", elapsed, eta);
  };
  // On a terminal each task's trials redraw one line; elsewhere one line per trial.
  const char* end = options.live ? "" : "\n";
  const char* begin = options.live ? "\r\033[K" : "";
  for (size_t n = 0; n < chosen.size(); ++n) {
    const tune::Task& task = all[size_t(chosen[n])];
    const tir::PrimFunc& f = model.kernels[size_t(task.kernels[0])];
    const schedule::ScheduleRule* rule = schedule::find_schedule_rule(task.rule, "llvm");
    INGOT_ICHECK(rule != nullptr, "tune: no rule {}", task.rule);
    TaskTuning tt{chosen[n], task.key, task.rule, f.name, task.weight(), task.flops};
    int budget = budget_of(task);
    tir::IRModule harness = harness_for(model, task.kernels[0]);
    std::set<std::string> seen;
    std::string baseline;            // the default schedule's outputs
    std::vector<Finalist> measured;  // every candidate that passed, the default first
    std::vector<Finalist> earlier;   // candidates a resumed run measured (no artifact)
    bool finished_before = false;
    for (const tune::TuningRecord& r : prior) {
      if (r.task != task.key) continue;
      if (r.confirmed) {
        finished_before = true;
        if (r.ok() && (tt.best_s < 0 || r.seconds < tt.best_s)) tt.best_s = r.seconds;
        continue;
      }
      seen.insert(decisions_of(r.trace));
      ++tt.trials;
      if (!r.ok()) ++tt.failed;
      if (r.ok()) earlier.push_back({r.seconds, r.trace, "", false});
    }
    if (finished_before) {
      log << fmt::format("task {}/{} {}: finished in the resumed run ({} trials)\n", n + 1,
                         chosen.size(), f.name, tt.trials);
      report.tasks.push_back(tt);
      continue;
    }
    // Builds candidate c alone into stem.so; the error, or "".
    auto build = [&](const tir::PrimFunc& c, const std::string& stem) {
      try {
        tir::IRModule m = harness;
        m.kernels = {c};
        run_loop_passes(m);
        codegen::BuildOptions bo;
        bo.threads = 1;
        codegen::build_shared_library(m, target, stem + ".so", bo);
        return std::string();
      } catch (const std::exception& e) {
        return std::string("build failed: ") + e.what();
      }
    };
    RebuildFn rebuild = [&](const nlohmann::json& trace, const std::string& stem) {
      try {
        schedule::Schedule s = schedule::Trace::from_json(trace).replay(f);
        return build(schedule::scheduled_kernel(f, s), stem).empty() ? stem + ".so" : std::string();
      } catch (const UserError&) {
        return std::string();
      }
    };
    // Records a finished trial (an error, or a measurement checked against the default's).
    // A default measured again only as the reference of a resumed task is not a new trial.
    auto finish = [&](tune::TuningRecord rec, const std::string& artifact,
                      const tune::Measurement* meas, const std::string& worker, bool is_default,
                      bool new_trial) {
      rec.worker = worker;
      if (meas && !meas->ok()) rec.error = meas->error;
      if (meas && meas->ok()) {
        if (is_default) {
          baseline = meas->outputs;
          rec.seconds = meas->seconds;
        } else {
          double diff = tune::max_relative_difference(meas->outputs, baseline);
          if (diff > 1e-4) {
            rec.error = fmt::format("wrong result (max relative difference {:.3g})", diff);
          } else {
            rec.seconds = meas->seconds;
          }
        }
      }
      if (!rec.error.empty()) rec.seconds = -1;
      if (rec.ok()) measured.push_back({rec.seconds, rec.trace, artifact, is_default});
      if (rec.ok() && is_default) tt.default_s = rec.seconds;
      if (!new_trial) return rec.ok();
      tune::append_record(options.records, rec);
      ++tt.trials;
      if (!rec.ok()) ++tt.failed;
      if (rec.ok() && is_default) tt.default_s = rec.seconds;
      if (rec.ok() && (tt.best_s < 0 || rec.seconds < tt.best_s)) tt.best_s = rec.seconds;
      tt.curve.push_back(tt.best_s);
      ++made;
      std::string result = rec.ok() ? fmt::format("{} {:.1f} GFLOP/s", ms(rec.seconds),
                                                  task.flops / rec.seconds * 1e-9)
                                    : rec.error;
      std::string gain = tt.default_s > 0 && tt.best_s > 0
                             ? fmt::format(" {:.2f}x", tt.default_s / tt.best_s)
                             : "";
      log << fmt::format("{}task {}/{} {} (x{}): trial {}/{}: {} (default {}, best {}{}) {}{}",
                         begin, n + 1, chosen.size(), f.name, task.weight(), tt.trials, budget,
                         result, ms(tt.default_s), ms(tt.best_s), gain, progress(), end);
      log.flush();
      return rec.ok();
    };
    // The default schedule alone first (the reference outputs), then batches of candidates.
    int attempt = 0;
    bool searching = true;
    // (The default runs even when a resumed task has used its budget: the reference outputs.)
    while (searching && (attempt == 0 || tt.trials < budget) && attempt < 4 * budget) {
      size_t batch_size = attempt == 0 ? 1 : size_t(batch);
      std::vector<Built> built;
      std::vector<tune::MeasureJob> jobs;
      bool default_has_choices = true;
      while (built.size() < batch_size &&
             (attempt == 0 || tt.trials + int(built.size()) < budget) && attempt < 4 * budget) {
        int a = attempt++;
        uint64_t seed = options.seed * 1000003ull + uint64_t(chosen[n]) * 7919ull + uint64_t(a);
        std::string decisions, error;
        std::optional<tir::PrimFunc> c = candidate(f, *rule, rt, seed, a == 0, &decisions, &error);
        bool fresh = !c || seen.insert(decisions).second;
        if (!fresh && a > 0) continue;  // a point already measured
        if (a == 0) default_has_choices = !decisions.empty();
        tune::TuningRecord rec{task.key, tstr, task.rule, f.name, nlohmann::json(), -1, error};
        std::string stem = (dir / fmt::format("t{}_{}", chosen[n], a)).string();
        if (c) {
          rec.trace = nlohmann::json::parse(c->schedule_trace);
          rec.error = build(*c, stem);
          if (rec.error.empty()) {
            built.push_back({rec, stem + ".so", a == 0, fresh});
            jobs.push_back({stem + ".so", stem + ".npz"});
            continue;
          }
        }
        finish(rec, "", nullptr, "", a == 0, fresh);  // refused by the rule, or not built
        if (a == 0) searching = false;
      }
      std::vector<Measured> results = measure(jobs);
      for (size_t k = 0; k < built.size(); ++k) {
        bool ok = finish(built[k].rec, built[k].artifact, &results[k].m, results[k].worker,
                         built[k].is_default, built[k].new_trial);
        // No reference outputs, or a rule without choices: nothing more to do for this task.
        if (built[k].is_default && (!ok || !default_has_choices)) searching = false;
      }
    }
    if (options.live) log << "\n";
    measured.insert(measured.end(), earlier.begin(), earlier.end());
    confirm(measured, task, f.name, tstr, dir, options, measure, rebuild, tt, log);
    report.tasks.push_back(tt);
  }
  if (own_dir) std::filesystem::remove_all(dir);
  report.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  return report;
}

}  // namespace ingot::driver

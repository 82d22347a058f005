// `ingot tune`: schedule search per task. The model is lowered as for a compile; each task (a
// distinct schedulable kernel, tune/task.h) is built alone into a small artifact whose inputs are
// the kernel's non-constant arguments (the runtime fills them with fixed-seed random values), its
// constants the model's, and its outputs what the kernel writes. The default schedule is
// measured first; further candidates come from the task's rule with freshly drawn decisions
// (Schedule::set_sampling_policy), invalid ones refused by the schedule's own checks before they
// are built. Candidates are measured in child processes (tune/measure.h: a batch in one
// `ingot measure` process, in alternating rounds), here or, with --workers, by `ingot
// tune-worker` processes through Redis (tune/remote.h), and their outputs are
// compared with the default schedule's; every trial, failed or not, is appended to the records.
// Then the three fastest candidates and the default are measured again, alternating, three
// times each; their confirmed records (fastest time) are what compile chooses from. Last (not
// with --workers), the model is built with the default schedules and with the records and both
// are timed in one process, call by call; every task whose best is not its default gets in-model
// records of both, which compile prefers, so a task slower in the model keeps its default.
//
// Trials go to tasks through the gradient-based task scheduler (tune/task_scheduler.h). After a
// task's warm-up, its candidates come from an evolutionary search guided by the XGBoost cost
// model (tune/evolve.h, tune/cost_model.h), trained on every measured candidate so far and
// retrained as measurements arrive; before the model has anything to learn from (or with
// --cost-model none), half are one-decision mutations of the fastest (tune/mutate.h) and half
// random points.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "driver/compile.h"
#include "tune/measure.h"

namespace ingot::driver {

struct TuneOptions {
  CompileOptions compile;  // target, input shapes, optimisation level, passes
  int trials = 64;         // measured candidates over all tasks, default schedules included
  std::string records;     // JSON-lines file the trials are appended to
  // Continue the run that wrote `records`: tasks it finished (confirmed) are skipped, the others
  // go on past the points it measured (same seed: the same sequence of candidates).
  bool resume = false;
  bool live = false;  // redraw each task's progress on one line (a terminal)
  uint64_t seed = 1;
  std::vector<int> tasks;  // 0-based task indices to tune (empty: all)
  tune::MeasureOptions measure;
  // "redis://HOST:PORT": measure on `ingot tune-worker` processes through that server ("" here).
  std::string workers;
  int batch = 0;  // candidates measured at once (0: 8)
  // "xgb": candidates chosen by the XGBoost cost model's evolutionary search once it is trained;
  // "none": random points and mutations of the fastest only.
  std::string cost_model = "xgb";
  // Where the trained model is saved ("": RECORDS.model.json); loaded at the start when it
  // exists and either --resume is given or the path was named (a warm start).
  std::string cost_model_file;
  double worker_wait_s = 300;  // give up on a batch after this long without any result
  std::string workdir;         // where candidate artifacts go ("": a fresh temporary directory)
  // "auto": the channel block of each class of convolutions chosen in the model
  // (driver/tune_conv_layouts.h); "default": the default blocks.
  std::string conv_layout = "auto";
  // How far the last-level cache serves, measured (`ingot device-info`'s cache_reach_bytes; 0
  // when unknown): the `auto` cache state compares the model with it rather than with the size
  // sysfs reports. Called only where the comparison depends on it.
  std::function<uint64_t()> cache_reach;
};

struct TaskTuning {
  int index = 0;  // in the model's task list (--tasks numbering)
  std::string key, rule, kernel;
  int weight = 0;
  double flops = 0;
  int trials = 0, failed = 0;
  double default_s = -1, best_s = -1;  // confirmed where the task had a confirmation round
  std::vector<double> curve = {};      // the best single measurement after each new trial
};

struct TuneReport {
  std::vector<TaskTuning> tasks;
  std::string target;
  double wall_s = 0;
  // The check inside the whole model (see tune.cpp): the default and the tuned model's fastest
  // call of `model_calls` each (-1: not run), the tasks checked and those that keep their
  // default because their tuned kernels were slower there.
  double model_default_s = -1, model_tuned_s = -1;
  int model_calls = 0, model_checked = 0, model_kept_default = 0;
  // The convolutions whose algorithm the run chose in the model (or found in the records), and
  // how many of them run as Winograd.
  int conv_choices = 0, conv_winograd = 0;
  // The classes of convolutions whose channel block the run chose in the model, and how many of
  // them take a block other than the default.
  int layout_classes = 0, layout_changed = 0;
  // What the candidates' timed runs started from (MeasureOptions::cache_state, resolved).
  std::string cache_state;
};

// Tunes the model's tasks; `log` gets one line per trial.
TuneReport tune_model(const std::string& model_path, const TuneOptions& options, std::ostream& log);

// Seconds as "0.1234 ms" ("-" when not measured), as the tuner's lines and tables print them.
std::string format_ms(double seconds);

// The final table: per task its kernel, weight, trials, default and best time and speed-up, and
// the weighted total (tune_report.cpp).
void print_tune_report(const TuneReport& r, std::ostream& out);
// `--report tune.html`: the table and the tuning curve (estimated speed-up of the tuned kernels,
// weighted by calls, after each trial; tasks are tuned one after another) as an inline SVG plot.
void write_tune_html(const TuneReport& r, const std::string& path);

}  // namespace ingot::driver

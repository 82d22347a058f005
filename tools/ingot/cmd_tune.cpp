// `ingot tune MODEL.onnx -o RECORDS.jsonl [--target T] [--trials N] [--seed S] [--tasks ...]
// [--repeat R] [--number K] [--timeout S] [--num-threads T] [--input-shapes ...]
// [--workers redis://HOST:PORT]`, and `ingot tune-worker redis://HOST:PORT`.
#include <unistd.h>

#include <climits>
#include <iostream>
#include <string>

#include "driver/tune.h"
#include "support/error.h"
#include "tools/ingot/commands.h"
#include "tools/ingot/device_info.h"
#include "tune/remote.h"

namespace ingot::cli {

namespace {

// This executable's path: the measurement processes run `ingot run` from it.
std::string self_path() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) fail_user("cannot find the ingot executable (/proc/self/exe)");
  return std::string(buf, size_t(n));
}

}  // namespace

void add_tune_command(CLI::App& app, int& exit_code) {
  struct Args {
    std::string model, input_shapes, report;
    driver::TuneOptions options;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "tune", "search schedules for a model's kernels and append the trials to a records file");
  cmd->add_option("model", args->model, "the ONNX model file")->required();
  cmd->add_option("-o,--output", args->options.records,
                  "JSON-lines records file the trials are appended to (for compile "
                  "--tuning-records)")
      ->required();
  cmd->add_option("--target", args->options.compile.target, "compilation target (as compile)")
      ->capture_default_str();
  cmd->add_option("--input-shapes", args->input_shapes, "bind input shapes (as compile)");
  cmd->add_option("--conv-algorithm", args->options.compile.conv_algorithm,
                  "3x3 stride-1 convolutions on CPUs: auto (Winograd F(4x4,3x3) or F(2x2,3x3) "
                  "where the default policy picks it), direct, winograd_f2, winograd_f4")
      ->capture_default_str();
  cmd->add_option("--conv-layout", args->options.conv_layout,
                  "convolutions' channel blocks on CPUs: auto (one block per class of "
                  "convolutions that share it, chosen in the model), default")
      ->capture_default_str();
  cmd->add_option("--dtype", args->options.compile.dtype,
                  "float32, float16 or bfloat16 (as compile)")
      ->capture_default_str();
  cmd->add_option("--trials", args->options.trials,
                  "measured candidates over all tasks, each task's default schedule included")
      ->capture_default_str();
  cmd->add_option("--report", args->report,
                  "write an HTML report (the task table and the tuning curve as an SVG plot)");
  cmd->add_flag("--resume", args->options.resume,
                "continue an interrupted run of the same records file: finished tasks are "
                "skipped, the others go on past the candidates already measured");
  cmd->add_option("--seed", args->options.seed, "seed of the sampled decisions")
      ->capture_default_str();
  cmd->add_option("--tasks", args->options.tasks, "tune only these tasks (0-based, in order)")
      ->delimiter(',');
  cmd->add_option("--repeat", args->options.measure.repeat, "timing samples per candidate")
      ->capture_default_str();
  cmd->add_option("--number", args->options.measure.number, "runs averaged per sample")
      ->capture_default_str();
  cmd->add_option("--min-repeat-ms", args->options.measure.min_repeat_ms,
                  "each candidate's run warms up for this long and each sample lasts at least "
                  "this long (raising --number); 0: --number as given")
      ->capture_default_str();
  cmd->add_option("--timeout", args->options.measure.timeout_s,
                  "seconds a candidate's measurement may take before it is killed")
      ->capture_default_str();
  cmd->add_option("--num-threads", args->options.measure.threads,
                  "threads of the measured runs (default: the runtime's)");
  CLI::Option* state =
      cmd->add_option("--cache-state", args->options.measure.cache_state,
                      "what each timed run of a candidate starts from: warm (the previous run's "
                      "caches), cold (flushed), model (its code and constants evicted, then its "
                      "inputs read back: as "
                      "inside a model larger than the cache), auto (model when the model's "
                      "constants and workspace exceed the last-level cache, else warm)")
          ->check(CLI::IsMember({"auto", "warm", "cold", "model"}));
  args->options.measure.cache_state = "auto";
  cmd->add_flag_callback(
         "--cache-flush", [args] { args->options.measure.cache_state = "cold"; },
         "--cache-state cold")
      ->excludes(state);
  cmd->add_option("--workers", args->options.workers,
                  "redis://HOST:PORT: measure on `ingot tune-worker` processes through that Redis "
                  "server instead of here");
  cmd->add_option("--batch", args->options.batch,
                  "candidates chosen and measured at once (default: 8)");
  cmd->add_option("--workdir", args->options.workdir,
                  "keep the candidates' artifacts (tT_A.so: task T, attempt A) and outputs in "
                  "this directory (default: a temporary one, removed at the end)");
  cmd->add_option("--cost-model", args->options.cost_model,
                  "xgb: choose candidates by an XGBoost cost model's evolutionary search once it "
                  "has measurements to learn from; none: random points and mutations only")
      ->capture_default_str();
  cmd->add_option("--cost-model-file", args->options.cost_model_file,
                  "where the trained cost model is saved (default: RECORDS.model.json); an "
                  "existing file named here is loaded first (a warm start), as the default one "
                  "is with --resume");
  cmd->add_option("--worker-wait", args->options.worker_wait_s,
                  "seconds to wait for the workers without any result before the rest of a "
                  "batch counts as failed")
      ->capture_default_str();
  cmd->callback([args, &exit_code] {
    if (!args->input_shapes.empty())
      args->options.compile.input_shapes = driver::parse_input_shapes(args->input_shapes);
    args->options.measure.ingot = self_path();
    args->options.live = isatty(STDOUT_FILENO);
    // The cache as this machine's reads see it (measured once, cached with `ingot device-info`);
    // workers measure on machines of their own.
    if (args->options.workers.empty())
      args->options.cache_reach = [] {
        MachineInfo m = load_or_measure_machine(false);
        if (m.cache_reach_bytes == 0) m = load_or_measure_machine(false, true);
        return m.cache_reach_bytes;
      };
    driver::TuneReport r = driver::tune_model(args->model, args->options, std::cout);
    driver::print_tune_report(r, std::cout);
    if (!args->report.empty()) {
      driver::write_tune_html(r, args->report);
      std::cout << "report: " << args->report << "\n";
    }
    std::cout << "records: " << args->options.records << "\n";
    exit_code = 0;
  });
}

void add_tune_worker_command(CLI::App& app, int& exit_code) {
  struct Args {
    std::string url;
    tune::WorkerOptions options;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "tune-worker", "measure tuning candidates for `ingot tune --workers` (Redis streams)");
  cmd->add_option("server", args->url, "redis://HOST:PORT")->required();
  cmd->add_option("--name", args->options.name, "consumer name (default: worker-PID)");
  cmd->add_option("--claim-idle-ms", args->options.claim_idle_ms,
                  "take over a job another worker has held this long without answering (keep it "
                  "above the tuner's --timeout)")
      ->capture_default_str();
  cmd->add_option("--max-jobs", args->options.max_jobs, "exit after answering this many jobs");
  cmd->add_option("--idle-exit", args->options.idle_exit_s,
                  "exit after this many seconds without a job (default: run until stopped)");
  cmd->add_option("--die-on-job", args->options.die_on_job,
                  "testing: exit without answering the N-th job taken (a worker killed "
                  "mid-measurement)");
  cmd->callback([args, &exit_code] {
    args->options.ingot = self_path();
    int answered =
        tune::run_worker(tune::parse_redis_url(args->url, "tune-worker"), args->options, std::cout);
    std::cout << "answered " << answered << " jobs\n";
    exit_code = 0;
  });
}

}  // namespace ingot::cli

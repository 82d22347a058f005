// `ingot run ART.so`: runs a compiled artifact with tvmc's options: inputs by name from a .npz
// (missing ones filled per --fill-mode), repeat x number timed runs after a warm-up, the timing
// summary, per-kernel profile, and outputs written atomically to a .npz or printed.
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ingot/runtime.hpp"
#include "support/bfloat16.h"
#include "support/error.h"
#include "support/half.h"
#include "support/npz.h"
#include "tools/ingot/commands.h"
#include "tools/ingot/mlf_artifact.h"
#include "tools/ingot/output_check.h"
#include "tools/ingot/profile_report.h"
#include "tools/ingot/run_batch.h"
#include "tools/ingot/run_session.h"
#include "tune/measure.h"

namespace ingot::cli {
namespace {

struct RunOptions {
  std::string artifact;
  std::string inputs;
  std::string outputs;
  std::string fill_mode = "random";
  int repeat = 1;
  int number = 1;
  double min_repeat_ms = 0;
  bool print_time = false;
  bool profile = false;
  bool cache_flush = false;  // --cache-flush: --cache-state cold
  std::string cache_state = "warm";
  int num_threads = 0;
  int device = -1;
  std::string check;
  CheckTolerance tol;
  std::string profile_json;
  std::string report;
  std::string device_info;
};

// The machine numbers for the roofline: --device-info's file as given, else this machine's
// (cached, measured on first use). GPU artifacts get none (the numbers are the CPU's).
std::optional<MachineInfo> roofline_machine(const RunOptions& opts, const rt::Model& model) {
  if (model.artifact().device_type != kDLCPU) return std::nullopt;
  if (!opts.device_info.empty()) {
    std::ifstream f(opts.device_info);
    if (!f) fail_user("--device-info: cannot open '{}'", opts.device_info);
    try {
      return MachineInfo::from_json(nlohmann::json::parse(f));
    } catch (const std::exception& e) {
      fail_user("--device-info: '{}' is not the JSON of `ingot device-info --json`: {}",
                opts.device_info, e.what());
    }
  }
  return load_or_measure_machine(true);
}

// tvmc's timing: `repeat` samples, each the mean of `number` runs, in milliseconds.
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void print_time_summary(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  size_t n = ms.size();
  double mean = 0;
  for (double v : ms) mean += v;
  mean /= static_cast<double>(n);
  double mid = median(ms);
  double var = 0;
  for (double v : ms) var += (v - mean) * (v - mean);
  double std_dev = std::sqrt(var / static_cast<double>(n));
  fmt::print("Execution time summary:\n");
  fmt::print("{:^12} {:^12} {:^12} {:^12} {:^12}\n", "mean (ms)", "median (ms)", "max (ms)",
             "min (ms)", "std (ms)");
  fmt::print("{:^12.4f} {:^12.4f} {:^12.4f} {:^12.4f} {:^12.4f}\n", mean, mid, ms.back(),
             ms.front(), std_dev);
}

std::string format_value(IngotDType dtype, const uint8_t* p) {
  auto get = [p](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  if (dtype.code == 2 && dtype.bits == 32) return fmt::format("{:g}", get(float{}));
  if (dtype.code == 2 && dtype.bits == 64) return fmt::format("{:g}", get(double{}));
  if (dtype.code == 2 && dtype.bits == 16)
    return fmt::format("{:g}", half_bits_to_double(get(uint16_t{})));
  if (dtype.code == 4 && dtype.bits == 16)
    return fmt::format("{:g}", bfloat16_bits_to_float(get(uint16_t{})));
  if (dtype.code == 6) return p[0] ? "True" : "False";
  if (dtype.code == 0 && dtype.bits == 64) return fmt::format("{}", get(int64_t{}));
  if (dtype.code == 0 && dtype.bits == 32) return fmt::format("{}", get(int32_t{}));
  if (dtype.code == 0 && dtype.bits == 16) return fmt::format("{}", get(int16_t{}));
  if (dtype.code == 0 && dtype.bits == 8) return fmt::format("{}", get(int8_t{}));
  if (dtype.code == 1 && dtype.bits == 64) return fmt::format("{}", get(uint64_t{}));
  if (dtype.code == 1 && dtype.bits == 32) return fmt::format("{}", get(uint32_t{}));
  if (dtype.code == 1 && dtype.bits == 16) return fmt::format("{}", get(uint16_t{}));
  if (dtype.code == 1 && dtype.bits == 8) return fmt::format("{}", get(uint8_t{}));
  return "?";
}

void print_outputs(const rt::Session& session, const rt::Model& model) {
  constexpr int64_t kShown = 8;
  for (int i = 0; i < model.num_outputs(); ++i) {
    const IngotTensorInfo& info = model.output_info(i);
    DLTensor view = session.output(i);
    int64_t count = 1;
    for (int d = 0; d < view.ndim; ++d) count *= view.shape[d];  // this run's shape
    size_t elem = ingot_dtype_bytes(info.dtype);
    std::string values;
    for (int64_t k = 0; k < std::min(count, kShown); ++k) {
      const auto* p = static_cast<const uint8_t*>(view.data) + static_cast<size_t>(k) * elem;
      values += (k ? ", " : "") + format_value(info.dtype, p);
    }
    if (count > kShown) values += ", ...";
    fmt::print("{}: {} {}\n  [{}]\n", info.name, dtype_string(info.dtype),
               shape_string(view.shape, view.ndim), values);
  }
}

// Exit status of `ingot run --check` when an output differs (1 is an error, 2 a bug).
constexpr int kCheckFailedExit = 3;

int run_artifact(const RunOptions& opts) {
  if (opts.repeat < 1 || opts.number < 1) {
    fail_user("--repeat and --number must be at least 1 (got --repeat {} --number {})", opts.repeat,
              opts.number);
  }
  try {
    if (opts.num_threads > 0) rt::set_num_threads(opts.num_threads);
    if (opts.device >= 0) {
      // Device artifacts: which of the machine's devices (the runtime reads these at load).
      std::string n = std::to_string(opts.device);
      setenv("INGOT_OPENCL_DEVICE", n.c_str(), 1);
      setenv("INGOT_CUDA_DEVICE", n.c_str(), 1);
    }
    LoadableArtifact artifact(opts.artifact);
    rt::Model model(artifact.path());
    rt::Session session(model);
    std::vector<NpyArray> inputs = bind_inputs(opts.inputs, opts.fill_mode, model, session);
    run_step(session);  // warm-up, and the run whose outputs are reported
    const tune::CacheState cache =
        opts.cache_flush ? tune::CacheState::kCold : tune::parse_cache_state(opts.cache_state);
    std::optional<CacheFlusher> flusher;
    if (cache != tune::CacheState::kWarm) flusher.emplace();
    int number = opts.number;
    if (opts.min_repeat_ms > 0) {
      number = runs_for_min_ms(session, opts.min_repeat_ms, number, flusher.has_value());
      if (opts.print_time)
        fmt::print("Runs per sample: {} (--min-repeat-ms {})\n", number, opts.min_repeat_ms);
    }
    ModelState model_state;
    if (cache == tune::CacheState::kModel) model_state = ModelState::of(model, inputs);
    if (opts.print_time && cache == tune::CacheState::kModel)
      fmt::print(
          "Cache state: model (before each run the artifact's {:.1f} KiB evicted, its "
          "inputs read back)\n",
          double(model_state.memory_bytes()) / 1024.0);
    std::vector<double> samples =
        time_runs(session, opts.repeat, number, flusher ? &*flusher : nullptr,
                  cache == tune::CacheState::kModel ? &model_state : nullptr);
    if (opts.print_time) print_time_summary(samples);
    if (opts.profile || !opts.profile_json.empty() || !opts.report.empty()) {
      ProfileReport report =
          collect_profile(session, model, opts.repeat * number, roofline_machine(opts, model));
      if (opts.profile) print_profile_table(report);
      if (!opts.profile_json.empty()) write_profile_json(opts.profile_json, report);
      if (!opts.report.empty()) write_profile_html(opts.report, report);
    }
    if (!opts.outputs.empty()) {
      write_outputs(opts.outputs, session, model);
    } else if (opts.check.empty()) {
      print_outputs(session, model);
    }
    // The outputs of the first run (later runs of a deterministic model give the same).
    if (!opts.check.empty() && check_outputs(opts.check, opts.tol, session, model) > 0)
      return kCheckFailedExit;
  } catch (const rt::Error& e) {
    throw UserError(e.what());
  }
  return 0;
}

// The options of one run: `ingot run`'s own, and each line's of `ingot run --batch`.
void add_run_options(CLI::App* cmd, RunOptions& opts) {
  cmd->add_option("artifact", opts.artifact,
                  "compiled artifact (.so), or a Model Library Format tarball, built first with "
                  "the host C compiler");
  cmd->add_option("--inputs", opts.inputs, ".npz file with inputs by name");
  cmd->add_option("--outputs", opts.outputs, ".npz file to write the outputs to");
  cmd->add_option("--fill-mode", opts.fill_mode,
                  "how to fill inputs missing from --inputs (random: uniform [0, 1), fixed seed)")
      ->check(CLI::IsMember({"zeros", "ones", "random"}))
      ->capture_default_str();
  cmd->add_option("--repeat", opts.repeat, "number of timing samples")->capture_default_str();
  cmd->add_option("--number", opts.number, "runs averaged into each sample")->capture_default_str();
  cmd->add_option("--min-repeat-ms", opts.min_repeat_ms,
                  "warm up for this long, then raise --number so that each sample lasts at least "
                  "this long (short models are not timed in fractions of a millisecond)")
      ->capture_default_str();
  cmd->add_flag("--print-time", opts.print_time, "print the execution time summary");
  cmd->add_flag("--profile", opts.profile,
                "print per-kernel times, each kernel's fused ops, GFLOP/s, GB/s and its place on "
                "this machine's roofline (peaks from `ingot device-info`, measured on first use)");
  cmd->add_option("--profile-json", opts.profile_json, "write the per-kernel profile as JSON");
  cmd->add_option("--report", opts.report,
                  "write the profile as a self-contained HTML page (roofline plot, time "
                  "breakdown, sortable table)");
  cmd->add_option("--device-info", opts.device_info,
                  "roofline limits from this `ingot device-info --json` file instead of this "
                  "machine's");
  CLI::Option* state =
      cmd->add_option("--cache-state", opts.cache_state,
                      "what each timed run starts from: warm (the previous run's caches), cold "
                      "(every cache flushed, untimed), model (the artifact's code and constants "
                      "evicted, then the inputs read back: a kernel's state inside a model larger "
                      "than the cache)")
          ->check(CLI::IsMember({"warm", "cold", "model"}))
          ->capture_default_str();
  cmd->add_flag("--cache-flush", opts.cache_flush, "--cache-state cold")->excludes(state);
  cmd->add_option("--num-threads", opts.num_threads,
                  "threads for parallel loops (default: physical cores)");
  cmd->add_option("--device", opts.device,
                  "OpenCL / CUDA artifacts: run on the machine's N-th device of that kind "
                  "(OpenCL: in platform order; default: the first GPU, else the first device)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--check", opts.check,
                  "compare the outputs with the arrays of this .npz by name; exit status 3 when "
                  "any element differs by more than atol + rtol * |expected|");
  cmd->add_option("--rtol", opts.tol.rtol, "--check: relative tolerance")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--atol", opts.tol.atol, "--check: absolute tolerance")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

// One line of `ingot run --batch`: its options parsed as `ingot run`'s, then run. The thread
// count and the device follow each line (a line without them gets the defaults back).
int run_batch_line(const std::string& line, int& threads_now) {
  RunOptions opts;
  CLI::App app{"ingot run --batch line"};
  app.set_help_flag();
  add_run_options(&app, opts);
  app.parse(line, false);
  if (opts.artifact.empty()) fail_user("--batch: the line '{}' names no artifact", line);
  if (opts.device < 0) {
    unsetenv("INGOT_OPENCL_DEVICE");
    unsetenv("INGOT_CUDA_DEVICE");
  }
  if (opts.num_threads != threads_now) {
    rt::set_num_threads(opts.num_threads);  // 0: the default
    threads_now = opts.num_threads;
  }
  opts.num_threads = 0;  // applied above
  return run_artifact(opts);
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<RunOptions>();
  auto batch = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("run", "Run a compiled artifact (.so, or an MLF .tar)");
  add_run_options(cmd, *opts);
  cmd->add_option("--batch", *batch,
                  "run many artifacts in one process: one `ingot run` command line (an artifact "
                  "and its options) per line of this file (- for standard input); after each run "
                  "its output, its error as an \"error: ...\" line, then \"ingot-batch: LINE exit "
                  "STATUS\", all on stdout");
  cmd->callback([cmd, opts, batch, &exit_code] {
    if (batch->empty()) {
      if (opts->artifact.empty()) fail_user("run: give an artifact (or --batch FILE)");
      exit_code = run_artifact(*opts);
      return;
    }
    if (cmd->count_all() - cmd->count() != 1)  // --batch's own count only
      fail_user("--batch takes each run's artifact and options from its lines; give it alone");
    int threads_now = 0;
    exit_code = run_batch(
        *batch, [&](const std::string& line) { return run_batch_line(line, threads_now); });
  });
}

}  // namespace ingot::cli

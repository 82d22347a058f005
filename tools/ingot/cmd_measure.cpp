// `ingot measure A.so -o A.npz [B.so -o B.npz ...]`: the tuner's measurement process
// (tune/measure.h). Loads every candidate, fills its inputs as `ingot run` does (fixed seed),
// runs each once (the outputs written) and warms it up, then times them in rounds, one sample
// of each per round (in the given order, then reversed, alternately), and prints one JSON line
// per candidate: {"index": K, "ms": FASTEST, "median_ms": MEDIAN} or
// {"index": K, "error": "..."} (a candidate that does not load). The same path given twice is
// loaded once. With --per-kernel every sample is one call with the kernel profile on, and the
// line adds each kernel's fastest call, {"kernels": {"NAME": MS, ...}} (the tuner's check of
// whole models: tune/measure.h).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ingot/runtime.hpp"
#include "support/error.h"
#include "tools/ingot/commands.h"
#include "tools/ingot/run_session.h"
#include "tune/measure.h"

namespace ingot::cli {

namespace {

struct MeasureArgs {
  std::vector<std::string> artifacts, outputs;
  int repeat = 10, number = 1, num_threads = 0;
  double min_repeat_ms = 0;
  bool cache_flush = false;  // --cache-flush: --cache-state cold
  std::string cache_state = "warm";
  bool per_kernel = false;
};

// One loaded candidate.
struct Loaded {
  std::unique_ptr<rt::Model> model;
  std::unique_ptr<rt::Session> session;
  std::vector<NpyArray> inputs;
  ModelState model_state;  // --cache-state model: its memory evicted, its inputs read back
  int number = 1;
  std::vector<double> samples_ms;
  std::map<std::string, double> kernel_ms;  // --per-kernel: each kernel's fastest call
  std::string error;
};

// One call with the profile reset before it (and the caches flushed, with a flusher); the call's
// time, and each kernel's fastest so far.
double profiled_call(Loaded& l, CacheFlusher* flusher, const ModelState* model) {
  l.session->set_profiling(true);
  double ms = time_runs(*l.session, 1, 1, flusher, model)[0];
  for (const rt::KernelTime& t : l.session->kernel_times(*l.model)) {
    if (t.calls == 0) continue;
    double k = t.total_seconds * 1e3;  // a kernel named twice counts both calls
    auto [it, fresh] = l.kernel_ms.try_emplace(t.name, k);
    if (!fresh) it->second = std::min(it->second, k);
  }
  return ms;
}

int measure(const MeasureArgs& a) {
  if (a.artifacts.size() != a.outputs.size())
    fail_user("measure: {} artifacts but {} -o outputs (one each)", a.artifacts.size(),
              a.outputs.size());
  if (a.repeat < 1 || a.number < 1)
    fail_user("--repeat and --number must be at least 1 (got --repeat {} --number {})", a.repeat,
              a.number);
  if (a.num_threads > 0) rt::set_num_threads(a.num_threads);
  std::map<std::string, Loaded> loaded;  // by path
  std::vector<Loaded*> order;            // each once, in the order given
  for (size_t k = 0; k < a.artifacts.size(); ++k) {
    auto [it, fresh] = loaded.try_emplace(a.artifacts[k]);
    Loaded& l = it->second;
    if (fresh) {
      order.push_back(&l);
      try {
        l.model = std::make_unique<rt::Model>(a.artifacts[k]);
        l.session = std::make_unique<rt::Session>(*l.model);
        l.inputs = bind_inputs("", "random", *l.model, *l.session);
        l.session->run();
      } catch (const std::exception& e) {
        l.error = e.what();
        l.session.reset();
      }
    }
    if (l.session) write_outputs(a.outputs[k], *l.session, *l.model);
  }
  const tune::CacheState cache =
      a.cache_flush ? tune::CacheState::kCold : tune::parse_cache_state(a.cache_state);
  std::optional<CacheFlusher> flusher;
  if (cache != tune::CacheState::kWarm) flusher.emplace();
  if (cache == tune::CacheState::kModel)
    for (auto& [path, l] : loaded)
      if (l.session) l.model_state = ModelState::of(*l.model, l.inputs);
  for (auto& [path, l] : loaded)
    if (l.session && !a.per_kernel)
      l.number = a.min_repeat_ms > 0
                     ? runs_for_min_ms(*l.session, a.min_repeat_ms, a.number, flusher.has_value())
                     : a.number;
  for (int round = 0; round < a.repeat; ++round)
    for (size_t i = 0; i < order.size(); ++i) {
      Loaded& l = *order[round % 2 == 0 ? i : order.size() - 1 - i];
      if (!l.session) continue;
      CacheFlusher* f = flusher ? &*flusher : nullptr;
      const ModelState* state = cache == tune::CacheState::kModel ? &l.model_state : nullptr;
      l.samples_ms.push_back(a.per_kernel ? profiled_call(l, f, state)
                                          : time_runs(*l.session, 1, l.number, f, state)[0]);
    }
  for (size_t k = 0; k < a.artifacts.size(); ++k) {
    const Loaded& l = loaded.at(a.artifacts[k]);
    nlohmann::json line = {{"index", k}};
    if (l.session) {
      std::vector<double> s = l.samples_ms;
      std::sort(s.begin(), s.end());
      line["ms"] = s.front();
      line["median_ms"] = s[s.size() / 2];
      if (a.per_kernel) line["kernels"] = l.kernel_ms;
    } else {
      line["error"] = l.error;
    }
    fmt::print("{}\n", line.dump());
  }
  return 0;
}

}  // namespace

void add_measure_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<MeasureArgs>();
  CLI::App* cmd = app.add_subcommand(
      "measure",
      "time several artifacts in one process, in alternating rounds (the tuner's measurement)");
  cmd->add_option("artifacts", args->artifacts, "the artifacts (.so)")->required();
  cmd->add_option("-o,--outputs", args->outputs, "an .npz for each artifact's outputs, in order")
      ->required()
      ->allow_extra_args(false);
  cmd->add_option("--repeat", args->repeat, "rounds (timing samples of each artifact)")
      ->capture_default_str();
  cmd->add_option("--number", args->number, "runs averaged per sample (at least)")
      ->capture_default_str();
  cmd->add_option("--min-repeat-ms", args->min_repeat_ms,
                  "warm each artifact up for this long and make each sample last at least this "
                  "long")
      ->capture_default_str();
  cmd->add_option("--num-threads", args->num_threads, "runtime threads (default: the runtime's)");
  CLI::Option* state =
      cmd->add_option("--cache-state", args->cache_state,
                      "what each timed run starts from: warm, cold (caches flushed) or model "
                      "(the candidate's code and constants evicted, then its inputs read back)")
          ->check(CLI::IsMember({"warm", "cold", "model"}))
          ->capture_default_str();
  cmd->add_flag("--cache-flush", args->cache_flush, "--cache-state cold")->excludes(state);
  cmd->add_flag("--per-kernel", args->per_kernel,
                "time single calls with the kernel profile on and report each kernel's fastest "
                "call too (--number and --min-repeat-ms do not apply)");
  cmd->callback([args, &exit_code] { exit_code = measure(*args); });
}

}  // namespace ingot::cli

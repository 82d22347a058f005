// One candidate measured by a child `ingot run` process (see measure.h).
#include "tune/measure.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "support/error.h"
#include "support/npz.h"
#include "support/subprocess.h"

namespace ingot::tune {

namespace {

// The timing options of `ingot measure`.
void add_timing_args(std::vector<std::string>& args, const MeasureOptions& o) {
  args.insert(args.end(),
              {"--repeat", std::to_string(o.repeat), "--number", std::to_string(o.number)});
  if (o.threads > 0) args.insert(args.end(), {"--num-threads", std::to_string(o.threads)});
  if (o.min_repeat_ms > 0)
    args.insert(args.end(), {"--min-repeat-ms", fmt::format("{}", o.min_repeat_ms)});
  if (o.cache_state != "warm") args.insert(args.end(), {"--cache-state", o.cache_state});
}
// The batch-only options of `ingot measure`.
void add_batch_args(std::vector<std::string>& args, const MeasureOptions& o) {
  add_timing_args(args, o);
  if (o.per_kernel) args.push_back("--per-kernel");
}

}  // namespace

CacheState parse_cache_state(const std::string& name) {
  if (name == "warm") return CacheState::kWarm;
  if (name == "cold") return CacheState::kCold;
  if (name == "model") return CacheState::kModel;
  fail_user("--cache-state: '{}' is not one of warm, cold, model (ingot tune: or auto)", name);
}

std::string resolve_cache_state(const std::string& state, uint64_t footprint, uint64_t llc) {
  if (state == "auto") return llc > 0 && footprint > llc ? "model" : "warm";
  parse_cache_state(state);  // (checked)
  return state;
}

MeasureOptions whole_model_options(const MeasureOptions& o) {
  MeasureOptions w = o;
  w.per_kernel = true;
  w.cache_state = "warm";
  w.repeat = std::max(20, 2 * o.repeat);
  w.timeout_s = std::max(o.timeout_s, 60.0);
  return w;
}

Measurement measure_artifact(const std::string& artifact, const std::string& outputs,
                             const MeasureOptions& o) {
  // `ingot measure` with the one artifact: its JSON line carries the time at full precision
  // (`ingot run --print-time` prints milliseconds to 4 decimals, so a kernel under 50 ns read
  // as no time at all).
  Measurement m;
  m.outputs = outputs;
  std::vector<std::string> args = {o.ingot, "measure", artifact, "-o", outputs};
  add_timing_args(args, o);
  ChildResult r = run_child(args, outputs + ".log", o.timeout_s);
  m.error = r.error;
  if (!m.error.empty()) return m;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || j.value("index", size_t(1)) != 0) continue;
    if (j.contains("ms")) {
      m.seconds = j.at("ms").get<double>() * 1e-3;
      return m;
    }
    m.error = j.value("error", std::string("no time in the measurement's output"));
    return m;
  }
  m.error = "no time in the measurement's output";
  return m;
}

std::vector<Measurement> measure_artifacts(const std::vector<MeasureJob>& jobs,
                                           const MeasureOptions& o) {
  std::vector<Measurement> out(jobs.size());
  if (jobs.empty()) return out;
  if (jobs.size() == 1 && !o.per_kernel)
    return {measure_artifact(jobs[0].artifact, jobs[0].outputs, o)};
  std::vector<std::string> args = {o.ingot, "measure"};
  for (const MeasureJob& j : jobs) args.insert(args.end(), {j.artifact, "-o", j.outputs});
  add_batch_args(args, o);
  ChildResult r =
      run_child(args, jobs[0].outputs + ".batch.log", o.timeout_s * double(jobs.size()));
  // One line per candidate: {"index": K, "ms": MIN} or {"index": K, "error": "..."}.
  std::vector<bool> answered(jobs.size(), false);
  if (r.error.empty()) {
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
      nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      if (!j.is_object() || !j.contains("index")) continue;
      size_t k = j.value("index", size_t(0));
      if (k >= jobs.size()) continue;
      out[k].outputs = jobs[k].outputs;
      if (j.contains("ms")) {
        out[k].seconds = j.at("ms").get<double>() * 1e-3;
        if (j.contains("kernels") && j.at("kernels").is_object())
          out[k].kernel_ms = j.at("kernels").get<std::map<std::string, double>>();
      } else {
        out[k].error = j.value("error", std::string("no time in the measurement's output"));
      }
      answered[k] = true;
    }
  }
  // A batch that crashed, hung or left some out: each of those alone, so that the failure is
  // the failing candidate's.
  for (size_t k = 0; k < jobs.size(); ++k)
    if (!answered[k]) out[k] = measure_artifact(jobs[k].artifact, jobs[k].outputs, o);
  return out;
}

double max_relative_difference(const std::string& a_npz, const std::string& b_npz) {
  constexpr double kMismatch = std::numeric_limits<double>::infinity();
  std::vector<NpyArray> a = read_npz(a_npz), b = read_npz(b_npz);
  if (a.size() != b.size()) return kMismatch;
  double worst = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    std::optional<NpyElementType> type = npy_element_type(a[k].dtype);
    if (a[k].name != b[k].name || a[k].shape != b[k].shape || a[k].dtype != b[k].dtype || !type)
      return kMismatch;
    // Integers (exact arithmetic whatever the schedule) must be equal.
    const bool integer = type->code != 2 && type->code != 4;  // not float / bfloat
    for (int64_t i = 0; i < a[k].num_elements(); ++i) {
      std::optional<double> x = npy_element(*type, a[k].data.data(), i),
                            y = npy_element(*type, b[k].data.data(), i);
      if (!x || !y || (integer && *x != *y)) return kMismatch;
      double d = std::fabs(*x - *y) / (1.0 + std::fabs(*y));
      if (!(d <= worst)) worst = std::isnan(d) ? kMismatch : d;
    }
  }
  return worst;
}

}  // namespace ingot::tune

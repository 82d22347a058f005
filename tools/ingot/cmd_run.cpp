// `ingot run ART.so`: runs a compiled artifact with tvmc's options: inputs by name from a .npz
// (missing ones filled per --fill-mode), repeat x number timed runs after a warm-up, the timing
// summary, per-kernel profile, and outputs written atomically to a .npz or printed.
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ingot/runtime.hpp"
#include "support/error.h"
#include "support/npz.h"
#include "tools/ingot/commands.h"

namespace ingot::cli {
namespace {

struct RunOptions {
  std::string artifact;
  std::string inputs;
  std::string outputs;
  std::string fill_mode = "random";
  int repeat = 1;
  int number = 1;
  bool print_time = false;
  bool profile = false;
  bool cache_flush = false;
  int num_threads = 0;
};

std::string shape_string(const int64_t* shape, int ndim) {
  std::string s = "[";
  for (int i = 0; i < ndim; ++i) s += fmt::format("{}{}", i ? "," : "", shape[i]);
  return s + "]";
}

std::string dtype_string(IngotDType dtype) {
  char buf[64];
  return ingot_dtype_name(dtype, buf, sizeof(buf));
}

size_t tensor_bytes(const IngotTensorInfo& info) {
  size_t n = ingot_dtype_bytes(info.dtype);
  for (int i = 0; i < info.ndim; ++i) n *= static_cast<size_t>(info.shape[i]);
  return n;
}

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (exp <= 0) return static_cast<uint16_t>(sign);  // zero / subnormal: flush (fill values only)
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13));
}

// Stores `value` as one element of `dtype` at `dst`.
void store_element(IngotDType dtype, double value, uint8_t* dst) {
  auto put = [dst](auto v) { std::memcpy(dst, &v, sizeof(v)); };
  switch (dtype.code) {
    case 2:  // float
      if (dtype.bits == 16)
        put(float_to_half(static_cast<float>(value)));
      else if (dtype.bits == 32)
        put(static_cast<float>(value));
      else if (dtype.bits == 64)
        put(value);
      return;
    case 4: {  // bfloat16: the upper half of a float32
      float f = static_cast<float>(value);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      put(static_cast<uint16_t>(bits >> 16));
      return;
    }
    default: {  // int, uint, bool: truncate like numpy's astype
      auto i = static_cast<int64_t>(value);
      std::memcpy(dst, &i, std::min<size_t>(8, ingot_dtype_bytes(dtype)));
      return;
    }
  }
}

// Data for an input absent from --inputs: zeros, ones, or (tvmc's default) uniform [0, 1) cast
// to the input's dtype, from a fixed seed so runs are reproducible.
std::vector<uint8_t> fill_input(const IngotTensorInfo& info, const std::string& mode,
                                std::mt19937& rng) {
  std::vector<uint8_t> data(tensor_bytes(info));
  if (mode == "zeros") return data;
  size_t elem = ingot_dtype_bytes(info.dtype);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (size_t off = 0; off + elem <= data.size(); off += elem) {
    store_element(info.dtype, mode == "ones" ? 1.0 : uniform(rng), data.data() + off);
  }
  return data;
}

DLTensor view_of(NpyArray& a) {
  auto type = npy_element_type(a.dtype);
  INGOT_ICHECK(type.has_value(), "read_npz returned unsupported dtype {}", a.dtype);
  DLTensor t{};
  t.data = a.data.data();
  t.device = {kDLCPU, 0};
  t.ndim = static_cast<int>(a.shape.size());
  t.dtype = {type->code, type->bits, 1};
  t.shape = a.shape.data();
  return t;
}

std::string input_names(const rt::Model& model) {
  std::string names;
  for (int i = 0; i < model.num_inputs(); ++i) {
    names += fmt::format("{}{}", i ? ", " : "", model.input_info(i).name);
  }
  return names;
}

// Binds every input: from the .npz by name, the rest filled (a specialised input with its
// compile-time value). Returns the owned buffers.
std::vector<NpyArray> bind_inputs(const RunOptions& opts, const rt::Model& model,
                                  rt::Session& session) {
  std::vector<NpyArray> arrays;
  if (!opts.inputs.empty()) arrays = read_npz(opts.inputs);
  std::vector<bool> bound(static_cast<size_t>(model.num_inputs()), false);
  for (NpyArray& a : arrays) {
    int index = model.find_input(a.name);
    if (index < 0) {
      fail_user("'{}' has an array '{}' that is not an input of model '{}' (inputs: {})",
                opts.inputs, a.name, model.artifact().model_name, input_names(model));
    }
    session.set_input(index, view_of(a));  // zero-copy; `arrays` outlives the runs
    bound[static_cast<size_t>(index)] = true;
  }
  std::mt19937 rng(0);
  for (int i = 0; i < model.num_inputs(); ++i) {
    if (bound[static_cast<size_t>(i)]) continue;
    const IngotTensorInfo& info = model.input_info(i);
    if (info.specialized_value != nullptr) {  // the one value the artifact runs with
      session.set_input_copy(i, info.specialized_value, tensor_bytes(info));
      continue;
    }
    std::vector<uint8_t> data = fill_input(info, opts.fill_mode, rng);
    session.set_input_copy(i, data.data(), data.size());
  }
  return arrays;
}

// tvmc's timing: `repeat` samples, each the mean of `number` runs, in milliseconds.
// Evicts the caches by streaming over twice the last-level cache (64 MiB when the size is not
// known), so a run starts cold, as a kernel does after a large neighbour in a model. At most
// 256 MiB: VMs may report the whole host's L3 (384 MiB on the 2-vCPU guest of docs/perf.md),
// and a flush that size would cost more than most runs it precedes.
class CacheFlusher {
 public:
  CacheFlusher() {
    long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    size_t bytes = llc > 0 ? std::min(size_t(llc) * 2, size_t(256) << 20) : size_t(64) << 20;
    buf_.assign(bytes / sizeof(uint64_t), 1);
  }
  void flush() {
    uint64_t sum = 0;
    for (uint64_t& v : buf_) sum += v++;
    sink_ = sum;
  }

 private:
  std::vector<uint64_t> buf_;
  volatile uint64_t sink_ = 0;
};

// `repeat` samples, each the mean of `number` runs; with a flusher, each run starts after a
// flush that is not timed.
std::vector<double> time_runs(rt::Session& session, int repeat, int number, CacheFlusher* flusher) {
  std::vector<double> samples;
  for (int r = 0; r < repeat; ++r) {
    std::chrono::duration<double, std::milli> elapsed{0};
    auto start = std::chrono::steady_clock::now();
    for (int n = 0; n < number; ++n) {
      if (flusher) {
        flusher->flush();
        start = std::chrono::steady_clock::now();
      }
      session.run();
      if (flusher) elapsed += std::chrono::steady_clock::now() - start;
    }
    if (!flusher) elapsed = std::chrono::steady_clock::now() - start;
    samples.push_back(elapsed.count() / number);
  }
  return samples;
}

// The median of a non-empty sample.
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

// Per kernel over `runs` profiled runs: the median and mean time, the share of the summed
// medians and GFLOP/s at the median. The median, not the mean, ranks kernels: on a shared
// machine one preempted run can double the mean of a 20 us kernel.
void print_profile(rt::Session& session, const rt::Model& model, int runs) {
  const IngotArtifact& a = model.artifact();
  if (a.num_kernels == 0) {
    fmt::print("Profile: not available (the artifact has no kernel table)\n");
    return;
  }
  const auto kernels = static_cast<size_t>(a.num_kernels);
  std::vector<std::vector<double>> per_run(kernels);  // seconds per run, per kernel
  std::vector<rt::KernelTime> totals;
  for (int i = 0; i < runs; ++i) {
    session.set_profiling(true);  // resets the accumulated times
    session.run();
    std::vector<rt::KernelTime> times = session.kernel_times(model);
    for (size_t k = 0; k < kernels; ++k) per_run[k].push_back(times[k].total_seconds);
    if (totals.empty()) {
      totals = times;
    } else {
      for (size_t k = 0; k < kernels; ++k) {
        totals[k].total_seconds += times[k].total_seconds;
        totals[k].calls += times[k].calls;
      }
    }
  }
  session.set_profiling(false);
  std::vector<double> medians(kernels);
  double total = 0;
  for (size_t k = 0; k < kernels; ++k) {
    medians[k] = median(per_run[k]);
    total += medians[k];
  }
  size_t width = 6;
  for (const auto& t : totals) width = std::max(width, t.name.size());
  fmt::print("Kernel profile ({} runs; time per run):\n", runs);
  fmt::print("{:<{}}  {:>8}  {:>12}  {:>12}  {:>8}  {:>10}\n", "kernel", width, "calls",
             "median (ms)", "mean (ms)", "percent", "GFLOP/s");
  for (size_t k = 0; k < kernels; ++k) {
    const auto& t = totals[k];
    double mean_s = t.total_seconds / static_cast<double>(runs);
    double pct = total > 0 ? 100.0 * medians[k] / total : 0.0;
    double gflops = medians[k] > 0 ? a.kernels[k].flops / medians[k] * 1e-9 : 0.0;
    fmt::print("{:<{}}  {:>8}  {:>12.4f}  {:>12.4f}  {:>7.1f}%  {:>10.2f}\n", t.name, width,
               t.calls, medians[k] * 1e3, mean_s * 1e3, pct, gflops);
  }
}

std::string format_value(IngotDType dtype, const uint8_t* p) {
  auto get = [p](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  if (dtype.code == 2 && dtype.bits == 32) return fmt::format("{:g}", get(float{}));
  if (dtype.code == 2 && dtype.bits == 64) return fmt::format("{:g}", get(double{}));
  if (dtype.code == 6) return p[0] ? "True" : "False";
  if (dtype.code == 0 && dtype.bits == 64) return fmt::format("{}", get(int64_t{}));
  if (dtype.code == 0 && dtype.bits == 32) return fmt::format("{}", get(int32_t{}));
  if (dtype.code == 0 && dtype.bits == 8) return fmt::format("{}", get(int8_t{}));
  if (dtype.code == 1 && dtype.bits == 8) return fmt::format("{}", get(uint8_t{}));
  return "?";
}

void print_outputs(const rt::Session& session, const rt::Model& model) {
  constexpr int64_t kShown = 8;
  for (int i = 0; i < model.num_outputs(); ++i) {
    const IngotTensorInfo& info = model.output_info(i);
    DLTensor view = session.output(i);
    int64_t count = 1;
    for (int d = 0; d < info.ndim; ++d) count *= info.shape[d];
    size_t elem = ingot_dtype_bytes(info.dtype);
    std::string values;
    for (int64_t k = 0; k < std::min(count, kShown); ++k) {
      const auto* p = static_cast<const uint8_t*>(view.data) + static_cast<size_t>(k) * elem;
      values += (k ? ", " : "") + format_value(info.dtype, p);
    }
    if (count > kShown) values += ", ...";
    fmt::print("{}: {} {}\n  [{}]\n", info.name, dtype_string(info.dtype),
               shape_string(info.shape, info.ndim), values);
  }
}

void write_outputs(const std::string& path, const rt::Session& session, const rt::Model& model) {
  std::vector<NpyArray> arrays;
  for (int i = 0; i < model.num_outputs(); ++i) {
    const IngotTensorInfo& info = model.output_info(i);
    std::string descr = npy_descr({info.dtype.code, info.dtype.bits});
    if (descr.empty() || (info.dtype.lanes > 1)) {
      fail_user("output '{}' has dtype {}, which a .npz file cannot hold", info.name,
                dtype_string(info.dtype));
    }
    DLTensor view = session.output(i);
    const auto* p = static_cast<const uint8_t*>(view.data);
    arrays.push_back({info.name, descr, std::vector<int64_t>(info.shape, info.shape + info.ndim),
                      std::vector<uint8_t>(p, p + tensor_bytes(info))});
  }
  write_npz(path, arrays);
}

int run_artifact(const RunOptions& opts) {
  if (opts.repeat < 1 || opts.number < 1) {
    fail_user("--repeat and --number must be at least 1 (got --repeat {} --number {})", opts.repeat,
              opts.number);
  }
  try {
    if (opts.num_threads > 0) rt::set_num_threads(opts.num_threads);
    rt::Model model(opts.artifact);
    rt::Session session(model);
    std::vector<NpyArray> inputs = bind_inputs(opts, model, session);
    session.run();  // warm-up, and the run whose outputs are reported
    std::optional<CacheFlusher> flusher;
    if (opts.cache_flush) flusher.emplace();
    std::vector<double> samples =
        time_runs(session, opts.repeat, opts.number, flusher ? &*flusher : nullptr);
    if (opts.print_time) print_time_summary(samples);
    if (opts.profile) print_profile(session, model, opts.repeat * opts.number);
    if (opts.outputs.empty()) {
      print_outputs(session, model);
    } else {
      write_outputs(opts.outputs, session, model);
    }
  } catch (const rt::Error& e) {
    throw UserError(e.what());
  }
  return 0;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a compiled artifact (.so)");
  cmd->add_option("artifact", opts->artifact, "compiled artifact (.so)")->required();
  cmd->add_option("--inputs", opts->inputs, ".npz file with inputs by name");
  cmd->add_option("--outputs", opts->outputs, ".npz file to write the outputs to");
  cmd->add_option("--fill-mode", opts->fill_mode,
                  "how to fill inputs missing from --inputs (random: uniform [0, 1), fixed seed)")
      ->check(CLI::IsMember({"zeros", "ones", "random"}))
      ->capture_default_str();
  cmd->add_option("--repeat", opts->repeat, "number of timing samples")->capture_default_str();
  cmd->add_option("--number", opts->number, "runs averaged into each sample")
      ->capture_default_str();
  cmd->add_flag("--print-time", opts->print_time, "print the execution time summary");
  cmd->add_flag("--profile", opts->profile, "print per-kernel times");
  cmd->add_flag("--cache-flush", opts->cache_flush,
                "flush the caches before each timed run (untimed): cold-cache times");
  cmd->add_option("--num-threads", opts->num_threads,
                  "threads for parallel loops (default: physical cores)");
  cmd->callback([opts, &exit_code] { exit_code = run_artifact(*opts); });
}

}  // namespace ingot::cli

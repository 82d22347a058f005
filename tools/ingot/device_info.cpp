// Measuring and caching this machine's roofline limits (see device_info.h). The FMA peak runs
// the per-ISA register-only kernels of peak_kernels.cpp on every core at once; the bandwidth
// streams over 4x the last-level cache (at least 256 MiB) with each thread on its own,
// first-touched slice: a sum with the widest ISA's loads (read) and STREAM's triad. The best of
// several repeats counts, as STREAM reports.
#include "tools/ingot/device_info.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "ingot/runtime.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/host_caches.h"
#include "tools/ingot/peak_kernels.h"

namespace ingot::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string cpu_model_name() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0 || line.rfind("Model", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown";
}

// Runs fn(thread_index) on `threads` threads started together; returns the wall seconds from
// the common start to the last finish.
template <typename Fn>
double run_on_threads(int threads, Fn fn) {
  std::vector<std::thread> pool;
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  Clock::time_point start;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      ready++;
      while (!go.load()) std::this_thread::yield();
      fn(t);
    });
  }
  while (ready.load() < threads) std::this_thread::yield();
  start = Clock::now();
  go = true;
  for (auto& th : pool) th.join();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// GFLOP/s of `kernel` on `threads` threads: the best of 3 runs of ~0.15 s.
double measure_flops(const PeakKernel& kernel, int threads) {
  // Calibrate the iteration count on one thread.
  int64_t iters = 1 << 16;
  for (;;) {
    auto t0 = Clock::now();
    kernel.run(iters);
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (s > 0.05) {
      iters = static_cast<int64_t>(double(iters) * 0.15 / s) + 1;
      break;
    }
    iters *= 4;
  }
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    std::vector<double> flops(threads);
    double s = run_on_threads(threads, [&](int t) { flops[t] = kernel.run(iters); });
    double total = 0;
    for (double f : flops) total += f;
    best = std::max(best, total / s * 1e-9);
  }
  return best;
}

size_t stream_elements() {
  long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  size_t bytes = std::max<size_t>(size_t{256} << 20, l3 > 0 ? size_t(l3) * 4 : 0);
  return std::min<size_t>(bytes, size_t{1} << 30) / sizeof(float) / 3;
}

// Thread t's part of n elements split over `threads`, its ends on 64-element boundaries (a
// cache line of floats, where the read kernels step).
std::pair<size_t, size_t> thread_slice(size_t n, int threads, int t) {
  return {n * size_t(t) / size_t(threads) / 64 * 64, n * size_t(t + 1) / size_t(threads) / 64 * 64};
}

struct Bandwidth {
  double read_gbs = 0, triad_gbs = 0;
};

// The portable read kernel, for CPUs without a per-ISA one.
float portable_sum(const float* data, size_t n) {
  float acc[16] = {};
  for (size_t i = 0; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; ++j) acc[j] += data[i + j];
  float total = 0;
  for (float v : acc) total += v;
  return total;
}

// `sum`: the read kernel (the widest ISA's, peak_kernels.h).
Bandwidth measure_bandwidth(int threads, float (*sum)(const float*, size_t)) {
  const size_t n = stream_elements() / 64 * 64;
  std::vector<float> a(n), b(n), c(n);  // zero pages; each thread touches its slice first
  auto slice = [&](int t) { return std::pair(n * t / threads, n * (t + 1) / threads); };
  run_on_threads(threads, [&](int t) {
    auto [lo, hi] = slice(t);
    for (size_t i = lo; i < hi; ++i) a[i] = b[i] = c[i] = 1.0f + float(i % 7);
  });
  Bandwidth best;
  std::vector<double> sums(threads);
  for (int rep = 0; rep < 4; ++rep) {
    double s = run_on_threads(threads, [&](int t) {
      auto [lo, hi] = slice(t);
      lo = lo / 64 * 64;
      hi = hi / 64 * 64;
      sums[t] = sum(b.data() + lo, hi - lo);
    });
    best.read_gbs = std::max(best.read_gbs, double(n) * sizeof(float) / s * 1e-9);
    s = run_on_threads(threads, [&](int t) {
      auto [lo, hi] = slice(t);
      for (size_t i = lo; i < hi; ++i) a[i] = b[i] + 0.5f * c[i];
    });
    best.triad_gbs = std::max(best.triad_gbs, 3.0 * double(n) * sizeof(float) / s * 1e-9);
  }
  volatile double sink = sums[0] + a[n / 2];
  (void)sink;
  return best;
}

// The read bandwidth of a working set of `bytes`, read again and again by `threads` threads (each
// its own first-touched slice): after a pass that brings it into the caches, the best of 3 timed
// calls, each reading it over and over for at least 256 MiB in all (starting the threads costs
// as much as one pass over 8 MiB).
double reread_gbs(int threads, float (*sum)(const float*, size_t), uint64_t bytes) {
  const size_t n = size_t(bytes) / sizeof(float) / 64 * 64;
  const int passes =
      int(std::max<uint64_t>(1, (uint64_t(256) << 20) / std::max<uint64_t>(bytes, 1)));
  std::vector<float> b(n);
  auto slice = [&](int t) { return thread_slice(n, threads, t); };
  run_on_threads(threads, [&](int t) {
    auto [lo, hi] = slice(t);
    for (size_t i = lo; i < hi; ++i) b[i] = 1.0f + float(i % 7);
  });
  std::vector<float> sums(threads);
  double best = 0;
  for (int call = 0; call < 4; ++call) {
    const int reads = call == 0 ? 1 : passes;
    double s = run_on_threads(threads, [&](int t) {
      auto [lo, hi] = slice(t);
      for (int r = 0; r < reads; ++r) sums[t] += sum(b.data() + lo, hi - lo);
    });
    if (call > 0) best = std::max(best, double(n) * sizeof(float) * passes / s * 1e-9);
  }
  volatile float sink = sums[0];
  (void)sink;
  return best;
}

// How far the last-level cache serves (cache_reach_bytes): working sets from past the cores'
// private caches (4 MiB a thread: twice an L2 of up to 2 MiB, at least 8 MiB) growing by half
// up to the reported size, until one falls below what the rule keeps.
uint64_t measure_cache_reach(int threads, float (*sum)(const float*, size_t), uint64_t reported,
                             double memory_gbs) {
  constexpr uint64_t kMiB = uint64_t(1) << 20;
  std::vector<CacheSweepPoint> points;
  for (uint64_t mib = std::max<uint64_t>(kCacheSweepFirstBytes / kMiB, 4 * uint64_t(threads));
       mib * kMiB <= reported; mib += std::max<uint64_t>(1, mib / 2)) {
    points.push_back({mib * kMiB, reread_gbs(threads, sum, mib * kMiB)});
    if (points.front().gbs < 1.2 * memory_gbs ||
        cache_reach_bytes(points, memory_gbs, reported) < points.back().bytes)
      break;
  }
  return cache_reach_bytes(points, memory_gbs, reported);
}

std::string utc_now() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
}

}  // namespace

nlohmann::json MachineInfo::to_json() const {
  nlohmann::json peaks_json = nlohmann::json::array();
  for (const IsaPeak& p : peaks)
    peaks_json.push_back(
        {{"isa", p.isa}, {"gflops_1_thread", p.gflops_1}, {"gflops_all_threads", p.gflops_all}});
  return {{"cpu", cpu},
          {"features", features},
          {"threads", threads},
          {"fp32_peaks", peaks_json},
          {"memory_read_gbs", read_gbs},
          {"memory_triad_gbs", triad_gbs},
          {"memory_read_gbs_1_thread", read_gbs_1},
          {"last_level_cache_bytes", llc_reported_bytes},
          {"cache_reach_bytes", cache_reach_bytes},
          {"measured_at", measured_at}};
}

MachineInfo MachineInfo::from_json(const nlohmann::json& j) {
  MachineInfo m;
  m.cpu = j.at("cpu").get<std::string>();
  m.features = j.at("features").get<std::string>();
  m.threads = j.at("threads").get<int>();
  for (const auto& p : j.at("fp32_peaks"))
    m.peaks.push_back({p.at("isa").get<std::string>(), p.at("gflops_1_thread").get<double>(),
                       p.at("gflops_all_threads").get<double>()});
  m.read_gbs = j.at("memory_read_gbs").get<double>();
  m.triad_gbs = j.at("memory_triad_gbs").get<double>();
  m.read_gbs_1 = j.at("memory_read_gbs_1_thread").get<double>();
  m.llc_reported_bytes = j.value("last_level_cache_bytes", uint64_t{0});
  m.cache_reach_bytes = j.value("cache_reach_bytes", uint64_t{0});
  m.measured_at = j.value("measured_at", "");
  return m;
}

const IsaPeak* MachineInfo::peak_for(const std::string& artifact_features) const {
  auto has = [&](const std::string& f) {
    std::string list = "," + artifact_features + ",";
    return list.find("," + f + ",") != std::string::npos;
  };
  const IsaPeak* best = nullptr;
  for (const IsaPeak& p : peaks) {
    bool usable = p.isa == "sse2" || p.isa == "neon" ||
                  (p.isa == "avx2+fma" && has("avx2") && has("fma")) ||
                  (p.isa == "avx512f" && has("avx512f"));
    if (usable) best = &p;  // peaks are ordered narrowest first
  }
  return best;
}

std::string device_info_cache_path() {
  if (const char* p = std::getenv("INGOT_DEVICE_INFO"); p && *p) return p;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return (fs::path(x) / "ingot" / "device-info.json").string();
  if (const char* h = std::getenv("HOME"); h && *h)
    return (fs::path(h) / ".cache" / "ingot" / "device-info.json").string();
  return "";
}

MachineInfo measure_machine(bool verbose) {
  MachineInfo m;
  m.cpu = cpu_model_name();
  m.features = ingot_cpu_features();
  // The all-core numbers at the pool's default width (physical cores), whatever --num-threads
  // set for this run: the cache then serves every width (profile_report scales narrower pools).
  int current = ingot_get_num_threads();
  ingot_set_num_threads(0);
  m.threads = ingot_get_num_threads();
  ingot_set_num_threads(current);
  float (*sum)(const float*, size_t) = portable_sum;
  for (const PeakKernel& k : peak_kernels_for_this_cpu()) {
    sum = k.sum;  // narrowest first: the widest one's stays
    if (verbose) fmt::print(stderr, "measuring the {} float32 peak...\n", k.isa);
    IsaPeak p{k.isa, measure_flops(k, 1), 0};
    p.gflops_all = m.threads > 1 ? measure_flops(k, m.threads) : p.gflops_1;
    m.peaks.push_back(p);
  }
  if (verbose) fmt::print(stderr, "measuring the memory bandwidth...\n");
  Bandwidth all = measure_bandwidth(m.threads, sum);
  m.read_gbs = all.read_gbs;
  m.triad_gbs = all.triad_gbs;
  m.read_gbs_1 = m.threads > 1 ? measure_bandwidth(1, sum).read_gbs : all.read_gbs;
  if (verbose) fmt::print(stderr, "measuring how far the last-level cache serves...\n");
  m.llc_reported_bytes = last_level_cache_bytes();
  m.cache_reach_bytes = measure_cache_reach(m.threads, sum, m.llc_reported_bytes, m.read_gbs);
  m.measured_at = utc_now();
  return m;
}

MachineInfo load_or_measure_machine(bool verbose, bool refresh) {
  std::string path = device_info_cache_path();
  if (!refresh && !path.empty() && fs::exists(path)) {
    try {
      std::ifstream f(path);
      MachineInfo m = MachineInfo::from_json(nlohmann::json::parse(f));
      if (m.features == ingot_cpu_features() && m.cpu == cpu_model_name()) {
        m.cache_path = path;
        return m;
      }
    } catch (const std::exception&) {
      // An unreadable cache is measured again and rewritten.
    }
  }
  if (verbose)
    fmt::print(stderr, "measuring this machine's limits for the roofline (cached in {})\n",
               path.empty() ? "nowhere: no HOME" : path);
  MachineInfo m = measure_machine(verbose);
  if (!path.empty()) {
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    try {
      write_file_atomic(path, m.to_json().dump(2) + "\n");
      m.cache_path = path;
    } catch (const UserError& e) {
      fmt::print(stderr, "warning: cannot cache the machine's limits: {}\n", e.what());
    }
  }
  return m;
}

}  // namespace ingot::cli

// Per-kernel profiles on the roofline (see profile_report.h): collection, the table, JSON.
#include "tools/ingot/profile_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "support/atomic_file.h"
#include "tools/ingot/run_session.h"

namespace ingot::cli {
namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  if (n == 0) return 0;
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string device_of(int32_t type) {
  return type == 1 ? "cpu" : type == 2 ? "cuda" : type == 4 ? "opencl" : "other";
}

// Places kernel `k` on the roofline of `peak` GFLOP/s and `bw` GB/s.
void place_on_roofline(KernelProfile& k, double peak, double bw) {
  if (k.bytes <= 0 || peak <= 0 || bw <= 0) return;
  k.intensity = k.flops / k.bytes;
  k.roof_gflops = std::min(peak, k.intensity * bw);
  k.bound = k.intensity * bw < peak ? "memory" : "compute";
  if (k.median_s <= 0) return;
  k.pct_peak = 100.0 * k.gflops / peak;
  // A kernel without arithmetic (copies, transposes) is measured against the bandwidth.
  k.pct_roof = k.flops > 0 ? 100.0 * k.gflops / k.roof_gflops : 100.0 * k.gbs / bw;
}

std::string shortened(const std::string& s, size_t width) {
  return s.size() <= width ? s : s.substr(0, width - 3) + "...";
}

}  // namespace

ProfileReport collect_profile(rt::Session& session, const rt::Model& model, int runs,
                              std::optional<MachineInfo> machine) {
  const IngotArtifact& a = model.artifact();
  ProfileReport r;
  r.model = a.model_name ? a.model_name : "";
  r.target = a.target ? a.target : "";
  r.device = device_of(a.device_type);
  r.runs = runs;
  r.threads = ingot_get_num_threads();
  const auto n = static_cast<size_t>(std::max(a.num_kernels, 0));
  std::vector<std::vector<double>> seconds(n);
  std::vector<double> total_s(n, 0.0), calls(n, 0.0);
  for (int i = 0; i < runs; ++i) {
    session.set_profiling(true);  // resets the accumulated times
    run_step(session);
    std::vector<rt::KernelTime> times = session.kernel_times(model);
    for (size_t k = 0; k < n; ++k) {
      seconds[k].push_back(times[k].total_seconds);
      total_s[k] += times[k].total_seconds;
      calls[k] += static_cast<double>(times[k].calls);
    }
  }
  session.set_profiling(false);
  if (machine && a.device_type == kDLCPU) {
    const IsaPeak* p = machine->peak_for(a.isa_features ? a.isa_features : "");
    if (p != nullptr) {
      r.isa = p->isa;
      // The all-core numbers at the pool's width; a narrower pool scales the one-thread peak.
      r.peak_gflops = r.threads >= machine->threads ? p->gflops_all : p->gflops_1 * r.threads;
      r.bandwidth_gbs =
          r.threads >= machine->threads
              ? machine->triad_gbs
              : std::max(machine->read_gbs_1, machine->triad_gbs * r.threads / machine->threads);
      r.machine = std::move(machine);
    }
  }
  for (size_t k = 0; k < n; ++k) {
    KernelProfile kp;
    const IngotKernelInfo& info = a.kernels[k];
    kp.name = info.name ? info.name : "";
    kp.ops = info.ops ? info.ops : "";
    kp.calls_per_run = calls[k] / runs;
    kp.median_s = median_of(seconds[k]);
    kp.mean_s = total_s[k] / runs;
    kp.flops = info.flops * kp.calls_per_run;
    kp.bytes = info.bytes_moved * kp.calls_per_run;
    if (kp.median_s > 0) {
      kp.gflops = kp.flops / kp.median_s * 1e-9;
      kp.gbs = kp.bytes / kp.median_s * 1e-9;
    }
    if (r.machine) place_on_roofline(kp, r.peak_gflops, r.bandwidth_gbs);
    r.total_median_s += kp.median_s;
    r.kernels.push_back(std::move(kp));
  }
  for (KernelProfile& kp : r.kernels)
    kp.share = r.total_median_s > 0 ? kp.median_s / r.total_median_s : 0;
  return r;
}

void print_profile_table(const ProfileReport& r) {
  if (r.kernels.empty()) {
    fmt::print("Profile: not available (the artifact has no kernel table)\n");
    return;
  }
  size_t name_w = 6, ops_w = 3;
  for (const auto& k : r.kernels) {
    name_w = std::max(name_w, k.name.size());
    ops_w = std::max(ops_w, std::min<size_t>(k.ops.size(), 36));
  }
  fmt::print("Kernel profile ({} runs; time per run):\n", r.runs);
  if (r.machine) {
    fmt::print(
        "Roofline: {} float32 peak {:.1f} GFLOP/s, memory {:.1f} GB/s ({} threads; ridge "
        "{:.2f} FLOP/byte; ingot device-info)\n",
        r.isa, r.peak_gflops, r.bandwidth_gbs, r.threads, r.peak_gflops / r.bandwidth_gbs);
  } else {
    fmt::print("Roofline: not shown ({})\n", r.device == "cpu"
                                                 ? "no machine numbers"
                                                 : "the machine numbers are the CPU's, the "
                                                   "kernels ran on " +
                                                       r.device);
  }
  fmt::print("{:<{}}  {:<{}}  {:>6}  {:>11}  {:>6}  {:>9}  {:>8}  {:>6}  {:>6}  {:>7}\n", "kernel",
             name_w, "ops", ops_w, "calls", "median (ms)", "time", "GFLOP/s", "GB/s", "%peak",
             "%roof", "bound");
  auto pct = [](double v) { return v < 0 ? std::string("-") : fmt::format("{:.1f}", v); };
  for (const auto& k : r.kernels) {
    fmt::print(
        "{:<{}}  {:<{}}  {:>6g}  {:>11.4f}  {:>5.1f}%  {:>9.2f}  {:>8.2f}  {:>6}  {:>6}  "
        "{:>7}\n",
        k.name, name_w, shortened(k.ops, 36), ops_w, k.calls_per_run, k.median_s * 1e3,
        100.0 * k.share, k.gflops, k.gbs, pct(k.pct_peak), pct(k.pct_roof),
        k.bound.empty() ? "-" : k.bound);
  }
  fmt::print("total: {:.4f} ms per run (sum of kernel medians)\n", r.total_median_s * 1e3);
  bool above = std::any_of(r.kernels.begin(), r.kernels.end(),
                           [](const KernelProfile& k) { return k.pct_roof > 100; });
  if (above) {
    fmt::print(
        "%roof above 100: the kernel's data came from the caches, faster than the DRAM "
        "bandwidth the roof uses\n");
  }
}

nlohmann::json ProfileReport::to_json() const {
  nlohmann::json ks = nlohmann::json::array();
  for (const auto& k : kernels) {
    nlohmann::json j = {{"name", k.name},
                        {"ops", k.ops},
                        {"calls_per_run", k.calls_per_run},
                        {"median_ms", k.median_s * 1e3},
                        {"mean_ms", k.mean_s * 1e3},
                        {"share", k.share},
                        {"flops", k.flops},
                        {"bytes", k.bytes},
                        {"gflops", k.gflops},
                        {"gbs", k.gbs}};
    if (!k.bound.empty()) {
      j["intensity"] = k.intensity;
      j["roof_gflops"] = k.roof_gflops;
      j["pct_peak"] = k.pct_peak;
      j["pct_roof"] = k.pct_roof;
      j["bound"] = k.bound;
    }
    ks.push_back(std::move(j));
  }
  nlohmann::json j = {{"model", model}, {"target", target},   {"device", device},
                      {"runs", runs},   {"threads", threads}, {"total_ms", total_median_s * 1e3},
                      {"kernels", ks}};
  if (machine) {
    j["roofline"] = {{"isa", isa},
                     {"peak_gflops", peak_gflops},
                     {"bandwidth_gbs", bandwidth_gbs},
                     {"machine", machine->to_json()}};
  }
  return j;
}

void write_profile_json(const std::string& path, const ProfileReport& report) {
  write_file_atomic(path, report.to_json().dump(2) + "\n");
}

}  // namespace ingot::cli

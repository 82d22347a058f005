// `ingot run --profile`: per-kernel times placed on this machine's roofline. Each kernel's
// arithmetic intensity (FLOPs per compulsory byte, from the artifact's kernel table) gives its
// attainable rate, min(peak, intensity x bandwidth); the kernel is memory-bound left of the ridge
// point and compute-bound right of it. Printed as a table, written as JSON (--profile-json) or as
// a self-contained HTML page with a roofline plot and a time breakdown (--report).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "ingot/runtime.hpp"
#include "tools/ingot/device_info.h"

namespace ingot::cli {

struct KernelProfile {
  std::string name, ops;
  double calls_per_run = 0;
  double median_s = 0, mean_s = 0;  // per run
  double share = 0;                 // of the summed medians
  double flops = 0, bytes = 0;      // per run
  double gflops = 0, gbs = 0;       // at the median
  // Roofline (absent without machine numbers, e.g. for GPU artifacts):
  double intensity = 0;    // FLOP per byte
  double roof_gflops = 0;  // attainable at this intensity
  double pct_peak = -1;    // GFLOP/s over the FMA peak, percent
  double pct_roof = -1;    // GFLOP/s (or GB/s where flops are 0) over the attainable, percent
  std::string bound;       // "compute", "memory", or "" without machine numbers
};

struct ProfileReport {
  std::string model, target, device;
  int runs = 0, threads = 0;
  double total_median_s = 0;
  std::optional<MachineInfo> machine;
  std::string isa;  // the peak used
  double peak_gflops = 0, bandwidth_gbs = 0;
  std::vector<KernelProfile> kernels;

  nlohmann::json to_json() const;
};

// Runs `runs` profiled runs of the session and places each kernel on the roofline of `machine`
// (nullopt: times only).
ProfileReport collect_profile(rt::Session& session, const rt::Model& model, int runs,
                              std::optional<MachineInfo> machine);

void print_profile_table(const ProfileReport& report);
void write_profile_json(const std::string& path, const ProfileReport& report);
// A self-contained page (no network): the report as JSON, drawn by inline script into an SVG
// roofline (id "roofline", one circle of class "kernel" per kernel) and a time breakdown (id
// "breakdown"), with a sortable table.
void write_profile_html(const std::string& path, const ProfileReport& report);

}  // namespace ingot::cli

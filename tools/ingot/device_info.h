// This machine's limits for roofline profiles (`ingot device-info`, `ingot run --profile`): the
// float32 peak of each ISA it has (one thread and all cores) and its memory bandwidth, measured
// by micro-benchmarks and cached per CPU model and feature set.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ingot::cli {

struct IsaPeak {
  std::string isa;        // "sse2", "avx2+fma", "avx512f", "neon"
  double gflops_1 = 0;    // float32 GFLOP/s on one thread
  double gflops_all = 0;  // on `threads` threads at once
};

struct MachineInfo {
  std::string cpu;       // the model name /proc/cpuinfo gives (a label only)
  std::string features;  // ingot_cpu_features(): what the key is made of
  int threads = 0;       // threads the "all" numbers used (physical cores)
  std::vector<IsaPeak> peaks;
  double read_gbs = 0;    // memory read bandwidth, all threads (GB/s = 1e9 bytes/s)
  double triad_gbs = 0;   // STREAM triad a = b + s*c, 3 streams counted
  double read_gbs_1 = 0;  // one thread
  // The last-level cache: as sysfs reports it, and how far reads of a growing working set keep
  // its bandwidth (cache_reach_bytes in support/host_caches.h; 0: not measured, a cache file of
  // an older ingot). A guest may report its host's whole L3.
  uint64_t llc_reported_bytes = 0;
  uint64_t cache_reach_bytes = 0;
  std::string measured_at;  // UTC time of the measurement
  std::string cache_path;   // where it was read from or stored ("" when not cached)

  nlohmann::json to_json() const;
  static MachineInfo from_json(const nlohmann::json& j);
  // The peak of the widest ISA among `artifact_features` (an artifact's isa_features, "" for
  // baseline) that this machine measured; nullptr when none was measured.
  const IsaPeak* peak_for(const std::string& artifact_features) const;
};

// The cache file: $INGOT_DEVICE_INFO if set, else $XDG_CACHE_HOME/ingot/device-info.json, else
// ~/.cache/ingot/device-info.json.
std::string device_info_cache_path();

// Measures now (about 2 s); `progress` lines go to stderr when `verbose`.
MachineInfo measure_machine(bool verbose);

// The cached numbers when they were measured on this CPU (same model name and features),
// else measures and stores them (a cache that cannot be written is only a warning).
MachineInfo load_or_measure_machine(bool verbose, bool refresh = false);

}  // namespace ingot::cli

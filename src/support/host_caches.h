// The host's cache sizes as the CPU this process runs on sees them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ingot {

// Bytes of the last-level cache that CPU 0 shares with its neighbours: the largest level listed
// under /sys/devices/system/cpu/cpu0/cache (one instance, e.g. one CCX's 32 MiB L3 on a Zen 3),
// else sysconf(_SC_LEVEL3_CACHE_SIZE), else 0 when neither knows. sysconf may report the sum over
// every instance of the host (256 MiB on the 2-vCPU Zen 3 guest of docs/perf.md), which no one
// core's working set can use. `sysfs_root` is for tests.
uint64_t last_level_cache_bytes(
    const std::string& sysfs_root = "/sys/devices/system/cpu/cpu0/cache");

// One point of a read-bandwidth sweep: a working set read again and again, and the bandwidth.
struct CacheSweepPoint {
  uint64_t bytes = 0;
  double gbs = 0;
};

// The first working set of that sweep: past two cores' private caches of up to 2 MiB each (a
// sweep on more threads starts at 4 MiB a thread). A model smaller than this is compared with
// the reported size only.
constexpr uint64_t kCacheSweepFirstBytes = uint64_t(8) << 20;

// How far the last-level cache serves as a cache, from a sweep of growing working sets (`points`,
// smallest first, the first past the cores' private caches) and the bandwidth from memory: the
// largest working set that keeps at least three quarters of the first one's advantage over
// memory. `reported` (what sysfs says) where the sweep shows no such advantage (under 1.2x
// memory) or keeps it to its end. A guest's sysfs gives the host's L3 (480 MiB on the 2-vCPU
// Sapphire Rapids guest of docs/perf.md, whose reads fall from 59 GB/s at 64 MiB towards
// memory's 29 GB/s past 96 MiB), or the sum of every instance (sysconf on the Zen 3 guest).
uint64_t cache_reach_bytes(const std::vector<CacheSweepPoint>& points, double memory_gbs,
                           uint64_t reported);

}  // namespace ingot

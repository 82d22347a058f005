// The host's cache sizes as the CPU this process runs on sees them.
#pragma once

#include <cstdint>
#include <string>

namespace ingot {

// Bytes of the last-level cache that CPU 0 shares with its neighbours: the largest level listed
// under /sys/devices/system/cpu/cpu0/cache (one instance, e.g. one CCX's 32 MiB L3 on a Zen 3),
// else sysconf(_SC_LEVEL3_CACHE_SIZE), else 0 when neither knows. sysconf may report the sum over
// every instance of the host (256 MiB on the 2-vCPU Zen 3 guest of docs/perf.md), which no one
// core's working set can use. `sysfs_root` is for tests.
uint64_t last_level_cache_bytes(
    const std::string& sysfs_root = "/sys/devices/system/cpu/cpu0/cache");

}  // namespace ingot

// last_level_cache_bytes (see the header): sysfs's cache instances, else sysconf; and how far a
// read-bandwidth sweep shows that cache serving (cache_reach_bytes).
#include "support/host_caches.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace ingot {

namespace {

std::string read_line(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string s;
  std::getline(in, s);
  return s;
}

// "32768K", "1M", "512" as bytes; 0 when unreadable.
uint64_t size_bytes(const std::string& s) {
  size_t used = 0;
  uint64_t n = 0;
  try {
    n = std::stoull(s, &used);
  } catch (...) {
    return 0;
  }
  std::string unit = s.substr(used);
  if (unit == "K") return n << 10;
  if (unit == "M") return n << 20;
  if (unit == "G") return n << 30;
  return unit.empty() ? n : 0;
}

}  // namespace

uint64_t last_level_cache_bytes(const std::string& sysfs_root) {
  int best_level = 0;
  uint64_t best = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(sysfs_root, ec)) {
    if (!entry.path().filename().string().starts_with("index")) continue;
    if (read_line(entry.path() / "type") == "Instruction") continue;
    int level = 0;
    try {
      level = std::stoi(read_line(entry.path() / "level"));
    } catch (...) {
      continue;
    }
    uint64_t bytes = size_bytes(read_line(entry.path() / "size"));
    if (bytes > 0 && level > best_level) best_level = level, best = bytes;
  }
  if (best > 0) return best;
  long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  return l3 > 0 ? uint64_t(l3) : 0;
}

uint64_t cache_reach_bytes(const std::vector<CacheSweepPoint>& points, double memory_gbs,
                           uint64_t reported) {
  if (points.empty() || memory_gbs <= 0 || points.front().gbs < 1.2 * memory_gbs) return reported;
  const double keep = memory_gbs + 0.75 * (points.front().gbs - memory_gbs);
  uint64_t reach = 0;
  for (const CacheSweepPoint& p : points) {
    if (p.gbs < keep) return reach;
    reach = p.bytes;
  }
  return reported;
}

}  // namespace ingot

// last_level_cache_bytes: the highest data or unified level of a sysfs cache listing (one
// instance's size, in K, M or plain bytes), instruction caches and unreadable entries skipped;
// without a listing, sysconf's answer (whatever this host says, never a crash).
#include "support/host_caches.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace ingot {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text << "\n";
}

// A cache directory cpu0/cache/indexN with the given level, type and size.
void add_cache(const fs::path& root, int index, int level, const std::string& type,
               const std::string& size) {
  fs::path d = root / ("index" + std::to_string(index));
  fs::create_directories(d);
  write(d / "level", std::to_string(level));
  write(d / "type", type);
  write(d / "size", size);
}

fs::path fresh_dir(const std::string& name) {
  fs::path d =
      fs::temp_directory_path() / ("ingot_host_caches_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(HostCaches, LastLevelIsOneInstanceOfTheHighestLevel) {
  fs::path root = fresh_dir("zen3");  // a Zen 3 guest: 32K L1d/L1i, 512K L2, one 32 MiB L3
  add_cache(root, 0, 1, "Data", "32K");
  add_cache(root, 1, 1, "Instruction", "32K");
  add_cache(root, 2, 2, "Unified", "512K");
  add_cache(root, 3, 3, "Unified", "32768K");
  EXPECT_EQ(last_level_cache_bytes(root.string()), uint64_t(32) << 20);
  fs::remove_all(root);
}

TEST(HostCaches, InstructionCachesAndUnreadableSizesAreSkipped) {
  fs::path root = fresh_dir("odd");
  add_cache(root, 0, 1, "Data", "48K");
  add_cache(root, 1, 2, "Unified", "2M");
  add_cache(root, 2, 4, "Instruction", "64M");  // not data
  add_cache(root, 3, 3, "Unified", "lots");     // no size
  EXPECT_EQ(last_level_cache_bytes(root.string()), uint64_t(2) << 20);
  add_cache(root, 4, 3, "Unified", "1048576");  // plain bytes
  EXPECT_EQ(last_level_cache_bytes(root.string()), uint64_t(1) << 20);
  fs::remove_all(root);
}

TEST(HostCaches, WithoutAListingSysconfAnswers) {
  long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  EXPECT_EQ(last_level_cache_bytes("/nonexistent/ingot/cache"), l3 > 0 ? uint64_t(l3) : 0u);
}

// cache_reach_bytes, on the sweep this session's Sapphire Rapids guest gave
// (bench/read_bandwidth.c, 2 threads; sysfs reports a 480 MiB L3, memory reads 29.4 GB/s): the
// largest working set that keeps three quarters of the 8 MiB point's advantage over memory (59.7
// - 29.4 GB/s), 96 MiB.
TEST(HostCaches, TheCacheReachesAsFarAsReadsKeepItsBandwidth) {
  constexpr uint64_t kMiB = uint64_t(1) << 20;
  const std::vector<CacheSweepPoint> guest = {
      {8 * kMiB, 59.7},  {16 * kMiB, 58.9},  {32 * kMiB, 59.1}, {64 * kMiB, 58.4},
      {96 * kMiB, 53.3}, {128 * kMiB, 44.0}, {256 * kMiB, 31.7}};
  EXPECT_EQ(cache_reach_bytes(guest, 29.4, 480 * kMiB), 96 * kMiB);
  // The point at the boundary: 29.4 + 0.75 * 30.3 = 52.125 GB/s is kept, a little less is not.
  EXPECT_EQ(
      cache_reach_bytes({{8 * kMiB, 59.7}, {12 * kMiB, 52.13}, {18 * kMiB, 40}}, 29.4, 32 * kMiB),
      12 * kMiB);
  EXPECT_EQ(
      cache_reach_bytes({{8 * kMiB, 59.7}, {12 * kMiB, 52.0}, {18 * kMiB, 40}}, 29.4, 32 * kMiB),
      8 * kMiB);
  // Kept to the sweep's end (the reported size): the reported size.
  EXPECT_EQ(cache_reach_bytes({{8 * kMiB, 60}, {16 * kMiB, 59}}, 20, 16 * kMiB), 16 * kMiB);
  // No advantage worth the name over memory, or nothing measured: the reported size.
  EXPECT_EQ(cache_reach_bytes({{8 * kMiB, 33}, {16 * kMiB, 30}}, 29.4, 480 * kMiB), 480 * kMiB);
  EXPECT_EQ(cache_reach_bytes({}, 29.4, 480 * kMiB), 480 * kMiB);
  EXPECT_EQ(cache_reach_bytes(guest, 0, 480 * kMiB), 480 * kMiB);
}

}  // namespace
}  // namespace ingot

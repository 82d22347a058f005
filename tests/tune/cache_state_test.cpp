// resolve_cache_state: `ingot tune --cache-state auto` times candidates from the cache state a
// kernel finds inside its model: "model" (constants evicted, inputs warm) when the model's
// constants and workspace outgrow the last-level cache, "warm" when they fit or the cache size is
// unknown; an explicit state stays as given, and anything else is a user error naming the option.
#include <gtest/gtest.h>

#include "support/error.h"
#include "tune/measure.h"

namespace ingot::testing {
namespace {

constexpr uint64_t kMiB = uint64_t(1) << 20;

TEST(CacheState, AutoIsModelWhenTheModelOutgrowsTheLastLevelCache) {
  // BERT-base (347 MB of weights) and ResNet-50 (102 MB) on a 32 MiB L3; MobileNetV2 (14 MB) fits.
  EXPECT_EQ(tune::resolve_cache_state("auto", 347 * kMiB, 32 * kMiB), "model");
  EXPECT_EQ(tune::resolve_cache_state("auto", 102 * kMiB, 32 * kMiB), "model");
  EXPECT_EQ(tune::resolve_cache_state("auto", 14 * kMiB, 32 * kMiB), "warm");
  EXPECT_EQ(tune::resolve_cache_state("auto", 32 * kMiB, 32 * kMiB), "warm");
  EXPECT_EQ(tune::resolve_cache_state("auto", 347 * kMiB, 0), "warm");  // size unknown
}

TEST(CacheState, ExplicitStatesStayAndOthersAreRefused) {
  for (const char* s : {"warm", "cold", "model"})
    EXPECT_EQ(tune::resolve_cache_state(s, 347 * kMiB, 32 * kMiB), s);
  try {
    tune::resolve_cache_state("hot", 0, 0);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--cache-state: 'hot' is not one of warm, cold, model (ingot tune: or auto)");
  }
}

}  // namespace
}  // namespace ingot::testing

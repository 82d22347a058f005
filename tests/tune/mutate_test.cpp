// Mutations: exactly one categorical decision changes, to another of its candidates; the others
// stay forced as they were; a trace without a choice of two or more candidates has no mutation.
#include <gtest/gtest.h>

#include "tune/mutate.h"

namespace ingot::testing {
namespace {

nlohmann::json categorical(std::vector<int64_t> candidates, int64_t decision) {
  return {
      {"kind", "sample_categorical"},
      {"inputs", nlohmann::json::array()},
      {"attrs", {{"candidates", candidates}, {"probs", std::vector<double>(candidates.size(), 1)}}},
      {"outputs", {"v0"}},
      {"decision", decision}};
}

TEST(Mutate, ChangesOneDecisionToAnotherCandidate) {
  nlohmann::json trace = {{"version", 1},
                          {"instructions",
                           {{{"kind", "get_block"}, {"decision", nullptr}},
                            categorical({4, 8}, 1),
                            categorical({7}, 0),
                            categorical({1, 2, 4, 8}, 2)}}};
  std::mt19937_64 rng(1);
  std::map<int, int> changed;
  for (int k = 0; k < 200; ++k) {
    auto m = tune::mutate_decisions(trace, rng);
    ASSERT_TRUE(m.has_value());
    ASSERT_EQ(m->size(), 3u);  // every sampling decision is forced
    EXPECT_EQ(m->at(1), 0);    // the single-candidate one never changes
    int diffs = (m->at(0) != 1) + (m->at(2) != 2);
    ASSERT_EQ(diffs, 1);
    if (m->at(0) != 1) {
      EXPECT_EQ(m->at(0), 0);
    }
    if (m->at(2) != 2) {
      EXPECT_GE(m->at(2).get<int>(), 0);
      EXPECT_LE(m->at(2).get<int>(), 3);
      ++changed[m->at(2).get<int>()];
    }
  }
  EXPECT_EQ(changed.size(), 3u);  // 0, 1 and 3 all drawn
}

TEST(Mutate, NothingToChange) {
  nlohmann::json trace = {{"version", 1}, {"instructions", {categorical({5}, 0)}}};
  std::mt19937_64 rng(1);
  EXPECT_FALSE(tune::mutate_decisions(trace, rng).has_value());
}

}  // namespace
}  // namespace ingot::testing

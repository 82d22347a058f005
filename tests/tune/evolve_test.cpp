// Evolutionary search on a synthetic design space: three categorical choices of eight
// candidates (512 points), a score that rewards larger decisions, and points the "rule" refuses.
#include "tune/evolve.h"
#include "tune/mutate.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ingot::tune {
namespace {

constexpr int kChoices = 3, kCandidates = 8;

nlohmann::json trace_of(const std::vector<int>& d) {
  nlohmann::json instructions = nlohmann::json::array();
  for (int v : d)
    instructions.push_back({{"kind", "sample_categorical"},
                            {"attrs", {{"candidates", std::vector<int>(kCandidates, 0)}}},
                            {"decision", v}});
  return {{"instructions", instructions}};
}

std::string key_of(const std::vector<int>& d) {
  std::string k;
  for (int v : d) k += std::to_string(v) + " ";
  return k;
}

std::vector<int> decisions_of_key(const std::string& key) {
  std::vector<int> d;
  for (char c : key)
    if (c != ' ') d.push_back(c - '0');
  return d;
}

int score_of(const std::string& key) {
  std::vector<int> d = decisions_of_key(key);
  return d[0] + d[1] + d[2];
}

struct Space {
  int realized = 0;
  SearchSpace space() {
    SearchSpace s;
    s.realize = [this](const std::map<int, nlohmann::json>* forced,
                       uint64_t seed) -> std::optional<SpacePoint> {
      std::vector<int> d(kChoices);
      std::mt19937_64 r(seed);
      for (int k = 0; k < kChoices; ++k) {
        d[size_t(k)] = int(r() % kCandidates);
        if (forced && forced->count(k)) d[size_t(k)] = forced->at(k).get<int>();
      }
      if (d[0] == 3) return std::nullopt;  // refused by the rule
      ++realized;
      return SpacePoint{key_of(d), trace_of(d)};
    };
    s.score = [](const std::vector<std::string>& keys) {
      std::vector<double> out;
      for (const std::string& k : keys) out.push_back(score_of(k));
      return out;
    };
    return s;
  }
};

TEST(Evolve, FindsTheBestScoredPointsAndSkipsMeasuredAndRefusedOnes) {
  Space sp;
  std::mt19937_64 rng(11);
  std::set<std::string> measured = {key_of({7, 7, 7})};
  EvolveOptions o;
  o.epsilon = 0;
  std::vector<EvolvePick> picks = evolve(sp.space(), {trace_of({1, 1, 1})}, measured, 4, o, rng);
  ASSERT_EQ(picks.size(), 4u);
  std::vector<std::string> picked;
  for (const EvolvePick& p : picks) {
    EXPECT_TRUE(p.by_model);
    EXPECT_EQ(p.score, score_of(p.key));  // the model's score comes with the pick
    picked.push_back(p.key);
  }
  for (const std::string& k : picked) {
    EXPECT_FALSE(measured.count(k)) << k;
    EXPECT_NE(decisions_of_key(k)[0], 3) << k;
    // The best unmeasured points score 20; random picks average 10.5.
    EXPECT_GE(score_of(k), 19) << k;
  }
  EXPECT_EQ(std::set<std::string>(picked.begin(), picked.end()).size(), picked.size());
  EXPECT_LE(sp.realized, int(o.population) * (o.generations + 3));
}

TEST(Evolve, EpsilonOnePicksFreshRandomPoints) {
  Space sp;
  std::mt19937_64 rng(5);
  EvolveOptions o;
  o.epsilon = 1;
  std::vector<EvolvePick> picked = evolve(sp.space(), {}, {}, 8, o, rng);
  ASSERT_EQ(picked.size(), 8u);
  double mean = 0;
  for (const EvolvePick& p : picked) {
    EXPECT_FALSE(p.by_model);
    mean += score_of(p.key) / 8.0;
  }
  EXPECT_LT(mean, 16);  // not the model's best (all 19-21)
}

TEST(Evolve, SameSeedSamePicks) {
  Space a, b;
  std::mt19937_64 ra(3), rb(3);
  EXPECT_EQ(evolve(a.space(), {}, {}, 6, {}, ra), evolve(b.space(), {}, {}, 6, {}, rb));
}

TEST(Evolve, CrossoverTakesEachDecisionFromAParent) {
  std::mt19937_64 rng(2);
  std::map<int, nlohmann::json> child =
      crossover_decisions(trace_of({1, 2, 3}), trace_of({5, 6, 7, 0}), rng);
  ASSERT_EQ(child.size(), 4u);
  EXPECT_TRUE(child[0] == 1 || child[0] == 5);
  EXPECT_TRUE(child[1] == 2 || child[1] == 6);
  EXPECT_TRUE(child[2] == 3 || child[2] == 7);
  EXPECT_EQ(child[3], 0);
}

}  // namespace
}  // namespace ingot::tune

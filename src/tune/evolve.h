// Model-guided evolutionary search over a rule's design space, as in MetaSchedule's
// EvolutionarySearch: a population (the fastest measured points and fresh random ones) evolves
// for a few generations by mutation (one decision changed, tune/mutate.h) and crossover
// (decisions mixed from two parents), children the rule refuses dropped; each generation keeps
// the points the cost model scores highest. The points to measure next are the best scored
// ones not measured yet, with an epsilon share of fresh random points so that a wrong model
// still sees the rest of the space.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace ingot::tune {

// A realized point: its identity (the decisions as one string) and its trace.
struct SpacePoint {
  std::string key;
  nlohmann::json trace;
};

struct SearchSpace {
  // The rule run with these decisions forced (by ordinal), or with fresh ones drawn from
  // `seed` when `forced` is null; nullopt when the rule refuses the point.
  std::function<std::optional<SpacePoint>(const std::map<int, nlohmann::json>* forced,
                                          uint64_t seed)>
      realize;
  // The cost model's scores of realized points (higher: predicted faster).
  std::function<std::vector<double>(const std::vector<std::string>& keys)> score;
};

struct EvolveOptions {
  size_t population = 32;
  int generations = 3;
  double crossover = 0.3;  // chance a child has two parents
  double epsilon = 0.15;   // share of the points picked at random instead of by score
};

// A point to measure; by_model false: an epsilon-greedy random point.
struct EvolvePick {
  std::string key;
  bool by_model = true;
  double score = 0;  // the cost model's
  friend bool operator==(const EvolvePick&, const EvolvePick&) = default;
};

// Up to `count` points to measure, none in `measured`. `elites`: traces of the fastest measured
// points (the population's seed).
std::vector<EvolvePick> evolve(const SearchSpace& space, const std::vector<nlohmann::json>& elites,
                               const std::set<std::string>& measured, size_t count,
                               const EvolveOptions& options, std::mt19937_64& rng);

}  // namespace ingot::tune

// Model-guided evolutionary search (see evolve.h).
#include "tune/evolve.h"

#include <algorithm>
#include <cmath>

#include "tune/mutate.h"

namespace ingot::tune {

namespace {

struct Scored {
  SpacePoint point;
  double score = 0;
  bool random = false;  // a fresh draw, not an elite or a child
};

// Realized points by key, each scored once.
class Pool {
 public:
  explicit Pool(const SearchSpace& space) : space_(space) {}
  // Adds a point realized from `forced` (or a fresh draw); true when it is new.
  bool add(const std::map<int, nlohmann::json>* forced, uint64_t seed) {
    std::optional<SpacePoint> p = space_.realize(forced, seed);
    if (!p || index_.count(p->key)) return false;
    index_[p->key] = points_.size();
    points_.push_back({std::move(*p), 0, forced == nullptr});
    return true;
  }
  // Scores the points added since the last call.
  void score() {
    std::vector<std::string> keys;
    for (size_t k = scored_; k < points_.size(); ++k) keys.push_back(points_[k].point.key);
    if (keys.empty()) return;
    std::vector<double> s = space_.score(keys);
    for (size_t k = 0; k < keys.size(); ++k) points_[scored_ + k].score = s[k];
    scored_ = points_.size();
  }
  // Indices of the points, best scored first.
  std::vector<size_t> ranked() const {
    std::vector<size_t> order(points_.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(),
                     [this](size_t a, size_t b) { return points_[a].score > points_[b].score; });
    return order;
  }
  const Scored& at(size_t k) const { return points_[k]; }
  size_t size() const { return points_.size(); }

 private:
  const SearchSpace& space_;
  std::vector<Scored> points_;
  std::map<std::string, size_t> index_;
  size_t scored_ = 0;
};

}  // namespace

std::vector<EvolvePick> evolve(const SearchSpace& space, const std::vector<nlohmann::json>& elites,
                               const std::set<std::string>& measured, size_t count,
                               const EvolveOptions& options, std::mt19937_64& rng) {
  Pool pool(space);
  // 1. The first population: the elites as the rule gives them back, then random points.
  for (const nlohmann::json& e : elites) {
    std::map<int, nlohmann::json> same;
    int ordinal = 0;
    for (const nlohmann::json& i : e.at("instructions"))
      if (!i.at("decision").is_null()) same[ordinal++] = i.at("decision");
    pool.add(&same, rng());
  }
  for (size_t tries = 0; pool.size() < options.population && tries < 2 * options.population;
       ++tries)
    pool.add(nullptr, rng());
  pool.score();
  // 2. Generations: children of parents drawn from the best half of the current population.
  std::vector<size_t> population = pool.ranked();
  if (population.size() > options.population) population.resize(options.population);
  for (int g = 0; g < options.generations && !population.empty(); ++g) {
    size_t parents = std::max<size_t>(1, (population.size() + 1) / 2);
    for (size_t c = 0; c < options.population; ++c) {
      const nlohmann::json& a = pool.at(population[rng() % parents]).point.trace;
      std::optional<std::map<int, nlohmann::json>> forced;
      if (std::uniform_real_distribution<double>(0, 1)(rng) < options.crossover) {
        const nlohmann::json& b = pool.at(population[rng() % parents]).point.trace;
        forced = crossover_decisions(a, b, rng);
      } else {
        forced = mutate_decisions(a, rng);
      }
      if (forced) pool.add(&*forced, rng());
    }
    pool.score();
    population = pool.ranked();
    if (population.size() > options.population) population.resize(options.population);
  }
  // 3. The best scored unmeasured points, and an epsilon share of fresh random ones (the rest
  //    of the pool where those run out).
  std::vector<EvolvePick> picked;
  std::set<std::string> taken = measured;
  size_t random_share = size_t(std::floor(options.epsilon * double(count) +
                                          std::uniform_real_distribution<double>(0, 1)(rng)));
  random_share = std::min(random_share, count);
  for (size_t k : pool.ranked()) {
    if (picked.size() + random_share >= count) break;
    if (taken.insert(pool.at(k).point.key).second)
      picked.push_back({pool.at(k).point.key, true, pool.at(k).score});
  }
  std::vector<size_t> random, rest;
  for (size_t k = 0; k < pool.size(); ++k)
    if (!taken.count(pool.at(k).point.key)) (pool.at(k).random ? random : rest).push_back(k);
  std::shuffle(random.begin(), random.end(), rng);
  std::shuffle(rest.begin(), rest.end(), rng);
  random.insert(random.end(), rest.begin(), rest.end());
  for (size_t k : random) {
    if (picked.size() >= count) break;
    picked.push_back({pool.at(k).point.key, false, pool.at(k).score});
  }
  return picked;
}

}  // namespace ingot::tune

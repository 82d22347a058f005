// One-decision mutations of a trace (see mutate.h).
#include "tune/mutate.h"

#include <algorithm>
#include <vector>

namespace ingot::tune {

std::optional<std::map<int, nlohmann::json>> mutate_decisions(const nlohmann::json& trace,
                                                              std::mt19937_64& rng) {
  std::map<int, nlohmann::json> forced;
  std::vector<std::pair<int, int64_t>> choices;  // (ordinal, candidate count) of mutable ones
  int ordinal = 0;
  for (const nlohmann::json& i : trace.at("instructions")) {
    if (i.at("decision").is_null()) continue;
    forced[ordinal] = i.at("decision");
    if (i.at("kind") == "sample_categorical") {
      int64_t n = int64_t(i.at("attrs").at("candidates").size());
      if (n > 1) choices.emplace_back(ordinal, n);
    }
    ++ordinal;
  }
  if (choices.empty()) return std::nullopt;
  auto [at, n] = choices[size_t(rng() % choices.size())];
  int64_t old = forced[at].get<int64_t>();
  int64_t now = int64_t(rng() % uint64_t(n - 1));
  forced[at] = now >= old ? now + 1 : now;  // any other candidate
  return forced;
}

}  // namespace ingot::tune

namespace ingot::tune {

namespace {

std::vector<nlohmann::json> decisions(const nlohmann::json& trace) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& i : trace.at("instructions"))
    if (!i.at("decision").is_null()) out.push_back(i.at("decision"));
  return out;
}

}  // namespace

std::map<int, nlohmann::json> crossover_decisions(const nlohmann::json& a, const nlohmann::json& b,
                                                  std::mt19937_64& rng) {
  std::vector<nlohmann::json> da = decisions(a), db = decisions(b);
  std::map<int, nlohmann::json> child;
  for (size_t k = 0; k < std::max(da.size(), db.size()); ++k) {
    bool from_a = k < da.size() && (k >= db.size() || rng() % 2 == 0);
    child[int(k)] = from_a ? da[k] : db[k];
  }
  return child;
}

}  // namespace ingot::tune

// The evolutionary step of the search: a measured candidate's decisions with one sampling
// decision changed to another of its candidates. Rerunning the rule with these decisions forced
// (Schedule::set_sampling_policy) gives a neighbour in the design space; a neighbour the rule
// refuses (a later choice whose candidates depended on the changed one) costs no build and no
// trial.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>

namespace ingot::tune {

// The forced decisions (by sampling-instruction ordinal) of `trace` (schedule::Trace JSON) with
// one sample_categorical decision that has two or more candidates changed at random; nullopt
// when no decision can change.
std::optional<std::map<int, nlohmann::json>> mutate_decisions(const nlohmann::json& trace,
                                                              std::mt19937_64& rng);

}  // namespace ingot::tune

namespace ingot::tune {

// The forced decisions of a child of two traces: each decision from one parent or the other
// at random, by ordinal (the second parent's past the first's). The rule rerun with them
// refuses a child whose mixed decisions do not fit together, so crossover needs no structural
// check here.
std::map<int, nlohmann::json> crossover_decisions(const nlohmann::json& a, const nlohmann::json& b,
                                                  std::mt19937_64& rng);

}  // namespace ingot::tune

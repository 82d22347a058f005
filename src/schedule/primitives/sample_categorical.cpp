// Sampling instruction sample_categorical: one of the candidates, drawn with the given
// probabilities from the schedule's seeded generator. The decision (the index) is recorded.
#include <cmath>

#include "schedule/primitives/common.h"

namespace ingot::schedule {

class SampleCategoricalError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// Preconditions:
// - candidates and probs are non-empty and of equal length; probs are >= 0 with a positive sum;
// - a given (or, by the sampling policy, forced) decision is an index into candidates.
ExprRV Schedule::sample_categorical(std::vector<int64_t> candidates, std::vector<double> probs,
                                    std::optional<int64_t> decision) {
  // 1. Check the arguments.
  double total = 0;
  for (double p : probs) total += p >= 0 && std::isfinite(p) ? p : -1e300;
  if (candidates.empty() || candidates.size() != probs.size() || !(total > 0))
    fail_schedule<SampleCategoricalError>(
        "cannot sample: {} candidates with {} probabilities (need equal, non-empty lists of "
        "non-negative probabilities with a positive sum)",
        candidates.size(), probs.size());
  int64_t index = 0;
  std::optional<nlohmann::json> d =
      policy_decision(decision ? std::optional<nlohmann::json>(*decision) : std::nullopt);
  if (d) {
    // 2a. A given (or forced) decision must index the candidates.
    if (!d->is_number_integer())
      fail_schedule<SampleCategoricalError>("cannot use decision {}: it is not an index",
                                            d->dump());
    index = d->get<int64_t>();
    if (index < 0 || index >= int64_t(candidates.size()))
      fail_schedule<SampleCategoricalError>("cannot use decision {}: there are {} candidates",
                                            index, candidates.size());
  } else {
    // 2b. Inverse CDF on a uniform draw (53 random bits; portable, unlike std distributions).
    double u = double(rng()() >> 11) * 0x1.0p-53 * total;
    double acc = 0;
    index = int64_t(candidates.size()) - 1;
    for (size_t k = 0; k < probs.size(); ++k) {
      acc += probs[k];
      if (u < acc) {
        index = int64_t(k);
        break;
      }
    }
  }
  // 3. Record.
  ExprRV out = new_expr_rv(candidates[size_t(index)]);
  record({"sample_categorical",
          nlohmann::json::array(),
          {{"candidates", candidates}, {"probs", probs}},
          {rv_name(out)},
          index});
  return out;
}

}  // namespace ingot::schedule

// A rule's tunable choice as a sampling instruction (see choice.h).
#include "schedule/rules/choice.h"

#include <algorithm>

namespace ingot::schedule {

ExprRV sample_choice(Schedule& s, std::vector<int64_t> candidates, int64_t default_value) {
  candidates.push_back(default_value);
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  auto at = std::find(candidates.begin(), candidates.end(), default_value);
  std::vector<double> probs(candidates.size(), 1.0);
  return s.sample_categorical(candidates, probs, int64_t(at - candidates.begin()));
}

std::vector<int64_t> powers_of_two_upto(int64_t limit, int64_t extra) {
  std::vector<int64_t> v = {1};
  for (int64_t p = 2; p <= limit; p *= 2) v.push_back(p);
  v.push_back(extra);
  return v;
}

}  // namespace ingot::schedule

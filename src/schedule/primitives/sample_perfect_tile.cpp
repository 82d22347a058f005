// Sampling instruction sample_perfect_tile: n factors whose product is exactly the loop's
// extent, the innermost at most max_innermost_factor. The decision is recorded in the trace;
// a given decision (replay, tuner mutation) is validated and used as is.
#include "schedule/primitives/common.h"
#include "tir/op.h"

namespace ingot::schedule {

using namespace tir;

class SampleTileError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

namespace {
std::vector<int64_t> divisors(int64_t x) {
  std::vector<int64_t> d;
  for (int64_t i = 1; i <= x; ++i)
    if (x % i == 0) d.push_back(i);
  return d;
}
int64_t pick(std::mt19937_64& rng, const std::vector<int64_t>& v) {
  return v[size_t(rng() % v.size())];
}
}  // namespace

// Preconditions:
// - the loop has a constant extent; n >= 1; max_innermost_factor >= 1 (or 0: no limit);
// - a given decision has n positive factors multiplying to the extent, the last within limit.
std::vector<ExprRV> Schedule::sample_perfect_tile(LoopRV loop, int n, int max_innermost_factor,
                                                  std::optional<std::vector<int64_t>> decision) {
  LoopInfo li = loop_info(*this, loop);
  std::string name = li.node->loop_var.name();
  int64_t extent = 0;
  // 1. Check the loop and arguments.
  if (!is_const_int(li.node->extent, &extent))
    fail_schedule<SampleTileError>("cannot sample tiles of loop {}: its extent is not a constant",
                                   qname(name));
  if (n < 1 || max_innermost_factor < 0)
    fail_schedule<SampleTileError>(
        "cannot sample tiles of loop {}: n={} and max_innermost_factor={} must be positive",
        qname(name), n, max_innermost_factor);
  int64_t limit = max_innermost_factor > 0 ? max_innermost_factor : extent;
  std::vector<int64_t> tiles;
  std::optional<nlohmann::json> d =
      policy_decision(decision ? std::optional<nlohmann::json>(*decision) : std::nullopt);
  if (d) {
    // 2a. Validate a given (or forced) decision.
    bool ints = d->is_array();
    for (const nlohmann::json& x : *d) ints = ints && x.is_number_integer();
    if (!ints)
      fail_schedule<SampleTileError>("cannot use tile decision {} for loop {}: not a list of ints",
                                     d->dump(), qname(name));
    tiles = d->get<std::vector<int64_t>>();
    int64_t prod = 1;
    bool ok = int(tiles.size()) == n;
    for (int64_t t : tiles) {
      ok = ok && t >= 1;
      prod *= t;
    }
    if (!ok || prod != extent || tiles.back() > limit)
      fail_schedule<SampleTileError>(
          "cannot use tile decision {} for loop {}: need {} positive factors of {} with the "
          "innermost at most {}",
          nlohmann::json(tiles).dump(), qname(name), n, extent, limit);
  } else {
    // 2b. Innermost: a divisor within the limit; the others: divisors of what remains.
    std::vector<int64_t> inner;
    for (int64_t d : divisors(extent))
      if (d <= limit) inner.push_back(d);
    tiles.assign(size_t(n), 1);
    int64_t rest = extent;
    if (n > 1) {
      tiles[size_t(n - 1)] = pick(rng(), inner);
      rest /= tiles[size_t(n - 1)];
      for (int k = n - 2; k > 0; --k) {
        tiles[size_t(k)] = pick(rng(), divisors(rest));
        rest /= tiles[size_t(k)];
      }
    }
    tiles[0] = rest;
  }
  // 3. One value handle per factor; record the decision.
  std::vector<ExprRV> out;
  std::vector<std::string> names;
  for (int64_t t : tiles) {
    out.push_back(new_expr_rv(t));
    names.push_back(rv_name(out.back()));
  }
  record({"sample_perfect_tile",
          {rv_name(loop)},
          {{"n", n}, {"max_innermost_factor", max_innermost_factor}},
          names,
          tiles});
  return out;
}

}  // namespace ingot::schedule

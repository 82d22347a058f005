// Reductions that keep their input's innermost dim (see lanes_reduction.h).
#include "schedule/rules/lanes_reduction.h"

#include <vector>

#include "schedule/ir_utils.h"
#include "schedule/rules/choice.h"
#include "schedule/rules/nest_utils.h"
#include "tir/analysis.h"
#include "tir/op.h"

namespace ingot::schedule {

using namespace tir;

namespace {

// The block's [spatial, reduce] loops (nest_utils.h reduction_loops) when it has an init and
// the last spatial var is the last index of its store.
std::optional<std::pair<std::vector<LoopRV>, std::vector<LoopRV>>> lanes_form(Schedule& s,
                                                                              BlockRV b) {
  auto info = find_block(s.func().body, s.name_of(b), nullptr);
  if (!info || !info->block->init.defined()) return std::nullopt;
  const auto* store = info->block->body.as<BufferStore>();
  auto loops = reduction_loops(s, b);
  if (!loops || store == nullptr || store->indices.empty()) return std::nullopt;
  const Var& j = info->block->iter_vars[loops->first.size() - 1].var;
  if (!store->indices.back().same_as(j)) return std::nullopt;
  return loops;
}

}  // namespace

bool schedule_lanes_reduction(Schedule& s, const std::string& name) {
  BlockRV b = s.get_block(name);
  auto form = lanes_form(s, b);
  if (!form) return false;
  auto [spatial, reduce] = *form;
  LoopRV j = spatial.back();
  spatial.pop_back();
  const int64_t len = loop_extent_of(s, j);
  std::vector<int64_t> chunks;
  for (int64_t c = 16; c <= 256 && c < len; c *= 2)
    if (len % c == 0) chunks.push_back(c);
  chunks.push_back(len);
  int64_t def = len;  // up to 256; beyond, 64 when it divides, else the largest chunk that does
  if (len > 256) def = len % 64 == 0 ? 64 : chunks.size() > 1 ? chunks[chunks.size() - 2] : len;
  const int64_t chunk = s.value(sample_choice(s, chunks, def));
  LoopRV lanes = j;
  if (chunk < len) {
    std::vector<LoopRV> parts = s.split(j, {std::nullopt, chunk});
    spatial.push_back(parts[0]);
    lanes = parts[1];
  }
  std::vector<LoopRV> order = spatial;
  order.insert(order.end(), reduce.begin(), reduce.end());
  order.push_back(lanes);
  s.reorder(order);
  BlockRV init = s.decompose_reduction(b, reduce.front());
  s.vectorize(s.get_loops(init).back());
  s.vectorize(lanes);
  if (!spatial.empty()) parallelize_outer(s, spatial, int(spatial.size()), 1);
  return true;
}

}  // namespace ingot::schedule

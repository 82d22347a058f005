// The GPU fallback rule (see gpu_injective.h).
#include "schedule/rules/gpu_injective.h"

#include <algorithm>
#include <string>
#include <vector>

#include "schedule/rules/choice.h"
#include "schedule/rules/gpu_matmul.h"
#include "schedule/rules/gpu_row_reduction.h"
#include "schedule/rules/nest_utils.h"

namespace ingot::schedule {

namespace {

// Thread blocks the default threads per block aims for at least (a GPU has tens of cores).
constexpr int64_t kMinBlocks = 64;

}  // namespace

// Every top-level spatial nest not bound yet (and the spatial loops of a reduction whose
// reduce loops are innermost): fused, split into blocks of threads, bound.
static void bind_spatial_nests(Schedule& s, int max_threads) {
  for (const std::string& name : top_level_block_names(s)) {
    BlockRV b = s.get_block(name);
    // Only nests whose own loops are all of their loops: a loop bound inside a serial one (a
    // scan's running axis) would launch once per iteration of it. A reduction over
    // [spatial..., reduce...] (compute/reduce.cpp's kept innermost dim) binds its spatial
    // loops: a thread per output element, its reduction serial in the thread.
    auto loops = own_loops(s, b);
    if (loops && loops->size() != s.get_loops(b).size()) continue;
    if (!loops)
      if (auto r = reduction_loops(s, b)) loops = r->first;
    if (!loops || loops->empty()) continue;
    LoopRV fused = loops->size() == 1 ? loops->front() : s.fuse(*loops);
    int64_t extent = loop_extent_of(s, fused);
    std::vector<int64_t> counts;
    for (int64_t t = 32; t <= max_threads; t *= 2) counts.push_back(t);
    if (counts.empty()) counts.push_back(max_threads);
    int64_t def = counts.back();
    while (def > counts.front() && extent / def < kMinBlocks) def /= 2;
    ExprRV threads = sample_choice(s, counts, def);
    auto split = s.split(fused, {std::nullopt, threads});
    s.bind(split[0], "blockIdx.x");
    s.bind(split[1], "threadIdx.x");
  }
}

void schedule_gpu_injective(Schedule& s, int max_threads) {
  inline_intermediates(s);
  bind_spatial_nests(s, max_threads);
}

void schedule_gpu_kernel(Schedule& s, int max_threads, bool tensor_cores) {
  inline_intermediates(s);
  schedule_gpu_matmul(s, max_threads, tensor_cores);
  schedule_gpu_rows(s, max_threads);
  bind_spatial_nests(s, max_threads);
}

}  // namespace ingot::schedule

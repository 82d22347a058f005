// Reductions inside a row (see row_reduction.h).
#include "schedule/rules/row_reduction.h"

#include <algorithm>
#include <vector>

#include "schedule/ir_utils.h"
#include "schedule/rules/choice.h"
#include "schedule/rules/contiguity.h"
#include "tir/analysis.h"
#include "tir/op.h"

namespace ingot::schedule {

using namespace tir;

namespace {

// The innermost loop of a reduction block and what the rule needs to know of it.
struct InnerReduction {
  LoopRV loop;
  int64_t extent = 0;
  const VarNode* r = nullptr;  // the reduce iter var it binds
  Stmt body;                   // the block's body
  DataType dtype;
  bool symbolic = false;  // the extent is not a constant (extent is then 0)
};

std::optional<InnerReduction> inner_reduction(Schedule& s, BlockRV b) {
  auto info = find_block(s.func().body, s.name_of(b), nullptr);
  const Block* blk = info->block;
  if (info->loops.empty() || !is_rfactor_reduction(blk->body)) return std::nullopt;
  const For* inner = info->loops.back().as<For>();
  int64_t extent = 0, min = -1;
  if (inner->kind != ForKind::kSerial || !is_const_int(inner->min, &min) || min != 0)
    return std::nullopt;
  const bool symbolic = !is_const_int(inner->extent, &extent);
  // The loop must bind a reduce iter var, directly.
  const VarNode* r = nullptr;
  for (size_t i = 0; i < blk->iter_vars.size(); ++i) {
    bool bound = info->br->iter_values[i].same_as(inner->loop_var);
    if (bound && blk->iter_vars[i].kind == IterKind::kReduce) r = blk->iter_vars[i].var.node();
    if (bound && blk->iter_vars[i].kind == IterKind::kSpatial) return std::nullopt;
  }
  if (r == nullptr) return std::nullopt;
  std::vector<LoopRV> loops = s.get_loops(b);
  const auto* seq = blk->body.as<SeqStmt>();
  const Stmt& update = seq != nullptr ? seq->seq.back() : blk->body;
  return InnerReduction{loops.back(), extent, r, blk->body, update.as<BufferStore>()->buffer->dtype,
                        symbolic};
}

// The outermost loop of the run of innermost loops around rfactor's block `b` that each feed
// one of its reduce iter vars or are its `lane` loop: the partial results are initialised once,
// before it.
LoopRV outermost_reduction_loop(Schedule& s, BlockRV b, LoopRV lane) {
  auto info = find_block(s.func().body, s.name_of(b), nullptr);
  std::vector<LoopRV> loops = s.get_loops(b);
  size_t k = loops.size();
  while (k > 0) {
    const Var& v = info->loops[k - 1].as<For>()->loop_var;
    bool feeds_reduce = v.same_as(s.loop_var(lane));
    for (size_t i = 0; i < info->block->iter_vars.size(); ++i)
      if (info->block->iter_vars[i].kind == IterKind::kReduce &&
          uses_var(info->br->iter_values[i], v))
        feeds_reduce = true;
    if (!feeds_reduce) break;
    --k;
  }
  INGOT_ICHECK(k < loops.size(), "row reduction: block {} has no reduction loop", s.name_of(b));
  return loops[k];
}

// Splits the reduction into `lanes` partial results (see row_reduction.h).
void split_lanes(Schedule& s, const InnerReduction& red, int64_t lanes) {
  LoopRV lane = split_into_strips(s, red.loop, red.extent, lanes).inner;  // the tail stays serial
  BlockRV rf = s.rfactor(lane);
  BlockRV init = s.decompose_reduction(rf, outermost_reduction_loop(s, rf, lane));
  s.vectorize(s.get_loops(init).back());
  s.vectorize(lane);
}

// 16 lanes where the reduction reads contiguously along runs of 16 (a row-major row, or a
// channel-blocked read with blocks of 16 or 32); a channel-blocked read in blocks of one vector
// (8 floats with AVX2) takes one vector's lanes; else none.
int64_t default_lanes(const InnerReduction& red, int64_t native) {
  if (red.extent < kDefaultReductionLanes) return 0;
  if (contiguous_in_runs(red.body, red.r, red.extent, kDefaultReductionLanes))
    return kDefaultReductionLanes;
  if (native >= 2 && native < kDefaultReductionLanes &&
      !contiguous_in_runs(red.body, red.r, red.extent, 1) &&
      contiguous_in_runs(red.body, red.r, red.extent, native))
    return native;
  return 0;
}

}  // namespace

bool schedule_reduction_lanes(Schedule& s, const std::string& name, const CpuVectorIsa& isa) {
  BlockRV b = s.get_block(name);
  auto red = inner_reduction(s, b);
  if (!red) return false;
  if (red->symbolic) {  // left to LLVM's loop vectorizer (vectorize.cpp)
    s.vectorize(red->loop);
    return true;
  }
  int64_t native = std::max<int64_t>(1, isa.vector_bits / red->dtype.bits);
  std::vector<int64_t> lanes = {0};
  for (int64_t l : {native, 2 * native, 4 * native, kDefaultReductionLanes})
    if (l >= 2 && l <= red->extent) lanes.push_back(l);
  std::sort(lanes.begin(), lanes.end());
  lanes.erase(std::unique(lanes.begin(), lanes.end()), lanes.end());
  if (lanes.size() == 1) return true;
  int64_t pick = s.value(sample_choice(s, lanes, default_lanes(*red, native)));
  if (pick != 0) split_lanes(s, *red, pick);
  return true;
}

void schedule_row_reductions(Schedule& s, const std::string& row, const CpuVectorIsa& isa) {
  std::vector<std::string> names;
  for (BlockRV c : s.get_child_blocks(s.get_block(row))) names.push_back(s.name_of(c));
  for (const std::string& name : names) schedule_reduction_lanes(s, name, isa);
}

}  // namespace ingot::schedule

// Primitive reverse_compute_at: a consumer block moves under a loop of its producer and
// consumes, at each iteration of that loop, the region of the buffer produced there.
#include "schedule/primitives/region_nest.h"

namespace ingot::schedule {

using namespace tir;

class ReverseComputeAtError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// Preconditions:
// - the block is at the root level, alone in its loop nest, with no predicate;
// - the loop is at the root level in an earlier nest, blocks under it write exactly one buffer
//   the block reads, and the block reads it at one iter var per dimension;
// - no block between the loop's nest and the block writes a buffer the block reads.
void Schedule::reverse_compute_at(BlockRV block, LoopRV loop) {
  BlockInfo bi = block_info(*this, block);
  LoopInfo li = loop_info(*this, loop);
  std::string what = "reverse_compute_at block " + qname(bi.block->name_hint) + " under loop " +
                     qname(li.node->loop_var.name());
  const Block* root = root_block(func_.body);
  // 1. Positions: the loop's nest precedes the block's, both at the root level.
  Stmt ctop = top_level_stmt(bi);
  std::vector<Stmt> seq = root_seq(func_.body);
  int ci = index_in(seq, ctop);
  int li_top = li.outer.empty() ? index_in(seq, li.loop) : index_in(seq, li.outer.front());
  if (bi.parent != root || li.parent != root || ci < 0 || li_top < 0)
    fail_schedule<ReverseComputeAtError>("cannot {}: both must be at the root level", what);
  if (child_block_realizes(ctop).size() != 1)
    fail_schedule<ReverseComputeAtError>("cannot {}: its loop nest holds other blocks", what);
  if (li_top >= ci)
    fail_schedule<ReverseComputeAtError>("cannot {}: the loop does not come before the block",
                                         what);
  // 2. The one buffer the block reads that blocks under the loop write.
  std::vector<Stmt> under = child_block_realizes(li.loop);
  const BufferRegion* in = nullptr;
  std::vector<Stmt> producers;
  for (const BufferRegion& rd : bi.block->reads) {
    std::vector<Stmt> ps;
    for (const Stmt& r : under)
      for (const BufferRegion& w : r.as<BlockRealize>()->block_node()->writes)
        if (w.buffer.same_as(rd.buffer)) ps.push_back(r);
    if (ps.empty()) continue;
    if (in)
      fail_schedule<ReverseComputeAtError>("cannot {}: it reads several buffers produced there",
                                           what);
    in = &rd;
    producers = ps;
  }
  if (!in)
    fail_schedule<ReverseComputeAtError>("cannot {}: no block under the loop writes what it reads",
                                         what);
  for (int k = li_top + 1; k < ci; ++k)
    for (const Stmt& r : child_block_realizes(seq[size_t(k)]))
      for (const BufferRegion& w : r.as<BlockRealize>()->block_node()->writes)
        for (const BufferRegion& rd : bi.block->reads)
          if (w.buffer.same_as(rd.buffer))
            fail_schedule<ReverseComputeAtError>(
                "cannot {}: block {} in between writes {}", what,
                qname(r.as<BlockRealize>()->block_node()->name_hint), qname(w.buffer->name));
  // 3. The region produced per iteration of the loop.
  auto region = required_region(producers, in->buffer.get(), true, loops_inside(li.loop));
  INGOT_ICHECK(region.has_value(), "producers without a write region");
  // 4. The consumer nest goes last in the loop body; its old nest is removed.
  Stmt nest = region_nest(bi, *in, *region, outer_analyzer(li), what);
  const For* f = li.node;
  Stmt nl = For::make(f->loop_var, f->min, f->extent, f->kind, SeqStmt::make({f->body, nest}),
                      f->thread_tag);
  set_body(replace_stmts(func_.body, {{ctop.get(), Stmt()}, {li.loop.get(), nl}}));
  // 5. Record.
  record({"reverse_compute_at", {rv_name(block), rv_name(loop)}, nlohmann::json::object(), {}, {}});
}

}  // namespace ingot::schedule

// Primitive compute_at: a producer block moves under a loop of its consumers and computes, at
// each iteration of that loop, only the region of its output those consumers read there.
#include "schedule/primitives/region_nest.h"

namespace ingot::schedule {

using namespace tir;

class ComputeAtError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// A producer of a shared-memory buffer computes what all threads of the block read.
// Preconditions:
// - the block is at the root level, alone in its loop nest, writing exactly one buffer, with
//   each dimension written at one iter var, and no predicate;
// - the loop is at the root level in a later nest, and blocks under it read that buffer;
// - no block outside the loop reads the buffer.
void Schedule::compute_at(BlockRV block, LoopRV loop) {
  BlockInfo bi = block_info(*this, block);
  LoopInfo li = loop_info(*this, loop);
  std::string what = "compute_at block " + qname(bi.block->name_hint) + " under loop " +
                     qname(li.node->loop_var.name());
  const Block* root = root_block(func_.body);
  // 1. Positions: the block's nest precedes the loop's, both at the root level.
  Stmt ptop = top_level_stmt(bi);
  std::vector<Stmt> seq = root_seq(func_.body);
  int pi = index_in(seq, ptop);
  int li_top = li.outer.empty() ? index_in(seq, li.loop) : index_in(seq, li.outer.front());
  if (bi.parent != root || li.parent != root || pi < 0 || li_top < 0)
    fail_schedule<ComputeAtError>("cannot {}: both must be at the root level", what);
  if (child_block_realizes(ptop).size() != 1)
    fail_schedule<ComputeAtError>("cannot {}: its loop nest holds other blocks", what);
  if (li_top <= pi)
    fail_schedule<ComputeAtError>("cannot {}: the loop does not come after the block", what);
  if (bi.block->writes.size() != 1)
    fail_schedule<ComputeAtError>("cannot {}: the block writes {} buffers (need one)", what,
                                  bi.block->writes.size());
  const BufferRegion& out = bi.block->writes[0];
  // 2. Consumers: blocks under the loop reading the buffer; none elsewhere.
  std::vector<Stmt> consumers;
  for (const Stmt& r : child_block_realizes(li.loop))
    for (const BufferRegion& rd : r.as<BlockRealize>()->block_node()->reads)
      if (rd.buffer.same_as(out.buffer)) consumers.push_back(r);
  if (consumers.empty())
    fail_schedule<ComputeAtError>("cannot {}: no block under the loop reads {}", what,
                                  qname(out.buffer->name));
  for (size_t k = 0; k < seq.size(); ++k) {
    if (int(k) == li_top) continue;
    for (const Stmt& r : child_block_realizes(seq[k]))
      for (const BufferRegion& rd : r.as<BlockRealize>()->block_node()->reads)
        if (rd.buffer.same_as(out.buffer))
          fail_schedule<ComputeAtError>("cannot {}: block {} outside the loop also reads {}", what,
                                        qname(r.as<BlockRealize>()->block_node()->name_hint),
                                        qname(out.buffer->name));
  }
  // 3. The region they need per iteration of the loop.
  // Shared memory belongs to a thread block: the region is every thread's, relaxed over the
  // threadIdx loops around the loop too (the producer is then bound over the threads, each
  // copying a part; the GPU lowering places barriers between the copy and its readers).
  VarDomain dom = loops_inside(li.loop);
  if (out.buffer->scope == StorageScope::kShared) {
    std::vector<Stmt> around = li.outer;
    around.push_back(li.loop);
    for (const Stmt& o : around)
      if (o.as<For>()->thread_tag.starts_with("threadIdx"))
        dom[o.as<For>()->loop_var.node()] = Range{o.as<For>()->min, o.as<For>()->extent};
  }
  auto region = required_region(consumers, out.buffer.get(), false, dom);
  INGOT_ICHECK(region.has_value(), "consumers without a read region");
  // 4. The producer nest goes first in the loop body; its old nest is removed.
  Stmt nest = region_nest(bi, out, *region, outer_analyzer(li), what);
  const For* f = li.node;
  Stmt nl = For::make(f->loop_var, f->min, f->extent, f->kind, SeqStmt::make({nest, f->body}),
                      f->thread_tag);
  set_body(replace_stmts(func_.body, {{ptop.get(), Stmt()}, {li.loop.get(), nl}}));
  // 5. Record.
  record({"compute_at", {rv_name(block), rv_name(loop)}, nlohmann::json::object(), {}, {}});
}

}  // namespace ingot::schedule

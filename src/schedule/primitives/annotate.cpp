// Primitive annotate: attaches a key/value annotation to a block (read by later passes and
// rules, e.g. pragmas). Loops carry no annotations in this IR.
#include "schedule/primitives/common.h"

namespace ingot::schedule {

using namespace tir;

class AnnotateError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// Preconditions: the block exists; the key is not empty.
void Schedule::annotate(BlockRV block, const std::string& key, const std::string& value) {
  BlockInfo bi = block_info(*this, block);
  // 1. Check the key.
  if (key.empty())
    fail_schedule<AnnotateError>("cannot annotate block {}: the key is empty",
                                 qname(bi.block->name_hint));
  // 2. Rebuild the block with the annotation set and replace its realize.
  auto ann = bi.block->annotations;
  ann[key] = value;
  const Block* b = bi.block;
  Stmt nb = Block::make(b->name_hint, b->iter_vars, b->reads, b->writes, b->body, b->init,
                        b->alloc_buffers, ann);
  Stmt r = BlockRealize::make(bi.br->iter_values, bi.br->predicate, nb);
  set_body(replace_stmts(func_.body, {{bi.realize.get(), r}}));
  // 3. Record.
  record({"annotate", {rv_name(block)}, {{"key", key}, {"value", value}}, {}, {}});
}

}  // namespace ingot::schedule

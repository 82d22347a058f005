// Primitive cache_write: the block writes a new buffer of the given scope instead of one of its
// outputs, and a new block "<buffer>_<scope>" after it copies the cache back. The write-back
// covers the whole buffer; reverse_compute_at narrows it.
#include "schedule/primitives/common.h"
#include "tir/op.h"
#include "tir/region_analysis.h"

namespace ingot::schedule {

using namespace tir;

class CacheWriteError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// Preconditions:
// - write_buffer_index indexes the block's writes; scope is "local" or "shared";
// - the buffer has a constant shape;
// - the block is at the root level of the function (the write-back follows its loop nest).
BlockRV Schedule::cache_write(BlockRV block, int write_buffer_index, const std::string& scope) {
  BlockInfo bi = block_info(*this, block);
  const Block* b = bi.block;
  std::string what = "cache_write block " + qname(b->name_hint);
  // 1. Check the arguments.
  if (write_buffer_index < 0 || size_t(write_buffer_index) >= b->writes.size())
    fail_schedule<CacheWriteError>(
        "cannot {}: write index {} is out of range (it writes {} buffers)", what,
        write_buffer_index, b->writes.size());
  StorageScope sc = cache_scope(scope, what);
  Buffer dst = b->writes[size_t(write_buffer_index)].buffer;
  for (const Expr& d : dst->shape)
    if (!is_const_int(d))
      fail_schedule<CacheWriteError>("cannot {}: buffer {} has a symbolic shape", what,
                                     qname(dst->name));
  if (bi.parent != root_block(func_.body))
    fail_schedule<CacheWriteError>("cannot {}: the block is nested in block {}", what,
                                   qname(bi.parent->name_hint));
  // 2. The block reads and writes the cache instead (init included).
  Buffer cache = Buffer::make(dst->name + "_" + scope, dst->dtype, dst->shape, sc);
  Stmt nb = reinfer_block_regions(
      replace_buffer(bi.realize, dst, cache).as<BlockRealize>()->block_node());
  Stmt nr = BlockRealize::make(bi.br->iter_values, bi.br->predicate, nb);
  Stmt top = top_level_stmt(bi);
  std::vector<Stmt> seq = root_seq(func_.body);
  int at = index_in(seq, top);
  INGOT_ICHECK(at >= 0, "block {} is not under the root", b->name_hint);
  seq[size_t(at)] = replace_stmts(top, {{bi.realize.get(), nr}});
  // 3. The write-back block right after the block's nest.
  std::string name = unique_block_name(func_.body, cache->name);
  seq.insert(seq.begin() + at + 1, copy_nest(name, cache, dst));
  set_body(rebuild_root(func_.body, seq, {cache}));
  // 4. Record.
  BlockRV out = new_block_rv(name);
  record({"cache_write",
          {rv_name(block)},
          {{"buffer_index", write_buffer_index}, {"scope", scope}},
          {rv_name(out)},
          {}});
  return out;
}

}  // namespace ingot::schedule

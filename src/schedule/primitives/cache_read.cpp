// Primitive cache_read: a new block "<buffer>_<scope>" copies a buffer the block reads into a
// new buffer of the given scope, and the block reads the copy. The copy block covers the whole
// buffer and is placed after the buffer's producer (or first); compute_at narrows it. A
// "global" cache is a new scratch parameter (PrimFunc::scratch_params; the module binds it to
// workspace after scheduling): a CPU kernel's packed operand, too large for the stack, which
// transform_layout may give panels.
#include "schedule/primitives/common.h"
#include "tir/op.h"
#include "tir/region_analysis.h"

namespace ingot::schedule {

using namespace tir;

class CacheReadError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// Parses "local" / "shared"; the error names the primitive and block.
StorageScope cache_scope(const std::string& scope, const std::string& what) {
  if (scope == "local") return StorageScope::kLocal;
  if (scope == "shared") return StorageScope::kShared;
  fail_schedule<CacheScopeError>("cannot {}: storage scope {} is not one of \"local\", \"shared\"",
                                 what, qname(scope));
}

// A block copying all of `src` into `dst` inside one loop per dimension.
Stmt copy_nest(const std::string& name, const Buffer& src, const Buffer& dst) {
  std::vector<IterVar> ivs;
  std::vector<Var> loops;
  std::vector<Expr> idx, values;
  for (int d = 0; d < src.ndim(); ++d) {
    Var v("v" + std::to_string(d)), l("ax" + std::to_string(d));
    ivs.push_back({v, i64(0), src->shape[size_t(d)], IterKind::kSpatial});
    idx.push_back(v);
    values.push_back(l);
    loops.push_back(l);
  }
  Stmt s = BlockRealize::make(values, IntImm::make(DataType::boolean(), 1),
                              make_block(name, ivs, BufferStore::make(dst, src.load(idx), idx)));
  for (int d = src.ndim(); d-- > 0;)
    s = For::make(loops[size_t(d)], i64(0), src->shape[size_t(d)], ForKind::kSerial, s);
  return s;
}

// Preconditions:
// - read_buffer_index indexes the block's reads; scope is "local" or "shared";
// - the buffer has a constant shape; the block is not the root.
BlockRV Schedule::cache_read(BlockRV block, int read_buffer_index, const std::string& scope) {
  BlockInfo bi = block_info(*this, block);
  const Block* b = bi.block;
  std::string what = "cache_read block " + qname(b->name_hint);
  // 1. Check the arguments.
  if (read_buffer_index < 0 || size_t(read_buffer_index) >= b->reads.size())
    fail_schedule<CacheReadError>("cannot {}: read index {} is out of range (it reads {} buffers)",
                                  what, read_buffer_index, b->reads.size());
  const bool global = scope == "global";
  StorageScope sc = global ? StorageScope::kGlobal : cache_scope(scope, what);
  Buffer src = b->reads[size_t(read_buffer_index)].buffer;
  for (const Expr& d : src->shape)
    if (!is_const_int(d))
      fail_schedule<CacheReadError>("cannot {}: buffer {} has a symbolic shape", what,
                                    qname(src->name));
  // 2. The cache buffer and its copy block.
  Buffer dst = Buffer::make(src->name + "_" + scope, src->dtype, src->shape, sc);
  std::string name = unique_block_name(func_.body, dst->name);
  Stmt copy = copy_nest(name, src, dst);
  // 3. The block reads the cache instead (its regions re-inferred).
  Stmt nb =
      reinfer_block_regions(replace_buffer(bi.realize, src, dst).as<BlockRealize>()->block_node());
  Stmt nr = BlockRealize::make(bi.br->iter_values, bi.br->predicate, nb);
  set_body(replace_stmts(func_.body, {{bi.realize.get(), nr}}));
  // 4. Insert the copy after the last root-level statement writing src (or first).
  std::vector<Stmt> seq = root_seq(func_.body);
  size_t at = 0;
  for (size_t k = 0; k < seq.size(); ++k) {
    for (const Stmt& r : child_block_realizes(seq[k]))
      for (const BufferRegion& w : r.as<BlockRealize>()->block_node()->writes)
        if (w.buffer.same_as(src)) at = k + 1;
  }
  seq.insert(seq.begin() + long(at), copy);
  if (global) {
    func_.scratch_params.push_back(int(func_.params.size()));
    func_.params.push_back(dst);
    set_body(rebuild_root(func_.body, seq));
  } else {
    set_body(rebuild_root(func_.body, seq, {dst}));
  }
  // 5. Record.
  BlockRV out = new_block_rv(name);
  record({"cache_read",
          {rv_name(block)},
          {{"buffer_index", read_buffer_index}, {"scope", scope}},
          {rv_name(out)},
          {}});
  return out;
}

}  // namespace ingot::schedule

// Primitive transform_layout: a buffer a block reads gets a tiled layout (tir/param_layout.h),
// every access to it in the function rewritten (indices simplified over each block's iter
// domain, so a panel read after split_block_iter is affine again). Two kinds of buffer take one:
// - a constant parameter: the function records the layout (PrimFunc::layouts) and the module's
//   constant is re-laid out after scheduling (tir/transforms/apply_param_layouts.h);
// - a scratch parameter that cache_read("global") made: its copy block is rebuilt over the new
//   (padded) domain, the padding written as zeros, so the reader may run whole tiles over it.
// A read that the compute guards against the buffer's end, `select(i < E, B[.., i, ..], 0)` on an
// axis the layout zero pads (E not a multiple of the factor; the index may be clamped,
// `min(i, E - 1)`), becomes the plain read B[.., i, ..] of the padded buffer: the padding holds the
// zero the guard gave (TVM's transform_layout pad_value). So a compute can describe a product over
// whole channel blocks of a weight with fewer channels, and after its layout the micro-kernel reads
// it unguarded.
#include <algorithm>

#include "schedule/primitives/common.h"
#include "tir/arith/analyzer.h"
#include "tir/mutator.h"
#include "tir/op.h"
#include "tir/region_analysis.h"
#include "tir/structural_equal.h"
#include "tir/substitute.h"

namespace ingot::schedule {

using namespace tir;

class TransformLayoutError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

namespace {

bool contains(const std::vector<int>& v, int x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Rewrites the accesses of `from` into `to` through the layout, simplifying each index over
// the iter domains of the blocks around it.
class LayoutRewriter : public IRMutator {
 public:
  LayoutRewriter(const Buffer& from, const Buffer& to, const TiledLayout& layout,
                 std::vector<int64_t> shape)
      : from_(from), to_(to), layout_(layout), shape_(std::move(shape)) {}

  Expr visit_Select(const Select* op, const Expr& e) override {
    if (auto* l = op->true_value.as<BufferLoad>();
        l != nullptr && l->buffer.get() == from_.get() && is_zero(op->false_value)) {
      std::vector<Expr> index = l->indices;
      if (padding_guard(op->condition, index)) return mutate(from_.load(index));
    }
    return IRMutator::visit_Select(op, e);
  }

  Expr visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
    Expr x = IRMutator::visit_BufferLoad(op, e);
    auto* l = x.as<BufferLoad>();
    if (l->buffer.get() != from_.get()) return x;
    return to_.load(indices(l->indices));
  }
  Stmt visit_BufferStore(const BufferStore* op, const Stmt& s) override {
    Stmt x = IRMutator::visit_BufferStore(op, s);
    auto* st = x.as<BufferStore>();
    if (st->buffer.get() != from_.get()) return x;
    return BufferStore::make(to_, st->value, indices(st->indices));
  }
  Stmt visit_Block(const Block* op, const Stmt& s) override {
    arith::Analyzer saved = ana_;
    for (const IterVar& iv : op->iter_vars) ana_.bind(iv.var, iv.min, iv.extent);
    Stmt body = mutate(op->body);
    Stmt init = op->init.defined() ? mutate(op->init) : Stmt();
    ana_ = saved;
    if (body.same_as(op->body) && init.same_as(op->init)) return s;
    Stmt b = Block::make(op->name_hint, op->iter_vars, op->reads, op->writes, body, init,
                         op->alloc_buffers, op->annotations);
    return op->name_hint == "root" ? b : reinfer_block_regions(b.as<Block>());
  }
  Stmt visit_For(const For* op, const Stmt& s) override {
    arith::Analyzer saved = ana_;
    ana_.bind(op->loop_var, op->min, op->extent);
    Stmt r = IRMutator::visit_For(op, s);
    ana_ = saved;
    return r;
  }

 private:
  static bool is_zero(const Expr& e) {
    if (auto* f = e.as<FloatImm>()) return f->value == 0.0;
    int64_t v = 1;
    return is_const_int(e, &v) && v == 0;
  }
  // Whether every conjunct of `cond` is `i < E` for the index of an axis d of extent E that the
  // layout pads with zeros, i provably below the padded extent; the index is `i`, or `i`
  // clamped into the buffer as `min(i, E - 1)` (so that the guarded compute never reads past
  // it), which `index` then gets unclamped.
  bool padding_guard(const Expr& cond, std::vector<Expr>& index) {
    if (auto* a = cond.as<And>()) return padding_guard(a->a, index) && padding_guard(a->b, index);
    auto* lt = cond.as<LT>();
    int64_t bound = 0;
    if (lt == nullptr || !is_const_int(lt->b, &bound)) return false;
    for (size_t k = 0; k + 1 < layout_.splits.size(); k += 2) {
      size_t d = size_t(layout_.splits[k]);
      int64_t f = layout_.splits[k + 1], padded = (shape_[d] + f - 1) / f * f, last = -1;
      if (d >= index.size() || bound != shape_[d] || shape_[d] % f == 0) continue;
      Expr i = index[d];
      if (auto* m = i.as<Min>(); m != nullptr && is_const_int(m->b, &last) && last == bound - 1)
        i = m->a;
      if (structural_equal(lt->a, i) && ana_.can_prove(i < i64(padded))) {
        index[d] = i;
        return true;
      }
    }
    return false;
  }
  std::vector<Expr> indices(const std::vector<Expr>& old) {
    std::vector<Expr> out;
    for (const Expr& e : layout_.apply_index(old)) out.push_back(ana_.simplify(e));
    return out;
  }
  Buffer from_, to_;
  TiledLayout layout_;
  std::vector<int64_t> shape_;  // from_'s
  arith::Analyzer ana_;
};

// The cache's copy block rebuilt over the new domain: dst'[n] = src[inverse(n)] (clamped into
// the source, zero in the padding).
Stmt padded_copy(const std::string& name, const BufferStore* store, const Block* copy,
                 const Buffer& dst, const std::vector<int64_t>& old_shape,
                 const TiledLayout& layout) {
  std::vector<int64_t> new_shape = layout.apply_shape(old_shape);
  std::vector<IterVar> ivs;
  std::vector<Var> loops;
  std::vector<Expr> idx, values;
  for (size_t d = 0; d < new_shape.size(); ++d) {
    Var v("v" + std::to_string(d)), l("ax" + std::to_string(d));
    ivs.push_back({v, i64(0), i64(new_shape[d]), IterKind::kSpatial});
    idx.push_back(v);
    values.push_back(l);
    loops.push_back(l);
  }
  // The source index of each new index, symbolically: undo the permutation, join the splits.
  std::vector<Expr> split(new_shape.size());
  for (size_t d = 0; d < new_shape.size(); ++d)
    split[layout.perm.empty() ? d : size_t(layout.perm[d])] = idx[d];
  std::vector<int64_t> factor(old_shape.size(), 0);
  for (size_t k = 0; k < layout.splits.size(); k += 2)
    factor[size_t(layout.splits[k])] = layout.splits[k + 1];
  std::vector<Expr> src;
  Expr inside;
  size_t s = 0;
  for (size_t d = 0; d < old_shape.size(); ++d) {
    if (factor[d] == 0) {
      src.push_back(split[s++]);
      continue;
    }
    Expr at = split[s] * i64(factor[d]) + split[s + 1];
    s += 2;
    if (old_shape[d] % factor[d] != 0) {
      Expr in = at < i64(old_shape[d]);
      inside = inside.defined() ? Expr(inside && in) : in;
      at = min(at, i64(old_shape[d] - 1));
    }
    src.push_back(at);
  }
  VarMap to_src;
  for (size_t d = 0; d < copy->iter_vars.size(); ++d)
    to_src[copy->iter_vars[d].var.node()] = src[d];
  Expr v = substitute(store->value, to_src);
  if (inside.defined()) v = select(inside, v, make_const(v.dtype(), 0));
  Stmt st = BlockRealize::make(values, IntImm::make(DataType::boolean(), 1),
                               make_block(name, ivs, BufferStore::make(dst, v, idx)));
  for (size_t d = new_shape.size(); d-- > 0;)
    st = For::make(loops[d], i64(0), i64(new_shape[d]), ForKind::kSerial, st);
  return st;
}

}  // namespace

// Preconditions:
// - read_buffer_index indexes the block's reads; the buffer has a constant shape;
// - it is a constant parameter (PrimFunc::constant_params) not yet given a layout, or a scratch
//   parameter of cache_read("global") whose copy block is still a loop per dim at the root;
// - the layout's splits and permutation fit the buffer's rank.
void Schedule::transform_layout(BlockRV block, int read_buffer_index, std::vector<int64_t> splits,
                                std::vector<int64_t> perm) {
  BlockInfo bi = block_info(*this, block);
  const Block* b = bi.block;
  std::string what = "transform_layout block " + qname(b->name_hint);
  if (read_buffer_index < 0 || size_t(read_buffer_index) >= b->reads.size())
    fail_schedule<TransformLayoutError>(
        "cannot {}: read index {} is out of range (it reads {} buffers)", what, read_buffer_index,
        b->reads.size());
  Buffer src = b->reads[size_t(read_buffer_index)].buffer;
  std::vector<int64_t> shape;
  for (const Expr& d : src->shape) {
    int64_t n = 0;
    if (!is_const_int(d, &n))
      fail_schedule<TransformLayoutError>("cannot {}: buffer {} has a symbolic shape", what,
                                          qname(src->name));
    shape.push_back(n);
  }
  TiledLayout layout{splits, perm};
  // Malformed layouts fail as schedule errors (a replayed trace may carry anything).
  size_t rank = shape.size() + splits.size() / 2;
  bool ok = splits.size() % 2 == 0 && (perm.empty() || perm.size() == rank);
  std::vector<bool> seen_axis(shape.size(), false), seen_dim(rank, false);
  for (size_t k = 0; ok && k < splits.size(); k += 2) {
    ok = splits[k] >= 0 && size_t(splits[k]) < shape.size() && !seen_axis[size_t(splits[k])] &&
         splits[k + 1] >= 1 && (k == 0 || splits[k] > splits[k - 2]);
    if (ok) seen_axis[size_t(splits[k])] = true;
  }
  for (int64_t p : perm) {
    ok = ok && p >= 0 && size_t(p) < rank && !seen_dim[size_t(p)];
    if (ok) seen_dim[size_t(p)] = true;
  }
  if (!ok)
    fail_schedule<TransformLayoutError>(
        "cannot {}: the layout (splits {}, perm {}) does not fit buffer {} of rank {}", what,
        nlohmann::json(splits).dump(), nlohmann::json(perm).dump(), qname(src->name), shape.size());
  int p = -1;
  for (size_t k = 0; k < func_.params.size(); ++k)
    if (func_.params[k].get() == src.get()) p = int(k);
  bool constant = p >= 0 && contains(func_.constant_params, p);
  bool scratch = p >= 0 && contains(func_.scratch_params, p);
  if (!constant && !scratch)
    fail_schedule<TransformLayoutError>(
        "cannot {}: buffer {} is neither a constant parameter nor a global cache", what,
        qname(src->name));
  for (const PrimFunc::ParamLayout& l : func_.layouts)
    if (l.param == p)
      fail_schedule<TransformLayoutError>("cannot {}: buffer {} already has a layout", what,
                                          qname(src->name));
  Buffer dst = Buffer::make(src->name, src->dtype, layout.apply_shape(shape), src->scope);
  // A cache's copy block: found before the rewrite, rebuilt over the new domain after it.
  StmtMap copies;
  if (scratch) {
    const Stmt* writer = nullptr;
    std::vector<Stmt> seq = root_seq(func_.body);
    for (const Stmt& top : seq)
      for (const Stmt& r : child_block_realizes(top))
        for (const BufferRegion& w : r.as<BlockRealize>()->block_node()->writes)
          if (w.buffer.same_as(src)) writer = &top;
    const Stmt* st = nullptr;
    const Block* copy = nullptr;
    if (writer != nullptr) {
      Stmt cur = *writer;
      while (auto* f = cur.as<For>()) cur = f->body;
      if (auto* br = cur.as<BlockRealize>()) {
        copy = br->block_node();
        st = &copy->body;
      }
    }
    const BufferStore* store = st != nullptr ? st->as<BufferStore>() : nullptr;
    if (store == nullptr || copy->iter_vars.size() != shape.size())
      fail_schedule<TransformLayoutError>(
          "cannot {}: the copy into {} is no longer one loop per dimension at the root", what,
          qname(src->name));
    copies[writer->get()] = padded_copy(copy->name_hint, store, copy, dst, shape, layout);
  }
  Stmt body = LayoutRewriter(src, dst, layout, shape).mutate(replace_stmts(func_.body, copies));
  // The rebuilt copy already writes dst; the rewriter leaves it (its indices are the new ones).
  set_body(body);
  func_.params[size_t(p)] = dst;
  if (constant) func_.layouts.push_back({p, shape, layout});
  record({"transform_layout",
          {rv_name(block)},
          {{"buffer_index", read_buffer_index}, {"splits", splits}, {"perm", perm}},
          {},
          {}});
}

}  // namespace ingot::schedule

// The dense product's pattern and operand layouts (see dense_product.h).
#include "schedule/rules/dense_product.h"

#include "schedule/ir_utils.h"
#include "support/error.h"
#include "tir/op.h"

namespace ingot::schedule {

using namespace tir;

namespace {

const VarNode* var_of(const Expr& e) {
  return e.as<VarNode>();
}

// The dims of `idx` holding p and q (each exactly once, as plain vars), when every other dim is
// one of the batch vars `batch` (each once) or a constant.
std::optional<std::pair<int, int>> dims_of(const std::vector<Expr>& idx,
                                           const std::vector<const VarNode*>& batch,
                                           const VarNode* p, const VarNode* q) {
  int at_p = -1, at_q = -1;
  std::vector<int> at_b(batch.size(), -1);
  for (size_t d = 0; d < idx.size(); ++d) {
    const VarNode* v = var_of(idx[d]);
    int* slot = v == p ? &at_p : v == q ? &at_q : nullptr;
    for (size_t b = 0; b < batch.size() && slot == nullptr; ++b)
      if (v == batch[b]) slot = &at_b[b];
    if (slot == nullptr) {
      if (!is_const_int(idx[d])) return std::nullopt;
      continue;
    }
    if (*slot >= 0) return std::nullopt;
    *slot = int(d);
  }
  if (at_p < 0 || at_q < 0) return std::nullopt;
  for (int b : at_b)
    if (b < 0) return std::nullopt;
  return std::pair{at_p, at_q};
}

}  // namespace

std::optional<BlockInfo> product_block_info(const PrimFunc& f, const std::string& name) {
  int count = 0;
  std::optional<BlockInfo> info = find_block(f.body, name, &count);
  if (!info || count != 1 || (info->parent != nullptr && info->parent->name_hint != "root"))
    return std::nullopt;
  const Block* blk = info->block;
  const size_t n = blk->iter_vars.size();
  if (n < 3 || info->loops.size() != n || !blk->init.defined()) return std::nullopt;
  for (size_t d = 0; d < n; ++d) {
    auto* loop = info->loops[d].as<For>();
    IterKind want = d + 1 == n ? IterKind::kReduce : IterKind::kSpatial;
    if (blk->iter_vars[d].kind != want || loop == nullptr ||
        info->br->iter_values[d].as<VarNode>() != loop->loop_var.node() ||
        loop->kind != ForKind::kSerial)
      return std::nullopt;
  }
  return info;
}

std::optional<DenseProduct> match_dense(const PrimFunc& f, bool symbolic_rows) {
  std::optional<BlockInfo> info = product_block_info(f);
  if (!info) return std::nullopt;
  const Block* blk = info->block;
  const size_t n = blk->iter_vars.size();
  // Every extent constant, but a symbolic row count's (i: after the batch loops).
  for (size_t d = 0; d < n; ++d)
    if (is_const_int(info->loops[d].as<For>()->extent) == (symbolic_rows && d + 3 == n))
      return std::nullopt;
  DenseProduct d;
  const size_t o = n - 3;  // batch vars (the rule fuses them into one loop)
  d.batched = o > 0;
  std::vector<const VarNode*> vb;
  for (size_t x = 0; x < o; ++x) vb.push_back(blk->iter_vars[x].var.node());
  const VarNode* vi = blk->iter_vars[o].var.node();
  const VarNode* vj = blk->iter_vars[o + 1].var.node();
  const VarNode* vk = blk->iter_vars[o + 2].var.node();
  // C is [batch dims,] i, j: its last two dims i and j (the rule's tiles follow them).
  auto* st = blk->body.as<BufferStore>();
  if (st == nullptr || st->buffer->dtype != DataType::f32() || st->indices.size() < 2 ||
      var_of(st->indices[st->indices.size() - 2]) != vi || var_of(st->indices.back()) != vj ||
      !dims_of(st->indices, vb, vi, vj))
    return std::nullopt;
  auto* add = st->value.as<Add>();
  auto* self = add ? add->a.as<BufferLoad>() : nullptr;
  auto* mul = add ? add->b.as<Mul>() : nullptr;
  auto* la = mul ? mul->a.as<BufferLoad>() : nullptr;
  auto* lb = mul ? mul->b.as<BufferLoad>() : nullptr;
  if (!self || self->buffer.get() != st->buffer.get() || !la || !lb ||
      la->buffer->dtype != DataType::f32() || lb->buffer->dtype != DataType::f32() ||
      la->buffer.get() == lb->buffer.get())
    return std::nullopt;
  auto ad = dims_of(la->indices, vb, vi, vk);
  // B: batched with the block, or shared by every batch (a 2-D B).
  auto bd = dims_of(lb->indices, vb, vk, vj);
  if (!bd && d.batched) bd = dims_of(lb->indices, {}, vk, vj);
  if (!ad || !bd) return std::nullopt;
  d.a = la->buffer->name, d.b = lb->buffer->name;
  d.a_rows = ad->first, d.a_depth = ad->second;
  d.b_depth = bd->first, d.b_cols = bd->second;
  d.b_constant = is_constant_param(f, lb->buffer.get());
  // Symbolic rows: the rows of one 2-D constant B (the one form their rule takes).
  if (symbolic_rows && (d.batched || !d.b_constant || lb->indices.size() != 2)) return std::nullopt;
  // The init: zero, or a (cast) load of a bias row.
  auto* init = blk->init.as<BufferStore>();
  if (init == nullptr) return std::nullopt;
  Expr iv = init->value;
  if (auto* c = iv.as<Cast>()) iv = c->value;
  if (auto* m = iv.as<Mul>(); m && m->b.as<FloatImm>()) iv = m->a;  // Gemm's beta * C
  if (auto* bias = iv.as<BufferLoad>()) {
    for (size_t x = 0; x < bias->indices.size(); ++x) {
      if (var_of(bias->indices[x]) == vj) {
        d.bias_axis = int(x);
      } else if (!is_const_int(bias->indices[x])) {
        return std::nullopt;
      }
    }
    if (is_constant_param(f, bias->buffer.get()) && d.bias_axis >= 0) d.bias = bias->buffer->name;
  } else if (!is_const_int(iv) && !iv.as<FloatImm>()) {
    return std::nullopt;
  }
  return d;
}

std::optional<PanelProductBlock> match_panel_product(const PrimFunc& f, DataType acc,
                                                     int64_t k_multiple, bool static_rows) {
  std::optional<BlockInfo> info = product_block_info(f);
  if (!info || info->block->iter_vars.size() != 3) return std::nullopt;
  const Block* blk = info->block;
  int64_t k_extent = 0;
  if ((static_rows && !is_const_int(info->loops[0].as<For>()->extent)) ||
      !is_const_int(info->loops[1].as<For>()->extent) ||
      !is_const_int(info->loops[2].as<For>()->extent, &k_extent) || k_extent % k_multiple != 0)
    return std::nullopt;
  PanelProductBlock p;
  p.i = blk->iter_vars[0].var, p.j = blk->iter_vars[1].var, p.k = blk->iter_vars[2].var;
  auto* st = blk->body.as<BufferStore>();
  if (st == nullptr || st->buffer->dtype != acc || st->indices.size() != 2 ||
      st->indices[0].as<VarNode>() != p.i.node() || st->indices[1].as<VarNode>() != p.j.node())
    return std::nullopt;
  auto* add = st->value.as<Add>();
  auto* self = add ? add->a.as<BufferLoad>() : nullptr;
  p.product = add ? add->b.as<Mul>() : nullptr;
  if (!self || self->buffer.get() != st->buffer.get() || !p.product) return std::nullopt;
  // The init: zero or the constant bias row bias[j].
  auto* init = blk->init.as<BufferStore>();
  if (init == nullptr) return std::nullopt;
  if (auto* bias = init->value.as<BufferLoad>()) {
    if (bias->buffer->dtype != acc || bias->indices.size() != 1 ||
        bias->indices[0].as<VarNode>() != p.j.node() || !is_constant_param(f, bias->buffer.get()))
      return std::nullopt;
    p.bias = bias->buffer->name;
  } else if (!is_const_int(init->value) && !init->value.as<FloatImm>()) {
    return std::nullopt;
  }
  return p;
}

const BufferLoad* widened_operand(const Expr& e, const Var& p, const Var& q, DataType to) {
  auto* c = e.as<Cast>();
  auto* l = c ? c->value.as<BufferLoad>() : nullptr;
  if (c == nullptr || c->dtype != to || l == nullptr || l->indices.size() != 2 ||
      l->indices[0].as<VarNode>() != p.node() || l->indices[1].as<VarNode>() != q.node())
    return nullptr;
  return l;
}

int read_index(const Schedule& s, const std::string& name) {
  const Block* blk = find_block(s.func().body, "matmul", nullptr)->block;
  for (size_t r = 0; r < blk->reads.size(); ++r)
    if (blk->reads[r].buffer->name == name) return int(r);
  INGOT_ICHECK(false, "dense matmul rule: block matmul does not read {}", name);
  return -1;
}

void panel_layout(Schedule& s, BlockRV c, const std::string& name, int rank, int split, int depth,
                  int width) {
  // Dims after the split: split -> (split, split + 1), later dims one further.
  auto moved = [&](int d) { return int64_t(d > split ? d + 1 : d); };
  std::vector<int64_t> perm;
  for (int d = 0; d < rank; ++d)
    if (d != split && d != depth) perm.push_back(moved(d));
  perm.insert(perm.end(), {moved(split), moved(depth), moved(split) + 1});
  s.transform_layout(c, read_index(s, name), {split, width}, perm);
}

int rank_of(const Schedule& s, const std::string& name) {
  const Block* blk = find_block(s.func().body, "matmul", nullptr)->block;
  return int(blk->reads.at(size_t(read_index(s, name))).buffer.ndim());
}

}  // namespace ingot::schedule

// Rule direct_conv: a conv block as a direct convolution in row order, its padding guard
// partitioned away (see direct_conv.h).
#include "schedule/rules/direct_conv.h"

#include <string>
#include <vector>

#include "schedule/ir_utils.h"
#include "schedule/rules/choice.h"
#include "schedule/rules/conv_guard.h"
#include "schedule/rules/dense_product.h"
#include "schedule/rules/matmul.h"
#include "schedule/rules/nest_utils.h"
#include "support/error.h"
#include "tir/op.h"
#include "tir/visitor.h"

namespace ingot::schedule {

using namespace tir;

namespace {

// What the rule reads of the block: the spatial rank, the iter vars of the batch and the output
// row (-1: no such iter, an extent of 1) and the window's taps (W's dims past the first two).
struct DirectConv {
  int rank = 0;
  int n = -1, oh = -1;
  std::vector<int64_t> taps;
};

const VarNode* var_node(const Expr& e) {
  return e.as<VarNode>();
}

std::optional<DirectConv> match(const PrimFunc& f) {
  std::optional<BlockInfo> info = product_block_info(f, "conv");
  if (!info) return std::nullopt;
  const Block* b = info->block;
  const size_t m = b->iter_vars.size();
  const auto* st = b->body.as<BufferStore>();
  if (st == nullptr || st->indices.size() < 3 || st->indices.size() > 4 ||
      !st->buffer->dtype.is_float())
    return std::nullopt;
  const VarNode* vi = b->iter_vars[m - 3].var.node();
  const VarNode* vj = b->iter_vars[m - 2].var.node();
  if (var_node(st->indices[1]) != vi || var_node(st->indices.back()) != vj) return std::nullopt;
  // W: the load indexed [i, ...] of Y's rank.
  struct Weights : IRVisitor {
    const VarNode* vi = nullptr;
    size_t rank = 0;
    const BufferLoad* w = nullptr;
    void visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
      if (op->indices.size() == rank && var_node(op->indices[0]) == vi) w = op;
      IRVisitor::visit_BufferLoad(op, e);
    }
  } weights;
  weights.vi = vi, weights.rank = st->indices.size();
  weights.visit(st->value);
  if (weights.w == nullptr) return std::nullopt;
  DirectConv d;
  d.rank = int(st->indices.size()) - 2;
  for (size_t x = 2; x < weights.w->buffer->shape.size(); ++x) {
    int64_t e = 0;
    if (!is_const_int(weights.w->buffer->shape[x], &e)) return std::nullopt;
    d.taps.push_back(e);
  }
  auto iter_of = [&](const Expr& index) {
    for (size_t x = 0; x + 3 < m; ++x)
      if (var_node(index) == b->iter_vars[x].var.node()) return int(x);
    return -1;
  };
  d.n = iter_of(st->indices[0]);
  if (d.rank == 2) d.oh = iter_of(st->indices[2]);
  // Every iter before i is the batch or the output row.
  if (int(m) - 3 != (d.n >= 0) + (d.oh >= 0)) return std::nullopt;
  return d;
}

// The update block (not the init) under `loop`: after a partition its name is "conv_p<k>...".
BlockRV update_under(Schedule& s, LoopRV loop) {
  for (BlockRV b : s.get_child_blocks(loop)) {
    const std::string name = s.name_of(b);
    if (name.rfind("conv", 0) == 0 && name.rfind("conv_init", 0) != 0) return b;
  }
  INGOT_ICHECK(false, "direct conv rule: no update block under loop {}", s.loop_var(loop).name());
  return BlockRV{};
}

// The loop that the update block's iter var at `position` is bound to (by position: partition
// gives each copy of the block fresh iter vars and loops).
LoopRV loop_of_iter(Schedule& s, BlockRV update, size_t position) {
  auto info = find_block(s.func().body, s.name_of(update), nullptr);
  const VarNode* bound = info->br->iter_values.at(position).as<VarNode>();
  for (LoopRV l : s.get_loops(update))
    if (s.loop_var(l).node() == bound) return l;
  INGOT_ICHECK(false, "direct conv rule: iter {} of block {} is not bound to a loop", position,
               s.name_of(update));
  return LoopRV{};
}

// In one row part (`part`, whose row terms are decided or left as a test): every kernel column
// its own loop over the output columns it reads inside the input, the others removed.
void partition_columns(Schedule& s, LoopRV part, const ConvGuard& g, size_t kw_iter,
                       size_t j_iter) {
  if (g.col_terms.empty()) return;
  BlockRV upd = update_under(s, part);
  std::vector<LoopRV> taps;
  if (g.kw.defined()) {
    LoopRV kw = loop_of_iter(s, upd, kw_iter);
    std::vector<int64_t> cuts;
    for (int64_t t = 1; t < g.kernel_cols; ++t) cuts.push_back(t);
    taps = s.partition(kw, cuts);
  }
  for (int64_t t = 0; t < g.kernel_cols; ++t) {
    auto [first, end] = g.columns_inside(t);
    if (first >= end) continue;  // (its guard false all over: the partition removed it)
    if (first == 0 && end == g.cols) continue;
    BlockRV u = update_under(s, taps.empty() ? part : taps[size_t(t)]);
    LoopRV j = loop_of_iter(s, u, j_iter);
    std::vector<int64_t> cuts;
    if (first > 0) cuts.push_back(first);
    if (end < g.cols) cuts.push_back(end);
    s.partition(j, cuts);
  }
}

// A border row's kernel-row loop cut to the rows [first, end) inside the input (the others
// removed, their guard false).
void cut_kernel_rows(Schedule& s, LoopRV part, const ConvGuard& g, size_t kh_iter,
                     std::pair<int64_t, int64_t> taps) {
  if (!g.kh.defined()) return;
  std::vector<int64_t> cuts;
  if (taps.first > 0) cuts.push_back(taps.first);
  if (taps.second < g.kernel_rows) cuts.push_back(taps.second);
  if (cuts.empty()) return;
  BlockRV upd = update_under(s, part);
  s.partition(loop_of_iter(s, upd, kh_iter), cuts);
}

}  // namespace

bool is_direct_conv(const PrimFunc& f) {
  return match(f).has_value();
}

void schedule_direct_conv(Schedule& s, const std::optional<CpuVectorIsa>& isa) {
  std::optional<DirectConv> d = match(s.func());
  INGOT_ICHECK(d.has_value(), "direct conv rule: no conv block in {}", s.func().name);
  // The kernel's other blocks: fusion's intermediates inlined, the epilogue pass found.
  auto [others, epilogue] = product_kernel_blocks(s, "conv");
  BlockRV c = s.get_block("conv");
  std::vector<LoopRV> l = s.get_loops(c);  // [n,] [oh,] i, j, k
  const size_t m = l.size();
  LoopRV i = l[m - 3], j = l[m - 2], k = l[m - 1];
  std::optional<LoopRV> oh;
  if (d->oh >= 0) oh = l[size_t(d->oh)];
  std::vector<LoopRV> batch;
  if (d->n >= 0) batch.push_back(l[size_t(d->n)]);
  // 1. k as (input channel, kernel row, kernel column); a kernel dim of one tap has no loop.
  int64_t window = 1;
  for (int64_t t : d->taps) window *= t;
  const int64_t kernel_rows = d->rank == 2 ? d->taps[0] : 1, kernel_cols = d->taps.back();
  LoopRV kc = k;
  std::optional<LoopRV> kh, kw;
  if (window > 1) {
    std::vector<LoopRV> ks = s.split_block_iter(c, k, window);
    kc = ks[0];
    if (kernel_rows > 1 && kernel_cols > 1) {
      std::vector<LoopRV> hw = s.split_block_iter(c, ks[1], kernel_cols);
      kh = hw[0], kw = hw[1];
    } else if (kernel_rows > 1) {
      kh = ks[1];
    } else {
      kw = ks[1];
    }
  }
  // 2. Row order: [n,] i, oh | init | c, kh, kw | j; the epilogue after each row.
  std::vector<LoopRV> order = {i};
  if (oh) order.push_back(*oh);
  order.push_back(kc);
  if (kh) order.push_back(*kh);
  if (kw) order.push_back(*kw);
  order.push_back(j);
  s.reorder(order);
  s.decompose_reduction(c, kc);
  LoopRV row = oh ? *oh : i;
  if (!epilogue.empty()) s.reverse_compute_at(s.get_block(epilogue), row);
  // 3. The guard (the update's iter vars: [n,] [oh,] i, j, c, [kh,] [kw]).
  auto info = find_block(s.func().body, "conv", nullptr);
  const Block* b = info->block;
  const size_t iters = b->iter_vars.size();
  const size_t j_iter = m - 2, kw_iter = iters - 1, kh_iter = kw ? iters - 2 : iters - 1;
  const auto* st = b->body.as<BufferStore>();
  const auto* sel = st ? st->value.as<Select>() : nullptr;
  if (sel != nullptr) {
    auto extent = [&](std::optional<LoopRV> loop) {
      return loop ? loop_extent_of(s, *loop) : int64_t(1);
    };
    const ConvGuard g = conv_guard(sel->condition, oh ? b->iter_vars[size_t(d->oh)].var : Var(),
                                   extent(oh), b->iter_vars[j_iter].var, loop_extent_of(s, j),
                                   kh ? b->iter_vars[kh_iter].var : Var(), kernel_rows,
                                   kw ? b->iter_vars[kw_iter].var : Var(), kernel_cols);
    // Rows: the interior rows and each border row (runs of them past kMaxBorderRows), or (a
    // choice; the c target's default, for code size) every row one loop whose row test the
    // loop pass hoist_guards lifts to each kernel row.
    const bool partition_rows =
        !g.row_terms.empty() && s.value(sample_choice(s, {0, 1}, isa ? 1 : 0)) == 1;
    std::vector<Run> rows = {{0, g.rows, true}};
    if (partition_rows)
      rows = runs(
          g.rows, [&](int64_t r) { return g.row_inside(r); },
          /*merge_border=*/!border_rows_one_by_one(g));
    std::vector<LoopRV> row_parts = {row};
    if (oh && rows.size() > 1) row_parts = s.partition(*oh, cuts_of(rows));
    for (size_t p = 0; p < rows.size(); ++p) {
      if (!rows[p].interior && rows[p].b - rows[p].a == 1) {
        std::pair<int64_t, int64_t> taps = g.taps(rows[p].a);
        if (taps.first >= taps.second) continue;  // the row is its bias (the update removed)
        cut_kernel_rows(s, row_parts[p], g, kh_iter, taps);
      }
      partition_columns(s, row_parts[p], g, kw_iter, j_iter);
    }
  }
  // 4. On a CPU: the batch and output channels in parallel.
  if (isa) {
    batch.push_back(i);
    parallelize_outer(s, batch, int(batch.size()), int(batch.size()));
  }
}

}  // namespace ingot::schedule

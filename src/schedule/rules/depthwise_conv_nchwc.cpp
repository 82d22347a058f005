// The depthwise convolution on channel-blocked tensors: its block-form compute with the padding
// as a guard, and its default schedule, which partitions the guard away (see the header).
#include "schedule/rules/depthwise_conv_nchwc.h"

#include <algorithm>
#include <optional>

#include "schedule/intrin/x86_fma.h"
#include "schedule/ir_utils.h"
#include "schedule/rules/choice.h"
#include "schedule/rules/conv_guard.h"
#include "schedule/rules/conv_weight_layout.h"
#include "schedule/rules/fma_strip.h"
#include "support/error.h"
#include "tir/analysis.h"
#include "tir/arith/analyzer.h"
#include "tir/op.h"
#include "tir/printer.h"
#include "tir/region_analysis.h"

namespace ingot::schedule {

using namespace tir;

namespace {

int64_t extent_of(const IterVar& iv) {
  int64_t e = 0;
  INGOT_ICHECK(is_const_int(iv.extent, &e), "depthwise rule: extent {} is not constant",
               to_string(iv.extent));
  return e;
}

// The conv guard with the channel block's lanes.
struct Guard : ConvGuard {
  int64_t blk = 0;
  Guard(ConvGuard g) : ConvGuard(std::move(g)) {}  // NOLINT(google-explicit-constructor)
};

Guard guard_of(const Block* b) {
  const auto* st = b->body.as<BufferStore>();
  const auto* sel = st ? st->value.as<Select>() : nullptr;
  const std::vector<IterVar>& v = b->iter_vars;  // n, b, oh, ow, l, kh, kw
  INGOT_ICHECK(st != nullptr && b->iter_vars.size() == 7,
               "depthwise rule: block {} is not the depthwise conv", b->name_hint);
  if (sel == nullptr) {  // an 8-bit one on its padded input: every position inside
    Guard g(ConvGuard{v[2].var,
                      v[3].var,
                      v[5].var,
                      v[6].var,
                      extent_of(v[2]),
                      extent_of(v[3]),
                      extent_of(v[5]),
                      extent_of(v[6]),
                      {},
                      {}});
    g.blk = extent_of(v[4]);
    return g;
  }
  Guard g = conv_guard(sel->condition, v[2].var, extent_of(v[2]), v[3].var, extent_of(v[3]),
                       v[5].var, extent_of(v[5]), v[6].var, extent_of(v[6]));
  g.blk = extent_of(v[4]);
  return g;
}

// Register-tile columns for `vecs` vectors per pixel: enough independent accumulators to cover
// the FMA latency (8 on two 4-cycle FMA pipes), within the register file (32 vector registers
// with 512-bit vectors, else 16) next to the weight and input vectors.
int tile_width(const CpuVectorIsa& isa, int64_t vecs) {
  int64_t accumulators = isa.vector_bits >= 512 ? 12 : 8;
  return int(std::max<int64_t>(1, accumulators / vecs));
}

// The kernel-row loop of the update block under `loop` cut to the rows [first, end) of a border
// output row (the others are removed, their guard false).
void cut_kernel_rows(Schedule& s, LoopRV loop, const Guard& g, std::pair<int64_t, int64_t> taps) {
  BlockRV upd = s.get_child_blocks(loop).back();
  std::vector<LoopRV> l = s.get_loops(upd);
  LoopRV kh = l[l.size() - 2];
  std::vector<int64_t> cuts;
  if (taps.first > 0) cuts.push_back(taps.first);
  if (taps.second < g.kernel_rows) cuts.push_back(taps.second);
  if (!cuts.empty()) s.partition(kh, cuts);
}

// `n` interior columns of a row part (n a multiple of mr): mr-column register tiles on the FMA
// micro-kernel.
void tile_columns(Schedule& s, LoopRV cols, int64_t n, int mr, const Guard& g,
                  std::optional<std::pair<int64_t, int64_t>> taps, const CpuVectorIsa& isa) {
  BlockRV conv = s.get_child_blocks(cols)[0];
  LoopRV tile = n > mr ? s.split(cols, {std::nullopt, int64_t(mr)})[1] : cols;
  BlockRV init = s.decompose_reduction(conv, tile);
  s.vectorize(s.get_loops(init).back());
  int64_t kernel_rows = g.kernel_rows;
  if (taps) {
    cut_kernel_rows(s, tile, g, *taps);
    kernel_rows = taps->second - taps->first;
  }
  // The update block: Y = Y + X * W in its iter vars (the guard folded by the partitions).
  const Block* b =
      find_block(s.func().body, s.name_of(s.get_child_blocks(tile).back()), nullptr)->block;
  std::optional<FmaUpdate> u = fma_update(b);
  INGOT_ICHECK(u.has_value(), "depthwise rule: interior block {} still guarded: {}", b->name_hint,
               to_string(b->body));
  std::vector<Var> vars = {b->iter_vars[3].var, b->iter_vars[4].var, b->iter_vars[5].var,
                           b->iter_vars[6].var};
  FmaTileSpec spec;
  spec.lanes = isa.tile_lanes(), spec.arch = isa.arch, spec.mr = mr, spec.nr = int(g.blk);
  spec.k = {kernel_rows, g.kernel_cols};
  if (u->c->buffer->dtype == DataType::i32())  // 8-bit products into int32
    spec.int8_products = true, spec.a_signed = u->a->buffer->dtype.is_int();
  spec.a = fma_operand(u->a->indices, vars);
  spec.b = fma_operand(u->b->indices, vars);
  spec.c = fma_operand(u->c->indices, vars);
  tensorize_fma_strip(s, tile, spec, n);
}

// Interior columns [a, b) of a row part: the widest tile, or a narrower one (down to 3/4 of the
// width: fewer accumulators leave the FMA latency exposed) that divides the run; else the
// columns past the last whole tile are a loop of their own with a narrower tile (no masked
// tail, whose fallback code LLVM would compile too). The width is a tunable choice (half the
// widest up to the widest; the above by default).
void tile_columns_run(Schedule& s, LoopRV cols, const Guard& g, const Run& run,
                      std::optional<std::pair<int64_t, int64_t>> taps, const CpuVectorIsa& isa) {
  int lanes = isa.tile_lanes();
  int64_t n = run.b - run.a;
  int widest = int(std::min<int64_t>(tile_width(isa, (g.blk + lanes - 1) / lanes), n));
  int mr = widest;
  for (int c = mr; c * 4 >= mr * 3 && n % mr != 0; --c)
    if (n % c == 0) mr = c;
  std::vector<int64_t> widths;
  for (int w = std::max(1, widest / 2); w <= widest; ++w) widths.push_back(w);
  mr = int(s.value(sample_choice(s, widths, mr)));
  int64_t whole = n / mr * mr;
  if (whole == n) return tile_columns(s, cols, n, mr, g, taps, isa);
  std::vector<LoopRV> parts = s.partition(cols, {whole});
  tile_columns(s, parts[0], whole, mr, g, taps, isa);
  tile_columns(s, parts[1], n - whole, int(n - whole), g, taps, isa);
}

// Columns whose guard is not decided by the partitions (border columns; every column of a
// border row, whose kernel rows outside the input stay masked at run time): strips of up to
// `strip` columns whose columns and kernel columns are unrolled (the column terms of the guard
// fold at compile time) inside one vectorized loop over the channel block, kernel rows
// outermost.
void unrolled_columns_run(Schedule& s, LoopRV cols, int64_t n, int64_t strip,
                          std::optional<std::pair<int64_t, int64_t>> taps, const Guard& g) {
  BlockRV conv = s.get_child_blocks(cols)[0];
  LoopRV inner = n > strip ? s.split(cols, {std::nullopt, strip})[1] : cols;
  BlockRV init = s.decompose_reduction(conv, inner);
  s.vectorize(s.get_loops(init).back());
  if (taps) cut_kernel_rows(s, inner, g, *taps);
  BlockRV upd = s.get_child_blocks(inner).back();
  std::vector<LoopRV> l = s.get_loops(upd);  // ..., ow, l, kh, kw
  size_t k = l.size();
  LoopRV ow = l[k - 4], lanes = l[k - 3], kh = l[k - 2], kw = l[k - 1];
  s.reorder({kh, lanes, ow, kw});
  s.unroll(ow);
  s.unroll(kw);
  s.vectorize(lanes);
}

}  // namespace

bool is_depthwise_conv_nchwc(const PrimFunc& f) {
  std::optional<BlockInfo> found = find_block(f.body, "conv", nullptr);
  if (!found || found->block->iter_vars.size() != 7) return false;
  auto* store = found->block->body.as<BufferStore>();
  if (const BufferLoad* x = int8_conv_input(found->block)) {
    // The 8-bit form: acc = acc + int32(X[..]) * int32(W[..] (guarded past C)), no padding
    // guard; X's lane is the output's (each lane its own channel).
    return x->indices.back().same_as(found->block->iter_vars[4].var);
  }
  auto* sel = store ? store->value.as<Select>() : nullptr;
  auto* keep = sel ? sel->false_value.as<BufferLoad>() : nullptr;
  auto* add = sel ? sel->true_value.as<Add>() : nullptr;
  return keep != nullptr && keep->buffer.get() == store->buffer.get() && add != nullptr &&
         add->b.as<Mul>() != nullptr && store->buffer->dtype == DataType::f32();
}

void schedule_depthwise_conv_nchwc(Schedule& s, const CpuVectorIsa& isa) {
  // 0. The weights [C, 1, KH, KW] as [ceil(C / BLK), 1, KH, KW, BLK] (a bias past C padded).
  lay_out_conv_weights(s, "conv");
  BlockRV conv = s.get_block("conv");
  // 0b. Sums in a scratch parameter (an 8-bit conv's int32 ones, a bfloat16 output's float32
  //     ones): the kernel's own local memory, which compact_buffers shrinks to one output row's
  //     (the epilogue runs per row, step 3), instead of a tensor of the output's shape written
  //     and read back (MobileNetV2's 8-bit 3x3 convs over 144 channels at 56x56: 2 MB each).
  if (const PrimFunc f = s.func(); sums_in_scratch(f, find_block(f.body, "conv", nullptr)->block))
    s.set_scope(conv, 0, "local");
  std::vector<LoopRV> l = s.get_loops(conv);  // n, cb, oh, ow, l, kh, kw
  INGOT_ICHECK(l.size() == 7, "depthwise rule: block conv has {} loops", l.size());
  Guard g = guard_of(find_block(s.func().body, "conv", nullptr)->block);
  // 1. Rows: the interior rows and each border row (or, past kMaxBorderRows of them or when the
  //    interior rows are fewer than twice as many, each run of border rows) as branches. A
  //    border row alone gets its kernel rows cut to those inside the input, so its interior
  //    columns run the register tiles too; a run keeps the row test (a select per kernel row) in
  //    code that is smaller to compile (on a 7x7 map with a 7x7 kernel, every row is a border).
  std::vector<Run> rows = runs(
      g.rows, [&](int64_t r) { return g.row_inside(r); },
      /*merge_border=*/!border_rows_one_by_one(g));
  std::vector<LoopRV> row_parts =
      rows.size() == 1 ? std::vector<LoopRV>{l[3]} : s.partition(l[2], cuts_of(rows), true);
  std::vector<Run> cols = runs(
      g.cols, [&](int64_t c) { return g.col_inside(c); }, /*merge_border=*/true);
  int lanes = isa.tile_lanes();
  int64_t strip = tile_width(isa, (g.blk + lanes - 1) / lanes);
  for (size_t k = 0; k < rows.size(); ++k) {
    // 2. Columns: left border, interior, right border as consecutive loops.
    std::vector<LoopRV> col_parts = cols.size() == 1
                                        ? std::vector<LoopRV>{row_parts[k]}
                                        : s.partition(row_parts[k], cuts_of(cols), false);
    std::optional<std::pair<int64_t, int64_t>> taps;
    if (!rows[k].interior && rows[k].b - rows[k].a == 1) {
      taps = g.taps(rows[k].a);
      // No kernel row reads inside the input: the row is its bias (left to the guard).
      if (taps->first >= taps->second) continue;
    }
    for (size_t c = 0; c < cols.size(); ++c) {
      if ((rows[k].interior || taps) && cols[c].interior)
        tile_columns_run(s, col_parts[c], g, cols[c], taps, isa);
      else
        unrolled_columns_run(s, col_parts[c], cols[c].b - cols[c].a, strip, taps, g);
    }
  }
  // 3. The epilogue per output row, then the rows of every channel block in parallel.
  if (find_block(s.func().body, "epilogue", nullptr)) {
    schedule_tile_epilogue(s, s.get_block("epilogue"), l[2]);
  }
  s.parallel(s.fuse({l[0], l[1], l[2]}));
}

}  // namespace ingot::schedule

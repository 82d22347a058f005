// Default matmul schedule rule (see matmul.h).
#include "schedule/rules/matmul.h"

#include <algorithm>

#include "schedule/intrin/x86_fma.h"
#include "schedule/ir_utils.h"
#include "schedule/rules/cache_budget.h"
#include "schedule/rules/choice.h"
#include "schedule/rules/dense_product.h"
#include "schedule/rules/fma_strip.h"
#include "schedule/rules/injective.h"
#include "schedule/rules/nest_utils.h"
#include "support/error.h"
#include "tir/analysis.h"
#include "tir/op.h"
#include "tir/region_analysis.h"
#include "tir/substitute.h"

namespace ingot::schedule {

using namespace tir;

namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// The in-place epilogue pass after block `name` among `others` (see ProductKernelBlocks), or "".
std::string product_epilogue(const Schedule& s, const std::string& name,
                             const std::vector<std::string>& others) {
  std::optional<BlockInfo> product = find_block(s.func().body, name, nullptr);
  if (!product || product->block->writes.size() != 1) return "";
  const Buffer& c = product->block->writes[0].buffer;
  std::string found;
  for (const std::string& other : others) {
    std::optional<BlockInfo> b = find_block(s.func().body, other, nullptr);
    bool reads_c = false;
    for (const BufferRegion& r : b->block->reads) reads_c = reads_c || r.buffer.same_as(c);
    if (!reads_c) continue;
    if (!found.empty()) return "";  // two readers of C: neither is placed
    const auto* store = b->block->body.as<BufferStore>();
    int64_t one = 0;
    if (store == nullptr || store->buffer.get() != c.get() ||
        !is_const_int(b->br->predicate, &one) || one != 1 || b->block->writes.size() != 1)
      return "";
    if (!reads_own_buffer_at_store_index(*store)) return "";
    found = other;
  }
  return found;
}

}  // namespace

ProductKernelBlocks product_kernel_blocks(Schedule& s, const std::string& product) {
  inline_intermediates(s);
  ProductKernelBlocks k;
  for (const std::string& name : top_level_block_names(s))
    if (name != product) k.others.push_back(name);
  k.epilogue = product_epilogue(s, product, k.others);
  return k;
}

int matmul_row_tile(const MatmulConfig& cfg) {
  return default_fma_tile(cfg.isa(), int(cfg.kc)).mr;
}

int64_t matmul_k_block(int64_t K, int64_t kc) {
  if (K <= kc + kc / 4) return K;
  for (int64_t n = (K + kc - 1) / kc; n <= (K + kc - 1) / kc + 2; ++n)
    if (K % n == 0) return K / n;
  return kc;  // the last slice is masked
}

int matmul_panel_width(const MatmulConfig& cfg) {
  return default_fma_tile(cfg.isa(), int(cfg.kc)).nr;
}

int dense_panel_width(const MatmulConfig& cfg, int64_t n) {
  const int nr = cfg.wide_panel_vectors * cfg.isa().tile_lanes();
  if (nr > 0 && n % nr == 0) return nr;
  return matmul_panel_width(cfg);
}

MatmulConfig dense_matmul_config(const CpuVectorIsa& isa) {
  MatmulConfig cfg;
  cfg.vector_bits = isa.vector_bits;
  cfg.arch = isa.arch;
  if (isa.arch == CpuVectorIsa::kX86 && isa.vector_bits == 256) {
    cfg.kc = 512;
    cfg.row_block_bytes = kCoreCacheBudgetBytes;
    cfg.wide_panel_vectors = 3;
  }
  return cfg;
}

std::vector<int64_t> matmul_panel_widths(const MatmulConfig& cfg) {
  const CpuVectorIsa isa = cfg.isa();
  if (isa.arch != CpuVectorIsa::kX86) return {matmul_panel_width(cfg)};
  std::vector<int64_t> widths;
  for (int vecs = 1; vecs <= 4; ++vecs) {
    const int nr = vecs * isa.tile_lanes();
    if (fma_max_tile_rows(isa, nr) >= 4) widths.push_back(nr);
  }
  return widths;
}

int matmul_row_tile(const MatmulConfig& cfg, int nr) {
  return std::min(matmul_row_tile(cfg), fma_max_tile_rows(cfg.isa(), nr));
}

std::vector<int64_t> matmul_row_tiles(const MatmulConfig& cfg, int nr) {
  const int max_rows = fma_register_tile_rows(cfg.isa(), nr);
  std::vector<int64_t> heights;
  for (int r = std::max(1, fma_max_tile_rows(cfg.isa(), nr) / 2); r <= max_rows; ++r)
    heights.push_back(r);
  return heights;
}

std::optional<LoopRV> schedule_packed_matmul(Schedule& s, const std::string& block,
                                             const MatmulConfig& cfg, const std::string& a_pack,
                                             const std::string& b_pack, int64_t product_rows) {
  BlockRV c = s.get_block(block);
  std::vector<LoopRV> l = s.get_loops(c);  // (b,) i, jb, jr, k  or  (b,) ib, jb, ir, jr, k
  std::optional<BlockInfo> pack = find_block(s.func().body, a_pack, nullptr);
  bool packed_a = pack.has_value();
  bool batched = l.size() == (packed_a ? 6u : 5u);
  size_t o = batched ? 1 : 0;
  auto extent = [&](LoopRV r) {
    int64_t e = 0;
    is_const_int(find_loop(s.func().body, s.loop_var(r).node())->node->extent, &e);
    return e;
  };
  LoopRV rows = l[o], jb = l[o + 1], jr = l[o + 2], kl = l[o + 3];
  if (packed_a) jr = l[o + 3], kl = l[o + 4];
  int64_t NB = extent(jb), K = extent(kl);
  // 1. Tile sizes: the micro-kernel's MR x NR, blocks no larger than the problem. The K slice is
  //    a tunable choice (the default: matmul_k_block of the configured kc).
  std::vector<int64_t> slices;
  for (int64_t c : {64, 128, 192, 256, 384, 512}) slices.push_back(matmul_k_block(K, c));
  // With A read in place (a matrix-vector product: M at most one tile's rows, B read once,
  // from memory), all of K, the default there: each B panel one contiguous stream instead of
  // K / kc pieces a panel apart (on Sapphire Rapids ResNet-50's 2048 -> 1000 Gemm 0.350 ->
  // 0.285 ms in the model, MobileNetV2's 1280 -> 1000 0.115 -> 0.109; docs/perf.md, session 50).
  const bool whole_k = !packed_a && K > slices.back();
  if (whole_k) slices.push_back(K);
  ExprRV kc = sample_choice(s, slices, whole_k ? K : matmul_k_block(K, cfg.kc));
  // The panel width is the block's (the dense rule samples it, matmul_panel_widths).
  FmaTileShape t = default_fma_tile(cfg.isa(), int(s.value(kc)));
  t.nr = int(extent(jr));
  INGOT_ICHECK(t.nr % cfg.isa().tile_lanes() == 0,
               "matmul rule: block {} has {}-column panels, not whole {} vectors", block, t.nr,
               cfg.isa().kernel_prefix());
  // All rows in one block (M <= mc): the threads split the columns instead (a batched matmul,
  // its batches), and every row tile reuses each B micro-panel while it is in L1. Valid for any
  // M with packed A, so a tunable choice there. M is the product's rows, not its padded panels':
  // BERT's M = 128 is 22 panels of 6 rows with AVX2, and as row tasks (each streaming all of B)
  // its FFN products ran 5.4-6.2 ms in the model on a Zen 3, 4.2-4.5 ms as column tasks (B read
  // once from memory; the model 0.914 of its time; docs/perf.md, session 39).
  int64_t batches = batched ? extent(l[0]) : 0;
  bool all_rows = false;
  if (packed_a && cfg.column_parallel) {
    const int64_t m = product_rows > 0 ? product_rows : extent(rows) * extent(l[o + 2]);
    bool by_default = m <= cfg.mc && (!batched || batches >= 4);
    all_rows = s.value(sample_choice(s, {0, 1}, by_default ? 1 : 0)) != 0;
  }
  if (all_rows) {
    // 2. (b,) jb | ko | ib | ir, jr, ki: A (and a run-time B) packed once per batch, or up
    //    front; C's column panel stays in cache across the K slices.
    t.mr = int(extent(l[o + 2]));
    auto kk = s.split(kl, {std::nullopt, kc});
    s.reorder({jb, kk[0], rows, l[o + 2], jr, kk[1]});
    s.vectorize(s.get_loops(s.decompose_reduction(c, kk[0])).back());
    FmaTileSpec spec = gemm_tile_spec(t);
    spec.a.dims = {{0, 0, 0}, {0, 0, 1}, {1, 0, 0}};  // Ap[0, k, i]
    register_tensor_intrin(make_fma_tile_intrin(spec));
    // A column tail (N not a multiple of NR) cuts tiles; A and B are packed in whole panels.
    s.tensorize(s.blockize(l[o + 2]), fma_tile_name(spec), PartialTile::kScratch);
    LoopRV par = batched ? l[0] : jb;
    for (const std::string& pack : {a_pack, b_pack}) {
      if (!find_block(s.func().body, pack, nullptr).has_value()) continue;
      BlockRV pb = s.get_block(pack);
      if (batched) {
        s.compute_at(pb, par);
      } else if (cfg.parallel) {
        s.parallel(s.get_loops(pb)[0]);
      }
      s.vectorize(s.get_loops(pb).back());
    }
    if (cfg.parallel) s.parallel(par);
    return std::nullopt;  // column tasks (see the header)
  }
  // Column panels per block of B (tunable; default: the largest divisor of the panels up to
  // nc / NR, so no block is partial: 24-column panels of N = 768 are 32, and blocks of 10 left
  // a masked block of 2 whose fused GELU epilogue ran ConvNeXt's 784x192x768 product 1.92 ms
  // from the model state against 1.57 in blocks of 8 or 2 (docs/perf.md, session 40)).
  int64_t panels_per_block = std::max<int64_t>(1, std::min(cfg.nc / t.nr, NB));
  while (NB % panels_per_block != 0) --panels_per_block;
  ExprRV ncb = sample_choice(s, powers_of_two_upto(NB, NB), panels_per_block);
  auto j = s.split(jb, {std::nullopt, ncb});
  auto k = s.split(kl, {std::nullopt, kc});
  FmaTileSpec spec;
  LoopRV outer, tile_loop;
  // Partial tiles (M or N tails) run the micro-kernel on a scratch tile when every row the tile
  // reads exists: packed A panels are padded, B is always packed in whole NR panels.
  PartialTile partial = PartialTile::kScratch;
  if (packed_a) {
    // 2a. Row panels packed per (row block, K slice): (b,) io | ko | jo | jn | im | ir, jr, ki;
    //     the C row block stays in L2 across the K slices.
    t.mr = int(extent(l[o + 2]));
    // Row panels per parallel task (tunable; default: at least four row blocks when M allows,
    // so the threads get balanced work; with cfg.row_block_bytes, no more than keep the task's
    // C rows and A slice within it, so C stays in L2 across the K slices: MatMul 1024^3 on a
    // Zen 3, 21 panels (516 KB of C) ran at 75% of the FMA peak, 2-8 panels at 90-92%).
    int64_t MB = extent(rows);
    int64_t panels = std::max<int64_t>(1, std::min(cfg.mc / t.mr, MB / 4));
    if (cfg.row_block_bytes > 0) {
      const int64_t row_bytes = 4 * t.mr * (NB * t.nr + s.value(kc));
      panels = std::clamp<int64_t>(cfg.row_block_bytes / row_bytes, 1, panels);
    }
    ExprRV mcb = sample_choice(s, powers_of_two_upto(MB, MB), panels);
    auto i = s.split(rows, {std::nullopt, mcb});
    s.reorder({i[0], k[0], j[0], j[1], i[1], l[o + 2], jr, k[1]});
    outer = i[0], tile_loop = l[o + 2];
    spec = gemm_tile_spec(t);
    spec.a.dims = {{0, 0, 0}, {0, 0, 1}, {1, 0, 0}};  // Ap[0, k, i]
  } else {
    // 2b. (b,) io | jo | ko | jn | im | ii, jr, ki. The register tile's rows are tunable (A is
    //     read in place, so any height the registers hold works): half the limit up to it.
    int64_t M = extent(rows);
    t.mr = int(s.value(sample_choice(s, matmul_row_tiles(cfg, t.nr), matmul_row_tile(cfg, t.nr))));
    if (M < t.mr) t.mr = int(M);
    if (M % t.mr != 0) partial = PartialTile::kLoops;  // A's rows past M do not exist
    // Row strips per parallel task (tunable; default mc / MR).
    int64_t mr = t.mr, mc = std::min(cfg.mc, ceil_div(M, mr) * mr);
    mc = std::max(mr, mc / mr * mr);
    int64_t strips = ceil_div(M, mr);
    ExprRV per_task = sample_choice(s, powers_of_two_upto(strips, strips), mc / mr);
    auto i = s.split(rows, {std::nullopt, per_task, int64_t(mr)});
    s.reorder({i[0], j[0], k[0], j[1], i[1], i[2], jr, k[1]});
    outer = i[0], tile_loop = i[2];
    spec = gemm_tile_spec(t);
    // The tile may prefetch B's stream ahead (tunable; default off: with whole-K panels a
    // prefetch 2 KB ahead took ResNet-50's Gemm from 0.288 to 0.314 ms on Sapphire Rapids).
    spec.prefetch = int(s.value(sample_choice(s, {0, 1024, 2048, 4096}, 0)));
  }
  // 3. C starts from its init (zero or the bias row) before the K loop; the update accumulates.
  BlockRV init = s.decompose_reduction(c, k[0]);
  std::vector<LoopRV> il = s.get_loops(init);
  s.vectorize(il.back());
  // 4. The MR x NR x KC tile becomes one block, computed by the micro-kernel.
  register_tensor_intrin(make_fma_tile_intrin(spec));
  BlockRV tile = s.blockize(tile_loop);
  s.tensorize(tile, fma_tile_name(spec), partial);
  // 5. A's MR-row panels are packed per (row block, K slice), just before the tiles that read
  //    them, while they are in cache.
  if (packed_a) s.compute_at(s.get_block(a_pack), k[0]);
  // 6. Row blocks in parallel (fused with the batch); a single row block (a matrix-vector
  //    product) runs its column blocks in parallel instead.
  LoopRV par = batched ? s.fuse({l[0], outer}) : outer;
  bool column_tasks = false;
  if (!batched && extent(outer) == 1 && extent(j[0]) > 1) par = j[0], column_tasks = true;
  if (cfg.parallel) s.parallel(par);
  // 7. A run-time B is packed per batch inside the parallel loop (each row block of a batch
  //    packs it again: B is small where it is a run-time value, e.g. attention); unbatched, once
  //    up front, its panels in parallel.
  if (find_block(s.func().body, b_pack, nullptr).has_value()) {
    BlockRV bpack = s.get_block(b_pack);
    if (batched) {
      s.compute_at(bpack, par);
    } else if (cfg.parallel) {
      s.parallel(s.get_loops(bpack)[0]);
    }
  }
  if (column_tasks || extent(par) == 1) return std::nullopt;  // (one task: the pass is parallel)
  return par;
}

bool is_dense_matmul(const PrimFunc& f) {
  return match_dense(f, false).has_value();
}

void schedule_dense_matmul(Schedule& s, const MatmulConfig& cfg) {
  std::optional<DenseProduct> d = match_dense(s.func(), false);
  INGOT_ICHECK(d.has_value(), "dense matmul rule: no dense product block in {}", s.func().name);
  // The kernel's other blocks: fusion's intermediates inlined, the epilogue pass found.
  auto [others, epilogue] = product_kernel_blocks(s);
  BlockRV c = s.get_block("matmul");
  std::vector<LoopRV> l = s.get_loops(c);  // [batch loops,] i, j, k
  if (l.size() > 4) {  // several batch dims: one batch loop (their indices outer offsets)
    LoopRV b = s.fuse(std::vector<LoopRV>(l.begin(), l.end() - 3));
    l = {b, l[l.size() - 3], l[l.size() - 2], l.back()};
  }
  const size_t o = d->batched ? 1 : 0;
  auto extent = [&](LoopRV r) {
    int64_t e = 0;
    is_const_int(find_loop(s.func().body, s.loop_var(r).node())->node->extent, &e);
    return e;
  };
  const int64_t M = extent(l[o]);
  // The register tile's columns (B's panel width) and, with packed A, rows (A's panel height):
  // tunable choices (matmul_panel_widths, matmul_row_tiles), the ISA's default tile by default.
  const int nr = int(s.value(
      sample_choice(s, matmul_panel_widths(cfg), dense_panel_width(cfg, extent(l[o + 1])))));
  int mr = matmul_row_tile(cfg);
  // 1. B in NR-wide column panels, Bp[[b,] ceil(N / NR), K, NR] (zero padded): the layout the
  //    micro-kernel streams. A constant B is re-laid out at compile time (the bias row padded to
  //    whole panels too); a run-time B is packed in the kernel, into a global scratch.
  auto j = s.split_block_iter(c, l[o + 1], nr);
  std::string b_pack = "B_pack";
  std::string b = d->b;
  if (!d->b_constant) {
    b_pack = s.name_of(s.cache_read(c, read_index(s, b), "global"));
    b += "_global";
  }
  panel_layout(s, c, b, rank_of(s, b), d->b_cols, d->b_depth, nr);
  if (!d->bias.empty()) s.transform_layout(c, read_index(s, d->bias), {d->bias_axis, nr}, {});
  // 2. With more than one register tile of rows (or A read transposed), A packed in MR-row
  //    panels, Ap[[b,] ceil(M / MR), K, MR] (zero padded), so the micro-kernel's broadcasts read
  //    one stream; the rule packs each panel block right before the tiles that read it.
  std::string a_pack = "A_pack";
  std::vector<LoopRV> order;
  if (d->batched) order.push_back(l[0]);
  if (M > mr || d->a_rows > d->a_depth) {
    mr = int(s.value(sample_choice(s, matmul_row_tiles(cfg, nr), matmul_row_tile(cfg, nr))));
    a_pack = s.name_of(s.cache_read(c, read_index(s, d->a), "global"));
    const std::string a = d->a + "_global";
    panel_layout(s, c, a, rank_of(s, a), d->a_rows, d->a_depth, mr);
    auto i = s.split_block_iter(c, l[o], mr);
    order.insert(order.end(), {i[0], j[0], i[1], j[1], l[o + 2]});
    s.reorder(order);
  }
  std::optional<LoopRV> task = schedule_packed_matmul(s, "matmul", cfg, a_pack, b_pack, M);
  // 3. The epilogue pass runs in each row task right after its rows of the product, while they
  //    are in cache; the other blocks by the injective rule.
  if (task && !epilogue.empty()) {
    schedule_tile_epilogue(s, s.get_block(epilogue), *task);
    others.erase(std::find(others.begin(), others.end(), epilogue));
  }
  for (const std::string& name : others) schedule_injective_block(s, name, cfg.isa());
}

}  // namespace ingot::schedule

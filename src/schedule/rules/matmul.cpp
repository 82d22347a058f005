// Default matmul schedule rule (see matmul.h).
#include "schedule/rules/matmul.h"

#include <algorithm>

#include "schedule/intrin/x86_fma.h"
#include "schedule/ir_utils.h"
#include "schedule/rules/choice.h"
#include "support/error.h"
#include "tir/op.h"
#include "tir/region_analysis.h"
#include "tir/substitute.h"

namespace ingot::schedule {

using namespace tir;

namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

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

void schedule_packed_matmul(Schedule& s, const std::string& block, const MatmulConfig& cfg,
                            const std::string& a_pack, const std::string& b_pack) {
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
  ExprRV kc = sample_choice(s, slices, matmul_k_block(K, cfg.kc));
  FmaTileShape t = default_fma_tile(cfg.isa(), int(s.value(kc)));
  INGOT_ICHECK(extent(jr) == t.nr, "matmul rule: block {} has {}-column panels, the {} tile has {}",
               block, extent(jr), cfg.isa().kernel_prefix(), t.nr);
  // All rows in one block (M <= mc): the threads split the columns instead (a batched matmul,
  // its batches), and every row tile reuses each B micro-panel while it is in L1. Valid for any
  // M with packed A, so a tunable choice there.
  int64_t batches = batched ? extent(l[0]) : 0;
  bool all_rows = false;
  if (packed_a && cfg.column_parallel) {
    bool by_default = extent(rows) * extent(l[o + 2]) <= cfg.mc && (!batched || batches >= 4);
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
    return;
  }
  // Column panels per block of B (tunable; default nc / NR).
  ExprRV ncb = sample_choice(s, powers_of_two_upto(NB, NB),
                             std::max<int64_t>(1, std::min(cfg.nc / t.nr, NB)));
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
    // so the threads get balanced work).
    int64_t MB = extent(rows);
    ExprRV mcb = sample_choice(s, powers_of_two_upto(MB, MB),
                               std::max<int64_t>(1, std::min(cfg.mc / t.mr, MB / 4)));
    auto i = s.split(rows, {std::nullopt, mcb});
    s.reorder({i[0], k[0], j[0], j[1], i[1], l[o + 2], jr, k[1]});
    outer = i[0], tile_loop = l[o + 2];
    spec = gemm_tile_spec(t);
    spec.a.dims = {{0, 0, 0}, {0, 0, 1}, {1, 0, 0}};  // Ap[0, k, i]
  } else {
    // 2b. (b,) io | jo | ko | jn | im | ii, jr, ki. The register tile's rows are tunable (A is
    //     read in place, so any height the registers hold works): half the limit up to it.
    int64_t M = extent(rows);
    int max_rows = fma_max_tile_rows(cfg.isa(), t.nr);
    std::vector<int64_t> heights;
    for (int r = std::max(1, max_rows / 2); r <= max_rows; ++r) heights.push_back(r);
    t.mr = int(s.value(sample_choice(s, heights, t.mr)));
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
  if (!batched && extent(outer) == 1 && extent(j[0]) > 1) par = j[0];
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
}

namespace {

// The dense product block of a kernel: "matmul" at the root over its own loops [batch,] i, j and
// a reduce k (any number of batch loops), C[[b,] i, j] = C[..] + A[[b,] i, k] * B[[b,] k, j], all
// float32, A and B each possibly read transposed (A[[b,] k, i], B[[b,] j, k]), B batched only when
// the block is; the init zero or one bias row (a load indexed by j or by constants only, maybe
// scaled).
struct DenseProduct {
  bool batched = false;
  std::string a, b, bias;  // buffer names ("" bias: none to lay out)
  // Per operand, the dims of its buffer that the block's row (A) or column (B) and the depth k
  // index (any other dim is the batch or a constant 0).
  int a_rows = -1, a_depth = -1, b_cols = -1, b_depth = -1;
  bool b_constant = false;
  int bias_axis = -1;  // the bias dim indexed by j
};

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

std::optional<DenseProduct> match_dense(const PrimFunc& f) {
  int count = 0;
  std::optional<BlockInfo> info = find_block(f.body, "matmul", &count);
  // At the root (the function's body before a schedule wraps it in the root block).
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
        !is_const_int(loop->extent) || loop->kind != ForKind::kSerial)
      return std::nullopt;
  }
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
  auto is_constant = [&](const BufferNode* buf) {
    for (int p : f.constant_params)
      if (f.params.at(size_t(p)).get() == buf) return true;
    return false;
  };
  d.b_constant = is_constant(lb->buffer.get());
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
    if (is_constant(bias->buffer.get()) && d.bias_axis >= 0) d.bias = bias->buffer->name;
  } else if (!is_const_int(iv) && !iv.as<FloatImm>()) {
    return std::nullopt;
  }
  return d;
}

// The read index of the buffer named `name` in block "matmul".
int read_index(const Schedule& s, const std::string& name) {
  const Block* blk = find_block(s.func().body, "matmul", nullptr)->block;
  for (size_t r = 0; r < blk->reads.size(); ++r)
    if (blk->reads[r].buffer->name == name) return int(r);
  INGOT_ICHECK(false, "dense matmul rule: block matmul does not read {}", name);
  return -1;
}

// A matrix operand in panels of `width` along its dim `split` (the rows of A, the columns of
// B), the depth dim `depth` between: [its other dims in order (the batch), panels, depth,
// width]. Its buffer has `rank` dims.
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

}  // namespace

bool is_dense_matmul(const PrimFunc& f) {
  return match_dense(f).has_value();
}

void schedule_dense_matmul(Schedule& s, const MatmulConfig& cfg) {
  std::optional<DenseProduct> d = match_dense(s.func());
  INGOT_ICHECK(d.has_value(), "dense matmul rule: no dense product block in {}", s.func().name);
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
  const int nr = matmul_panel_width(cfg);
  const int mr = matmul_row_tile(cfg);
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
    a_pack = s.name_of(s.cache_read(c, read_index(s, d->a), "global"));
    const std::string a = d->a + "_global";
    panel_layout(s, c, a, rank_of(s, a), d->a_rows, d->a_depth, mr);
    auto i = s.split_block_iter(c, l[o], mr);
    order.insert(order.end(), {i[0], j[0], i[1], j[1], l[o + 2]});
    s.reorder(order);
  }
  schedule_packed_matmul(s, "matmul", cfg, a_pack, b_pack);
}

}  // namespace ingot::schedule

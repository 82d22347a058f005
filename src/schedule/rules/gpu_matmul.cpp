// The GPU matmul rule (see gpu_matmul.h).
#include "schedule/rules/gpu_matmul.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "schedule/ir_utils.h"
#include "schedule/rules/choice.h"
#include "schedule/rules/nest_utils.h"
#include "tir/analysis.h"
#include "tir/arith/analyzer.h"
#include "tir/op.h"
#include "tir/reduction.h"
#include "tir/visitor.h"

namespace ingot::schedule {

using namespace tir;

namespace {

// Powers of two from 1 up to limit (at least 1).
std::vector<int64_t> powers_upto(int64_t limit) {
  std::vector<int64_t> v = {1};
  for (int64_t p = 2; p <= limit; p *= 2) v.push_back(p);
  return v;
}

// The largest candidate <= value (the smallest when none is).
int64_t floor_candidate(const std::vector<int64_t>& candidates, int64_t value) {
  int64_t best = candidates.front();
  for (int64_t c : candidates)
    if (c <= value) best = c;
  return best;
}

// Per-thread extent along a dim: 4 on large dims, 2 on middling ones, 1 on small ones.
int64_t default_per_thread(int64_t extent) {
  return extent >= 64 ? 4 : extent >= 16 ? 2 : 1;
}

// Threads along a dim: enough to cover it with `per_thread` each, at most `limit`.
int64_t default_threads(int64_t extent, int64_t per_thread, const std::vector<int64_t>& cands) {
  int64_t need = (extent + per_thread - 1) / per_thread, t = 1;
  while (t < need) t *= 2;
  return floor_candidate(cands, t);
}

// Thread blocks the default tiles aim for at least: a GPU has tens to over a hundred
// multiprocessors, and one block each is the least that keeps them all busy.
constexpr int64_t kMinBlocks = 64;

// The depth from which a one-row product splits k across rows of threads by default.
constexpr int64_t kGemvMinDepth = 128;

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

struct TileSizes {
  int64_t vi = 1, ty = 1, vj = 1, tx = 1;
};

// The default tile: vi x vj per thread by the dimensions' sizes and threads enough to cover
// them, then smaller per-thread tiles while the grid has fewer than kMinBlocks blocks.
TileSizes default_tiles(int64_t batch, int64_t rows, int64_t cols,
                        const std::vector<int64_t>& ty_cands,
                        const std::vector<int64_t>& tx_cands) {
  TileSizes t{default_per_thread(rows), 1, default_per_thread(cols), 1};
  auto fill = [&] {
    t.ty = default_threads(rows, t.vi, ty_cands);
    t.tx = default_threads(cols, t.vj, tx_cands);
  };
  fill();
  while (batch * ceil_div(rows, t.ty * t.vi) * ceil_div(cols, t.tx * t.vj) < kMinBlocks &&
         (t.vi > 1 || t.vj > 1)) {
    (t.vi >= t.vj ? t.vi : t.vj) /= 2;
    fill();
  }
  return t;
}

// The block's reads of buffers other than the ones it writes and that its update (not only its
// init: a conv's bias) loads, in order.
std::vector<Buffer> operand_buffers(const Schedule& s, const std::string& block) {
  auto info = find_block(s.func().body, block, nullptr);
  std::vector<Buffer> out;
  for (const BufferRegion& r : info->block->reads) {
    bool written = false;
    for (const BufferRegion& w : info->block->writes)
      written = written || w.buffer.same_as(r.buffer);
    const auto* update = info->block->body.as<BufferStore>();
    if (!written && update != nullptr && loads_buffer(update->value, r.buffer.get()))
      out.push_back(r.buffer);
  }
  return out;
}

int read_index(const Schedule& s, const std::string& block, const Buffer& buffer) {
  auto info = find_block(s.func().body, block, nullptr);
  for (size_t k = 0; k < info->block->reads.size(); ++k)
    if (info->block->reads[k].buffer.same_as(buffer)) return int(k);
  return -1;
}

// Whether the block reads a buffer the given block writes.
bool reads_output_of(const Schedule& s, const std::string& reader, const std::string& writer) {
  auto r = find_block(s.func().body, reader, nullptr);
  auto w = find_block(s.func().body, writer, nullptr);
  for (const BufferRegion& rd : r->block->reads)
    for (const BufferRegion& wr : w->block->writes)
      if (rd.buffer.same_as(wr.buffer)) return true;
  return false;
}

// The loops around the block inside `outer`.
std::vector<LoopRV> loops_under(Schedule& s, BlockRV block, LoopRV outer) {
  std::vector<LoopRV> loops = s.get_loops(block);
  for (size_t k = 0; k < loops.size(); ++k)
    if (s.loop_var(loops[k]).same_as(s.loop_var(outer)))
      return std::vector<LoopRV>(loops.begin() + std::ptrdiff_t(k) + 1, loops.end());
  return {};
}

// The index with a clamp into the buffer removed (max(min(e, hi), lo), or either alone, as
// conv_block.cpp clamps its input's): where the block reads without it.
Expr unclamped(Expr e) {
  for (;;) {
    if (auto* m = e.as<Max>(); m != nullptr && is_const_int(m->b)) {
      e = m->a;
    } else if (auto* n = e.as<Min>(); n != nullptr && is_const_int(n->b)) {
      e = n->a;
    } else {
      return e;
    }
  }
}

// Whether the block reads `buffer` at an index that, unclamped, may leave it over the block's
// iteration space (a conv's padding, read under its guard): the box of it that the block's tile
// reads may then leave the tensor, so it is not staged.
bool reads_outside(const Block& b, const BufferNode* buffer) {
  struct Finder : IRVisitor {
    const BufferNode* buffer = nullptr;
    arith::Analyzer ana;
    bool found = false;
    void visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
      if (op->buffer.get() == buffer)
        for (size_t d = 0; d < op->indices.size(); ++d) {
          int64_t extent = 0;
          arith::ConstIntBound r = ana.bound_of(unclamped(op->indices[d]));
          found = found || !is_const_int(buffer->shape[d], &extent) || r.min_value < 0 ||
                  r.max_value >= extent;
        }
      IRVisitor::visit_BufferLoad(op, e);
    }
  } f;
  f.buffer = buffer;
  for (const IterVar& iv : b.iter_vars) f.ana.bind(iv.var, iv.min, iv.extent);
  f.visit(b.body);
  return f.found;
}

// The steps of the reduce iter var `k` in groups that the slabs keep whole: the largest c with
// floordiv(k, c) in the block's body (a conv's window per input channel), or 1.
int64_t k_group(const Block& b, const Var& k) {
  struct Finder : IRVisitor {
    const VarNode* k = nullptr;
    int64_t group = 1;
    void visit_FloorDiv(const FloorDiv* op, const Expr& e) override {
      int64_t c = 0;
      if (op->a.get() == k && is_const_int(op->b, &c)) group = std::max(group, c);
      IRVisitor::visit_FloorDiv(op, e);
    }
  } f;
  f.k = k.node();
  f.visit(b.body);
  return f.group;
}

// The blocks that read the product's output after `last` (its write-back), in order: the
// fused epilogue.
std::vector<std::string> epilogue_blocks(Schedule& s, std::string last) {
  std::vector<std::string> out;
  const std::string wb = last;
  for (const std::string& name : top_level_block_names(s)) {
    if (name == last || name == wb || !reads_output_of(s, name, last)) continue;
    auto own = own_loops(s, s.get_block(name));
    if (!own || own->size() != s.get_loops(s.get_block(name)).size()) continue;
    out.push_back(name);
    last = name;
  }
  return out;
}

// Whether the block reads a buffer the kernel allocates at its root (a float16 product's float32
// accumulator, lower/compute/matmul_block.cpp).
bool reads_root_allocation(Schedule& s, const std::string& block) {
  auto info = find_block(s.func().body, block, nullptr);
  for (const Buffer& a : root_block(s.func().body)->alloc_buffers)
    for (const BufferRegion& r : info->block->reads)
      if (r.buffer.same_as(a)) return true;
  return false;
}

// The fused epilogue after the write-back `wb`: a float16 product's rounding pass (it reads the
// float32 accumulator) folded into the write-back, which then stores float16 directly; the other
// blocks computed at `loop`, per thread. The names of the blocks placed at the loop, in order.
std::vector<std::string> place_epilogue(Schedule& s, const std::string& wb, LoopRV loop) {
  std::vector<std::string> placed;
  for (const std::string& e : epilogue_blocks(s, wb)) {
    if (reads_root_allocation(s, e)) {
      s.reverse_compute_inline(s.get_block(e));
      continue;
    }
    s.reverse_compute_at(s.get_block(e), loop);
    placed.push_back(e);
  }
  return placed;
}

// Bytes of the vectors the slabs are copied in.
constexpr int64_t kVectorBytes = 16;

// Copies the slab of each operand into shared memory at loop `at`, by all `threads_y` x
// `threads_x` threads of the block (skipping the operands in `skip`); each thread copies runs
// of 16 bytes of float32 or float16 (a vectorized loop: the GPU printers copy a run that is
// contiguous on both sides as one vector, and element by element otherwise) where the slab's
// rows are a multiple of the run and the threads' runs cover the slab exactly (a masked tail
// would put the runs under a condition, copied element by element by fewer threads).
int64_t stage_operands(Schedule& s, BlockRV mm, const std::vector<Buffer>& operands, LoopRV at,
                       Factor threads_y, Factor threads_x,
                       const std::set<const BufferNode*>& skip = {}) {
  int64_t bytes = 0;
  for (const Buffer& op : operands) {
    if (skip.count(op.get()) > 0) continue;
    const DataType t = op->dtype;
    const int64_t vector =
        t.is_float() && (t.bits == 16 || t.bits == 32) ? kVectorBytes / (t.bits / 8) : 1;
    BlockRV copy = s.cache_read(mm, read_index(s, s.name_of(mm), op), "shared");
    s.compute_at(copy, at);
    std::vector<LoopRV> own = loops_under(s, copy, at);
    if (own.empty()) continue;
    const int64_t row = loop_extent_of(s, own.back());
    int64_t slab = 1;
    for (LoopRV l : own) slab *= loop_extent_of(s, l);
    bytes += slab * t.bytes();
    auto value = [&](const Factor& f) { return f.value ? *f.value : s.value(*f.rv); };
    const int64_t runs = value(threads_y) * value(threads_x) * vector;
    LoopRV fused = own.size() == 1 ? own.front() : s.fuse(own);
    if (vector > 1 && row % vector == 0 && slab % runs == 0) {
      auto parts = s.split(fused, {std::nullopt, threads_y, threads_x, vector});
      s.bind(parts[1], "threadIdx.y");
      s.bind(parts[2], "threadIdx.x");
      s.vectorize(parts[3]);
      continue;
    }
    auto parts = s.split(fused, {std::nullopt, threads_y, threads_x});
    s.bind(parts[1], "threadIdx.y");
    s.bind(parts[2], "threadIdx.x");
  }
  return bytes;
}

// Shared memory that both sets of a double-buffered kernel's slabs may take by default: half of
// CUDA's 48 KB of static shared memory per block, within OpenCL's 32 KB default.
constexpr int64_t kDoubleBufferBytes = 24 * 1024;

// Whether the k-slab loop `ko`, whose slabs take `slab_bytes` of shared memory, is
// double-buffered (a choice; by default where it has more than one slab and both sets of slabs
// fit in kDoubleBufferBytes).
void sample_double_buffer(Schedule& s, LoopRV ko, int64_t slab_bytes) {
  if (slab_bytes == 0) return;
  const bool fits = loop_extent_of(s, ko) > 1 && 2 * slab_bytes <= kDoubleBufferBytes;
  if (s.value(sample_choice(s, {0, 1}, fits ? 1 : 0)) == 1) s.double_buffer(ko);
}

// The tensor-core tiles (see gpu_matmul.h): wy x wx warps per block, each mi x ni instructions'
// tiles of 16 x 8, k in slabs of kk x 16.
struct MmaTiles {
  int64_t wy = 1, mi = 1, wx = 1, ni = 1, kk = 1;
};

// The candidates of a tile dimension that divide `extent` into whole tiles of `unit` elements
// times the candidate.
std::vector<int64_t> dividing(const std::vector<int64_t>& cands, int64_t extent, int64_t unit) {
  std::vector<int64_t> out;
  for (int64_t c : cands)
    if (extent % (unit * c) == 0) out.push_back(c);
  return out;
}

// The candidates whose tile of `unit` elements times the candidate is no larger than `extent`
// rounded up to units (the last tile may be partial).
std::vector<int64_t> fitting(const std::vector<int64_t>& cands, int64_t extent, int64_t unit) {
  std::vector<int64_t> out;
  for (int64_t c : cands)
    if (unit * c <= ceil_div(extent, unit) * unit) out.push_back(c);
  return out;
}

// The default among `fit`: the largest up to `def` that divides the extent into whole tiles,
// else the largest up to `def`.
int64_t preferred(const std::vector<int64_t>& fit, int64_t extent, int64_t unit, int64_t def) {
  std::vector<int64_t> whole = dividing(fit, extent, unit);
  return whole.empty() ? floor_candidate(fit, def) : floor_candidate(whole, def);
}

// A float16 product on tensor cores: the tiles sampled (nullopt when the depth is not a
// multiple of 16, since a partial slab of k would sum stale values into every output, or the
// product is smaller than one instruction's 16 x 8). Rows and columns may end in partial tiles:
// their masked sums are never stored (codegen/gpu/warp_mma.h). Defaults: 2 x 2 warps of 32 x 32
// (2 x 4 instructions' tiles), k slabs of 32, smaller where the product is, preferring tiles
// that divide it.
std::optional<MmaTiles> sample_mma_tiles(Schedule& s, int64_t rows, int64_t cols, int64_t depth,
                                         int max_threads) {
  const std::vector<int64_t> sizes = {1, 2, 4};
  const std::vector<int64_t> kk = dividing(sizes, depth, 16);
  if (rows < 16 || cols < 8 || kk.empty() || max_threads < 32) return std::nullopt;
  // Instruction tiles per warp and warps per block share their candidates along each axis: those
  // whose rows (columns) fit the product.
  const std::vector<int64_t> along_rows = fitting(sizes, rows, 16);
  const std::vector<int64_t> along_cols = fitting(sizes, cols, 8);
  MmaTiles t;
  t.mi = s.value(sample_choice(s, along_rows, preferred(along_rows, rows, 16, 2)));
  t.wy = s.value(sample_choice(s, along_rows, preferred(along_rows, rows, 16 * t.mi, 2)));
  t.ni = s.value(sample_choice(s, along_cols, preferred(along_cols, cols, 8, 4)));
  t.wx = s.value(sample_choice(s, along_cols, preferred(along_cols, cols, 8 * t.ni, 2)));
  t.kk = s.value(sample_choice(s, kk, floor_candidate(kk, 2)));
  // (Each sampled alone fits the product; together they may not, or exceed the threads.)
  while (16 * t.wy * t.mi > ceil_div(rows, 16) * 16 && t.wy > 1) t.wy /= 2;
  while (8 * t.wx * t.ni > ceil_div(cols, 8) * 8 && t.wx > 1) t.wx /= 2;
  while (t.wy * t.wx * 32 > max_threads && t.wx > 1) t.wx /= 2;
  while (t.wy * t.wx * 32 > max_threads && t.wy > 1) t.wy /= 2;
  return t;
}

// A float16 product on tensor cores, as dlight's MMA rule: each block a (16 wy mi) x (8 wx ni)
// tile, each warp (16 mi) x (8 ni) of it as mi x ni m16n8k16 instructions per 16 steps of k.
// The rows split as [blocks, wy, 8, mi, 2] and the columns as [blocks, wx, 4, ni, 2]; the
// (8, 4) digits are the 32 lanes (threadIdx.x), so lane (g, t) holds rows g + 8h and columns
// 2t + q of every instruction's tile (h, q the last digits): the instruction's own fragment
// layout, with each thread's 2 mi x 2 ni accumulators one dense box of the output. The slabs of
// A and B are staged in shared memory; the (h, q, 16 steps of k) nest is marked warp_mma.
void schedule_mma(Schedule& s, const std::string& name, std::vector<LoopRV> batch, LoopRV i,
                  LoopRV j, LoopRV k, const MmaTiles& t) {
  BlockRV mm = s.get_block(name);
  std::vector<Buffer> operands = operand_buffers(s, name);
  auto si = s.split(i, {std::nullopt, t.wy, int64_t(8), t.mi, int64_t(2)});
  auto sj = s.split(j, {std::nullopt, t.wx, int64_t(4), t.ni, int64_t(2)});
  auto sk = s.split(k, {std::nullopt, t.kk, int64_t(16)});
  std::vector<LoopRV> order = batch;
  for (LoopRV l :
       {si[0], sj[0], si[1], sj[1], si[2], sj[2], sk[0], sk[1], si[3], sj[3], si[4], sj[4], sk[2]})
    order.push_back(l);
  s.reorder(order);
  std::vector<LoopRV> outer = batch;
  outer.push_back(si[0]);
  outer.push_back(sj[0]);
  s.bind(s.fuse(outer), "blockIdx.x");
  s.bind(s.fuse({si[1], sj[1]}), "threadIdx.y");
  LoopRV lane = s.fuse({si[2], sj[2]});
  s.bind(lane, "threadIdx.x");
  BlockRV wb = s.cache_write(mm, 0, "local");
  s.reverse_compute_at(wb, lane);
  s.decompose_reduction(mm, sk[0]);
  sample_double_buffer(s, sk[0], stage_operands(s, mm, operands, sk[0], t.wy * t.wx, int64_t(32)));
  s.warp_mma(si[4]);
  place_epilogue(s, s.name_of(wb), lane);
}

// A one-row product (GEMV) with k split across `ks` rows of threads (see gpu_matmul.h): tx
// columns per block, each thread a partial sum over every ks-th step of k, combined across the
// rows of threads; the write-back and the epilogue run on the first row of threads only (a
// loop of one bound to threadIdx.y), so that an in-place epilogue runs once per element.
void schedule_gemv(Schedule& s, const std::string& name, std::vector<LoopRV> outer, LoopRV j,
                   LoopRV k, int64_t tx, int64_t ks) {
  BlockRV mm = s.get_block(name);
  auto sj = s.split(j, {std::nullopt, tx});
  auto sk = s.split(k, {std::nullopt, ks});
  std::vector<LoopRV> order = outer;
  for (LoopRV l : {sj[0], sj[1], sk[1], sk[0]}) order.push_back(l);
  s.reorder(order);
  outer.push_back(sj[0]);
  s.bind(s.fuse(outer), "blockIdx.x");
  s.bind(sj[1], "threadIdx.x");
  BlockRV wb = s.cache_write(mm, 0, "local");
  s.reverse_compute_at(wb, sj[1]);
  BlockRV rf = s.rfactor(sk[1]);
  s.bind(sk[1], "threadIdx.y");
  s.decompose_reduction(rf, sk[0]);
  LoopRV across = s.get_loops(mm).back();
  s.decompose_reduction(mm, across);
  s.bind(across, "threadIdx.y");
  std::vector<std::string> after = {s.name_of(wb)};
  for (const std::string& e : place_epilogue(s, s.name_of(wb), sj[1])) after.push_back(e);
  for (const std::string& b : after) s.bind(s.get_loops(s.get_block(b)).back(), "threadIdx.y");
}

}  // namespace

bool schedule_gpu_matmul(Schedule& s, int max_threads, bool tensor_cores) {
  int count = 0;
  std::string name = "matmul";
  auto info = find_block(s.func().body, name, &count);
  if (count == 0) {
    name = "conv";
    info = find_block(s.func().body, name, &count);
  }
  if (count != 1 || info->parent != root_block(s.func().body)) return false;
  const Block* b = info->block;
  const size_t n = b->iter_vars.size();
  // (A product of two vectors writes a scalar: no loop to write its tile back under.)
  if (n < 3 || b->iter_vars.back().kind != IterKind::kReduce || info->loops.size() != n ||
      !b->init.defined() || b->writes.size() != 1 || b->writes[0].buffer.ndim() == 0)
    return false;
  for (size_t d = 0; d + 1 < n; ++d)
    if (b->iter_vars[d].kind != IterKind::kSpatial) return false;
  BlockRV mm = s.get_block(name);
  std::vector<LoopRV> loops = s.get_loops(mm);
  for (LoopRV l : loops) {
    auto li = find_loop(s.func().body, s.loop_var(l).node());
    int64_t e = 0;
    if (li->node->kind != ForKind::kSerial || !is_const_int(li->node->extent, &e)) return false;
  }
  std::vector<LoopRV> batch(loops.begin(), loops.end() - 3);
  LoopRV i = loops[n - 3], j = loops[n - 2], k = loops[n - 1];
  const int64_t rows = loop_extent_of(s, i), cols = loop_extent_of(s, j),
                depth = loop_extent_of(s, k);

  // 1. Tile sizes (sampling instructions). One row (a GEMV, decode-style): the threads all
  //    along the columns.
  int64_t batch_extent = 1;
  for (LoopRV l : batch) batch_extent *= loop_extent_of(s, l);
  const bool one_row = rows == 1;
  const std::vector<int64_t> per_thread = {1, 2, 4, 8};
  const std::vector<int64_t> tx_cands =
      powers_upto(one_row ? max_threads : std::min<int64_t>(16, max_threads));
  const std::vector<int64_t> ty_cands = powers_upto(std::max<int64_t>(1, max_threads / 16));
  // k in slabs of whole groups where the block has them (a conv's windows, see
  // lower/compute/product_nest.h), so that a slab's box of the weights is exact.
  const int64_t group = k_group(*b, b->iter_vars.back().var);
  std::vector<int64_t> bk_cands;
  for (int64_t m : {1, 2, 4, 8, 16, 32})
    if (group == 1 || m <= 4) bk_cands.push_back(m * group);
  const TileSizes def = default_tiles(batch_extent, rows, cols,
                                      one_row ? std::vector<int64_t>{1} : ty_cands, tx_cands);
  // A one-row product: k split across rows of threads (1: not split), 8 by default for a long
  // k, with 32 columns per block (fewer threads along the columns: more blocks).
  if (one_row && max_threads >= 64) {
    const std::vector<int64_t> ks_cands = powers_upto(std::min<int64_t>(16, max_threads / 32));
    int64_t ks = s.value(
        sample_choice(s, ks_cands, floor_candidate(ks_cands, depth >= kGemvMinDepth ? 8 : 1)));
    if (ks > 1) {
      int64_t tx = s.value(sample_choice(s, tx_cands, floor_candidate(tx_cands, 32)));
      std::vector<LoopRV> outer = batch;
      outer.push_back(i);
      schedule_gemv(s, name, outer, j, k, std::min(tx, max_threads / ks), ks);
      return true;
    }
  }
  // A float16 product on tensor cores where its tiles divide it: a MatMul, or a conv whose k
  // steps are whole input channels (a 1x1) and whose input is read unconditionally (unpadded).
  const auto* update = b->body.as<BufferStore>();
  if (tensor_cores && !one_row && group == 1 && update != nullptr && match_widened_product(*update))
    if (auto t = sample_mma_tiles(s, rows, cols, depth, max_threads)) {
      schedule_mma(s, name, batch, i, j, k, *t);
      return true;
    }
  Factor vi = int64_t(1), ty = int64_t(1);
  if (!one_row) {
    vi = sample_choice(s, per_thread, def.vi);
    ty = sample_choice(s, ty_cands, def.ty);
  }
  ExprRV vj = sample_choice(s, per_thread, def.vj);
  ExprRV tx = sample_choice(s, tx_cands, def.tx);
  ExprRV bk = sample_choice(
      s, bk_cands,
      floor_candidate(bk_cands, std::min<int64_t>(depth, std::max<int64_t>(16, group))));

  // 2. Tiles: blockIdx over (batch, row tiles, column tiles), threads ty x tx, k slabs.
  auto si = s.split(i, {std::nullopt, ty, vi});
  auto sj = s.split(j, {std::nullopt, tx, vj});
  auto sk = s.split(k, {std::nullopt, bk});
  std::vector<LoopRV> order = batch;
  for (LoopRV l : {si[0], sj[0], si[1], sj[1], sk[0], sk[1], si[2], sj[2]}) order.push_back(l);
  s.reorder(order);
  std::vector<LoopRV> outer = batch;
  outer.push_back(si[0]);
  outer.push_back(sj[0]);
  LoopRV blocks = s.fuse(outer);
  s.bind(blocks, "blockIdx.x");
  s.bind(si[1], "threadIdx.y");
  s.bind(sj[1], "threadIdx.x");

  // 3. The thread's tile in registers: written back (then the epilogue) per thread.
  std::vector<Buffer> operands = operand_buffers(s, name);
  std::set<const BufferNode*> guarded;
  {
    auto now = find_block(s.func().body, name, nullptr);
    for (const Buffer& op : operands)
      if (reads_outside(*now->block, op.get())) guarded.insert(op.get());
  }
  BlockRV wb = s.cache_write(mm, 0, "local");
  s.reverse_compute_at(wb, sj[1]);
  s.decompose_reduction(mm, sk[0]);

  // 4. The slabs of A and B in shared memory, copied by all threads of the block.
  if (operands.size() == 2) {
    // (A one-row product reads each element of B once: staging it would only add barriers.)
    if (one_row && operands.size() == 2) operands.pop_back();
    sample_double_buffer(s, sk[0], stage_operands(s, mm, operands, sk[0], ty, tx, guarded));
  }

  // 5. The epilogue blocks that read the product run per thread after the write-back.
  place_epilogue(s, s.name_of(wb), sj[1]);
  return true;
}

}  // namespace ingot::schedule

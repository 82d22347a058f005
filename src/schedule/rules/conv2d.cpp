// Default direct-convolution schedule on the blocked output layout (see conv2d.h) and the host
// packing of its weights and bias.
#include "schedule/rules/conv2d.h"

#include <algorithm>

#include "schedule/intrin/x86_fma.h"
#include "schedule/ir_utils.h"
#include "schedule/rules/cache_budget.h"
#include "schedule/rules/choice.h"
#include "schedule/rules/conv_weight_layout.h"
#include "schedule/rules/fma_strip.h"
#include "support/channel_block.h"
#include "support/error.h"
#include "tir/analysis.h"
#include "tir/op.h"
#include "tir/printer.h"
#include "tir/region_analysis.h"

namespace ingot::schedule {

using namespace tir;

namespace {

// Rows of an AMX tile.
constexpr int64_t kAmxTileRows = 16;
// Parallel tasks the rule aims for at least (threads times a few, for balance).
constexpr int64_t kParallelTasks = 64;
// An output block's packed weights above kWeightPanelBytes are read in K slices of at most
// kWeightSliceBytes (L2 sizes of current x86 and Arm server cores are 1-2 MB per core), and so
// are those above kWeightSliceBytes that at most kFewStrips strips use.
constexpr int64_t kWeightPanelBytes = 768 * 1024;
constexpr int64_t kWeightSliceBytes = 128 * 1024;
constexpr int64_t kFewStrips = 8;

int64_t loop_extent(Schedule& s, LoopRV r) {
  int64_t e = 0;
  is_const_int(find_loop(s.func().body, s.loop_var(r).node())->node->extent, &e);
  return e;
}

// Cycles per reduction step of an m-pixel strip of `vecs` accumulator vectors: FMA issue (two
// ports), loads (m broadcasts and `vecs` B vectors on two ports), or the FMA latency (4) when
// there are too few accumulators to hide it.
double strip_cycles(int m, int vecs) {
  return std::max({m * vecs / 2.0, (m + vecs) / 2.0, 4.0});
}

// Output pixels per tile: the strip height with the fewest modelled cycles for the whole row,
// its last strip computed by a shorter tail tile (ties: the taller strip, fewer B reloads).
int conv_tile_rows(int64_t ow, int max_rows, int vecs) {
  if (ow <= max_rows) return int(ow);
  int best = max_rows;
  double best_cost = 0;
  for (int mr = max_rows; mr >= std::max(1, max_rows / 2); --mr) {
    int64_t rem = ow % mr;
    double cost =
        double(ow / mr) * strip_cycles(mr, vecs) + (rem ? strip_cycles(int(rem), vecs) : 0);
    cost += 0.25 * double((ow + mr - 1) / mr);  // per strip: accumulator loads and stores
    if (mr == max_rows || cost < best_cost - 1e-9) best = mr, best_cost = cost;
  }
  return best;
}

// The most pixels a strip of `vecs` accumulator vectors (`nr` columns in all) takes by default:
// fma_max_tile_rows, and 12 for AVX2 one-vector rows of a pointwise conv (the 16 ymm registers
// hold 12 accumulators, the B vector and the broadcast): 1x1 72->24 @56x56 went 51-53 -> 67-74
// GFLOP/s on one core, 1x1 120->40 @28x28 76 -> 80-87. With a kernel window they keep 8 (3x3
// 40->40 @28x28 ran 88 -> 70 with 12).
int default_max_rows(const CpuVectorIsa& isa, int64_t nr, int vecs, int64_t taps) {
  if (isa.arch == CpuVectorIsa::kX86 && isa.tile_lanes() == 8 && vecs == 1 && taps == 1) return 12;
  return fma_max_tile_rows(isa, int(nr));
}

// The most pixels the tuner may try: what the register file holds next to one B vector per
// column vector and the broadcast (AVX-512 and NEON: 14, 9, 6 pixels for 2, 3, 4 vectors;
// AVX2: 6, 4), at most 14, and never fewer than the default.
int searched_max_rows(const CpuVectorIsa& isa, int64_t nr, int vecs, int64_t taps) {
  return std::max(default_max_rows(isa, nr, vecs, taps), fma_register_tile_rows(isa, int(nr)));
}

// Bytes of the buffer a load reads.
int64_t buffer_bytes(const BufferLoad* load) {
  int64_t n = load->buffer->dtype.bytes();
  for (const Expr& e : load->buffer->shape) {
    int64_t d = 1;
    is_const_int(e, &d);
    n *= d;
  }
  return n;
}

// The bytes of the input the conv reads: all of it, less the rows a stride skips (a 1x1
// stride-2 conv reads every other input row: half the cache lines). The input's row dim is the
// third from last (.., h, w, lanes) when the output has an oh loop.
int64_t input_bytes_read(const BufferLoad* x, const std::vector<LoopRV>& l, size_t spatial,
                         Schedule& s) {
  const int64_t bytes = buffer_bytes(x);
  const size_t lw = spatial - 2, rank = x->buffer->shape.size();
  // A 2-D or 3-D conv: n, ocb, [od,] oh, ow, r; reduction icb, [kd,] kh, kw, ici.
  if (lw < 3 || rank < 5 || l.size() < spatial + 4) return bytes;
  int64_t ih = 0;
  if (!is_const_int(x->buffer->shape[rank - 3], &ih) || ih <= 0) return bytes;
  const int64_t oh = loop_extent(s, l[lw - 1]), kh = loop_extent(s, l[l.size() - 3]);
  return oh * kh >= ih ? bytes : bytes * oh * kh / ih;
}

// Whether pixels outer streams fewer bytes again than output blocks outer: with blocks outer
// each of the `groups` block groups reads the input again, with pixels outer each of the
// `units` pixel units reads all the weights again, unless that operand stays cached (at most
// kCoreCacheBudgetBytes).
// Ties (both cached): the smaller operand shared, as before. ResNet-50's 1x1 stride-2 512->1024
// conv at 14x14 (0.8 MB of input read, 2 MB of weights): 50 MB again blocks outer, 26 MB pixels
// outer, which ran 1.59 -> 1.25 ms in the model (docs/perf.md, session 39).
bool pixels_outer_by_default(int64_t input_bytes, int64_t weight_bytes, int64_t groups,
                             int64_t units) {
  const int64_t again_blocks =
      input_bytes <= kCoreCacheBudgetBytes ? 0 : input_bytes * (groups - 1);
  const int64_t again_pixels =
      weight_bytes <= kCoreCacheBudgetBytes ? 0 : weight_bytes * (units - 1);
  if (again_blocks != again_pixels) return again_pixels < again_blocks;
  return weight_bytes < input_bytes;
}

// g when `index` is floor(r / g) * g + (terms without r) (lane groups of width g), else 0.
int lane_group(const Expr& index, const Var& r) {
  int group = 0;
  auto visit = [&](auto&& self, const Expr& e) -> void {
    if (auto* d = e.as<FloorDiv>()) {
      int64_t g = 0;
      if (d->a.same_as(r) && is_const_int(d->b, &g)) group = int(g);
      return;
    }
    if (auto* a = e.as<Add>()) return self(self, a->a), self(self, a->b);
    if (auto* m = e.as<Mul>()) return self(self, m->a);
  };
  visit(visit, index);
  return group;
}

}  // namespace

ChannelBlockPolicy conv_channel_blocks(const CpuVectorIsa& isa) {
  return vector_channel_blocks(isa.vector_bits);
}

void schedule_blocked_conv2d(Schedule& s, const std::string& block, int vector_bits) {
  schedule_blocked_conv2d(s, block, CpuVectorIsa::x86(vector_bits));
}

void schedule_blocked_conv2d(Schedule& s, const std::string& block, const CpuVectorIsa& isa) {
  schedule_blocked_conv2d(s, block, isa, 2);
}

void schedule_blocked_conv2d(Schedule& s, const std::string& block, const CpuVectorIsa& isa,
                             int int8_group, ConvTiles tiles) {
  // 0. An 8-bit conv: the input lanes (the last reduction loop) split into groups of G, the
  //    group innermost (the dot micro-kernel's), bfloat16 products in pairs. Then the weights
  //    (and a bias read past OC) in the layout the micro-kernel streams.
  const PrimFunc as_lowered = s.func();
  const Block* lowered = find_block(as_lowered.body, block, nullptr)->block;
  const BufferLoad* int8_input = int8_conv_input(lowered);
  const bool int8 = int8_input != nullptr, a_signed = int8 && int8_input->buffer->dtype.is_int();
  const bool bf16 = bf16_conv_input(lowered) != nullptr, dot = int8 || bf16;
  // The sums in a scratch parameter (an 8-bit conv's, or one whose output is bfloat16).
  const bool scratch_sums = sums_in_scratch(as_lowered, lowered);
  // G = 4 (uint8 quads) only where the target multiplies them (VNNI), else int16 pairs.
  const int dot_group = int8 && !a_signed ? int8_group : 2;
  if (dot) {
    // (Laid out first: the layout's padding matches the compute's guards as lowering wrote
    // them, which the split's index simplification would rewrite.)
    lay_out_dot_conv_weights(s, block, dot_group);
    std::vector<LoopRV> lanes = s.get_loops(s.get_block(block));
    s.split_block_iter(s.get_block(block), lanes.back(), dot_group);
  } else {
    lay_out_conv_weights(s, block);
  }
  // The function as laid out, kept: the block and loads read below stay alive while the
  // primitives rewrite the body.
  const PrimFunc laid_out = s.func();
  BlockRV conv = s.get_block(block);
  // n, ocb, the output's spatial loops (od, oh, ow; innermost ow), r, then the reduction loops:
  // ic, kh, kw (NCHW input) or icb, [kd,] [kh,] kw, ici (blocked input, 1 to 3 spatial dims).
  std::vector<LoopRV> l = s.get_loops(conv);
  size_t spatial = 0;  // iter vars n .. r
  for (const IterVar& iv : find_block(laid_out.body, block, nullptr)->block->iter_vars)
    spatial += iv.kind == IterKind::kSpatial;
  INGOT_ICHECK(spatial >= 4 && l.size() > spatial, "conv2d rule: block {} has {} loops", block,
               l.size());
  size_t lw = spatial - 2, lr = spatial - 1;  // the ow and r loops
  int64_t ow = loop_extent(s, l[lw]), nr = loop_extent(s, l[lr]);
  // Lane groups: the input's lane index is floor(r / g) * g + ici (a grouped conv narrower than
  // a vector; see conv_nchwc.h), each input vector shuffled per group.
  const Block* b = find_block(laid_out.body, block, nullptr)->block;
  std::optional<FmaUpdate> u = fma_update(b);
  INGOT_ICHECK(u && b->iter_vars.size() == l.size(),
               "conv2d rule: block {} of {} is not the blocked conv", block, s.func().name);
  const BufferStore* store = u->c;
  const BufferLoad *x = u->a, *wt = u->b;
  int group = lane_group(x->indices.back(), b->iter_vars[lr].var);
  int lanes = isa.tile_lanes();
  int64_t taps = 1;  // the window (the reduction but the input blocks and lanes)
  for (size_t k = spatial + 1; k + (dot ? 2 : 1) < l.size(); ++k) taps *= loop_extent(s, l[k]);
  int block_vecs = int((nr + lanes - 1) / lanes);
  // 0a. AMX tiles (TDPBUSD for uint8 x int8 quads, TDPBF16PS for bfloat16 pairs) where the
  //     target has them and the layout fits (intrin/amx_tile.h, amx_dot_tile_problem: an input
  //     block of at most 64 bytes or whole 64s, 16, 32 or 48 output channels, one output block
  //     per tile). Tunable (AMX or the vector dot tile).
  std::vector<Var> tile_vars = {b->iter_vars[lw].var, b->iter_vars[lr].var};
  for (size_t k = spatial; k < l.size(); ++k) tile_vars.push_back(b->iter_vars[k].var);
  std::vector<int64_t> reduction_extents;
  for (size_t k = spatial; k < l.size(); ++k) reduction_extents.push_back(loop_extent(s, l[k]));
  const bool amx_products =
      (bf16 && tiles.amx_bf16) || (int8 && !a_signed && dot_group == 4 && tiles.amx_int8);
  bool amx = false;
  if (amx_products && group == 0) {
    FmaTileSpec probe;
    probe.lanes = lanes, probe.arch = isa.arch;
    probe.mr = 16, probe.nr = int(nr), probe.k = reduction_extents;
    probe.group = dot_group, probe.bf16 = bf16, probe.amx = true;
    probe.a = fma_operand(x->indices, tile_vars);
    probe.b = fma_operand(wt->indices, tile_vars);
    probe.c = fma_operand(store->indices, tile_vars);
    // By default where a tile row holds at least 16 bytes of A: a TDPBUSD over rows of fewer
    // (an image's 4 channels) multiplies fewer products in its 16 cycles than VPDPBUSD does.
    const int64_t row_bytes = 4 * std::min<int64_t>(reduction_extents.end()[-2], kAmxTileRows);
    if (fma_tile_problem(probe).empty())
      amx = s.value(sample_choice(s, {0, 1}, row_bytes >= 16 ? 1 : 0)) == 1;
  }
  // 0. Output blocks per tile: each broadcast input element feeds the vectors of 1 to 4 output
  //    blocks (at most 4 vectors in all; a divisor of the blocks). A one-vector tile needs a
  //    load per FMA: in bench/fma_tile_shapes on one Emerald Rapids core (a busy host) 14
  //    pixels x 1 vector ran at 70% of the FMA peak, 8 x 2 at 86%, 8 x 3 at 92% (AVX2: 12 x 1
  //    65%, 6 x 2 94%, 4 x 3 86%). Tunable; by default, where a block is one vector, two blocks
  //    per tile, or three where the block count is odd (24 channels in AVX2 blocks of 8), else
  //    one. Lane groups keep one block, and so do grouped convs whose input block follows the
  //    output block (the broadcast element differs between blocks).
  int64_t ocb = loop_extent(s, l[1]);
  bool one_block = group != 0;
  for (const Expr& e : x->indices) one_block = one_block || uses_var(e, b->iter_vars[1].var);
  std::vector<int64_t> block_counts = {1};
  for (int64_t nb = 2; nb <= 4 && !one_block && !amx; ++nb)
    if (ocb % nb == 0 && nb * block_vecs <= 4) block_counts.push_back(nb);
  int64_t default_blocks = 1;
  if (block_vecs == 1 && !one_block && !amx)
    default_blocks = ocb % 2 == 0 ? 2 : ocb % 3 == 0 ? 3 : 1;
  ExprRV blocks_rv = sample_choice(s, block_counts, default_blocks);
  int64_t blocks = s.value(blocks_rv);
  int vecs = int(blocks) * block_vecs;
  // 1. MR-pixel strips of the output row; the tile is (strip, [output blocks,] r, reduction
  //    loops). With lane groups a row also holds the shuffled input vectors it shares with its
  //    neighbours.
  int64_t cols = nr * blocks;
  int max_rows = group ? (lanes == 16 ? 8 : 4) : default_max_rows(isa, cols, vecs, taps);
  int top_rows = group ? max_rows : searched_max_rows(isa, cols, vecs, taps);
  // Tunable: any height from half the default limit up to what the registers hold (at most the
  // row), the modelled best under the default limit by default. Up to 14 pixels for two
  // vectors: ResNet-50's convs on one core gained 5-9% at 7x7 and lost 1-3% at 14x14 and
  // MobileNetV2's 1x1 convs over 96-160 channels 7-17% against 8 (docs/perf.md, Table 4g).
  std::vector<int64_t> heights;
  for (int64_t h = std::max(1, max_rows / 2); h <= top_rows; ++h)
    heights.push_back(std::min(h, ow));
  int64_t default_height = conv_tile_rows(ow, max_rows, vecs);
  //     AMX: one or two 16-row tiles (one where three column tiles take the registers); by
  //     default the tallest that divides the row into equal strips (56 pixels: two of 28), so
  //     that every strip's tiles have one configuration, which each thread then loads once
  //     (codegen/llvm/amx_tiles.cpp), else the tallest.
  if (amx) {
    const int64_t most = nr <= 2 * kAmxTileRows ? 2 * kAmxTileRows : kAmxTileRows;
    heights = {std::min(kAmxTileRows, ow)};
    if (std::min(most, ow) > kAmxTileRows) heights.push_back(std::min(most, ow));
    default_height = heights.back();
    for (int64_t h = std::min(most, ow); h > kAmxTileRows; --h)
      if (ow % h == 0) {
        if (h != heights.back()) heights.push_back(h);
        default_height = h;
        break;
      }
  }
  ExprRV mr_rv = sample_choice(s, heights, default_height);
  int mr = int(s.value(mr_rv));
  auto w = s.split(l[lw], {std::nullopt, mr_rv});
  // The output blocks of a tile: an inner loop after the strip's pixels (l[1] becomes the outer).
  std::optional<LoopRV> ocb_inner;
  if (blocks > 1) {
    auto o = s.split(l[1], {std::nullopt, blocks_rv});
    l[1] = o[0], ocb_inner = o[1];
  }
  // 1b. K slices. The tile holds its whole reduction, so every strip streams the output block's
  //     packed weights; when they outgrow the cache (a 3x3 conv over 960 channels on a 16x16
  //     map: 1.1 MB per block, 4 FLOP per byte), the input-block loop is split so that one
  //     slice's weights stay cached while every strip of the block accumulates into Y. Also
  //     where a panel above a slice serves few strips (ResNet-50's 7x7 stage, 7 strips per
  //     block): each of its bytes is used by few FMAs, and in the model (weights cold, an L2
  //     shared with the core's other hardware thread) 128 KB slices ran its 3x3 512->512 convs
  //     and its 1x1 2048->512 convs 1.06-1.13x faster on two threads; 3x3 convs with more
  //     strips per block were no faster (14x14) or 1.2-1.4x slower (28x28) sliced. Only with
  //     16 or more output blocks: the sliced loop runs blocks in parallel, and DenseNet's 3x3
  //     128->32 convs at 7x7 (one block) ran 1.6x slower on two threads (docs/perf.md, Table 4h).
  std::vector<LoopRV> red(l.begin() + std::ptrdiff_t(spatial), l.end());
  int64_t panel = nr * wt->buffer->dtype.bytes() * blocks, first = loop_extent(s, red[0]);
  int64_t strips_per_block = loop_extent(s, w[0]);
  for (LoopRV k : red) panel *= loop_extent(s, k);
  for (size_t d = 2; d < lw; ++d) strips_per_block *= loop_extent(s, l[d]);
  int64_t slice = first;
  int64_t blocks_in_parallel = loop_extent(s, l[0]) * loop_extent(s, l[1]);
  //     Not the few-strips case for an 8-bit conv: its sums stay in registers only unsliced
  //     (with slices they go through a tensor of the output's shape), and its panels are a
  //     quarter of the float32 ones (ResNet-50's stage-4 3x3 convs at 7x7 ran faster unsliced
  //     on the Zen 4 of session 45).
  bool slice_panel = panel > kWeightPanelBytes ||
                     (!scratch_sums && panel > kWeightSliceBytes &&
                      strips_per_block <= kFewStrips && blocks_in_parallel >= kParallelTasks / 4);
  if (slice_panel && strips_per_block > 1)
    for (int64_t c = first; c >= 1; --c)
      if (first % c == 0 && panel / first * c <= kWeightSliceBytes) {
        slice = c;
        break;
      }
  // Tunable: no slicing, or slices of first / 2, / 4, / 8 where they divide (with the default).
  std::vector<int64_t> slices = {first};
  for (int64_t d : {2, 4, 8})
    if (first % d == 0) slices.push_back(first / d);
  ExprRV slice_rv = sample_choice(s, slices, slice);
  slice = s.value(slice_rv);
  bool sliced = slice < first;
  BlockRV init;
  if (sliced) {
    auto k = s.split(red[0], {std::nullopt, slice_rv});
    std::vector<LoopRV> order = {l[1], k[0]};
    order.insert(order.end(), l.begin() + 2, l.begin() + std::ptrdiff_t(lw));
    order.insert(order.end(), {w[0], w[1]});
    if (ocb_inner) order.push_back(*ocb_inner);
    order.insert(order.end(), {l[lr], k[1]});
    s.reorder(order);
    red[0] = k[1];
    init = s.decompose_reduction(conv, k[0]);
  } else {
    if (ocb_inner) {
      std::vector<LoopRV> order(l.begin() + 2, l.begin() + std::ptrdiff_t(lw));
      order.insert(order.end(), {w[0], w[1], *ocb_inner});
      s.reorder(order);
    }
    init = s.decompose_reduction(conv, w[1]);
  }
  // 2. The bias init before the tile (or before the K slices), vectorized over the channel block.
  std::vector<LoopRV> il = s.get_loops(init);
  s.vectorize(il.back());
  // 3. The tile becomes one block computed by the micro-kernel.
  FmaTileSpec spec;
  spec.lanes = lanes;
  spec.arch = isa.arch;
  spec.mr = mr;
  spec.nr = int(nr);
  spec.col_blocks = int(blocks);
  if (dot) spec.group = dot_group, spec.a_signed = a_signed, spec.bf16 = bf16, spec.amx = amx;
  for (LoopRV k : red) spec.k.push_back(loop_extent(s, k));
  // Tile variables: i (pixel: the block's ow iter var), j (channel in block: r) and the
  // reduction iter vars (tile_vars above); each operand index's coefficients in them (strides
  // and dilations appear as the input index's coefficients; a lane group's floor(r / g) * g
  // term is the spec's a_group).
  spec.a_group = group;
  if (blocks > 1) tile_vars.push_back(b->iter_vars[1].var);  // the output block: jb
  spec.a = fma_operand(x->indices, tile_vars, group ? b->iter_vars[lr].var : Var());
  spec.b = fma_operand(wt->indices, tile_vars);
  spec.c = fma_operand(store->indices, tile_vars);
  // The last strip of a row mr does not divide: the same micro-kernel with fewer rows.
  tensorize_fma_strip(s, w[1], spec, ow);
  // 4. The in-place epilogue (fused summand / activation), if any, per strip right after the
  //    tile while it is in L1, vectorized over the channel block.
  if (find_block(s.func().body, "epilogue", nullptr)) {
    // K slices: after the last one.
    schedule_tile_epilogue(s, s.get_block("epilogue"), sliced ? l[1] : w[0]);
  }
  // 4b. An 8-bit conv's int32 sums (a scratch parameter as lowered), unsliced: the kernel's own
  //     local memory, which the CPU loop pass compact_buffers shrinks to one strip's tile (the
  //     init, the tile and the epilogue all under the strip loop): the sums then never leave L1,
  //     where as a tensor of the output's shape each line went back to memory.
  if (scratch_sums && !sliced) s.set_scope(init, 0, "local");
  // 5. (n, ocb, [od,] [oh]) rows in parallel; with fewer than kParallelTasks of them (a
  //    pointwise conv is one row of pixels), the row's strips too, in chunks of whole strips.
  //    With K slices, (n, ocb) blocks (the rows run inside the slices).
  std::vector<LoopRV> rows_loops(l.begin(), l.begin() + std::ptrdiff_t(sliced ? 2 : lw));
  int64_t rows = 1;
  for (LoopRV r : rows_loops) rows *= loop_extent(s, r);
  int64_t strips = loop_extent(s, w[0]), chunks = 1;
  for (int64_t c = 1; !sliced && c <= strips && rows * c <= kParallelTasks; ++c)
    if (strips % c == 0) chunks = c;
  // Tunable (unsliced): the strips split into 1, 2, 4, ... chunks where that divides them.
  if (!sliced) {
    std::vector<int64_t> counts;
    for (int64_t c = 1; c <= strips && rows * c <= 4 * kParallelTasks; c *= 2)
      if (strips % c == 0) counts.push_back(c);
    ExprRV chunks_rv = sample_choice(s, counts, chunks);
    chunks = s.value(chunks_rv);
    if (chunks > 1) rows_loops.push_back(s.split(w[0], {chunks_rv, std::nullopt})[0]);
    // 6. The order of the fused parallel loop, which the thread pool hands out in one
    //    contiguous range per thread: output blocks outer gives each thread its share of the
    //    weights and all of the input, pixels outer its share of the input and all of the
    //    weights. Tunable; by default the order that streams fewer bytes again from beyond a
    //    core's L2 (pixels_outer_by_default). ResNet-50's 1x1 256->64 conv at 56x56 (3.2 MB of
    //    input, 64 KB of weights) on two threads: 0.59 ms blocks outer, 0.35 ms pixels outer;
    //    its 3x3 512->512 convs at 7x7 (9.4 MB of weights) keep blocks outer.
    if (loop_extent(s, l[1]) > 1 && rows_loops.size() > 2) {
      int64_t units = 1;  // the pixel side's parallel units: (n, [od,] [oh][, chunks])
      for (size_t d = 0; d < rows_loops.size(); ++d)
        if (d != 1) units *= loop_extent(s, rows_loops[d]);
      const bool pixels_outer = pixels_outer_by_default(
          input_bytes_read(x, l, spatial, s), buffer_bytes(wt), loop_extent(s, l[1]), units);
      ExprRV order_rv = sample_choice(s, {0, 1}, pixels_outer ? 1 : 0);
      if (s.value(order_rv) == 1) {
        std::vector<LoopRV> order(rows_loops.begin() + 2, rows_loops.end());
        order.push_back(l[1]);
        s.reorder(order);
        rows_loops.erase(rows_loops.begin() + 1);
        rows_loops.push_back(l[1]);
      }
    }
  }
  s.parallel(s.fuse(rows_loops));
}

}  // namespace ingot::schedule

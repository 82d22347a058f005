// Compute rules of the channel-blocked layout conversions (graph pass layout_nchwc):
// LayoutToBlocked  Y[n, cb, [d,] [h,] w, l] = X[n, cb * B + l, [d,] [h,] w] (0 in the padding
// lanes) and LayoutFromBlocked Y[n, c, ..., w] = X[n, c / B, ..., w, c % B], for 1-D to 3-D
// images. Both are one spatial block over Y's dims ("compute", so a fused reader can inline a
// conversion with compute_inline) bound to serial loops (image x channel block x depth fused),
// row, lane, pixel: per row, lane by lane over the pixels, one side contiguous, the other strided
// by B within a row that stays in L1 (no per-element division). The injective rule sets the
// kinds (by default the fused outer loop parallel and the pixels vectorized).
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"
#include "tir/arith/analyzer.h"
#include "tir/region_analysis.h"
#include "tir/substitute.h"

namespace ingot::lower {

using namespace tir;

Stmt compute_layout(const graph::Node& node, const std::vector<Buffer>& inputs,
                    const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  bool to_blocked = node.op == ops::OpKind::LayoutToBlocked;
  INGOT_ICHECK(to_blocked || node.op == ops::OpKind::LayoutFromBlocked, "{}: not a layout op",
               node_label(node));
  const std::vector<int64_t> plain = const_shape(to_blocked ? x : y);
  const std::vector<int64_t> blocked = const_shape(to_blocked ? y : x);
  INGOT_ICHECK(plain.size() >= 3 && plain.size() <= 5 && blocked.size() == plain.size() + 1,
               "{}: only 1-D to 3-D images are blocked", node_label(node));
  int64_t channels = plain[1], blocks = blocked[1], block = blocked.back();
  // Loops: t over (n, channel block, spatial dims but the last two), then the row h, the lane
  // l and the pixel w; block iter vars over Y's dims (extent-1 dims indexed 0, as loop_nest).
  std::vector<int64_t> sp(plain.begin() + 2, plain.end());
  size_t rank = sp.size(), fused = rank >= 2 ? rank - 2 : 0;
  Var t("nb"), h("h"), l("l"), w("w");
  int64_t extent = plain[0] * blocks;
  std::vector<Expr> si(rank);
  Expr rest = t;
  for (size_t d = fused; d-- > 0;) {
    extent *= sp[d];
    si[d] = floormod(rest, i64(sp[d]));
    rest = floordiv(rest, i64(sp[d]));
  }
  Expr n = floordiv(rest, i64(blocks)), cb = floormod(rest, i64(blocks));
  if (rank >= 2) si[rank - 2] = h;
  si[rank - 1] = w;
  // Y's index expressions in the loop vars, in Y's dim order.
  std::vector<Expr> yi = {n, to_blocked ? cb : cb * block + l};
  yi.insert(yi.end(), si.begin(), si.end());
  if (to_blocked) yi.push_back(l);
  const std::vector<int64_t> yshape = const_shape(y);
  std::vector<IterVar> iters;
  std::vector<Expr> bindings, store_index;
  for (size_t d = 0; d < yshape.size(); ++d) {
    if (yshape[d] == 1) {
      store_index.push_back(i64(0));
      continue;
    }
    Var v(fmt::format("v{}", d));
    iters.push_back({v, i64(0), i64(yshape[d]), IterKind::kSpatial});
    bindings.push_back(yi[d]);
    store_index.push_back(v);
  }
  // X's index in Y's iter vars.
  Expr vn = store_index[0], vc = store_index[1];
  std::vector<Expr> vsp(store_index.begin() + 2, store_index.begin() + 2 + std::ptrdiff_t(rank));
  Expr value;
  Expr predicate = make_const(DataType::boolean(), 1);
  if (to_blocked) {
    // Padding lanes read a clamped channel (so the load stays in bounds) and store 0.
    Expr c = vc * block + store_index.back();
    Expr safe = channels % block == 0 ? c : min(c, i64(channels - 1));
    std::vector<Expr> xi = {vn, safe};
    xi.insert(xi.end(), vsp.begin(), vsp.end());
    value = x.load(xi);
    if (channels % block != 0) value = select(c < i64(channels), value, make_const(y->dtype, 0));
  } else {
    std::vector<Expr> xi = {vn, floordiv(vc, i64(block))};
    xi.insert(xi.end(), vsp.begin(), vsp.end());
    xi.push_back(floormod(vc, i64(block)));
    value = x.load(xi);
    if (channels % block != 0) predicate = cb * block + l < i64(channels);
  }
  // Bindings in their simplest form (cb = t when the image and depth are single).
  arith::Analyzer ranges;
  ranges.bind(t, i64(0), i64(extent));
  ranges.bind(l, i64(0), i64(block));
  for (Expr& b : bindings) b = ranges.simplify(b);
  Stmt body = BlockRealize::make(
      bindings, predicate, make_block("compute", iters, BufferStore::make(y, value, store_index)));
  // Serial loops, innermost first; a loop of one iteration is its index 0.
  std::vector<std::pair<Var, int64_t>> loops = {{w, sp.back()}, {l, block}};
  if (rank >= 2) loops.push_back({h, sp[rank - 2]});
  loops.push_back({t, extent});
  VarMap unit;
  for (const auto& [v, e] : loops) {
    if (e == 1)
      unit[v.node()] = i64(0);
    else
      body = For::make(v, i64(0), i64(e), ForKind::kSerial, body);
  }
  return unit.empty() ? body : substitute(body, unit);
}

}  // namespace ingot::lower

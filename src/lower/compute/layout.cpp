// Compute rules of the channel-blocked layout conversions (graph pass layout_nchwc):
// LayoutToBlocked  Y[n, cb, [d,] [h,] w, l] = X[n, cb * B + l, [d,] [h,] w] (0 in the padding
// lanes) and LayoutFromBlocked Y[n, c, ..., w] = X[n, c / B, ..., w, c % B], for 1-D to 3-D
// images. Both run (image, channel block[, depth]) in parallel and, per row, lane by lane with
// the pixels vectorized: one side contiguous, the other strided by B within a row that stays in
// L1 (no per-element division).
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

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
  // Parallel over (n, channel block, spatial dims but the last two); then the row, the lanes
  // and the pixels of the row.
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
  Expr c = cb * block + l;
  auto index = [&](const Expr& channel, const Expr& lane, const Expr& col) {
    std::vector<Expr> idx = {n, channel};
    idx.insert(idx.end(), si.begin(), si.end() - 1);
    idx.push_back(col);
    if (lane.defined()) idx.push_back(lane);
    return idx;
  };
  std::vector<Expr> pi = index(c, Expr(), w), bi = index(cb, l, w);
  Stmt store =
      to_blocked ? BufferStore::make(y, x.load(pi), bi) : BufferStore::make(y, x.load(bi), pi);
  Stmt row = For::make(w, i64(0), i64(sp.back()), ForKind::kVectorized, store);
  if (channels % block != 0) {
    Var wz("w");
    Stmt zeros = For::make(wz, i64(0), i64(sp.back()), ForKind::kVectorized,
                           BufferStore::make(y, make_const(y->dtype, 0), index(cb, l, wz)));
    row = IfThenElse::make(c < i64(channels), row, to_blocked ? zeros : Stmt());
  }
  Stmt body = For::make(l, i64(0), i64(block), ForKind::kSerial, row);
  if (rank >= 2) body = For::make(h, i64(0), i64(sp[rank - 2]), ForKind::kSerial, body);
  return For::make(t, i64(0), i64(extent), ForKind::kParallel, body);
}

}  // namespace ingot::lower

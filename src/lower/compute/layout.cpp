// Compute rules of the channel-blocked layout conversions (graph pass layout_nchwc):
// LayoutToBlocked  Y[n, cb, h, w, l] = X[n, cb * B + l, h, w] (0 in the padding lanes) and
// LayoutFromBlocked Y[n, c, h, w] = X[n, c / B, h, w, c % B]. Both run (image, channel block)
// pairs in parallel and, per row, lane by lane with the pixels vectorized: one side contiguous,
// the other strided by B within a row that stays in L1 (no per-element division).
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
  INGOT_ICHECK(plain.size() == 4 && blocked.size() == 5, "{}: only 2-D images are blocked",
               node_label(node));
  int64_t channels = plain[1], blocks = blocked[1], block = blocked[4];
  Var nb("nb"), h("h"), l("l"), w("w");
  Expr n = floordiv(nb, i64(blocks)), cb = floormod(nb, i64(blocks));
  Expr c = cb * block + l;
  std::vector<Expr> pi = {n, c, h, w}, bi = {n, cb, h, w, l};
  Stmt store =
      to_blocked ? BufferStore::make(y, x.load(pi), bi) : BufferStore::make(y, x.load(bi), pi);
  Stmt row = For::make(w, i64(0), i64(plain[3]), ForKind::kVectorized, store);
  if (channels % block != 0) {
    Var wz("w");
    Stmt zeros = For::make(wz, i64(0), i64(plain[3]), ForKind::kVectorized,
                           BufferStore::make(y, make_const(y->dtype, 0), {n, cb, h, wz, l}));
    row = IfThenElse::make(c < i64(channels), row, to_blocked ? zeros : Stmt());
  }
  Stmt lanes = For::make(l, i64(0), i64(block), ForKind::kSerial, row);
  Stmt rows = For::make(h, i64(0), i64(plain[2]), ForKind::kSerial, lanes);
  return For::make(nb, i64(0), i64(plain[0] * blocks), ForKind::kParallel, rows);
}

}  // namespace ingot::lower

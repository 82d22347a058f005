// Shared helpers of the scheduled-kernel builders (see layout_kernels.h).
#include "lower/scheduled/layout_kernels.h"

#include <cstring>

#include "tir/op.h"

namespace ingot::lower {

using namespace tir;

graph::TensorPtr f32_tensor(std::vector<int64_t> shape, const std::vector<float>& data) {
  std::vector<uint8_t> bytes(data.size() * sizeof(float));
  std::memcpy(bytes.data(), data.data(), bytes.size());
  return std::make_shared<graph::Tensor>(graph::DType::kF32, std::move(shape), std::move(bytes));
}

Buffer f32_buffer(const std::string& name, const std::vector<int64_t>& shape) {
  return Buffer::make(name, DataType::f32(), shape);
}

Stmt loop(const Var& v, int64_t extent, Stmt body, ForKind kind) {
  return For::make(v, i64(0), i64(extent), kind, std::move(body));
}

// Xp[n, c, h, w] = X[n, c, h - top, w - left] inside, 0 outside. Per row: the padding rows are
// zeroed, the others get the left zeros, a contiguous copy and the right zeros (no per-element
// bounds checks, so each part vectorizes).
PrimFunc pad_kernel(const std::vector<int64_t>& xs, const std::vector<int64_t>& ps, int64_t top,
                    int64_t left) {
  Buffer x = f32_buffer("X", xs), xp = f32_buffer("Xp", ps);
  Var nc("nc"), h("h"), w0("w0"), w1("w1"), w2("w2"), w3("w3");
  Expr n = floordiv(nc, i64(ps[1])), c = floormod(nc, i64(ps[1]));
  Expr zero = make_const(DataType::f32(), 0);
  int64_t right = ps[3] - left - xs[3];
  std::vector<Stmt> row;
  if (left > 0) row.push_back(loop(w0, left, BufferStore::make(xp, zero, {n, c, h, w0})));
  row.push_back(
      loop(w1, xs[3],
           BufferStore::make(xp, x.load({n, c, Expr(h) - top, w1}), {n, c, h, Expr(w1) + left}),
           ForKind::kVectorized));
  if (right > 0)
    row.push_back(
        loop(w2, right, BufferStore::make(xp, zero, {n, c, h, Expr(w2) + (left + xs[3])})));
  Stmt zero_row = loop(w3, ps[3], BufferStore::make(xp, zero, {n, c, h, w3}), ForKind::kVectorized);
  Expr inside = (Expr(h) >= i64(top)) && (Expr(h) < i64(top + xs[2]));
  Stmt body = loop(h, ps[2], IfThenElse::make(inside, SeqStmt::make(row), zero_row));
  PrimFunc f;
  f.params = {x, xp};
  f.body = loop(nc, ps[0] * ps[1], body, ForKind::kParallel);
  return f;
}

}  // namespace ingot::lower

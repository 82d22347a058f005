// Shared helpers of the scheduled-kernel builders (see layout_kernels.h).
#include "lower/scheduled/layout_kernels.h"

#include <cstring>

#include "support/error.h"
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

// Xp[i...] = X[i... - before] inside, 0 outside. Per row (the last dim): the rows outside X are
// zeroed, the others get the left zeros, a contiguous copy and the right zeros (no per-element
// bounds checks, so each part vectorizes). The dims before the last two run in parallel.
PrimFunc pad_kernel(const std::vector<int64_t>& xs, const std::vector<int64_t>& ps,
                    const std::vector<int64_t>& before) {
  size_t rank = ps.size();
  INGOT_ICHECK(rank >= 2 && xs.size() == rank && before.size() == rank,
               "pad_kernel: shapes {} -> {} with {} leading pads", xs.size(), rank, before.size());
  Buffer x = f32_buffer("X", xs), xp = f32_buffer("Xp", ps);
  Var t("nc"), h("h"), w0("w0"), w1("w1"), w2("w2"), w3("w3");
  std::vector<Expr> pi(rank - 1);
  Expr rest = t;
  int64_t extent = 1;
  for (size_t d = rank - 2; d-- > 0;) {
    extent *= ps[d];
    pi[d] = d == 0 ? rest : floormod(rest, i64(ps[d]));
    rest = floordiv(rest, i64(ps[d]));
  }
  pi[rank - 2] = h;
  Expr inside;
  std::vector<Expr> xi(rank - 1);
  for (size_t d = 0; d + 1 < rank; ++d) {
    xi[d] = before[d] ? pi[d] - before[d] : pi[d];
    if (ps[d] == xs[d]) continue;
    Expr in = (pi[d] >= i64(before[d])) && (pi[d] < i64(before[d] + xs[d]));
    inside = inside.defined() ? (inside && in) : in;
  }
  auto at = [](std::vector<Expr> idx, const Expr& col) {
    idx.push_back(col);
    return idx;
  };
  Expr zero = make_const(DataType::f32(), 0);
  int64_t left = before.back(), right = ps.back() - left - xs.back();
  std::vector<Stmt> row;
  if (left > 0) row.push_back(loop(w0, left, BufferStore::make(xp, zero, at(pi, w0))));
  row.push_back(loop(w1, xs.back(),
                     BufferStore::make(xp, x.load(at(xi, w1)), at(pi, Expr(w1) + left)),
                     ForKind::kVectorized));
  if (right > 0)
    row.push_back(
        loop(w2, right, BufferStore::make(xp, zero, at(pi, Expr(w2) + (left + xs.back())))));
  Stmt body = SeqStmt::make(row);
  if (inside.defined()) {
    Stmt zero_row =
        loop(w3, ps.back(), BufferStore::make(xp, zero, at(pi, w3)), ForKind::kVectorized);
    body = IfThenElse::make(inside, body, zero_row);
  }
  PrimFunc f;
  f.params = {x, xp};
  f.body = loop(t, extent, loop(h, ps[rank - 2], body), ForKind::kParallel);
  return f;
}

PrimFunc pad_kernel(const std::vector<int64_t>& xs, const std::vector<int64_t>& ps, int64_t top,
                    int64_t left) {
  return pad_kernel(xs, ps, std::vector<int64_t>{0, 0, top, left});
}

}  // namespace ingot::lower

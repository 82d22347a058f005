// Shared helpers of the scheduled-kernel builders (see layout_kernels.h).
#include "lower/scheduled/layout_kernels.h"

#include <cstring>

#include "lower/compute/common.h"
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

// Xp[i...] = X[i... - before] inside, 0 outside. A row block per (leading dims, row) whose loop
// kinds the injective rule sets (by default the leading dims' loop parallel): the rows outside X
// are zeroed, the others get the left zeros, a contiguous copy and the right zeros (no
// per-element bounds checks, so the copy and the zero rows are lane loops that vectorize).
PrimFunc pad_kernel(const std::vector<int64_t>& xs, const std::vector<int64_t>& ps,
                    const std::vector<int64_t>& before) {
  size_t rank = ps.size();
  INGOT_ICHECK(rank >= 2 && xs.size() == rank && before.size() == rank,
               "pad_kernel: shapes {} -> {} with {} leading pads", xs.size(), rank, before.size());
  Buffer x = f32_buffer("X", xs), xp = f32_buffer("Xp", ps);
  int64_t extent = 1;
  for (size_t d = 0; d + 2 < rank; ++d) extent *= ps[d];
  auto at = [](std::vector<Expr> idx, const Expr& col) {
    idx.push_back(col);
    return idx;
  };
  Expr zero = make_const(DataType::f32(), 0);
  int64_t left = before.back(), right = ps.back() - left - xs.back();
  auto row = [&](const Index& t) {
    std::vector<Expr> pi(rank - 1);
    Expr rest = t[0];
    for (size_t d = rank - 2; d-- > 0;) {
      pi[d] = d == 0 ? rest : floormod(rest, i64(ps[d]));
      rest = floordiv(rest, i64(ps[d]));
    }
    pi[rank - 2] = t[1];
    Expr inside;
    std::vector<Expr> xi(rank - 1);
    for (size_t d = 0; d + 1 < rank; ++d) {
      xi[d] = before[d] ? pi[d] - before[d] : pi[d];
      if (ps[d] == xs[d]) continue;
      Expr in = (pi[d] >= i64(before[d])) && (pi[d] < i64(before[d] + xs[d]));
      inside = inside.defined() ? (inside && in) : in;
    }
    std::vector<Stmt> parts;
    if (left > 0)
      parts.push_back(serial_loop("w0", i64(0), left,
                                  [&](Expr w) { return BufferStore::make(xp, zero, at(pi, w)); }));
    parts.push_back(lane_loop("w1", i64(0), xs.back(), [&](Expr w) {
      return BufferStore::make(xp, x.load(at(xi, w)), at(pi, w + left));
    }));
    if (right > 0)
      parts.push_back(serial_loop("w2", i64(0), right, [&](Expr w) {
        return BufferStore::make(xp, zero, at(pi, w + (left + xs.back())));
      }));
    Stmt body = SeqStmt::make(parts);
    if (!inside.defined()) return body;
    Stmt zero_row = lane_loop("w3", i64(0), ps.back(),
                              [&](Expr w) { return BufferStore::make(xp, zero, at(pi, w)); });
    return IfThenElse::make(inside, body, zero_row);
  };
  PrimFunc f;
  f.params = {x, xp};
  f.body = loop_nest({extent, ps[rank - 2]}, "nc", row);
  return f;
}

PrimFunc pad_kernel(const std::vector<int64_t>& xs, const std::vector<int64_t>& ps, int64_t top,
                    int64_t left) {
  return pad_kernel(xs, ps, std::vector<int64_t>{0, 0, top, left});
}

}  // namespace ingot::lower

// Compute rule of Col2Im, written as a gather so each output pixel is computed once: pixel i
// (per spatial dim) receives the column value of kernel offset k and block b exactly when
// i + pad_begin = b * stride + k * dilation with b inside the block grid, so per output element
// a loop over the kernel offsets tests that and sums in kernel-offset order. The image dims come
// from the output's shape and the block extents are expressions, so one nest serves constant
// image_shape / block_shape and the caller's (value symbols, ops/value_symbols.h).
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"
#include "tir/arith/analyzer.h"

namespace ingot::lower {

using namespace tir;

Stmt compute_col2im_blocks(const graph::Node& node, const std::vector<Buffer>& inputs,
                           const std::vector<Buffer>& outputs, const std::vector<Expr>& block) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kNumeric);
  std::vector<int64_t> dil = node.attrs.get_ints("dilations");
  std::vector<int64_t> strides = node.attrs.get_ints("strides");
  std::vector<int64_t> pads = node.attrs.get_ints("pads");
  size_t r = block.size();
  INGOT_ICHECK(
      size_t(y.ndim()) == r + 2 && dil.size() == r && strides.size() == r && pads.size() == 2 * r,
      "{}: Col2Im attributes do not match output rank {}", node_label(node), y.ndim());
  std::vector<Expr> cols(r);
  Expr kernel_size = i64(1);
  for (size_t d = 0; d < r; ++d) {
    Expr span = i64(dil[d]) * (block[d] - i64(1)) + i64(1);
    cols[d] = arith::simplify(
        floordiv(y->shape[2 + d] + i64(pads[d] + pads[r + d]) - span, i64(strides[d])) + i64(1));
    kernel_size = arith::simplify(kernel_size * block[d]);
  }
  DataType at = accum_dtype(y->dtype);
  return loop_nest(Extents{y->shape}, "o", [&](const Index& o) {
    Accumulator acc("acc", at);
    Stmt taps = serial_nest(Extents{block}, "k", [&](const Index& k) {
      Expr valid, col, kflat;
      for (size_t d = 0; d < r; ++d) {
        Expr t = o[2 + d] + i64(pads[d]) - k[d] * i64(dil[d]);
        Expr b = floordiv(t, i64(strides[d]));
        Expr ok = t >= i64(0) && b < cols[d];
        if (strides[d] != 1) ok = ok && floormod(t, i64(strides[d])) == i64(0);
        valid = valid.defined() ? (valid && ok) : ok;
        col = col.defined() ? col * cols[d] + b : b;
        kflat = kflat.defined() ? kflat * block[d] + k[d] : k[d];
      }
      Expr ch = o[1] * kernel_size + kflat;
      return IfThenElse::make(valid, acc.set(acc.get() + cast(at, x.load({o[0], ch, col}))));
    });
    return acc.scope(SeqStmt::make(
        {acc.set(make_const(at, 0)), taps, BufferStore::make(y, cast(y->dtype, acc.get()), o)}));
  });
}

Stmt compute_col2im(const graph::Node& node, const std::vector<Buffer>& inputs,
                    const std::vector<Buffer>& outputs) {
  std::vector<Expr> block;
  for (int64_t b : node.attrs.get_ints("block_shape")) block.push_back(i64(b));
  return compute_col2im_blocks(node, inputs, outputs, block);
}

}  // namespace ingot::lower

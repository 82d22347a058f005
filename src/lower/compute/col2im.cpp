// Compute rule of Col2Im, written as a gather so each output pixel is computed once: pixel i
// (per spatial dim) receives the column value of kernel offset k and block b exactly when
// i + pad_begin = b * stride + k * dilation with b inside the block grid, so per output element
// a loop over the kernel offsets tests that and sums in kernel-offset order.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

Stmt compute_col2im(const graph::Node& node, const std::vector<Buffer>& inputs,
                    const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kNumeric);
  std::vector<int64_t> ys = const_shape(y);
  std::vector<int64_t> block = node.attrs.get_ints("block_shape");
  std::vector<int64_t> dil = node.attrs.get_ints("dilations");
  std::vector<int64_t> strides = node.attrs.get_ints("strides");
  std::vector<int64_t> pads = node.attrs.get_ints("pads");
  size_t r = block.size();
  INGOT_ICHECK(ys.size() == r + 2 && dil.size() == r && strides.size() == r && pads.size() == 2 * r,
               "{}: Col2Im attributes do not match output rank {}", node_label(node), ys.size());
  std::vector<int64_t> cols(r);
  int64_t kernel_size = 1;
  for (size_t d = 0; d < r; ++d) {
    int64_t span = dil[d] * (block[d] - 1) + 1;
    cols[d] = (ys[2 + d] + pads[d] + pads[r + d] - span) / strides[d] + 1;
    kernel_size *= block[d];
  }
  DataType at = accum_dtype(y->dtype);
  return loop_nest(
      ys, "o",
      [&](const Index& o) {
        Accumulator acc("acc", at);
        Stmt taps = loop_nest(block, "k",
                              [&](const Index& k) {
                                Expr valid, col, kflat;
                                for (size_t d = 0; d < r; ++d) {
                                  Expr t = o[2 + d] + i64(pads[d]) - k[d] * i64(dil[d]);
                                  Expr b = floordiv(t, i64(strides[d]));
                                  Expr ok = t >= i64(0) && b < i64(cols[d]);
                                  if (strides[d] != 1)
                                    ok = ok && floormod(t, i64(strides[d])) == i64(0);
                                  valid = valid.defined() ? (valid && ok) : ok;
                                  col = col.defined() ? col * i64(cols[d]) + b : b;
                                  kflat = kflat.defined() ? kflat * i64(block[d]) + k[d] : k[d];
                                }
                                Expr ch = o[1] * i64(kernel_size) + kflat;
                                return IfThenElse::make(
                                    valid, acc.set(acc.get() + cast(at, x.load({o[0], ch, col}))));
                              },
                              {.parallel_outer = false, .vectorize_inner = false});
        return acc.scope(SeqStmt::make({acc.set(make_const(at, 0)), taps,
                                        BufferStore::make(y, cast(y->dtype, acc.get()), o)}));
      },
      {.parallel_outer = true, .vectorize_inner = false});
}

}  // namespace ingot::lower

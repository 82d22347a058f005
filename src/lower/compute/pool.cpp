// Compute rules of MaxPool (with the optional Indices output: the first maximum's flat index into
// X, spatial dims row-major or, for storage_order 1, column-major), AveragePool (pads, strides,
// dilations; ceil_mode is already in the output shape; count_include_pad counts window
// positions inside the padded input), LpPool ((sum of |x|^p over the window)^(1/p), padding
// contributing 0), GlobalAveragePool, GlobalMaxPool and MaxUnpool (a zero fill, then a serial
// scatter of X to the flat indices I of the unpooled shape, placed at the start of each dim of
// an explicit, larger output_shape as ONNX's reference does).
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "lower/compute/pool_window.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;
using ops::OpKind;

namespace {

Expr conj(Expr a, Expr b) {
  return a.defined() ? (a && b) : b;
}

}  // namespace

Stmt compute_pool(const graph::Node& node, const std::vector<Buffer>& inputs,
                  const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  bool is_max = node.op == OpKind::MaxPool;
  bool is_lp = node.op == OpKind::LpPool;
  int64_t p = node.attrs.get_int("p", 2);
  check_dtype(node, x, is_max ? DTypeClass::kNumeric : DTypeClass::kFloat);
  Buffer indices = outputs.size() > 1 ? outputs[1] : Buffer();
  bool column_major = node.attrs.get_int("storage_order", 0) != 0;
  std::vector<int64_t> xs = const_shape(x), ys = const_shape(y);
  int k = int(xs.size()) - 2;
  PoolWindow win(node, {xs.begin() + 2, xs.end()}, {ys.begin() + 2, ys.end()});
  const std::vector<int64_t>& kernel = win.kernel;
  bool include_pad = win.include_pad;
  DataType dt = y->dtype;
  // Strides of the spatial dims in the flat index of the Indices output.
  std::vector<int64_t> index_strides(size_t(k), 1);
  for (int d = 0; d < k; ++d)
    for (int e = 0; e < k; ++e)
      if (column_major ? e < d : e > d) index_strides[size_t(d)] *= xs[size_t(2 + e)];
  int64_t plane = 1;
  for (int d = 0; d < k; ++d) plane *= xs[size_t(2 + d)];

  return loop_nest(ys, "o", [&](const Index& o) {
    Accumulator acc("acc", dt), count("count", dt), arg("arg", DataType::i64());
    Stmt window = serial_nest(kernel, "w", [&](const Index& w) {
      Index xi = {o[0], o[1]};
      Expr valid, in_padded;
      for (int d = 0; d < k; ++d) {
        PoolWindow::Tap t = win.tap(d, o[2 + d], w[d]);
        xi.push_back(t.index);
        if (t.valid.defined()) valid = conj(valid, t.valid);
        if (t.in_padded.defined()) in_padded = conj(in_padded, t.in_padded);
      }
      Stmt update;
      if (is_max && indices.defined()) {
        // The first maximum wins (a later equal value does not replace it).
        Expr v = x.load(xi);
        Expr flat = (o[0] * i64(xs[1]) + o[1]) * i64(plane);
        for (int d = 0; d < k; ++d) flat = flat + xi[size_t(2 + d)] * i64(index_strides[d]);
        update = IfThenElse::make(arg.get() < i64(0) || v > acc.get(),
                                  SeqStmt::make({acc.set(v), arg.set(flat)}));
      } else if (is_max) {
        update = acc.set(max(acc.get(), x.load(xi)));
      } else if (is_lp) {
        Expr v = x.load(xi);
        Expr term = p == 1 ? fabs(v) : p == 2 ? v * v : pow(fabs(v), make_const(dt, double(p)));
        update = acc.set(acc.get() + term);
      } else {
        update = acc.set(acc.get() + x.load(xi));
        if (!include_pad) update = SeqStmt::make({update, count.set(count.get() + 1.0)});
      }
      if (valid.defined()) update = IfThenElse::make(valid, update);
      if (!is_max && include_pad) {
        Stmt c = count.set(count.get() + 1.0);
        if (in_padded.defined()) c = IfThenElse::make(in_padded, c);
        update = SeqStmt::make({update, c});
      }
      return update;
    });
    if (is_max && indices.defined()) {
      Stmt body = SeqStmt::make({acc.set(min_value(dt)), arg.set(i64(-1)), window,
                                 BufferStore::make(y, acc.get(), o),
                                 BufferStore::make(indices, arg.get(), o)});
      return acc.scope(arg.scope(body));
    }
    if (is_max) {
      Stmt body =
          SeqStmt::make({acc.set(min_value(dt)), window, BufferStore::make(y, acc.get(), o)});
      return acc.scope(body);
    }
    if (is_lp) {
      Expr r = p == 1   ? acc.get()
               : p == 2 ? sqrt(acc.get())
                        : pow(acc.get(), make_const(dt, 1.0 / double(p)));
      return acc.scope(
          SeqStmt::make({acc.set(make_const(dt, 0)), window, BufferStore::make(y, r, o)}));
    }
    Stmt body =
        SeqStmt::make({acc.set(make_const(dt, 0)), count.set(make_const(dt, 0)), window,
                       BufferStore::make(y, acc.get() / max(count.get(), make_const(dt, 1)), o)});
    return acc.scope(count.scope(body));
  });
}

Stmt compute_global_pool(const graph::Node& node, const std::vector<Buffer>& inputs,
                         const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  bool is_max = node.op == OpKind::GlobalMaxPool;
  check_dtype(node, x, is_max ? DTypeClass::kNumeric : DTypeClass::kFloat);
  std::vector<int64_t> xs = const_shape(x);
  std::vector<int64_t> spatial(xs.begin() + 2, xs.end());
  DataType dt = y->dtype;
  Expr count = is_max ? Expr() : make_const(dt, double(num_elements(spatial)));
  return loop_nest({xs[0], xs[1]}, "o", [&](const Index& o) {
    Accumulator acc("acc", dt);
    Stmt sum = serial_nest(spatial, "r", [&](const Index& r) {
      Index xi = o;
      xi.insert(xi.end(), r.begin(), r.end());
      Expr v = x.load(xi);
      return acc.set(is_max ? max(acc.get(), v) : acc.get() + v);
    });
    Index yi = o;
    yi.resize(xs.size(), i64(0));
    Expr init = is_max ? min_value(dt) : make_const(dt, 0);
    Expr result = is_max ? acc.get() : acc.get() / count;
    return acc.scope(SeqStmt::make({acc.set(init), sum, BufferStore::make(y, result, yi)}));
  });
}

Stmt compute_max_unpool(const graph::Node& node, const std::vector<Buffer>& inputs,
                        const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& idx = inputs.at(1);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kFloat);
  std::vector<int64_t> xs = const_shape(x);  // (the output's dims may be the caller's: symbolic)
  size_t k = xs.size() - 2;
  std::vector<int64_t> kernel = node.attrs.get_ints("kernel_shape");
  std::vector<int64_t> strides = node.attrs.get_ints("strides", std::vector<int64_t>(k, 1));
  std::vector<int64_t> pads = node.attrs.get_ints("pads", std::vector<int64_t>(2 * k, 0));
  INGOT_ICHECK(kernel.size() == k && strides.size() == k && pads.size() == 2 * k,
               "{}: unpooling attributes do not match the spatial rank {}", node_label(node), k);
  // The unpooled shape the indices refer to (ONNX's reference: output_shape only pads it).
  std::vector<int64_t> unpooled = {xs[0], xs[1]};
  for (size_t d = 0; d < k; ++d)
    unpooled.push_back((xs[2 + d] - 1) * strides[d] - (pads[d] + pads[k + d]) + kernel[d]);
  for (size_t d = 0; d < unpooled.size(); ++d) {
    int64_t yd = 0;
    INGOT_ICHECK(!is_const_int(y->shape[d], &yd) || unpooled[d] <= yd,
                 "{}: output dim {} ({}) is below the unpooled size {}", node_label(node), d, yd,
                 unpooled[d]);
  }
  std::vector<int64_t> ustr = row_major_strides(unpooled);
  int64_t total = num_elements(unpooled);
  Stmt zero = loop_nest(Extents(y->shape), "z", [&](const Index& o) {
    return BufferStore::make(y, make_const(y->dtype, 0), o);
  });
  Stmt scatter = serial_nest(xs, "i", [&](const Index& i) {
    Expr f = cast(DataType::i64(), idx.load(i));
    Index yi;
    for (size_t d = 0; d < unpooled.size(); ++d) {
      Expr q = ustr[d] == 1 ? f : floordiv(f, i64(ustr[d]));
      yi.push_back(d == 0 ? q : floormod(q, i64(unpooled[d])));
    }
    return IfThenElse::make(f >= i64(0) && f < i64(total), BufferStore::make(y, x.load(i), yi));
  });  // later duplicates win, in order
  return SeqStmt::make({zero, scatter});
}

}  // namespace ingot::lower

// NonZero, Compress, Unique and NonMaxSuppression as counting and filling kernels (see the header).
#include "lower/lower_data_dependent.h"

#include <fmt/format.h>

#include <optional>

#include "lower/compute/common.h"
#include "ops/value_symbols.h"
#include "support/error.h"
#include "tir/op.h"

namespace ingot::lower {

namespace {

using tir::Buffer;
using tir::Expr;
using tir::Stmt;

Expr is_true(const Expr& v) {
  return v != tir::make_const(v.dtype(), 0);
}

// The counting kernel: count = the number of `hit(i)` over i in [0, extent), stored into the
// data symbol's slot.
void add_count_kernel(const graph::Node& node, LoweringHost& host, const std::string& symbol,
                      const std::vector<const graph::Value*>& reads,
                      const std::vector<Buffer>& params, const Expr& extent,
                      const std::function<Expr(const Expr&)>& hit) {
  const graph::Value& slot = host.symbol_slot(symbol);
  Buffer count = Buffer::make("count", tir::DataType::i64(), std::vector<int64_t>{1});
  Accumulator n("n", tir::DataType::i64());
  Stmt loop = serial_loop("i", tir::i64(0), extent, [&](const Expr& i) {
    return n.set(n.get() + tir::select(hit(i), tir::i64(1), tir::i64(0)));
  });
  tir::PrimFunc f;
  f.params = params;
  f.params.push_back(count);
  f.body = n.scope(tir::SeqStmt::make(
      {n.set(tir::i64(0)), loop, tir::BufferStore::make(count, n.get(), {tir::i64(0)})}));
  f.name =
      host.unique_name(fmt::format("{}_{}_count", host.name_of(node.name), ops::op_name(node.op)));
  f.source_ops = {fmt::format("{} (count)", ops::op_name(node.op))};
  std::vector<const graph::Value*> values = reads;
  values.push_back(&slot);
  host.add_kernel(std::move(f), std::move(values));
}

// The filling kernel: `body(j)` at each position, j counting the hits so far.
void add_fill_kernel(const graph::Node& node, LoweringHost& host,
                     const std::vector<const graph::Value*>& values,
                     const std::vector<Buffer>& params, const Expr& extent,
                     const std::function<Expr(const Expr&)>& hit,
                     const std::function<Stmt(const Expr& i, const Expr& j)>& write) {
  Accumulator j("j", tir::DataType::i64());
  Stmt loop = serial_loop("i", tir::i64(0), extent, [&](const Expr& i) {
    return tir::IfThenElse::make(
        hit(i), tir::SeqStmt::make({write(i, j.get()), j.set(j.get() + tir::i64(1))}));
  });
  tir::PrimFunc f;
  f.params = params;
  f.body = j.scope(tir::SeqStmt::make({j.set(tir::i64(0)), loop}));
  f.name = host.unique_name(fmt::format("{}_{}", host.name_of(node.name), ops::op_name(node.op)));
  f.source_ops = {ops::op_name(node.op)};
  host.add_kernel(std::move(f), values);
}

// NonZero(X): y[d, j] = the d-th coordinate of X's j-th non-zero element, row-major.
void lower_non_zero(const graph::Node& node, LoweringHost& host) {
  const graph::Value* x = node.inputs[0];
  const graph::Value* y = node.outputs[0];
  const std::string symbol = ops::value_dim(node, 0, 1).sym().symbol_name();
  Buffer xf = host.param_buffer(x, true);
  const Expr numel = xf->shape[0];
  auto hit = [&](const Expr& i) { return is_true(xf.load({i})); };
  add_count_kernel(node, host, symbol, {x}, {xf}, numel, hit);
  Buffer yb = host.param_buffer(y, false);
  std::vector<Expr> dims = host.symbols().shape(x->type);
  add_fill_kernel(node, host, {x, y}, {xf, yb}, numel, hit, [&](const Expr& i, const Expr& j) {
    std::vector<Stmt> stores;
    Expr rest = i;
    for (size_t d = dims.size(); d-- > 0;) {  // the coordinates, innermost first
      stores.push_back(
          tir::BufferStore::make(yb, tir::floormod(rest, dims[d]), {tir::i64(int64_t(d)), j}));
      rest = tir::floordiv(rest, dims[d]);
    }
    return tir::SeqStmt::make(stores);
  });
}

// Compress(input, condition[, axis]): the slices (elements without an axis) whose condition is
// true, in order; positions past the condition's end are not kept.
void lower_compress(const graph::Node& node, LoweringHost& host) {
  const graph::Value* x = node.inputs[0];
  const graph::Value* c = node.inputs[1];
  const graph::Value* y = node.outputs[0];
  const bool has_axis = node.attrs.has("axis");
  const int axis = has_axis ? int(node.attrs.get_int("axis", 0)) : 0;
  const std::string symbol = ops::value_dim(node, 0, axis).sym().symbol_name();
  Buffer cb = host.param_buffer(c, true);
  Buffer xb = host.param_buffer(x, !has_axis);
  Buffer yb = host.param_buffer(y, false);
  const Expr length = has_axis ? xb->shape[size_t(axis)] : xb->shape[0];
  const Expr extent = tir::min(length, cb->shape[0]);
  auto hit = [&](const Expr& i) { return is_true(cb.load({i})); };
  add_count_kernel(node, host, symbol, {c}, {cb}, extent, hit);
  add_fill_kernel(node, host, {c, x, y}, {cb, xb, yb}, extent, hit,
                  [&](const Expr& i, const Expr& j) {
                    if (!has_axis) return tir::BufferStore::make(yb, xb.load({i}), {j});
                    std::vector<Expr> rest = xb->shape;  // the slice: every other dim
                    rest[size_t(axis)] = tir::i64(1);
                    return serial_nest(Extents(rest), "k", [&](const Index& o) {
                      Index src = o, dst = o;
                      src[size_t(axis)] = i;
                      dst[size_t(axis)] = j;
                      return tir::BufferStore::make(yb, xb.load(src), dst);
                    });
                  });
}

// Unique over `positions` slices of `slice` elements each (X flattened: slices of one element),
// slice i's element k at flat index (k / inner) * (positions * inner) + i * inner + k % inner.
struct Slices {
  Expr positions, slice, inner;
  Expr at(const Expr& i, const Expr& k, const Expr& count) const {
    return tir::floordiv(k, inner) * (count * inner) + i * inner + tir::floormod(k, inner);
  }
};

// order = -1, 0 or 1 as slice a is lexicographically below, equal to or above slice b.
Stmt compare_slices(const Buffer& x, const Slices& s, const Expr& a, const Expr& b,
                    const Accumulator& order) {
  Stmt loop = serial_loop("k", tir::i64(0), s.slice, [&](const Expr& k) {
    Expr va = x.load({s.at(a, k, s.positions)}), vb = x.load({s.at(b, k, s.positions)});
    Expr step = tir::select(va < vb, tir::i64(-1), tir::select(vb < va, tir::i64(1), tir::i64(0)));
    return order.set(tir::select(order.get() == tir::i64(0), step, order.get()));
  });
  return tir::SeqStmt::make({order.set(tir::i64(0)), loop});
}

// Unique(X): a counting kernel that also marks, in `first` (inverse_indices, or a scratch),
// each slice's earlier equal slice (-1 for a first occurrence); then a filling kernel that ranks
// the first occurrences (ascending, or in order), writes Y, indices and counts, and turns the
// marks into inverse_indices.
void lower_unique(const graph::Node& node, LoweringHost& host) {
  const graph::Value* x = node.inputs[0];
  const bool has_axis = node.attrs.has("axis");
  const int axis = has_axis ? int(node.attrs.get_int("axis", 0)) : 0;
  const bool sorted = node.attrs.get_int("sorted", 1) != 0;
  const std::string symbol = ops::value_dim(node, 0, axis).sym().symbol_name();
  const SymbolTable& symbols = host.symbols();
  const Expr count = symbols.expr(graph::SymExpr::symbol(symbol));
  Slices s{tir::i64(1), tir::i64(1), tir::i64(1)};
  std::vector<Expr> dims = symbols.shape(x->type);
  if (has_axis) {
    s.positions = dims[size_t(axis)];
    for (int d = 0; d < int(dims.size()); ++d)
      if (d != axis) s.slice = s.slice * dims[size_t(d)];
    for (int d = axis + 1; d < int(dims.size()); ++d) s.inner = s.inner * dims[size_t(d)];
  } else {
    for (const Expr& d : dims) s.positions = s.positions * d;
  }
  Buffer xb = host.param_buffer(x, true);
  // inverse_indices holds the marks; without that output, a scratch of the same shape does.
  const graph::Value* inverse = node.outputs.size() > 2 ? node.outputs[2] : nullptr;
  if (inverse == nullptr)
    inverse = &host.new_value(
        host.name_of(node.name) + "_first",
        {graph::DType::kI64,
         has_axis ? std::vector<graph::Dim>{x->type.shape[size_t(axis)]} : x->type.shape});
  Buffer first = Buffer::make("first", tir::DataType::i64(), {s.positions});
  Accumulator order("order", tir::DataType::i64()), mark("mark", tir::DataType::i64());

  // The count: slices with no equal slice before them; first[i] = that slice, or -1.
  {
    const graph::Value& slot = host.symbol_slot(symbol);
    Buffer out = Buffer::make("count", tir::DataType::i64(), std::vector<int64_t>{1});
    Accumulator n("n", tir::DataType::i64());
    Stmt loop = serial_loop("i", tir::i64(0), s.positions, [&](const Expr& i) {
      Stmt scan = serial_loop("j", tir::i64(0), i, [&](const Expr& j) {
        return tir::IfThenElse::make(
            mark.get() < tir::i64(0),
            tir::SeqStmt::make({compare_slices(xb, s, i, j, order),
                                tir::IfThenElse::make(order.get() == tir::i64(0), mark.set(j))}));
      });
      return tir::SeqStmt::make(
          {mark.set(tir::i64(-1)), scan, tir::BufferStore::make(first, mark.get(), {i}),
           n.set(n.get() + tir::select(mark.get() < tir::i64(0), tir::i64(1), tir::i64(0)))});
    });
    tir::PrimFunc f;
    f.params = {xb, first, out};
    f.body = n.scope(mark.scope(order.scope(tir::SeqStmt::make(
        {n.set(tir::i64(0)), loop, tir::BufferStore::make(out, n.get(), {tir::i64(0)})}))));
    f.name = host.unique_name(fmt::format("{}_Unique_count", host.name_of(node.name)));
    f.source_ops = {"Unique (count)"};
    host.add_kernel(std::move(f), {x, inverse, &slot});
  }

  // The fill. A first occurrence's mark becomes -1 - its rank, then every mark an index of Y.
  std::vector<Buffer> params{xb, first};
  std::vector<const graph::Value*> values{x, inverse};
  auto output = [&](size_t k) -> std::optional<Buffer> {
    if (k >= node.outputs.size() || node.outputs[k] == nullptr) return std::nullopt;
    Buffer b = host.param_buffer(node.outputs[k], true);
    params.push_back(b);
    values.push_back(node.outputs[k]);
    return b;
  };
  std::optional<Buffer> y = output(0), indices = output(1), counts = output(3);
  Accumulator rank("rank", tir::DataType::i64());
  Stmt ranks = serial_loop("i", tir::i64(0), s.positions, [&](const Expr& i) {
    Stmt count_below = serial_loop("j", tir::i64(0), s.positions, [&](const Expr& j) {
      Stmt below =
          sorted ? tir::SeqStmt::make({compare_slices(xb, s, j, i, order),
                                       tir::IfThenElse::make(order.get() < tir::i64(0),
                                                             rank.set(rank.get() + tir::i64(1)))})
                 : tir::IfThenElse::make(j < i, rank.set(rank.get() + tir::i64(1)));
      return tir::IfThenElse::make(first.load({j}) < tir::i64(0), below);
    });
    std::vector<Stmt> put{rank.set(tir::i64(0)), count_below};
    if (y)
      put.push_back(serial_loop("k", tir::i64(0), s.slice, [&](const Expr& k) {
        return tir::BufferStore::make(*y, xb.load({s.at(i, k, s.positions)}),
                                      {s.at(rank.get(), k, count)});
      }));
    if (indices) put.push_back(tir::BufferStore::make(*indices, i, {rank.get()}));
    if (counts) put.push_back(tir::BufferStore::make(*counts, tir::i64(0), {rank.get()}));
    put.push_back(tir::BufferStore::make(first, tir::i64(-1) - rank.get(), {i}));
    return tir::IfThenElse::make(first.load({i}) < tir::i64(0), tir::SeqStmt::make(put));
  });
  // In order, so that an earlier equal slice's mark is already its index of Y.
  Stmt resolve = serial_loop("i", tir::i64(0), s.positions, [&](const Expr& i) {
    Expr m = first.load({i});
    Expr index =
        tir::select(m < tir::i64(0), tir::i64(-1) - m, first.load({tir::max(m, tir::i64(0))}));
    std::vector<Stmt> st{tir::BufferStore::make(first, index, {i})};
    if (counts)
      st.push_back(tir::BufferStore::make(*counts, counts->load({first.load({i})}) + tir::i64(1),
                                          {first.load({i})}));
    return tir::SeqStmt::make(st);
  });
  tir::PrimFunc f;
  f.params = params;
  f.body = rank.scope(order.scope(tir::SeqStmt::make({ranks, resolve})));
  f.name = host.unique_name(fmt::format("{}_Unique", host.name_of(node.name)));
  f.source_ops = {"Unique"};
  host.add_kernel(std::move(f), values);
}

// Whether box b suppresses box a (ONNX Runtime's rule): both of positive area and
// intersection over union above `iou`. Corners in either order, or centre and size.
Expr suppresses(const Buffer& boxes, const Expr& base, const Expr& a, const Expr& b, bool center,
                const Expr& iou) {
  auto coord = [&](const Expr& box, int k) {
    return boxes.load({base + box * tir::i64(4) + tir::i64(k)});
  };
  auto span = [&](const Expr& box, int lo, int hi) -> std::pair<Expr, Expr> {
    if (center) {  // [x_center, y_center, width, height]: lo is the centre, hi the size
      Expr half = coord(box, hi) * tir::make_const(tir::DataType::f32(), 0.5);
      return {coord(box, lo) - half, coord(box, lo) + half};
    }
    return {tir::min(coord(box, lo), coord(box, hi)), tir::max(coord(box, lo), coord(box, hi))};
  };
  // Corners [y1, x1, y2, x2]: y from 0 and 2, x from 1 and 3; centres: x 0 / 2, y 1 / 3.
  auto [ay0, ay1] = span(a, center ? 1 : 0, center ? 3 : 2);
  auto [ax0, ax1] = span(a, center ? 0 : 1, center ? 2 : 3);
  auto [by0, by1] = span(b, center ? 1 : 0, center ? 3 : 2);
  auto [bx0, bx1] = span(b, center ? 0 : 1, center ? 2 : 3);
  Expr iw = tir::min(ax1, bx1) - tir::max(ax0, bx0);
  Expr ih = tir::min(ay1, by1) - tir::max(ay0, by0);
  Expr zero = tir::make_const(tir::DataType::f32(), 0);
  Expr inter = iw * ih;
  Expr area_a = (ax1 - ax0) * (ay1 - ay0), area_b = (bx1 - bx0) * (by1 - by0);
  Expr uni = area_a + area_b - inter;
  return iw > zero && ih > zero && inter > zero && area_a > zero && area_b > zero && uni > zero &&
         inter / tir::max(uni, tir::make_const(tir::DataType::f32(), 1e-30f)) > iou;
}

// NonMaxSuppression: per batch and class, boxes in descending score (ties: lower index first)
// above score_threshold, each kept unless a kept one suppresses it, at most
// max_output_boxes_per_class; rows (batch, class, box) in that order. One kernel: the rows are
// 3 apart whatever their count, so it writes them and the count together.
void lower_nms(const graph::Node& node, LoweringHost& host) {
  const graph::Value* boxes_v = node.inputs[0];
  const graph::Value* scores_v = node.inputs[1];
  auto optional = [&](size_t i) { return i < node.inputs.size() ? node.inputs[i] : nullptr; };
  const std::string symbol = ops::value_dim(node, 0, 0).sym().symbol_name();
  const bool center = node.attrs.get_int("center_point_box", 0) != 0;
  std::vector<Expr> sd = host.symbols().shape(scores_v->type);  // [B, C, N]
  const Expr batches = sd[0], classes = sd[1], n = sd[2];
  Buffer boxes = host.param_buffer(boxes_v, true), scores = host.param_buffer(scores_v, true);
  std::vector<Buffer> params{boxes, scores};
  std::vector<const graph::Value*> values{boxes_v, scores_v};
  auto scalar = [&](size_t i, Expr absent) {
    const graph::Value* v = optional(i);
    if (v == nullptr) return absent;
    Buffer b = host.param_buffer(v, true);
    params.push_back(b);
    values.push_back(v);
    return b.load({tir::i64(0)});
  };
  const Expr max_out = scalar(2, tir::i64(0));
  const Expr iou = scalar(3, tir::make_const(tir::DataType::f32(), 0));
  const bool has_threshold = optional(4) != nullptr;
  const Expr threshold = scalar(4, tir::make_const(tir::DataType::f32(), 0));
  Buffer y = host.param_buffer(node.outputs[0], true);
  // Per box of the class: 0 a candidate, 1 kept, 2 dropped.
  const graph::Value& state_v = host.new_value(host.name_of(node.name) + "_state",
                                               {graph::DType::kI64, {scores_v->type.shape[2]}});
  Buffer state = host.param_buffer(&state_v, true);
  Buffer out = Buffer::make("count", tir::DataType::i64(), std::vector<int64_t>{1});
  params.push_back(y);
  params.push_back(state);
  params.push_back(out);
  values.push_back(node.outputs[0]);
  values.push_back(&state_v);
  values.push_back(&host.symbol_slot(symbol));

  Accumulator count("rows", tir::DataType::i64()), kept("kept", tir::DataType::i64()),
      best("best", tir::DataType::i64()), keep("keep", tir::DataType::i64());
  const Expr one = tir::i64(1);
  Stmt body = serial_loop("b", tir::i64(0), batches, [&](const Expr& b) {
    return serial_loop("c", tir::i64(0), classes, [&](const Expr& c) {
      const Expr srow = (b * classes + c) * n, brow = b * n * tir::i64(4);
      auto score = [&](const Expr& i) { return scores.load({srow + i}); };
      Stmt init = serial_loop("i", tir::i64(0), n, [&](const Expr& i) {
        Expr candidate =
            has_threshold ? score(i) > threshold : tir::make_const(tir::DataType::boolean(), 1);
        return tir::BufferStore::make(state, tir::select(candidate, tir::i64(0), tir::i64(2)), {i});
      });
      Stmt pick = serial_loop("t", tir::i64(0), n, [&](const Expr&) {
        Stmt argmax = serial_loop("i", tir::i64(0), n, [&](const Expr& i) {
          Expr better =
              state.load({i}) == tir::i64(0) &&
              (best.get() < tir::i64(0) || score(i) > score(tir::max(best.get(), tir::i64(0))));
          return tir::IfThenElse::make(better, best.set(i));
        });
        Stmt check = serial_loop("m", tir::i64(0), n, [&](const Expr& m) {
          return tir::IfThenElse::make(
              state.load({m}) == one && suppresses(boxes, brow, best.get(), m, center, iou),
              keep.set(tir::i64(0)));
        });
        Stmt row = tir::SeqStmt::make(
            {tir::BufferStore::make(y, b, {count.get() * tir::i64(3)}),
             tir::BufferStore::make(y, c, {count.get() * tir::i64(3) + one}),
             tir::BufferStore::make(y, best.get(), {count.get() * tir::i64(3) + tir::i64(2)}),
             count.set(count.get() + one), kept.set(kept.get() + one)});
        Stmt decide = tir::SeqStmt::make(
            {keep.set(one), check,
             tir::BufferStore::make(state, tir::select(keep.get() == one, one, tir::i64(2)),
                                    {best.get()}),
             tir::IfThenElse::make(keep.get() == one, row)});
        return tir::SeqStmt::make(
            {best.set(tir::i64(-1)), argmax,
             tir::IfThenElse::make(best.get() >= tir::i64(0) && kept.get() < max_out, decide)});
      });
      return tir::SeqStmt::make({init, kept.set(tir::i64(0)), pick});
    });
  });
  tir::PrimFunc f;
  f.params = params;
  f.body = count.scope(kept.scope(best.scope(keep.scope(tir::SeqStmt::make(
      {count.set(tir::i64(0)), body, tir::BufferStore::make(out, count.get(), {tir::i64(0)})})))));
  f.name = host.unique_name(fmt::format("{}_NonMaxSuppression", host.name_of(node.name)));
  f.source_ops = {"NonMaxSuppression"};
  host.add_kernel(std::move(f), values);
}

}  // namespace

bool lower_data_dependent_node(const graph::Node& node, LoweringHost& host) {
  if (node.op == ops::OpKind::NonZero) {
    lower_non_zero(node, host);
    return true;
  }
  if (node.op == ops::OpKind::Compress) {
    lower_compress(node, host);
    return true;
  }
  if (node.op == ops::OpKind::Unique) {
    lower_unique(node, host);
    return true;
  }
  if (node.op == ops::OpKind::NonMaxSuppression) {
    lower_nms(node, host);
    return true;
  }
  return false;
}

}  // namespace ingot::lower

// NonZero and Compress as a counting and a filling kernel (see lower_data_dependent.h).
#include "lower/lower_data_dependent.h"

#include <fmt/format.h>

#include "lower/compute/common.h"
#include "ops/value_symbols.h"
#include "support/error.h"
#include "tir/op.h"

namespace ingot::lower {

namespace {

using tir::Buffer;
using tir::Expr;
using tir::Stmt;

const NestOptions kSerial{.parallel_outer = false, .vectorize_inner = false};

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
                    return loop_nest(
                        Extents(rest), "k",
                        [&](const Index& o) {
                          Index src = o, dst = o;
                          src[size_t(axis)] = i;
                          dst[size_t(axis)] = j;
                          return tir::BufferStore::make(yb, xb.load(src), dst);
                        },
                        kSerial);
                  });
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
  return false;
}

}  // namespace ingot::lower

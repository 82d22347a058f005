// Value symbols' definitions, per defining op (see value_symbols.h).
#include "lower/value_symbols.h"

#include <fmt/format.h>

#include <map>

#include "ops/value_symbols.h"
#include "support/error.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace ingot::lower {

namespace {

using tir::Buffer;
using tir::Expr;

// What a definition may read: graph inputs (flat, as params) and the graph's dims.
class Context {
 public:
  Context(const graph::Graph& g, const SymbolTable& symbols, tir::IRModule& mod)
      : g_(g), symbols_(symbols), mod_(mod) {}

  Expr load(const graph::Value* input, int64_t i) {
    auto it = buffers_.find(input);
    if (it == buffers_.end()) {
      int index = -1;
      for (size_t k = 0; k < g_.inputs.size(); ++k)
        if (g_.inputs[k] == input) index = int(k);
      INGOT_ICHECK(index >= 0, "value symbol read from '{}', not a graph input", input->name);
      graph::SymExpr n = 1;
      for (const graph::Dim& d : input->type.shape) n = n * d.sym();
      Buffer b =
          Buffer::make(fmt::format("in{}", index), to_tir(input->type.dtype), {symbols_.expr(n)});
      mod_.value_fn_inputs.push_back(index);
      params_.push_back(b);
      it = buffers_.emplace(input, b).first;
    }
    return tir::cast(tir::DataType::i64(), it->second.load({tir::i64(i)}));
  }
  Expr dim(const graph::Dim& d) const { return symbols_.expr(d); }
  const std::vector<Buffer>& params() const { return params_; }

 private:
  static tir::DataType to_tir(graph::DType d) {
    switch (d) {
      case graph::DType::kI32:
        return tir::DataType::i32();
      default:
        return tir::DataType::i64();
    }
  }
  const graph::Graph& g_;
  const SymbolTable& symbols_;
  tir::IRModule& mod_;
  std::map<const graph::Value*, Buffer> buffers_;
  std::vector<Buffer> params_;
};

struct Definition {
  Expr value;
  Expr valid;  // the input values make this symbol (and the node's shape) well defined
};

// Reshape(x, shape): dim i of the output from shape[i] (0 copies x's dim unless allowzero, -1
// takes what is left); valid when at most one entry is -1, none is below -1, a 0 copies a dim x
// has, and the dims multiply to x's element count.
Definition reshape_dim(const graph::Node& n, int axis, Context& c) {
  const graph::Value* x = n.inputs[0];
  const graph::Value* shape = n.inputs[1];
  const int64_t k = shape->type.shape[0].value;
  const bool allowzero = n.attrs.get_int("allowzero", 0) != 0;
  Expr total = tir::i64(1);
  for (const graph::Dim& d : x->type.shape) total = total * c.dim(d);
  std::vector<Expr> entry;
  Expr minus_ones = tir::i64(0), known = tir::i64(1);
  Expr valid = tir::make_const(tir::DataType::boolean(), 1);
  for (int64_t j = 0; j < k; ++j) {
    Expr s = c.load(shape, j);
    if (!allowzero) {
      if (j < x->type.rank()) {
        s = tir::select(s == tir::i64(0), c.dim(x->type.shape[size_t(j)]), s);
      } else {
        valid = valid && s != tir::i64(0);
      }
    }
    valid = valid && s >= tir::i64(-1);
    minus_ones = minus_ones + tir::select(s == tir::i64(-1), tir::i64(1), tir::i64(0));
    known = known * tir::select(s == tir::i64(-1), tir::i64(1), s);
    entry.push_back(s);
  }
  Expr inferred = tir::select(known == tir::i64(0), tir::i64(0),
                              tir::floordiv(total, tir::max(known, tir::i64(1))));
  valid = valid && minus_ones <= tir::i64(1) &&
          tir::select(minus_ones == tir::i64(1), known != tir::i64(0) && inferred * known == total,
                      known == total);
  Expr e = entry[size_t(axis)];
  return {tir::select(e == tir::i64(-1), inferred, e), valid};
}

// Reduce*(x, axes) with the axes given at run time: each input dim is reduced when an axis names
// it (negative ones count from the end); valid when every axis is within [-rank, rank) and none
// repeats. Kept extent of dim d: 1 when reduced, else x's dim; with keepdims 0 the output's dim j
// is the j-th kept dim of x.
Definition reduce_dim(const graph::Node& n, const std::string& name, Context& c) {
  const graph::Value* x = n.inputs[0];
  const graph::Value* axes = n.inputs[1];
  const int64_t r = x->type.rank(), k = axes->type.shape[0].value;
  Expr valid = tir::make_const(tir::DataType::boolean(), 1);
  std::vector<Expr> a;
  for (int64_t j = 0; j < k; ++j) {
    Expr v = c.load(axes, j);
    valid = valid && v >= tir::i64(-r) && v < tir::i64(r);
    a.push_back(tir::select(v < tir::i64(0), v + tir::i64(r), v));
    for (int64_t i = 0; i < j; ++i) valid = valid && a[size_t(i)] != a.back();
  }
  std::vector<Expr> reduced;
  for (int64_t d = 0; d < r; ++d) {
    Expr hit = a[0] == tir::i64(d);
    for (int64_t j = 1; j < k; ++j) hit = hit || a[size_t(j)] == tir::i64(d);
    reduced.push_back(hit);
  }
  for (int64_t d = 0; d < r; ++d)
    if (name == ops::kept_extent(n, int(d)))
      return {tir::select(reduced[size_t(d)], tir::i64(1), c.dim(x->type.shape[size_t(d)])), valid};
  const int axis = ops::value_symbol_axis(n, 0, name);
  INGOT_ICHECK(axis >= 0, "{}: no value symbol '{}'", n.describe(), name);
  if (n.attrs.get_int("keepdims", 1) != 0)
    return {tir::select(reduced[size_t(axis)], tir::i64(1), c.dim(x->type.shape[size_t(axis)])),
            valid};
  Expr dim = tir::i64(0), kept_before = tir::i64(0);
  for (int64_t d = 0; d < r; ++d) {
    Expr kept = !reduced[size_t(d)];
    dim = dim + tir::select(kept && kept_before == tir::i64(axis), c.dim(x->type.shape[size_t(d)]),
                            tir::i64(0));
    kept_before = kept_before + tir::select(kept, tir::i64(1), tir::i64(0));
  }
  return {dim, valid};
}

Definition define(const graph::Node& n, const std::string& name, Context& c) {
  if (ops::has_value_axes(n)) return reduce_dim(n, name, c);
  switch (n.op) {
    case ops::OpKind::Reshape:
      return reshape_dim(n, ops::value_symbol_axis(n, 0, name), c);
    default:
      break;
  }
  fail_internal("{} has no definition of value symbol '{}'", n.describe(), name);
}

}  // namespace

void build_value_fn(const graph::Graph& g, const SymbolTable& symbols, tir::IRModule& mod) {
  if (symbols.value_symbols().empty()) return;
  const size_t n = symbols.symbols().size();
  Buffer table =
      Buffer::make("symbols", tir::DataType::i64(), std::vector<int64_t>{int64_t(n + 1)});
  Context c(g, symbols, mod);
  tir::VarMap earlier;  // value symbols already written: read back from the table
  std::vector<tir::Stmt> stores;
  Expr status = tir::i64(0);
  std::vector<std::pair<size_t, Expr>> checks;
  for (const SymbolTable::ValueSymbol& vs : symbols.value_symbols()) {
    const tir::SymbolDesc& sym = symbols.symbols()[vs.index];
    Definition d = define(*vs.node, sym.name, c);
    stores.push_back(tir::BufferStore::make(table, tir::substitute(d.value, earlier),
                                            {tir::i64(int64_t(vs.index))}));
    checks.push_back({vs.index, tir::substitute(d.valid, earlier)});
    earlier[sym.var.node()] = table.load({tir::i64(int64_t(vs.index))});
  }
  for (auto it = checks.rbegin(); it != checks.rend(); ++it)  // the first failing one wins
    status = tir::select(it->second, status, tir::i64(int64_t(it->first) + 1));
  stores.push_back(tir::BufferStore::make(table, status, {tir::i64(int64_t(n))}));
  tir::PrimFunc f;
  f.name = "ingot_value_symbols";
  f.params = c.params();
  f.params.push_back(table);
  f.body = tir::SeqStmt::make(stores);
  for (const tir::SymbolDesc& s : symbols.symbols()) {
    bool is_value = false;
    for (const SymbolTable::ValueSymbol& vs : symbols.value_symbols())
      is_value = is_value || vs.index == size_t(&s - symbols.symbols().data());
    if (!is_value) f.shape_vars.push_back(s.var);
  }
  mod.value_fn = std::move(f);
}

}  // namespace ingot::lower

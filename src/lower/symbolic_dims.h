// The symbols of a graph with symbolic dims, as the loop IR sees them: one int64 Var per symbol
// with its bounds (from --dim-bounds), graph dims translated into tir expressions over those
// Vars, and the largest value a dim takes within the bounds (what the memory plan sizes).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "tir/module.h"

namespace ingot::lower {

struct SymbolBounds {
  int64_t min = 1;
  int64_t max = -1;  // -1: no upper bound given
};

class SymbolTable {
 public:
  SymbolTable() = default;
  // The symbols of the graph inputs' dims, in order of first appearance, with `bounds` (a
  // symbol with no entry is 1..unbounded). UserError when a symbol has no upper bound, naming
  // the input and the --dim-bounds option, or when a bound names no symbol of the inputs.
  // Then the value symbols (ops/value_symbols.h) of the graph's nodes, in graph order, bounded
  // by their ops.
  SymbolTable(const graph::Graph& g, const std::map<std::string, SymbolBounds>& bounds);

  // The value symbols: their index among symbols() (after the input shapes' symbols) and the
  // node that defines each.
  struct ValueSymbol {
    size_t index;
    const graph::Node* node;
  };
  const std::vector<ValueSymbol>& value_symbols() const { return value_symbols_; }
  bool has(const std::string& symbol) const { return index_.count(symbol) != 0; }
  const tir::SymbolDesc& symbol(const std::string& name) const {
    return symbols_.at(index_.at(name));
  }

  bool empty() const { return symbols_.empty(); }
  const std::vector<tir::SymbolDesc>& symbols() const { return symbols_; }

  // The dim as an int64 tir expression (a constant when static). InternalError for a symbol
  // that is not one of the inputs' (a data-dependent dim).
  tir::Expr expr(const graph::SymExpr& e) const;
  tir::Expr expr(const graph::Dim& d) const { return expr(d.sym()); }
  std::vector<tir::Expr> shape(const graph::TensorType& t) const;

  // The largest value of `e` over the corners of the symbols' bounds (exact for the
  // polynomials of tensor dims, which are monotone in each symbol over the bounds); saturates
  // at 2^60 (value symbols bound each dim separately, so their products can be vast).
  int64_t max_value(const graph::SymExpr& e) const;
  int64_t max_elements(const graph::TensorType& t) const;

 private:
  static int64_t saturated(const graph::SymExpr& e, const std::map<std::string, int64_t>& binding);
  std::vector<tir::SymbolDesc> symbols_;
  std::map<std::string, size_t> index_;
  std::vector<ValueSymbol> value_symbols_;
};

// UserError naming the input and its symbol (with the --input-shapes to bind it) when a graph
// input has an unbound dim, or naming the node when an output does: for targets that compile
// static shapes only (c, GPUs).
void check_static_shapes(const graph::Graph& g);

// UserError naming the node when an output's dim is not an expression of the inputs' symbols
// (a data-dependent size, which needs docs/dynamic-shapes.md section 5).
void check_symbolic_shapes(const graph::Graph& g, const SymbolTable& symbols);

}  // namespace ingot::lower

// SymbolTable: graph SymExprs as tir expressions over one Var per input symbol, and their
// largest values within the bounds.
#include "lower/symbolic_dims.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "lower/compute/common.h"
#include "ops/value_symbols.h"
#include "support/error.h"
#include "tir/op.h"

namespace ingot::lower {

SymbolTable::SymbolTable(const graph::Graph& g, const std::map<std::string, SymbolBounds>& bounds) {
  std::map<std::string, const graph::Value*> first_input;
  for (const graph::Value* v : g.inputs) {
    for (const graph::Dim& d : v->type.shape) {
      for (const std::string& name : d.sym().symbols()) {
        if (index_.count(name)) continue;
        SymbolBounds b;
        if (auto it = bounds.find(name); it != bounds.end()) b = it->second;
        if (b.max < 0) {
          std::vector<std::string> hint;
          for (const graph::Dim& e : v->type.shape) hint.push_back(e.is_static() ? e.str() : "1");
          fail_user(
              "input '{}' has unbound dimension '{}'; bind it with --input-shapes {}:[{}], or "
              "keep it symbolic with --dim-bounds {}:{}..MAX (llvm target)",
              v->name, name, v->name, fmt::join(hint, ","), name, b.min);
        }
        index_[name] = symbols_.size();
        symbols_.push_back({name, b.min, b.max, tir::Var(name, tir::DataType::i64())});
      }
    }
  }
  for (const auto& n : g.nodes()) {
    for (const std::string& name : ops::value_symbols_of(*n)) {
      if (index_.count(name)) continue;
      std::optional<graph::SymExpr> bound = ops::value_symbol_bound(*n, name);
      INGOT_ICHECK(bound.has_value(), "{} lists value symbol '{}' without a bound", n->describe(),
                   name);
      value_symbols_.push_back({symbols_.size(), n.get()});
      index_[name] = symbols_.size();
      symbols_.push_back({name, ops::value_symbol_min(*n, name), max_value(*bound),
                          tir::Var(name, tir::DataType::i64())});
    }
  }
  for (const auto& [name, b] : bounds)
    if (!index_.count(name)) {
      std::vector<std::string> known;
      for (const auto& s : symbols_) known.push_back(s.name);
      fail_user("--dim-bounds: '{}' is not a symbolic dimension of the model's inputs ({})", name,
                known.empty() ? "it has none" : fmt::format("symbols: {}", fmt::join(known, ", ")));
    }
}

tir::Expr SymbolTable::expr(const graph::SymExpr& e) const {
  using graph::SymAtom;
  tir::Expr sum;
  for (const graph::SymExpr::Term& t : e.terms()) {
    tir::Expr prod;
    for (const graph::SymAtomPtr& a : t.atoms) {
      tir::Expr x;
      switch (a->kind) {
        case SymAtom::Kind::kSymbol: {
          auto it = index_.find(a->name);
          INGOT_ICHECK(it != index_.end(), "dim symbol '{}' is not an input symbol", a->name);
          x = symbols_[it->second].var;
          break;
        }
        case SymAtom::Kind::kFloorDiv:
          x = tir::floordiv(expr(a->a), tir::i64(a->c));
          break;
        case SymAtom::Kind::kMod:
          x = tir::floormod(expr(a->a), tir::i64(a->c));
          break;
        case SymAtom::Kind::kMin:
          x = tir::min(expr(a->a), expr(a->b));
          break;
        case SymAtom::Kind::kMax:
          x = tir::max(expr(a->a), expr(a->b));
          break;
      }
      prod = prod.defined() ? prod * x : x;
    }
    if (!prod.defined()) {
      prod = tir::i64(t.coeff);
    } else if (t.coeff != 1) {
      prod = tir::i64(t.coeff) * prod;
    }
    sum = sum.defined() ? sum + prod : prod;
  }
  return sum.defined() ? sum : tir::i64(0);
}

std::vector<tir::Expr> SymbolTable::shape(const graph::TensorType& t) const {
  std::vector<tir::Expr> out;
  for (const graph::Dim& d : t.shape) out.push_back(expr(d));
  return out;
}

namespace {

constexpr __int128 kSaturation = __int128(1) << 60;

__int128 clamp(__int128 v) {
  return std::min(std::max(v, -kSaturation), kSaturation);
}

// `e` under `binding`, every step clamped to +-2^60 (no overflow for vast products).
__int128 saturated_value(const graph::SymExpr& e, const std::map<std::string, int64_t>& binding) {
  using graph::SymAtom;
  __int128 sum = 0;
  for (const graph::SymExpr::Term& t : e.terms()) {
    __int128 prod = t.coeff;
    for (const graph::SymAtomPtr& a : t.atoms) {
      __int128 x = 0;
      switch (a->kind) {
        case SymAtom::Kind::kSymbol:
          x = binding.at(a->name);
          break;
        case SymAtom::Kind::kFloorDiv: {
          __int128 v = saturated_value(a->a, binding), q = v / a->c;
          x = (v % a->c != 0 && v < 0) ? q - 1 : q;
          break;
        }
        case SymAtom::Kind::kMod: {
          __int128 v = saturated_value(a->a, binding) % a->c;
          x = v < 0 ? v + a->c : v;
          break;
        }
        case SymAtom::Kind::kMin:
          x = std::min(saturated_value(a->a, binding), saturated_value(a->b, binding));
          break;
        case SymAtom::Kind::kMax:
          x = std::max(saturated_value(a->a, binding), saturated_value(a->b, binding));
          break;
      }
      prod = clamp(prod * x);
    }
    sum = clamp(sum + prod);
  }
  return sum;
}

}  // namespace

int64_t SymbolTable::saturated(const graph::SymExpr& e,
                               const std::map<std::string, int64_t>& binding) {
  return int64_t(saturated_value(e, binding));
}

int64_t SymbolTable::max_value(const graph::SymExpr& e) const {
  if (auto c = e.as_constant()) return *c;
  const std::set<std::string> used = e.symbols();
  const std::vector<std::string> names(used.begin(), used.end());
  INGOT_ICHECK(names.size() < 20, "dim '{}' over {} symbols", e.str(), names.size());
  int64_t best = 0;
  bool any = false;
  for (uint32_t corner = 0; corner < (1u << names.size()); ++corner) {
    std::map<std::string, int64_t> binding;
    for (size_t k = 0; k < names.size(); ++k) {
      auto it = index_.find(names[k]);
      INGOT_ICHECK(it != index_.end(), "dim symbol '{}' is not an input symbol", names[k]);
      const tir::SymbolDesc& s = symbols_[it->second];
      binding[names[k]] = (corner >> k) & 1 ? s.max : s.min;
    }
    const int64_t v = saturated(e, binding);
    best = any ? std::max(best, v) : v;
    any = true;
  }
  return std::max<int64_t>(best, 0);
}

int64_t SymbolTable::max_elements(const graph::TensorType& t) const {
  __int128 n = 1;
  for (const graph::Dim& d : t.shape) n = clamp(n * max_value(d.sym()));
  return int64_t(n);
}

void check_symbolic_shapes(const graph::Graph& g, const SymbolTable& symbols) {
  for (const auto& n : g.nodes()) {
    for (const graph::Value* v : n->outputs) {
      if (v == nullptr) continue;
      for (const graph::Dim& d : v->type.shape)
        for (const std::string& s : d.sym().symbols())
          if (!symbols.has(s))
            fail_user(
                "{}: output '{}' has type {}, whose dim '{}' depends on the data, not on the "
                "inputs' shapes; bind the model inputs with --input-shapes (and "
                "--specialize-inputs for shape-deciding inputs)",
                node_label(*n), v->name, v->type.str(), d.str());
    }
  }
}

void check_static_shapes(const graph::Graph& g) {
  for (const graph::Value* v : g.inputs) {
    for (const graph::Dim& d : v->type.shape) {
      if (d.is_static()) continue;
      std::vector<std::string> hint;
      for (const graph::Dim& e : v->type.shape) hint.push_back(e.is_static() ? e.str() : "1");
      fail_user("input '{}' has unbound dimension '{}'; bind it with --input-shapes {}:[{}]",
                v->name, d.str(), v->name, fmt::join(hint, ","));
    }
  }
  for (const auto& n : g.nodes()) {
    for (const graph::Value* v : n->outputs) {
      if (v == nullptr || v->type.is_static()) continue;
      if (ops::has_data_dependent_size(*n))
        fail_user(
            "{}: output '{}' has a size that its input data decide ({}), which only the "
            "llvm target serves",
            node_label(*n), v->name, v->type.str());
      fail_user(
          "{}: output '{}' has type {} with an unbound dimension; bind the model inputs "
          "with --input-shapes (and --specialize-inputs for shape-deciding inputs)",
          node_label(*n), v->name, v->type.str());
    }
  }
}

}  // namespace ingot::lower

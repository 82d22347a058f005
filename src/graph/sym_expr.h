// Symbolic integer expressions for tensor dimensions: a canonical polynomial with int64
// coefficients over atoms (named symbols, and floordiv/mod by a positive constant, min, max of
// canonical expressions). Equal expressions are structurally equal, so dims compare with ==.
// Every symbol stands for a dimension and is >= 0, which the simplifier uses to prove signs
// (docs/dynamic-shapes.md section 1).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ingot::graph {

struct SymAtom;
using SymAtomPtr = std::shared_ptr<const SymAtom>;

class SymExpr {
 public:
  SymExpr() = default;        // 0
  SymExpr(int64_t constant);  // NOLINT(google-explicit-constructor): dims mix with literals
  static SymExpr symbol(const std::string& name);

  // floor(a / c), a mod c (in [0, c)) and ceil(a / c) for a constant c > 0.
  static SymExpr floordiv(const SymExpr& a, int64_t c);
  static SymExpr mod(const SymExpr& a, int64_t c);
  static SymExpr ceildiv(const SymExpr& a, int64_t c);
  static SymExpr min(const SymExpr& a, const SymExpr& b);
  static SymExpr max(const SymExpr& a, const SymExpr& b);

  friend SymExpr operator+(const SymExpr& a, const SymExpr& b);
  friend SymExpr operator-(const SymExpr& a, const SymExpr& b);
  friend SymExpr operator*(const SymExpr& a, const SymExpr& b);
  SymExpr operator-() const { return SymExpr(0) - *this; }

  // a / b when b divides a exactly as polynomials with a one-term quotient (b one term: each of
  // a's terms holds b's atoms and a multiple of its coefficient; b several terms: a = q * b for
  // a single term q, as (64*past+64*seq) / (16*past+16*seq) = 4); else nullopt.
  std::optional<SymExpr> divide_exact(const SymExpr& b) const;

  bool is_constant() const {
    return terms_.empty() || (terms_.size() == 1 && terms_[0].atoms.empty());
  }
  std::optional<int64_t> as_constant() const;
  // The name when the expression is exactly one symbol ("seq"), else "".
  std::string symbol_name() const;
  // True when the value is >= 0 for every binding of the symbols to non-negative integers.
  bool provably_nonnegative() const;
  // The expression with the symbols in `binding` replaced by their values (simplified again).
  SymExpr substitute(const std::map<std::string, int64_t>& binding) const;
  // The value under `binding`; nullopt when a symbol is unbound.
  std::optional<int64_t> evaluate(const std::map<std::string, int64_t>& binding) const;
  std::set<std::string> symbols() const;
  // "past+seq", "768*seq", "seq*seq", "floordiv(seq+1,2)", "min(seq,128)".
  std::string str() const;

  friend bool operator==(const SymExpr& a, const SymExpr& b);
  friend bool operator!=(const SymExpr& a, const SymExpr& b) { return !(a == b); }

  struct Term {
    std::vector<SymAtomPtr> atoms;  // sorted by key, repeated for powers; empty: the constant
    int64_t coeff = 0;              // never 0
  };
  // The sum of these terms (for translating the expression into another IR).
  const std::vector<Term>& terms() const { return terms_; }

 private:
  static SymExpr from_terms(std::vector<Term> terms);
  static SymExpr atom(SymAtomPtr a);
  std::vector<Term> terms_;  // sorted by their atoms' keys; the constant term first
};

struct SymAtom {
  enum class Kind { kSymbol, kFloorDiv, kMod, kMin, kMax };
  Kind kind;
  std::string name;  // kSymbol
  SymExpr a, b;      // kFloorDiv/kMod: a; kMin/kMax: a, b (a's key <= b's)
  int64_t c = 1;     // kFloorDiv/kMod: the divisor
  std::string key;   // the printed form: orders atoms and decides equality
};

}  // namespace ingot::graph

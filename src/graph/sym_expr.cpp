// Symbolic dimension expressions: canonical polynomials over atoms, their arithmetic and the
// simplifications that keep shapes closed (exact division, floordiv/mod splitting, min/max by
// sign proofs).
#include "graph/sym_expr.h"

#include <algorithm>

#include "support/error.h"

namespace ingot::graph {

namespace {

int64_t checked_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) fail_user("a dimension expression overflows int64");
  return r;
}

int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) fail_user("a dimension expression overflows int64");
  return r;
}

int64_t floor_div(int64_t a, int64_t c) {
  int64_t q = a / c;
  return (a % c != 0 && ((a < 0) != (c < 0))) ? q - 1 : q;
}

bool atoms_less(const std::vector<SymAtomPtr>& a, const std::vector<SymAtomPtr>& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i]->key != b[i]->key) return a[i]->key < b[i]->key;
  return false;
}

bool atoms_equal(const std::vector<SymAtomPtr>& a, const std::vector<SymAtomPtr>& b) {
  return !atoms_less(a, b) && !atoms_less(b, a);
}

std::vector<SymAtomPtr> sorted(std::vector<SymAtomPtr> v) {
  std::sort(v.begin(), v.end(),
            [](const SymAtomPtr& x, const SymAtomPtr& y) { return x->key < y->key; });
  return v;
}

SymAtomPtr make_atom(SymAtom::Kind kind, std::string name, SymExpr a, SymExpr b, int64_t c) {
  auto at = std::make_shared<SymAtom>();
  at->kind = kind;
  at->name = std::move(name);
  at->a = std::move(a);
  at->b = std::move(b);
  at->c = c;
  switch (kind) {
    case SymAtom::Kind::kSymbol:
      at->key = at->name;
      break;
    case SymAtom::Kind::kFloorDiv:
      at->key = "floordiv(" + at->a.str() + "," + std::to_string(c) + ")";
      break;
    case SymAtom::Kind::kMod:
      at->key = "mod(" + at->a.str() + "," + std::to_string(c) + ")";
      break;
    case SymAtom::Kind::kMin:
      at->key = "min(" + at->a.str() + "," + at->b.str() + ")";
      break;
    case SymAtom::Kind::kMax:
      at->key = "max(" + at->a.str() + "," + at->b.str() + ")";
      break;
  }
  return at;
}

bool atom_nonnegative(const SymAtom& a) {
  switch (a.kind) {
    case SymAtom::Kind::kSymbol:  // every symbol is a dimension
    case SymAtom::Kind::kMod:     // in [0, c)
      return true;
    case SymAtom::Kind::kFloorDiv:
      return a.a.provably_nonnegative();
    case SymAtom::Kind::kMin:
      return a.a.provably_nonnegative() && a.b.provably_nonnegative();
    case SymAtom::Kind::kMax:
      return a.a.provably_nonnegative() || a.b.provably_nonnegative();
  }
  return false;
}

// The canonical order of min/max operands: by printed form, constants last ("min(seq,128)").
bool operand_order(const SymExpr& a, const SymExpr& b) {
  return std::pair(a.is_constant(), a.str()) <= std::pair(b.is_constant(), b.str());
}

}  // namespace

SymExpr::SymExpr(int64_t constant) {
  if (constant != 0) terms_.push_back(Term{{}, constant});
}

SymExpr SymExpr::symbol(const std::string& name) {
  INGOT_ICHECK(!name.empty(), "a symbol needs a name");
  return atom(make_atom(SymAtom::Kind::kSymbol, name, {}, {}, 1));
}

SymExpr SymExpr::atom(SymAtomPtr a) {
  SymExpr e;
  e.terms_.push_back(Term{{std::move(a)}, 1});
  return e;
}

SymExpr SymExpr::from_terms(std::vector<Term> terms) {
  std::sort(terms.begin(), terms.end(),
            [](const Term& x, const Term& y) { return atoms_less(x.atoms, y.atoms); });
  SymExpr e;
  for (Term& t : terms) {
    if (!e.terms_.empty() && atoms_equal(e.terms_.back().atoms, t.atoms)) {
      e.terms_.back().coeff = checked_add(e.terms_.back().coeff, t.coeff);
      if (e.terms_.back().coeff == 0) e.terms_.pop_back();
    } else if (t.coeff != 0) {
      e.terms_.push_back(std::move(t));
    }
  }
  return e;
}

SymExpr operator+(const SymExpr& a, const SymExpr& b) {
  std::vector<SymExpr::Term> t = a.terms_;
  t.insert(t.end(), b.terms_.begin(), b.terms_.end());
  return SymExpr::from_terms(std::move(t));
}

SymExpr operator-(const SymExpr& a, const SymExpr& b) {
  std::vector<SymExpr::Term> t = a.terms_;
  for (SymExpr::Term n : b.terms_) {
    n.coeff = checked_mul(n.coeff, -1);
    t.push_back(std::move(n));
  }
  return SymExpr::from_terms(std::move(t));
}

SymExpr operator*(const SymExpr& a, const SymExpr& b) {
  std::vector<SymExpr::Term> t;
  for (const SymExpr::Term& x : a.terms_) {
    for (const SymExpr::Term& y : b.terms_) {
      std::vector<SymAtomPtr> atoms = x.atoms;
      atoms.insert(atoms.end(), y.atoms.begin(), y.atoms.end());
      t.push_back(SymExpr::Term{sorted(std::move(atoms)), checked_mul(x.coeff, y.coeff)});
    }
  }
  return SymExpr::from_terms(std::move(t));
}

SymExpr SymExpr::floordiv(const SymExpr& a, int64_t c) {
  INGOT_ICHECK(c > 0, "floordiv by {}", c);
  if (c == 1) return a;
  // a = c*q + r with every coefficient of r in [0, c): floor(a / c) = q + floor(r / c).
  std::vector<Term> q, r;
  for (const Term& t : a.terms_) {
    int64_t qc = floor_div(t.coeff, c);
    q.push_back(Term{t.atoms, qc});
    r.push_back(Term{t.atoms, t.coeff - qc * c});
  }
  SymExpr qe = from_terms(std::move(q)), re = from_terms(std::move(r));
  if (re.is_constant()) return qe;  // 0 <= r < c
  // floordiv(floordiv(x, d), c) = floordiv(x, d*c)
  if (re.terms_.size() == 1 && re.terms_[0].coeff == 1 && re.terms_[0].atoms.size() == 1 &&
      re.terms_[0].atoms[0]->kind == SymAtom::Kind::kFloorDiv) {
    const SymAtom& inner = *re.terms_[0].atoms[0];
    return qe + floordiv(inner.a, checked_mul(inner.c, c));
  }
  return qe + atom(make_atom(SymAtom::Kind::kFloorDiv, "", re, {}, c));
}

SymExpr SymExpr::mod(const SymExpr& a, int64_t c) {
  INGOT_ICHECK(c > 0, "mod by {}", c);
  if (c == 1) return SymExpr(0);
  std::vector<Term> r;
  for (const Term& t : a.terms_) r.push_back(Term{t.atoms, t.coeff - floor_div(t.coeff, c) * c});
  SymExpr re = from_terms(std::move(r));
  if (re.is_constant()) return re;
  return atom(make_atom(SymAtom::Kind::kMod, "", re, {}, c));
}

SymExpr SymExpr::ceildiv(const SymExpr& a, int64_t c) {
  return floordiv(a + SymExpr(c - 1), c);
}

SymExpr SymExpr::min(const SymExpr& a, const SymExpr& b) {
  if (a == b) return a;
  if ((b - a).provably_nonnegative()) return a;
  if ((a - b).provably_nonnegative()) return b;
  const bool ordered = operand_order(a, b);
  return atom(make_atom(SymAtom::Kind::kMin, "", ordered ? a : b, ordered ? b : a, 1));
}

SymExpr SymExpr::max(const SymExpr& a, const SymExpr& b) {
  if (a == b) return a;
  if ((b - a).provably_nonnegative()) return b;
  if ((a - b).provably_nonnegative()) return a;
  const bool ordered = operand_order(a, b);
  return atom(make_atom(SymAtom::Kind::kMax, "", ordered ? a : b, ordered ? b : a, 1));
}

std::optional<SymExpr> SymExpr::divide_exact(const SymExpr& b) const {
  if (b.terms_.empty()) return std::nullopt;
  if (b.terms_.size() > 1) {
    // Terms are in a monomial order (by degree, then by atoms), which products respect: if b
    // divides a, the quotient's first term is a's first over b's first. Try that quotient.
    if (terms_.empty()) return SymExpr(0);
    SymExpr first_a, first_b;
    first_a.terms_ = {terms_[0]};
    first_b.terms_ = {b.terms_[0]};
    std::optional<SymExpr> q = first_a.divide_exact(first_b);
    if (q && q->terms_.size() == 1 && *q * b == *this) return q;
    return std::nullopt;
  }
  const Term& d = b.terms_[0];
  std::vector<Term> out;
  for (const Term& t : terms_) {
    if (t.coeff % d.coeff != 0) return std::nullopt;
    std::vector<SymAtomPtr> rest = t.atoms;
    for (const SymAtomPtr& x : d.atoms) {
      auto it = std::find_if(rest.begin(), rest.end(),
                             [&](const SymAtomPtr& y) { return y->key == x->key; });
      if (it == rest.end()) return std::nullopt;
      rest.erase(it);
    }
    out.push_back(Term{std::move(rest), t.coeff / d.coeff});
  }
  return from_terms(std::move(out));
}

std::optional<int64_t> SymExpr::as_constant() const {
  if (terms_.empty()) return 0;
  if (terms_.size() == 1 && terms_[0].atoms.empty()) return terms_[0].coeff;
  return std::nullopt;
}

std::string SymExpr::symbol_name() const {
  if (terms_.size() == 1 && terms_[0].coeff == 1 && terms_[0].atoms.size() == 1 &&
      terms_[0].atoms[0]->kind == SymAtom::Kind::kSymbol)
    return terms_[0].atoms[0]->name;
  return "";
}

bool SymExpr::provably_nonnegative() const {
  for (const Term& t : terms_) {
    if (t.coeff < 0) return false;
    for (const SymAtomPtr& a : t.atoms)
      if (!atom_nonnegative(*a)) return false;
  }
  return true;
}

SymExpr SymExpr::substitute(const std::map<std::string, int64_t>& binding) const {
  SymExpr sum;
  for (const Term& t : terms_) {
    SymExpr prod(t.coeff);
    for (const SymAtomPtr& a : t.atoms) {
      switch (a->kind) {
        case SymAtom::Kind::kSymbol: {
          auto it = binding.find(a->name);
          prod = prod * (it != binding.end() ? SymExpr(it->second) : atom(a));
          break;
        }
        case SymAtom::Kind::kFloorDiv:
          prod = prod * floordiv(a->a.substitute(binding), a->c);
          break;
        case SymAtom::Kind::kMod:
          prod = prod * mod(a->a.substitute(binding), a->c);
          break;
        case SymAtom::Kind::kMin:
          prod = prod * min(a->a.substitute(binding), a->b.substitute(binding));
          break;
        case SymAtom::Kind::kMax:
          prod = prod * max(a->a.substitute(binding), a->b.substitute(binding));
          break;
      }
    }
    sum = sum + prod;
  }
  return sum;
}

std::optional<int64_t> SymExpr::evaluate(const std::map<std::string, int64_t>& binding) const {
  int64_t sum = 0;
  for (const Term& t : terms_) {
    int64_t prod = t.coeff;
    for (const SymAtomPtr& a : t.atoms) {
      std::optional<int64_t> v;
      switch (a->kind) {
        case SymAtom::Kind::kSymbol: {
          auto it = binding.find(a->name);
          if (it != binding.end()) v = it->second;
          break;
        }
        case SymAtom::Kind::kFloorDiv:
          if (auto x = a->a.evaluate(binding)) v = floor_div(*x, a->c);
          break;
        case SymAtom::Kind::kMod:
          if (auto x = a->a.evaluate(binding)) v = *x - floor_div(*x, a->c) * a->c;
          break;
        case SymAtom::Kind::kMin:
        case SymAtom::Kind::kMax: {
          auto x = a->a.evaluate(binding), y = a->b.evaluate(binding);
          if (x && y) v = a->kind == SymAtom::Kind::kMin ? std::min(*x, *y) : std::max(*x, *y);
          break;
        }
      }
      if (!v) return std::nullopt;
      prod = checked_mul(prod, *v);
    }
    sum = checked_add(sum, prod);
  }
  return sum;
}

std::set<std::string> SymExpr::symbols() const {
  std::set<std::string> out;
  for (const Term& t : terms_) {
    for (const SymAtomPtr& a : t.atoms) {
      if (a->kind == SymAtom::Kind::kSymbol) {
        out.insert(a->name);
        continue;
      }
      for (const SymExpr* e : {&a->a, &a->b}) {
        std::set<std::string> inner = e->symbols();
        out.insert(inner.begin(), inner.end());
      }
    }
  }
  return out;
}

std::string SymExpr::str() const {
  if (terms_.empty()) return "0";
  std::string s;
  // Terms with atoms first (in canonical order), the constant last: "seq+1".
  auto print = [&](const Term& t) {
    int64_t c = t.coeff;
    if (!s.empty())
      s += c < 0 ? "-" : "+";
    else if (c < 0)
      s += "-";
    int64_t mag = c < 0 ? -c : c;
    if (t.atoms.empty()) {
      s += std::to_string(mag);
      return;
    }
    if (mag != 1) s += std::to_string(mag) + "*";
    for (size_t i = 0; i < t.atoms.size(); ++i) s += (i ? "*" : "") + t.atoms[i]->key;
  };
  for (const Term& t : terms_)
    if (!t.atoms.empty()) print(t);
  for (const Term& t : terms_)
    if (t.atoms.empty()) print(t);
  return s;
}

bool operator==(const SymExpr& a, const SymExpr& b) {
  if (a.terms_.size() != b.terms_.size()) return false;
  for (size_t i = 0; i < a.terms_.size(); ++i)
    if (a.terms_[i].coeff != b.terms_[i].coeff ||
        !atoms_equal(a.terms_[i].atoms, b.terms_[i].atoms))
      return false;
  return true;
}

}  // namespace ingot::graph

// Linear forms of integer expressions (see linear_form.h).
#include "tir/arith/linear_form.h"

#include "tir/analysis.h"
#include "tir/op.h"
#include "tir/structural_equal.h"

namespace ingot::tir::arith {

namespace {

void add_term(LinearForm& f, const Expr& atom, int64_t c) {
  if (c == 0) return;
  for (size_t t = 0; t < f.terms.size(); ++t) {
    if (!structural_equal(f.terms[t].first, atom)) continue;
    f.terms[t].second += c;
    if (f.terms[t].second == 0) f.terms.erase(f.terms.begin() + std::ptrdiff_t(t));
    return;
  }
  f.terms.emplace_back(atom, c);
}

void accumulate(LinearForm& f, const Expr& e, int64_t scale) {
  int64_t v = 0;
  if (is_const_int(e, &v)) {
    f.constant += scale * v;
  } else if (auto* a = e.as<Add>()) {
    accumulate(f, a->a, scale);
    accumulate(f, a->b, scale);
  } else if (auto* s = e.as<Sub>()) {
    accumulate(f, s->a, scale);
    accumulate(f, s->b, -scale);
  } else if (auto* m = e.as<Mul>(); m && is_const_int(m->b, &v)) {
    accumulate(f, m->a, scale * v);
  } else if (m && is_const_int(m->a, &v)) {
    accumulate(f, m->b, scale * v);
  } else {
    add_term(f, e, scale);
  }
}

}  // namespace

LinearForm linear_form(const Expr& e) {
  LinearForm f;
  accumulate(f, e, 1);
  return f;
}

LinearForm LinearForm::operator-(const LinearForm& o) const {
  LinearForm r = *this;
  r.constant -= o.constant;
  for (const auto& [atom, c] : o.terms) add_term(r, atom, -c);
  return r;
}

Expr LinearForm::to_expr(DataType dtype) const {
  Expr e;
  for (const auto& [atom, c] : terms) {
    Expr t = c == 1 ? atom : atom * IntImm::make(dtype, c);
    e = e.defined() ? e + t : t;
  }
  if (!e.defined()) return IntImm::make(dtype, constant);
  return constant == 0 ? e : e + IntImm::make(dtype, constant);
}

std::optional<VarPlusOffset> var_plus_offset(const Expr& e,
                                             const std::function<bool(const VarNode*)>& wanted) {
  LinearForm lf = linear_form(e);
  std::optional<size_t> at;
  for (size_t t = 0; t < lf.terms.size(); ++t) {
    if (!uses_var(lf.terms[t].first, wanted)) continue;
    auto* v = lf.terms[t].first.as<VarNode>();
    if (at || lf.terms[t].second != 1 || !v) return std::nullopt;
    at = t;
  }
  if (!at) return std::nullopt;
  VarPlusOffset r{to_var(lf.terms[*at].first), Expr()};
  lf.terms.erase(lf.terms.begin() + std::ptrdiff_t(*at));
  r.offset = lf.to_expr(e.dtype());
  return r;
}

}  // namespace ingot::tir::arith

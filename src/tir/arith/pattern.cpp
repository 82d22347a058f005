// Pattern matching and instantiation for the rewrite rules, and the rule table by node kind.
#include "tir/arith/pattern.h"

#include <cmath>

#include "support/error.h"
#include "tir/arith/const_fold.h"
#include "tir/op.h"
#include "tir/structural_equal.h"

namespace ingot::tir::arith {

const PatternVars& pattern_vars() {
  static const PatternVars v = [] {
    PatternVars r;
    r.x = Var("x");
    r.y = Var("y");
    r.z = Var("z");
    r.c1 = Var("c1");
    r.c2 = Var("c2");
    r.c3 = Var("c3");
    r.p = Var("p", DataType::boolean());
    r.q = Var("q", DataType::boolean());
    r.t = IntImm::make(DataType::boolean(), 1);
    r.f = IntImm::make(DataType::boolean(), 0);
    return r;
  }();
  return v;
}

bool PatternVars::is_const_var(const VarNode* v) const {
  return v == c1.node() || v == c2.node() || v == c3.node();
}
bool PatternVars::is_var(const VarNode* v) const {
  return is_const_var(v) || v == x.node() || v == y.node() || v == z.node() || v == p.node() ||
         v == q.node();
}

Expr make_binary(NodeTag tag, Expr a, Expr b) {
  switch (tag) {
#define INGOT_X(N, sym) \
  case NodeTag::N:      \
    return N::make(std::move(a), std::move(b));
    INGOT_TIR_BINARY_NODES(INGOT_X)
#undef INGOT_X
    default:
      break;
  }
  fail_internal("make_binary: {} is not a binary node", node_tag_name(tag));
}

namespace {

double const_value(const Expr& e, bool* ok) {
  if (auto* i = e.as<IntImm>()) return *ok = true, double(i->value);
  if (auto* f = e.as<FloatImm>()) return *ok = true, f->value;
  return *ok = false, 0.0;
}

bool is_literal(const Expr& tmpl) {
  return tmpl.as<IntImm>() != nullptr;
}

// Children of the nodes that may appear in patterns.
bool children(const Expr& e, std::vector<Expr>* out) {
  switch (e.tag()) {
#define INGOT_X(N, sym)  \
  case NodeTag::N: {     \
    auto* n = e.as<N>(); \
    *out = {n->a, n->b}; \
    return true;         \
  }
    INGOT_TIR_BINARY_NODES(INGOT_X)
#undef INGOT_X
    case NodeTag::Not:
      *out = {e.as<Not>()->a};
      return true;
    case NodeTag::Select: {
      auto* s = e.as<Select>();
      *out = {s->condition, s->true_value, s->false_value};
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

bool match(const Expr& pattern, const Expr& e, Bindings* b) {
  const PatternVars& pv = pattern_vars();
  if (auto* v = pattern.as<VarNode>(); v && pv.is_var(v)) {
    if (pv.is_const_var(v) && !e.as<IntImm>() && !e.as<FloatImm>()) return false;
    auto [it, fresh] = b->emplace(v, e);
    return fresh || structural_equal(it->second, e);
  }
  if (auto* lit = pattern.as<IntImm>()) {
    bool ok;
    double v = const_value(e, &ok);
    // A float zero matches only +0.0 (x - 0.0 -> x is wrong for x = -0.0 otherwise).
    return ok && v == double(lit->value) && !std::signbit(v);
  }
  if (pattern.tag() != e.tag()) return false;
  std::vector<Expr> pc, ec;
  INGOT_ICHECK(children(pattern, &pc), "unsupported pattern node {}", node_tag_name(pattern.tag()));
  children(e, &ec);
  for (size_t i = 0; i < pc.size(); ++i)
    if (!match(pc[i], ec[i], b)) return false;
  return true;
}

Expr instantiate(const Expr& tmpl, const Bindings& b, DataType dtype) {
  if (auto* v = tmpl.as<VarNode>()) {
    auto it = b.find(v);
    INGOT_ICHECK(it != b.end(), "rule result uses unbound pattern variable {}", v->name);
    return it->second;
  }
  if (auto* lit = tmpl.as<IntImm>()) {
    if (lit->dtype.is_bool()) return tmpl;
    return make_const(dtype, double(lit->value));
  }
  std::vector<Expr> tc;
  INGOT_ICHECK(children(tmpl, &tc), "unsupported rule node {}", node_tag_name(tmpl.tag()));
  // Non-literal children first: a literal takes the dtype of its sibling.
  std::vector<Expr> out(tc.size());
  DataType sibling = dtype;
  bool have_sibling = false;
  size_t first = tmpl.tag() == NodeTag::Select ? 1 : 0;
  for (size_t i = 0; i < tc.size(); ++i) {
    if (is_literal(tc[i])) continue;
    DataType ctx = (i < first) ? DataType::boolean() : dtype;
    out[i] = instantiate(tc[i], b, ctx);
    if (i >= first && !have_sibling) sibling = out[i].dtype(), have_sibling = true;
  }
  for (size_t i = 0; i < tc.size(); ++i)
    if (!out[i].defined())
      out[i] = instantiate(tc[i], b, i < first ? DataType::boolean() : sibling);
  Expr r;
  switch (tmpl.tag()) {
    case NodeTag::Not:
      r = Not::make(out[0]);
      break;
    case NodeTag::Select:
      r = Select::make(out[0], out[1], out[2]);
      break;
    default:
      r = make_binary(tmpl.tag(), out[0], out[1]);
  }
  return const_fold(r);
}

std::span<const RewriteRule> rules_for(NodeTag tag) {
  switch (tag) {
    case NodeTag::Add:
    case NodeTag::Sub:
      return add_sub_rules(tag);
    case NodeTag::Mul:
      return mul_rules();
    case NodeTag::Div:
    case NodeTag::FloorDiv:
    case NodeTag::FloorMod:
      return div_mod_rules(tag);
    case NodeTag::Min:
    case NodeTag::Max:
      return min_max_rules(tag);
    case NodeTag::EQ:
    case NodeTag::NE:
    case NodeTag::LT:
    case NodeTag::LE:
    case NodeTag::GT:
    case NodeTag::GE:
      return compare_rules(tag);
    case NodeTag::And:
    case NodeTag::Or:
    case NodeTag::Not:
      return logic_rules(tag);
    case NodeTag::Select:
      return select_rules();
    default:
      return {};
  }
}

}  // namespace ingot::tir::arith

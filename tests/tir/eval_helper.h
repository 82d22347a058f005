// A tiny reference evaluator for small integer/bool loop-IR expressions, written independently
// of the simplifier (plain C++ semantics, floor division by hand) for randomized tests.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "tir/expr.h"

namespace ingot::tir::testing {

using Env = std::unordered_map<const VarNode*, int64_t>;

inline int64_t ref_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// nullopt on division by zero or an unsupported node.
inline std::optional<int64_t> eval(const Expr& e, const Env& env) {
  if (auto* i = e.as<IntImm>()) return i->value;
  if (auto* v = e.as<VarNode>()) {
    auto it = env.find(v);
    if (it == env.end()) return std::nullopt;
    return it->second;
  }
  if (auto* n = e.as<Not>()) {
    auto a = eval(n->a, env);
    if (!a) return std::nullopt;
    return *a == 0;
  }
  if (auto* s = e.as<Select>()) {
    auto c = eval(s->condition, env), t = eval(s->true_value, env), f = eval(s->false_value, env);
    if (!c || !t || !f) return std::nullopt;
    return *c ? *t : *f;
  }
#define BIN(T, expr)                                 \
  if (auto* n = e.as<T>()) {                         \
    auto oa = eval(n->a, env), ob = eval(n->b, env); \
    if (!oa || !ob) return std::nullopt;             \
    int64_t a = *oa, b = *ob;                        \
    return expr;                                     \
  }
  BIN(Add, a + b)
  BIN(Sub, a - b)
  BIN(Mul, a * b)
  BIN(Min, a < b ? a : b)
  BIN(Max, a > b ? a : b)
  BIN(EQ, int64_t(a == b))
  BIN(NE, int64_t(a != b))
  BIN(LT, int64_t(a < b))
  BIN(LE, int64_t(a <= b))
  BIN(GT, int64_t(a > b))
  BIN(GE, int64_t(a >= b))
  BIN(And, int64_t(a && b))
  BIN(Or, int64_t(a || b))
  BIN(Div, b == 0 ? std::optional<int64_t>() : std::optional<int64_t>(a / b))
  BIN(FloorDiv, b == 0 ? std::optional<int64_t>() : std::optional<int64_t>(ref_floordiv(a, b)))
  BIN(FloorMod,
      b == 0 ? std::optional<int64_t>() : std::optional<int64_t>(a - ref_floordiv(a, b) * b))
#undef BIN
  return std::nullopt;
}

}  // namespace ingot::tir::testing

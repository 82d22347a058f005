// Rewrite rules as data: a pattern, a result and an optional side condition, each an ordinary
// expression over the pattern variables below. Constants in a pattern match any constant of that
// value; constants in a result take the dtype of their sibling operand (or of the rewritten node).
#pragma once

#include <span>
#include <unordered_map>
#include <vector>

#include "tir/expr.h"

namespace ingot::tir::arith {

// x, y, z match any expression; c1..c3 match constants; p, q are bool-typed "any" variables.
struct PatternVars {
  Var x, y, z, c1, c2, c3, p, q;
  Expr t, f;  // bool literals true / false
  bool is_const_var(const VarNode* v) const;
  bool is_var(const VarNode* v) const;
};
const PatternVars& pattern_vars();

struct RewriteRule {
  RewriteRule(const char* n, Expr pat, Expr res, Expr cond = Expr(), bool floats = false)
      : name(n),
        pattern(std::move(pat)),
        result(std::move(res)),
        condition(std::move(cond)),
        float_ok(floats) {}
  const char* name;
  Expr pattern;
  Expr result;
  Expr condition;         // undefined = always; constants fold, the rest must be proven
  bool float_ok = false;  // also valid for float operands (IEEE, NaN and -0 included)
};

using Bindings = std::unordered_map<const VarNode*, Expr>;

// Matches e against pattern, extending (and checking consistency with) bindings.
bool match(const Expr& pattern, const Expr& e, Bindings* bindings);
// Builds `tmpl` with the bindings; each built node is constant folded. `dtype` types a bare
// literal at the root.
Expr instantiate(const Expr& tmpl, const Bindings& bindings, DataType dtype);

// The rules tried on a node of the given kind, in order (first match wins).
std::span<const RewriteRule> rules_for(NodeTag tag);
// Per-kind tables (one file each).
std::span<const RewriteRule> add_sub_rules(NodeTag tag);
std::span<const RewriteRule> mul_rules();
std::span<const RewriteRule> div_mod_rules(NodeTag tag);
std::span<const RewriteRule> min_max_rules(NodeTag tag);
std::span<const RewriteRule> compare_rules(NodeTag tag);
std::span<const RewriteRule> logic_rules(NodeTag tag);
std::span<const RewriteRule> select_rules();

// Builds the binary node of `tag` (one of INGOT_TIR_BINARY_NODES).
Expr make_binary(NodeTag tag, Expr a, Expr b);

}  // namespace ingot::tir::arith

// Small analyses over loop IR: which variables an expression or statement uses, and which of
// them are free (used but not bound by a loop or let inside it); a condition's conjuncts; no-op
// stores.
#pragma once

#include <functional>
#include <set>
#include <vector>

#include "tir/prim_func.h"

namespace ingot::tir {

// The Var handle of an expression that is a variable (InternalError otherwise).
Var to_var(const Expr& e);

// Free variables in order of first use (each once).
std::vector<Var> free_vars(const Expr& e);
std::vector<Var> free_vars(const Stmt& s);

// Whether any use of a variable (bound or free) satisfies pred / is v.
bool uses_var(const Expr& e, const std::function<bool(const VarNode*)>& pred);
bool uses_var(const Stmt& s, const std::function<bool(const VarNode*)>& pred);
bool uses_var(const Expr& e, const Var& v);
bool uses_var(const Stmt& s, const Var& v);

// The terms of a chain of && (the condition itself when it is not one).
std::vector<Expr> conjuncts(const Expr& cond);

// Whether s is (or has) block form: a Block or BlockRealize anywhere in it.
bool has_blocks(const Stmt& s);

// Whether an expression loads from `buffer`.
bool loads_buffer(const Expr& e, const BufferNode* buffer);

// The buffers of one storage scope that a statement loads from and stores to.
struct ScopeAccesses {
  std::set<const BufferNode*> reads, writes;
  bool empty() const { return reads.empty() && writes.empty(); }
};
ScopeAccesses scope_accesses(const Stmt& s, StorageScope scope);

// Whether s stores to a buffer what it loads from the same place (a no-op).
bool is_self_store(const Stmt& s);

// Whether every load of the store's own buffer in its value is at the stored index (an in-place
// elementwise update: y[i] = f(y[i], ...)).
bool reads_own_buffer_at_store_index(const BufferStore& st);

// Whether op is a math intrinsic that codegen expands into a polynomial or a libm call (exp,
// log, tanh, erf, sigmoid, sin, cos, pow): many constants and instructions per element.
bool is_polynomial_math(Intrinsic op);
// Whether s calls one.
bool uses_polynomial_math(const Stmt& s);

}  // namespace ingot::tir

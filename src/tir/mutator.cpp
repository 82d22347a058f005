// IRMutator: the default rebuild of every node kind, keeping unchanged nodes by identity.
#include "tir/mutator.h"

namespace ingot::tir {

PrimFunc IRMutator::mutate(const PrimFunc& f) {
  PrimFunc out = f;
  out.body = mutate(f.body);
  return out;
}

std::vector<Expr> IRMutator::mutate_all(const std::vector<Expr>& v, bool* changed) {
  std::vector<Expr> out;
  out.reserve(v.size());
  for (const Expr& e : v) {
    out.push_back(mutate(e));
    if (!out.back().same_as(e)) *changed = true;
  }
  return out;
}

std::vector<BufferRegion> IRMutator::mutate_regions(const std::vector<BufferRegion>& v,
                                                    bool* changed) {
  std::vector<BufferRegion> out = v;
  for (BufferRegion& r : out) {
    for (Range& x : r.region) {
      Expr m = mutate(x.min), e = mutate(x.extent);
      if (!m.same_as(x.min) || !e.same_as(x.extent)) *changed = true;
      x = {m, e};
    }
  }
  return out;
}

Expr IRMutator::visit_IntImm(const IntImm*, const Expr& e) {
  return e;
}
Expr IRMutator::visit_FloatImm(const FloatImm*, const Expr& e) {
  return e;
}
Expr IRMutator::visit_Var(const VarNode*, const Expr& e) {
  return e;
}

#define INGOT_X(N, sym)                                   \
  Expr IRMutator::visit_##N(const N* op, const Expr& e) { \
    Expr a = mutate(op->a), b = mutate(op->b);            \
    if (a.same_as(op->a) && b.same_as(op->b)) return e;   \
    return N::make(std::move(a), std::move(b));           \
  }
INGOT_TIR_BINARY_NODES(INGOT_X)
#undef INGOT_X

Expr IRMutator::visit_Not(const Not* op, const Expr& e) {
  Expr a = mutate(op->a);
  return a.same_as(op->a) ? e : Not::make(std::move(a));
}
Expr IRMutator::visit_Select(const Select* op, const Expr& e) {
  Expr c = mutate(op->condition), t = mutate(op->true_value), f = mutate(op->false_value);
  if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) return e;
  return Select::make(std::move(c), std::move(t), std::move(f));
}
Expr IRMutator::visit_Cast(const Cast* op, const Expr& e) {
  Expr v = mutate(op->value);
  return v.same_as(op->value) ? e : Cast::make(op->dtype, std::move(v));
}
Expr IRMutator::visit_Call(const Call* op, const Expr& e) {
  bool changed = false;
  std::vector<Expr> args = mutate_all(op->args, &changed);
  return changed ? Call::make(op->op, std::move(args)) : e;
}
Expr IRMutator::visit_BufferLoad(const BufferLoad* op, const Expr& e) {
  bool changed = false;
  std::vector<Expr> idx = mutate_all(op->indices, &changed);
  return changed ? BufferLoad::make(Buffer(op->buffer), std::move(idx)) : e;
}
Expr IRMutator::visit_Ramp(const Ramp* op, const Expr& e) {
  Expr b = mutate(op->base), s = mutate(op->stride);
  if (b.same_as(op->base) && s.same_as(op->stride)) return e;
  return Ramp::make(std::move(b), std::move(s), op->lanes);
}
Expr IRMutator::visit_Broadcast(const Broadcast* op, const Expr& e) {
  Expr v = mutate(op->value);
  return v.same_as(op->value) ? e : Broadcast::make(std::move(v), op->lanes);
}
Expr IRMutator::visit_Shuffle(const Shuffle* op, const Expr& e) {
  Expr v = mutate(op->vector);
  return v.same_as(op->vector) ? e : Shuffle::make(std::move(v), op->indices);
}
Expr IRMutator::visit_Let(const Let* op, const Expr& e) {
  Expr v = mutate(op->value), b = mutate(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return e;
  return Let::make(op->var, std::move(v), std::move(b));
}

Stmt IRMutator::visit_For(const For* op, const Stmt& s) {
  Expr m = mutate(op->min), x = mutate(op->extent);
  Stmt b = mutate(op->body);
  if (m.same_as(op->min) && x.same_as(op->extent) && b.same_as(op->body)) return s;
  return For::make(op->loop_var, std::move(m), std::move(x), op->kind, std::move(b),
                   op->thread_tag);
}
Stmt IRMutator::visit_BufferStore(const BufferStore* op, const Stmt& s) {
  Expr v = mutate(op->value);
  bool changed = !v.same_as(op->value);
  std::vector<Expr> idx = mutate_all(op->indices, &changed);
  return changed ? BufferStore::make(Buffer(op->buffer), std::move(v), std::move(idx)) : s;
}
Stmt IRMutator::visit_SeqStmt(const SeqStmt* op, const Stmt& s) {
  bool changed = false;
  std::vector<Stmt> seq;
  seq.reserve(op->seq.size());
  for (const Stmt& x : op->seq) {
    seq.push_back(mutate(x));
    if (!seq.back().same_as(x)) changed = true;
  }
  return changed ? SeqStmt::make(std::move(seq)) : s;
}
Stmt IRMutator::visit_IfThenElse(const IfThenElse* op, const Stmt& s) {
  Expr c = mutate(op->condition);
  Stmt t = mutate(op->then_case);
  Stmt f = op->else_case.defined() ? mutate(op->else_case) : Stmt();
  if (c.same_as(op->condition) && t.same_as(op->then_case) && f.same_as(op->else_case)) return s;
  return IfThenElse::make(std::move(c), std::move(t), std::move(f));
}
Stmt IRMutator::visit_LetStmt(const LetStmt* op, const Stmt& s) {
  Expr v = mutate(op->value);
  Stmt b = mutate(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return s;
  return LetStmt::make(op->var, std::move(v), std::move(b));
}
Stmt IRMutator::visit_Allocate(const Allocate* op, const Stmt& s) {
  Stmt b = mutate(op->body);
  return b.same_as(op->body) ? s : Allocate::make(Buffer(op->buffer), std::move(b));
}
Stmt IRMutator::visit_Evaluate(const Evaluate* op, const Stmt& s) {
  Expr v = mutate(op->value);
  return v.same_as(op->value) ? s : Evaluate::make(std::move(v));
}

Stmt IRMutator::visit_Block(const Block* op, const Stmt& s) {
  bool changed = false;
  std::vector<IterVar> ivs = op->iter_vars;
  for (IterVar& iv : ivs) {
    Expr m = mutate(iv.min), e = mutate(iv.extent);
    if (!m.same_as(iv.min) || !e.same_as(iv.extent)) changed = true;
    iv.min = m;
    iv.extent = e;
  }
  std::vector<BufferRegion> reads = mutate_regions(op->reads, &changed);
  std::vector<BufferRegion> writes = mutate_regions(op->writes, &changed);
  Stmt init = op->init.defined() ? mutate(op->init) : Stmt();
  Stmt body = mutate(op->body);
  if (!changed && init.same_as(op->init) && body.same_as(op->body)) return s;
  return Block::make(op->name_hint, std::move(ivs), std::move(reads), std::move(writes),
                     std::move(body), std::move(init), op->alloc_buffers, op->annotations);
}
Stmt IRMutator::visit_BlockRealize(const BlockRealize* op, const Stmt& s) {
  bool changed = false;
  std::vector<Expr> values = mutate_all(op->iter_values, &changed);
  Expr pred = mutate(op->predicate);
  Stmt block = mutate(op->block);
  if (!changed && pred.same_as(op->predicate) && block.same_as(op->block)) return s;
  return BlockRealize::make(std::move(values), std::move(pred), std::move(block));
}

}  // namespace ingot::tir

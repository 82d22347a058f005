// LowerBlocks: a mutator that rewrites every BlockRealize bottom-up into plain statements.
#include "tir/transforms/lower_blocks.h"

#include <unordered_set>
#include <vector>

#include "tir/analysis.h"
#include "tir/mutator.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace ingot::tir {
namespace {

bool is_true(const Expr& e) {
  int64_t v = 0;
  return is_const_int(e, &v) && v != 0;
}

class BlockLowerer : public IRMutator {
 public:
  Stmt visit_BlockRealize(const BlockRealize* op, const Stmt&) override {
    const Block* b = op->block_node();
    // 1. Bind iter vars to their values and lower nested blocks first.
    VarMap bind;
    for (size_t i = 0; i < b->iter_vars.size(); ++i)
      bind[b->iter_vars[i].var.node()] = op->iter_values[i];
    Stmt body = substitute(mutate(b->body), bind);
    // 2. The init runs at the first reduction step: every reduce binding at its min.
    if (b->init.defined()) {
      Stmt init = substitute(mutate(b->init), bind);
      Expr first;
      for (size_t i = 0; i < b->iter_vars.size(); ++i) {
        const IterVar& iv = b->iter_vars[i];
        if (iv.kind != IterKind::kReduce) continue;
        Expr c = op->iter_values[i] == substitute(iv.min, bind);
        first = first.defined() ? (first && c) : c;
      }
      body = SeqStmt::make({first.defined() ? IfThenElse::make(first, init) : init, body});
    }
    // 3. Allocations scope the whole block; the predicate guards its execution.
    for (auto it = b->alloc_buffers.rbegin(); it != b->alloc_buffers.rend(); ++it)
      body = Allocate::make(*it, body);
    if (!is_true(op->predicate)) {
      body = IfThenElse::make(op->predicate, body);
      predicates_.insert(body.get());
      alive_.push_back(body);
    }
    return body;
  }
  // A block's predicate that does not depend on the vectorized loop right around it is tested
  // outside that loop (a layout conversion's channel test `cb * B + l < C` around its pixel
  // loop), so the loop stays a plain vector loop. Serial loops keep their guards inside (the
  // tails of the matmul and convolution tiles measured no faster with them hoisted).
  Stmt visit_For(const For* op, const Stmt& s) override {
    Stmt r = IRMutator::visit_For(op, s);
    auto* f = r.as<For>();
    auto* guard = f->body.as<IfThenElse>();
    if (f->kind != ForKind::kVectorized || guard == nullptr || !predicates_.count(guard) ||
        guard->else_case.defined() || uses_var(guard->condition, f->loop_var))
      return r;
    Stmt loop = For::make(f->loop_var, f->min, f->extent, f->kind, guard->then_case, f->thread_tag);
    return IfThenElse::make(guard->condition, loop);
  }
  Stmt visit_Block(const Block* op, const Stmt&) override {
    // A bare block (no realize) has no iter vars to bind.
    INGOT_ICHECK(op->iter_vars.empty(), "block {} with iter vars outside a BlockRealize",
                 op->name_hint);
    Stmt body = mutate(op->body);
    if (op->init.defined()) body = SeqStmt::make({mutate(op->init), body});
    for (auto it = op->alloc_buffers.rbegin(); it != op->alloc_buffers.rend(); ++it)
      body = Allocate::make(*it, body);
    return body;
  }

 private:
  std::unordered_set<const StmtNode*> predicates_;  // the guards made of block predicates
  std::vector<Stmt> alive_;                         // (kept alive, so addresses stay theirs)
};

}  // namespace

Stmt lower_blocks_stmt(const Stmt& s) {
  return BlockLowerer().mutate(s);
}

PrimFunc lower_blocks(PrimFunc f) {
  f.body = lower_blocks_stmt(f.body);
  return f;
}

}  // namespace ingot::tir

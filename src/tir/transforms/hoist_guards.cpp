// Hoist guards: loop-invariant guards of stores lifted out of serial loops (see the header).
#include "tir/transforms/hoist_guards.h"

#include <vector>

#include "tir/analysis.h"
#include "tir/mutator.h"
#include "tir/op.h"
#include "tir/structural_equal.h"
#include "tir/visitor.h"

namespace ingot::tir {
namespace {

// The select of a guarded store, B[idx] = select(c, v, B[idx]), or nullptr.
const Select* guarded_store(const BufferStore& st) {
  const auto* sel = st.value.as<Select>();
  const auto* keep = sel ? sel->false_value.as<BufferLoad>() : nullptr;
  if (keep == nullptr || keep->buffer.get() != st.buffer.get() ||
      keep->indices.size() != st.indices.size())
    return nullptr;
  for (size_t d = 0; d < st.indices.size(); ++d)
    if (!structural_equal(keep->indices[d], st.indices[d])) return nullptr;
  return sel;
}

// Whether `e` loads any buffer (a guard that does would see the loop's stores: it stays).
bool loads_any(const Expr& e) {
  struct Finder : IRVisitor {
    bool found = false;
    void visit_BufferLoad(const BufferLoad* op, const Expr& x) override {
      found = true;
      IRVisitor::visit_BufferLoad(op, x);
    }
  } f;
  f.visit(e);
  return f.found;
}

Expr conjunction(const std::vector<Expr>& terms) {
  Expr c;
  for (const Expr& t : terms) c = c.defined() ? (c && t) : t;
  return c;
}

class GuardHoister : public IRMutator {
 public:
  Stmt visit_For(const For* op, const Stmt& s) override {
    Stmt body = mutate(op->body);
    auto loop = [&](Stmt b) {
      return For::make(op->loop_var, op->min, op->extent, op->kind, std::move(b), op->thread_tag);
    };
    if (op->kind == ForKind::kSerial) {
      const auto* st = body.as<BufferStore>();
      if (const Select* sel = st ? guarded_store(*st) : nullptr) {
        std::vector<Expr> outside, inside;
        for (const Expr& t : conjuncts(sel->condition))
          (uses_var(t, op->loop_var) || loads_any(t) ? inside : outside).push_back(t);
        if (!outside.empty()) {
          Expr value = inside.empty()
                           ? sel->true_value
                           : select(conjunction(inside), sel->true_value, sel->false_value);
          return IfThenElse::make(conjunction(outside),
                                  loop(BufferStore::make(Buffer(st->buffer), value, st->indices)));
        }
      }
    }
    return body.same_as(op->body) ? s : loop(body);
  }

  Stmt visit_SeqStmt(const SeqStmt* op, const Stmt& s) override {
    std::vector<Stmt> seq;
    bool changed = false;
    for (const Stmt& x : op->seq) {
      Stmt m = mutate(x);
      changed = changed || !m.same_as(x);
      const auto* now = m.as<IfThenElse>();
      const auto* last = seq.empty() ? nullptr : seq.back().as<IfThenElse>();
      if (now != nullptr && last != nullptr && !now->else_case.defined() &&
          !last->else_case.defined() && structural_equal(now->condition, last->condition)) {
        seq.back() =
            IfThenElse::make(last->condition, SeqStmt::make({last->then_case, now->then_case}));
        changed = true;
        continue;
      }
      seq.push_back(m);
    }
    return changed ? SeqStmt::make(std::move(seq)) : s;
  }
};

}  // namespace

Stmt hoist_guards(const Stmt& s) {
  return GuardHoister().mutate(s);
}

PrimFunc hoist_guards(PrimFunc f) {
  f.body = hoist_guards(f.body);
  return f;
}

}  // namespace ingot::tir

// Barriers for shared memory (see thread_sync.h).
#include "codegen/gpu/thread_sync.h"

#include <algorithm>
#include <map>
#include <set>

#include "support/error.h"
#include "tir/analysis.h"

namespace ingot::codegen {
namespace {

using namespace tir;

// The shared buffers a statement reads and writes.
struct Accesses : ScopeAccesses {
  void merge(const Accesses& o) {
    reads.insert(o.reads.begin(), o.reads.end());
    writes.insert(o.writes.begin(), o.writes.end());
  }
  // Whether `later`, run by other threads after these, needs a barrier in between: it reads
  // what these wrote or writes what these read. (Writes after writes are not: the schedules'
  // cooperative copies write each element once, from one thread.)
  bool conflicts(const Accesses& later) const {
    auto meets = [](const std::set<const BufferNode*>& a, const std::set<const BufferNode*>& b) {
      return std::any_of(a.begin(), a.end(), [&](const BufferNode* x) { return b.count(x) > 0; });
    };
    return meets(later.reads, writes) || meets(later.writes, reads);
  }
};

class SyncPlanner {
 public:
  SyncPlanner(const std::vector<Var>& thread_vars, const std::string& kernel) : kernel_(kernel) {
    for (const Var& v : thread_vars)
      if (v.defined()) threads_.insert(v.node());
  }

  std::unordered_set<const StmtNode*> run(const Stmt& body) {
    sequence(body, Accesses{}, false);
    return std::move(syncs_);
  }

 private:
  const Accesses& accesses(const Stmt& s) {
    auto it = memo_.find(s.get());
    if (it != memo_.end()) return it->second;
    Accesses a;
    static_cast<ScopeAccesses&>(a) = scope_accesses(s, StorageScope::kShared);
    return memo_[s.get()] = std::move(a);
  }

  bool thread_dependent(const Expr& e) const {
    return uses_var(e, [&](const VarNode* v) { return threads_.count(v) > 0; });
  }

  // The statements of a sequence (or the one statement) in order, from `pending`.
  Accesses sequence(const Stmt& s, Accesses pending, bool divergent) {
    if (const auto* seq = s.as<SeqStmt>()) {
      for (const Stmt& c : seq->seq) pending = step(c, std::move(pending), divergent);
      return pending;
    }
    return step(s, std::move(pending), divergent);
  }

  // One statement: a barrier before it when it conflicts with what is pending, then inside it.
  Accesses step(const Stmt& s, Accesses pending, bool divergent) {
    const Accesses& mine = accesses(s);
    if (mine.empty()) return pending;
    if (pending.conflicts(mine) && !opens_with_barrier(s, divergent)) {
      if (divergent)
        fail_user(
            "kernel {}: shared memory needs a barrier inside a branch or loop that depends on "
            "the thread index; not supported on GPU targets",
            kernel_);
      syncs_.insert(s.get());
      pending = Accesses{};
    }
    return inside(s, std::move(pending), divergent);
  }

  // Whether `s` is a loop, uniform across the threads, whose body gets a barrier before its first
  // statement with shared accesses on every iteration anyway (that statement conflicts with the
  // body's own accesses, which every iteration carries): then a barrier before the loop for what
  // is pending is redundant, since that one comes first. (A loop of a double-buffered slab
  // pipeline opens with a copy into the buffers its previous iteration read.)
  bool opens_with_barrier(const Stmt& s, bool divergent) {
    const auto* f = s.as<For>();
    if (f == nullptr || divergent || thread_dependent(f->min) || thread_dependent(f->extent))
      return false;
    const Accesses& all = accesses(f->body);
    const auto* seq = f->body.as<SeqStmt>();
    const std::vector<Stmt> body = seq ? seq->seq : std::vector<Stmt>{f->body};
    for (const Stmt& c : body) {
      const Accesses& first = accesses(c);
      if (!first.empty()) return all.conflicts(first);
    }
    return false;
  }

  Accesses inside(const Stmt& s, Accesses pending, bool divergent) {
    if (const auto* f = s.as<For>()) {
      bool div = divergent || thread_dependent(f->min) || thread_dependent(f->extent);
      // The body meets its own accesses of the previous iteration; the loop may run no times.
      Accesses carried = pending;
      carried.merge(accesses(f->body));
      Accesses out = sequence(f->body, carried, div);
      out.merge(pending);
      return out;
    }
    if (const auto* c = s.as<IfThenElse>()) {
      bool div = divergent || thread_dependent(c->condition);
      Accesses out = sequence(c->then_case, pending, div);
      out.merge(c->else_case.defined() ? sequence(c->else_case, pending, div) : pending);
      return out;
    }
    if (const auto* l = s.as<LetStmt>()) return sequence(l->body, std::move(pending), divergent);
    if (const auto* a = s.as<Allocate>()) return sequence(a->body, std::move(pending), divergent);
    if (s.as<SeqStmt>() != nullptr) return sequence(s, std::move(pending), divergent);
    pending.merge(accesses(s));
    return pending;
  }

  std::string kernel_;
  std::set<const VarNode*> threads_;
  std::map<const StmtNode*, Accesses> memo_;
  std::unordered_set<const StmtNode*> syncs_;
};

}  // namespace

std::unordered_set<const StmtNode*> plan_thread_syncs(const Stmt& body,
                                                      const std::vector<Var>& thread_vars,
                                                      const std::string& kernel) {
  return SyncPlanner(thread_vars, kernel).run(body);
}

}  // namespace ingot::codegen

// free_vars() and uses_var(): visitors that track variable definitions and uses.
#include "tir/analysis.h"

#include <unordered_set>

#include "support/error.h"
#include "tir/structural_equal.h"
#include "tir/visitor.h"

namespace ingot::tir {
namespace {

class FreeVarCollector : public IRVisitor {
 public:
  std::vector<Var> result;

  void visit_Var(const VarNode* op, const Expr& e) override {
    if (bound_.count(op) || seen_.count(op)) return;
    seen_.insert(op);
    result.push_back(to_var(e));
  }
  void visit_Let(const Let* op, const Expr&) override {
    visit_expr(op->value);
    bound_.insert(op->var.node());
    visit_expr(op->body);
  }
  void visit_For(const For* op, const Stmt&) override {
    visit_expr(op->min);
    visit_expr(op->extent);
    bound_.insert(op->loop_var.node());
    visit_stmt(op->body);
  }
  void visit_LetStmt(const LetStmt* op, const Stmt&) override {
    visit_expr(op->value);
    bound_.insert(op->var.node());
    visit_stmt(op->body);
  }
  void visit_Block(const Block* op, const Stmt& s) override {
    for (const IterVar& iv : op->iter_vars) bound_.insert(iv.var.node());
    IRVisitor::visit_Block(op, s);
  }

 private:
  std::unordered_set<const VarNode*> bound_, seen_;
};

class UseFinder : public IRVisitor {
 public:
  explicit UseFinder(const std::function<bool(const VarNode*)>& p) : pred_(p) {}
  bool found = false;
  void visit_Var(const VarNode* op, const Expr&) override { found = found || pred_(op); }

 private:
  const std::function<bool(const VarNode*)>& pred_;
};

}  // namespace

Var to_var(const Expr& e) {
  INGOT_ICHECK(e.as<VarNode>() != nullptr, "to_var of a {}", node_tag_name(e.tag()));
  Var v;
  static_cast<Expr&>(v) = e;
  return v;
}

std::vector<Var> free_vars(const Expr& e) {
  FreeVarCollector c;
  c.visit(e);
  return c.result;
}
std::vector<Var> free_vars(const Stmt& s) {
  FreeVarCollector c;
  c.visit(s);
  return c.result;
}

bool uses_var(const Expr& e, const std::function<bool(const VarNode*)>& pred) {
  UseFinder f(pred);
  f.visit(e);
  return f.found;
}
bool uses_var(const Stmt& s, const std::function<bool(const VarNode*)>& pred) {
  UseFinder f(pred);
  f.visit(s);
  return f.found;
}
bool uses_var(const Expr& e, const Var& v) {
  return uses_var(e, [p = v.node()](const VarNode* x) { return x == p; });
}
bool uses_var(const Stmt& s, const Var& v) {
  return uses_var(s, [p = v.node()](const VarNode* x) { return x == p; });
}

std::vector<Expr> conjuncts(const Expr& cond) {
  std::vector<Expr> terms, todo = {cond};
  while (!todo.empty()) {
    Expr t = todo.back();
    todo.pop_back();
    if (auto* a = t.as<And>()) {
      todo.push_back(a->b);
      todo.push_back(a->a);
    } else {
      terms.push_back(t);
    }
  }
  return terms;
}

bool is_polynomial_math(Intrinsic op) {
  switch (op) {
    case Intrinsic::exp:
    case Intrinsic::log:
    case Intrinsic::tanh:
    case Intrinsic::erf:
    case Intrinsic::sigmoid:
    case Intrinsic::sin:
    case Intrinsic::cos:
    case Intrinsic::pow:
      return true;
    default:
      return false;
  }
}

bool uses_polynomial_math(const Stmt& s) {
  struct Finder : IRVisitor {
    bool found = false;
    void visit_Call(const node_type::Call* op, const Expr& e) override {
      found = found || is_polynomial_math(op->op);
      IRVisitor::visit_Call(op, e);
    }
  } f;
  f.visit(s);
  return f.found;
}

bool is_self_store(const Stmt& s) {
  auto* st = s.as<BufferStore>();
  auto* ld = st ? st->value.as<BufferLoad>() : nullptr;
  if (!ld || ld->buffer.get() != st->buffer.get() || ld->indices.size() != st->indices.size())
    return false;
  for (size_t d = 0; d < ld->indices.size(); ++d)
    if (!structural_equal(ld->indices[d], st->indices[d])) return false;
  return true;
}

bool reads_own_buffer_at_store_index(const BufferStore& st) {
  struct Check : IRVisitor {
    const BufferStore* st = nullptr;
    bool ok = true;
    void visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
      if (op->buffer.get() == st->buffer.get())
        for (size_t k = 0; k < op->indices.size(); ++k)
          ok = ok && structural_equal(op->indices[k], st->indices[k]);
      IRVisitor::visit_BufferLoad(op, e);
    }
  } c;
  c.st = &st;
  c.visit(st.value);
  return c.ok;
}

bool has_blocks(const Stmt& s) {
  struct Finder : IRVisitor {
    bool found = false;
    void visit_Block(const Block*, const Stmt&) override { found = true; }
    void visit_BlockRealize(const BlockRealize*, const Stmt&) override { found = true; }
  } finder;
  finder.visit(s);
  return finder.found;
}

bool loads_buffer(const Expr& e, const BufferNode* buffer) {
  struct Finder : IRVisitor {
    const BufferNode* buffer = nullptr;
    bool found = false;
    void visit_BufferLoad(const BufferLoad* op, const Expr& x) override {
      found = found || op->buffer.get() == buffer;
      IRVisitor::visit_BufferLoad(op, x);
    }
  } f;
  f.buffer = buffer;
  f.visit(e);
  return f.found;
}

ScopeAccesses scope_accesses(const Stmt& s, StorageScope scope) {
  struct Collector : IRVisitor {
    StorageScope scope;
    ScopeAccesses found;
    void visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
      if (op->buffer->scope == scope) found.reads.insert(op->buffer.get());
      IRVisitor::visit_BufferLoad(op, e);
    }
    void visit_BufferStore(const BufferStore* op, const Stmt& x) override {
      if (op->buffer->scope == scope) found.writes.insert(op->buffer.get());
      IRVisitor::visit_BufferStore(op, x);
    }
  } c;
  c.scope = scope;
  c.visit(s);
  return std::move(c.found);
}

}  // namespace ingot::tir

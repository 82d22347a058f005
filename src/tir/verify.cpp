// verify_prim_func(): a scoped walk tracking defined variables and buffers.
#include "tir/verify.h"

#include <unordered_set>

#include "support/error.h"
#include "tir/visitor.h"

namespace ingot::tir {
namespace {

class Verifier : public IRVisitor {
 public:
  Verifier(const PrimFunc& f, bool flattened) : func_(f), flattened_(flattened) {}

  void define_buffer(const BufferNode* b) {
    buffers_.insert(b);
    for (const Expr& e : b->shape) define_free(e);
    for (const Expr& e : b->strides) define_free(e);
  }

  void visit_Var(const VarNode* op, const Expr&) override {
    if (!vars_.count(op))
      fail_internal("PrimFunc {}: variable '{}' is used but not defined", func_.name, op->name);
  }
  void visit_Let(const Let* op, const Expr&) override {
    visit_expr(op->value);
    scoped(op->var.node(), [&] { visit_expr(op->body); });
  }
  void visit_For(const For* op, const Stmt&) override {
    visit_expr(op->min);
    visit_expr(op->extent);
    scoped(op->loop_var.node(), [&] { visit_stmt(op->body); });
  }
  void visit_LetStmt(const LetStmt* op, const Stmt&) override {
    visit_expr(op->value);
    scoped(op->var.node(), [&] { visit_stmt(op->body); });
  }
  void visit_Allocate(const Allocate* op, const Stmt&) override {
    for (const Expr& e : op->buffer->shape) visit_expr(e);
    bool fresh = buffers_.insert(op->buffer.get()).second;
    visit_stmt(op->body);
    if (fresh) buffers_.erase(op->buffer.get());
  }
  void visit_BlockRealize(const BlockRealize* op, const Stmt&) override {
    for (const Expr& v : op->iter_values) visit_expr(v);
    visit_expr(op->predicate);
    visit_stmt(op->block);
  }
  void visit_Block(const Block* op, const Stmt&) override {
    std::vector<const VarNode*> fresh_vars;
    for (const IterVar& iv : op->iter_vars) {
      visit_expr(iv.min);
      visit_expr(iv.extent);
      if (vars_.insert(iv.var.node()).second) fresh_vars.push_back(iv.var.node());
    }
    std::vector<const BufferNode*> fresh_bufs;
    for (const Buffer& b : op->alloc_buffers)
      if (buffers_.insert(b.get()).second) fresh_bufs.push_back(b.get());
    for (const auto* regions : {&op->reads, &op->writes}) {
      for (const BufferRegion& r : *regions) {
        check_access(*r.buffer.get(), r.region.size());
        for (const Range& x : r.region) {
          visit_expr(x.min);
          visit_expr(x.extent);
        }
      }
    }
    if (op->init.defined()) visit_stmt(op->init);
    visit_stmt(op->body);
    for (auto* v : fresh_vars) vars_.erase(v);
    for (auto* b : fresh_bufs) buffers_.erase(b);
  }
  void visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
    check_access(*op->buffer, op->indices.size());
    IRVisitor::visit_BufferLoad(op, e);
  }
  void visit_BufferStore(const BufferStore* op, const Stmt& s) override {
    check_access(*op->buffer, op->indices.size());
    IRVisitor::visit_BufferStore(op, s);
  }

 private:
  // Variables in a param's shape are defined by the param (symbolic dimensions).
  void define_free(const Expr& e) {
    struct Collect : IRVisitor {
      std::unordered_set<const VarNode*>* out;
      void visit_Var(const VarNode* op, const Expr&) override { out->insert(op); }
    } c;
    c.out = &vars_;
    c.visit(e);
  }
  template <typename F>
  void scoped(const VarNode* v, F body) {
    bool fresh = vars_.insert(v).second;
    body();
    if (fresh) vars_.erase(v);
  }
  void check_access(const BufferNode& b, size_t n) {
    if (!buffers_.count(&b))
      fail_internal("PrimFunc {}: buffer '{}' is neither a parameter nor allocated here",
                    func_.name, b.name);
    size_t want = flattened_ ? 1 : b.shape.size();
    if (n != want)
      fail_internal("PrimFunc {}: buffer '{}' accessed with {} indices, expected {}", func_.name,
                    b.name, n, want);
  }

  const PrimFunc& func_;
  bool flattened_;
  std::unordered_set<const VarNode*> vars_;
  std::unordered_set<const BufferNode*> buffers_;
};

}  // namespace

void verify_prim_func(const PrimFunc& f, bool flattened) {
  INGOT_ICHECK(f.body.defined(), "PrimFunc {} has no body", f.name);
  Verifier v(f, flattened);
  for (const Buffer& b : f.params) v.define_buffer(b.get());
  v.visit(f.body);
}

}  // namespace ingot::tir

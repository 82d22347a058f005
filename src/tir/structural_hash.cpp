// Structural hash: mixes node tags, dtypes and fields; variables and buffers contribute their
// order of first appearance, so renaming or rebuilding them does not change the hash.
#include "tir/structural_hash.h"

#include <bit>
#include <functional>
#include <string>
#include <unordered_map>

#include "tir/visitor.h"

namespace ingot::tir {
namespace {

class Hasher : public IRVisitor {
 public:
  size_t h = 0x9e3779b97f4a7c15ull;

  void mix(uint64_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); }
  void mix(const std::string& s) { mix(std::hash<std::string>()(s)); }
  void mix(DataType d) { mix((uint64_t(d.code) << 24) | (uint64_t(d.bits) << 16) | d.lanes); }

  void visit_expr(const Expr& e) override {
    mix(uint64_t(e.tag()));
    mix(e.dtype());
    IRVisitor::visit_expr(e);
  }
  void visit_stmt(const Stmt& s) override {
    mix(uint64_t(s.tag()) + 1000);
    IRVisitor::visit_stmt(s);
  }

  void visit_IntImm(const IntImm* op, const Expr&) override { mix(uint64_t(op->value)); }
  void visit_FloatImm(const FloatImm* op, const Expr&) override {
    double v = op->value;
    mix(v != v ? 0x7ff8ull : std::bit_cast<uint64_t>(v == 0 ? 0.0 : v));
  }
  void visit_Var(const VarNode* op, const Expr&) override { mix(index_of(op)); }
  void visit_Call(const Call* op, const Expr& e) override {
    mix(uint64_t(op->op));
    IRVisitor::visit_Call(op, e);
  }
  void visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
    buffer(op->buffer.get());
    IRVisitor::visit_BufferLoad(op, e);
  }
  void visit_Ramp(const Ramp* op, const Expr& e) override {
    mix(uint64_t(op->lanes));
    IRVisitor::visit_Ramp(op, e);
  }
  void visit_Broadcast(const Broadcast* op, const Expr& e) override {
    mix(uint64_t(op->lanes));
    IRVisitor::visit_Broadcast(op, e);
  }
  void visit_Shuffle(const Shuffle* op, const Expr& e) override {
    for (int i : op->indices) mix(uint64_t(i));
    IRVisitor::visit_Shuffle(op, e);
  }
  void visit_Let(const Let* op, const Expr&) override {
    visit_expr(op->value);
    define(op->var.node());
    visit_expr(op->body);
  }
  void visit_For(const For* op, const Stmt&) override {
    mix(uint64_t(op->kind));
    mix(op->thread_tag);
    visit_expr(op->min);
    visit_expr(op->extent);
    define(op->loop_var.node());
    visit_stmt(op->body);
  }
  void visit_LetStmt(const LetStmt* op, const Stmt&) override {
    visit_expr(op->value);
    define(op->var.node());
    visit_stmt(op->body);
  }
  void visit_BufferStore(const BufferStore* op, const Stmt& s) override {
    buffer(op->buffer.get());
    IRVisitor::visit_BufferStore(op, s);
  }
  void visit_SeqStmt(const SeqStmt* op, const Stmt& s) override {
    mix(uint64_t(op->seq.size()));
    IRVisitor::visit_SeqStmt(op, s);
  }
  void visit_IfThenElse(const IfThenElse* op, const Stmt& s) override {
    mix(uint64_t(op->else_case.defined()));
    IRVisitor::visit_IfThenElse(op, s);
  }
  void visit_Allocate(const Allocate* op, const Stmt& s) override {
    define(op->buffer.get());
    IRVisitor::visit_Allocate(op, s);
  }

  void visit_Block(const Block* op, const Stmt&) override {
    mix(op->name_hint);
    for (const auto& [k, v] : op->annotations) {
      mix(k);
      mix(v);
    }
    for (const IterVar& iv : op->iter_vars) {
      mix(uint64_t(iv.kind));
      visit_expr(iv.min);
      visit_expr(iv.extent);
      define(iv.var.node());
    }
    for (const Buffer& b : op->alloc_buffers) define(b.get());
    for (const auto* regions : {&op->reads, &op->writes}) {
      mix(uint64_t(regions->size()));
      for (const BufferRegion& r : *regions) {
        buffer(r.buffer.get());
        for (const Range& x : r.region) {
          visit_expr(x.min);
          visit_expr(x.extent);
        }
      }
    }
    mix(uint64_t(op->init.defined()));
    if (op->init.defined()) visit_stmt(op->init);
    visit_stmt(op->body);
  }

  // Definition sites give a fresh index (a rebinding of the same object counts as new).
  void define(const VarNode* v) {
    mix(counter_);
    vars_[v] = counter_++;
  }
  void define(const BufferNode* b) {
    buffers_.erase(b);
    buffer(b);
  }
  // A buffer's first appearance mixes its type; later ones only its index.
  void buffer(const BufferNode* b) {
    auto [it, fresh] = buffers_.emplace(b, counter_);
    mix(it->second);
    if (!fresh) return;
    ++counter_;
    mix(b->dtype);
    mix(uint64_t(b->scope));
    mix(uint64_t(b->alignment));
    mix(uint64_t(b->shape.size()));
    for (const Expr& e : b->shape) visit_expr(e);
    mix(uint64_t(b->strides.size()));
    for (const Expr& e : b->strides) visit_expr(e);
  }

 private:
  uint64_t index_of(const VarNode* v) {
    auto [it, fresh] = vars_.emplace(v, counter_);
    if (fresh) ++counter_;
    return it->second;
  }
  uint64_t counter_ = 0;
  std::unordered_map<const VarNode*, uint64_t> vars_;
  std::unordered_map<const BufferNode*, uint64_t> buffers_;
};

}  // namespace

size_t structural_hash(const Expr& e) {
  Hasher h;
  h.visit_expr(e);
  return h.h;
}

size_t structural_hash(const Stmt& s) {
  Hasher h;
  h.visit_stmt(s);
  return h.h;
}

size_t structural_hash(const PrimFunc& f) {
  Hasher h;
  h.mix(f.name);
  for (const Buffer& b : f.params) h.define(b.get());
  h.visit_stmt(f.body);
  return h.h;
}

}  // namespace ingot::tir

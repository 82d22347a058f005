// Structural equality: a paired walk with a bijection between bound variables and buffers.
#include "tir/structural_equal.h"

#include <unordered_map>

#include "tir/functor.h"

namespace ingot::tir {
namespace {

class EqualChecker : public ExprFunctor<bool(const Expr&, const Expr&)>,
                     public StmtFunctor<bool(const Stmt&, const Stmt&)> {
 public:
  explicit EqualChecker(bool map_free) : map_free_(map_free) {}

  bool eq(const Expr& a, const Expr& b) {
    if (a.defined() != b.defined()) return false;
    if (!a.defined()) return true;
    // An identical subtree is equal unless some variable in it may be mapped elsewhere.
    if (a.same_as(b) && !map_free_ && var_ab_.empty() && buf_ab_.empty()) return true;
    return a.tag() == b.tag() && a.dtype() == b.dtype() && visit_expr(a, b);
  }
  bool eq(const Stmt& a, const Stmt& b) {
    if (a.defined() != b.defined()) return false;
    if (!a.defined()) return true;
    return a.tag() == b.tag() && visit_stmt(a, b);
  }
  bool eq(const std::vector<Expr>& a, const std::vector<Expr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!eq(a[i], b[i])) return false;
    return true;
  }

  // Binds a to b at a definition site; a later definition of either replaces the old pairing.
  bool define(const VarNode* a, const VarNode* b) {
    if (a->dtype != b->dtype) return false;
    return pair(var_ab_, var_ba_, a, b);
  }
  bool define(const BufferNode* a, const BufferNode* b) {
    if (!pair(buf_ab_, buf_ba_, a, b)) return false;
    return a->dtype == b->dtype && a->scope == b->scope && a->alignment == b->alignment &&
           eq(a->shape, b->shape) && eq(a->strides, b->strides) &&
           define(a->data.node(), b->data.node());
  }

  bool var_use(const VarNode* a, const VarNode* b) {
    auto it = var_ab_.find(a);
    if (it != var_ab_.end()) return it->second == b;
    if (var_ba_.count(b)) return false;
    if (!map_free_) return a == b;
    return define(a, b);
  }
  bool buffer_use(const BufferNode* a, const BufferNode* b) {
    auto it = buf_ab_.find(a);
    if (it != buf_ab_.end()) return it->second == b;
    if (buf_ba_.count(b)) return false;
    if (!map_free_) return a == b;
    return define(a, b);
  }

  // --- expressions ---
  bool visit_IntImm(const IntImm* op, const Expr&, const Expr& o) override {
    return op->value == o.as<IntImm>()->value;
  }
  bool visit_FloatImm(const FloatImm* op, const Expr&, const Expr& o) override {
    double x = op->value, y = o.as<FloatImm>()->value;
    return x == y || (x != x && y != y);
  }
  bool visit_Var(const VarNode* op, const Expr&, const Expr& o) override {
    return var_use(op, o.as<VarNode>());
  }
#define INGOT_X(N, sym)                                              \
  bool visit_##N(const N* op, const Expr&, const Expr& o) override { \
    auto* p = o.as<N>();                                             \
    return eq(op->a, p->a) && eq(op->b, p->b);                       \
  }
  INGOT_TIR_BINARY_NODES(INGOT_X)
#undef INGOT_X
  bool visit_Not(const Not* op, const Expr&, const Expr& o) override {
    return eq(op->a, o.as<Not>()->a);
  }
  bool visit_Select(const Select* op, const Expr&, const Expr& o) override {
    auto* p = o.as<Select>();
    return eq(op->condition, p->condition) && eq(op->true_value, p->true_value) &&
           eq(op->false_value, p->false_value);
  }
  bool visit_Cast(const Cast* op, const Expr&, const Expr& o) override {
    return eq(op->value, o.as<Cast>()->value);
  }
  bool visit_Call(const Call* op, const Expr&, const Expr& o) override {
    auto* p = o.as<Call>();
    return op->op == p->op && eq(op->args, p->args);
  }
  bool visit_BufferLoad(const BufferLoad* op, const Expr&, const Expr& o) override {
    auto* p = o.as<BufferLoad>();
    return buffer_use(op->buffer.get(), p->buffer.get()) && eq(op->indices, p->indices);
  }
  bool visit_Ramp(const Ramp* op, const Expr&, const Expr& o) override {
    auto* p = o.as<Ramp>();
    return op->lanes == p->lanes && eq(op->base, p->base) && eq(op->stride, p->stride);
  }
  bool visit_Broadcast(const Broadcast* op, const Expr&, const Expr& o) override {
    auto* p = o.as<Broadcast>();
    return op->lanes == p->lanes && eq(op->value, p->value);
  }
  bool visit_Shuffle(const Shuffle* op, const Expr&, const Expr& o) override {
    auto* p = o.as<Shuffle>();
    return op->indices == p->indices && eq(op->vector, p->vector);
  }
  bool visit_Let(const Let* op, const Expr&, const Expr& o) override {
    auto* p = o.as<Let>();
    return eq(op->value, p->value) && define(op->var.node(), p->var.node()) &&
           eq(op->body, p->body);
  }

  // --- statements ---
  bool visit_For(const For* op, const Stmt&, const Stmt& o) override {
    auto* p = o.as<For>();
    return op->kind == p->kind && op->thread_tag == p->thread_tag && eq(op->min, p->min) &&
           eq(op->extent, p->extent) && define(op->loop_var.node(), p->loop_var.node()) &&
           eq(op->body, p->body);
  }
  bool visit_BufferStore(const BufferStore* op, const Stmt&, const Stmt& o) override {
    auto* p = o.as<BufferStore>();
    return buffer_use(op->buffer.get(), p->buffer.get()) && eq(op->value, p->value) &&
           eq(op->indices, p->indices);
  }
  bool visit_SeqStmt(const SeqStmt* op, const Stmt&, const Stmt& o) override {
    auto* p = o.as<SeqStmt>();
    if (op->seq.size() != p->seq.size()) return false;
    for (size_t i = 0; i < op->seq.size(); ++i)
      if (!eq(op->seq[i], p->seq[i])) return false;
    return true;
  }
  bool visit_IfThenElse(const IfThenElse* op, const Stmt&, const Stmt& o) override {
    auto* p = o.as<IfThenElse>();
    return eq(op->condition, p->condition) && eq(op->then_case, p->then_case) &&
           eq(op->else_case, p->else_case);
  }
  bool visit_LetStmt(const LetStmt* op, const Stmt&, const Stmt& o) override {
    auto* p = o.as<LetStmt>();
    return eq(op->value, p->value) && define(op->var.node(), p->var.node()) &&
           eq(op->body, p->body);
  }
  bool visit_Allocate(const Allocate* op, const Stmt&, const Stmt& o) override {
    auto* p = o.as<Allocate>();
    return define(op->buffer.get(), p->buffer.get()) && eq(op->body, p->body);
  }
  bool visit_Evaluate(const Evaluate* op, const Stmt&, const Stmt& o) override {
    return eq(op->value, o.as<Evaluate>()->value);
  }
  bool visit_Block(const Block* op, const Stmt&, const Stmt& o) override {
    auto* p = o.as<Block>();
    if (op->name_hint != p->name_hint || op->annotations != p->annotations ||
        op->iter_vars.size() != p->iter_vars.size() ||
        op->alloc_buffers.size() != p->alloc_buffers.size())
      return false;
    for (size_t i = 0; i < op->iter_vars.size(); ++i) {
      const IterVar &a = op->iter_vars[i], &b = p->iter_vars[i];
      if (a.kind != b.kind || !eq(a.min, b.min) || !eq(a.extent, b.extent) ||
          !define(a.var.node(), b.var.node()))
        return false;
    }
    for (size_t i = 0; i < op->alloc_buffers.size(); ++i)
      if (!define(op->alloc_buffers[i].get(), p->alloc_buffers[i].get())) return false;
    return eq(op->reads, p->reads) && eq(op->writes, p->writes) && eq(op->init, p->init) &&
           eq(op->body, p->body);
  }
  bool visit_BlockRealize(const BlockRealize* op, const Stmt&, const Stmt& o) override {
    auto* p = o.as<BlockRealize>();
    return eq(op->iter_values, p->iter_values) && eq(op->predicate, p->predicate) &&
           eq(op->block, p->block);
  }
  bool eq(const std::vector<BufferRegion>& a, const std::vector<BufferRegion>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!buffer_use(a[i].buffer.get(), b[i].buffer.get()) ||
          a[i].region.size() != b[i].region.size())
        return false;
      for (size_t k = 0; k < a[i].region.size(); ++k)
        if (!eq(a[i].region[k].min, b[i].region[k].min) ||
            !eq(a[i].region[k].extent, b[i].region[k].extent))
          return false;
    }
    return true;
  }

 private:
  template <typename T>
  static bool pair(std::unordered_map<const T*, const T*>& ab,
                   std::unordered_map<const T*, const T*>& ba, const T* a, const T* b) {
    if (auto i = ab.find(a); i != ab.end()) ba.erase(i->second);
    if (auto j = ba.find(b); j != ba.end()) ab.erase(j->second);
    ab[a] = b;
    ba[b] = a;
    return true;
  }

  bool map_free_;
  std::unordered_map<const VarNode*, const VarNode*> var_ab_, var_ba_;
  std::unordered_map<const BufferNode*, const BufferNode*> buf_ab_, buf_ba_;
};

}  // namespace

bool structural_equal(const Expr& a, const Expr& b, bool map_free_vars) {
  return EqualChecker(map_free_vars).eq(a, b);
}

bool structural_equal(const Stmt& a, const Stmt& b, bool map_free_vars) {
  return EqualChecker(map_free_vars).eq(a, b);
}

bool structural_equal(const PrimFunc& a, const PrimFunc& b, bool map_free_vars) {
  if (a.name != b.name || a.params.size() != b.params.size()) return false;
  EqualChecker c(map_free_vars);
  for (size_t i = 0; i < a.params.size(); ++i)
    if (!c.define(a.params[i].get(), b.params[i].get())) return false;
  return c.eq(a.body, b.body);
}

}  // namespace ingot::tir

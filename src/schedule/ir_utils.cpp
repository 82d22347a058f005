// IR helpers for schedule primitives: scoped walks that find blocks and loops, and mutators that
// replace statements or buffers.
#include "schedule/ir_utils.h"

#include "support/error.h"
#include "tir/analysis.h"
#include "tir/mutator.h"
#include "tir/op.h"
#include "tir/region_analysis.h"
#include "tir/visitor.h"

namespace ingot::schedule {

using namespace tir;

namespace {

// Walks statements keeping the stack of loops (reset at each block) and enclosing blocks.
class ScopeWalker : public IRVisitor {
 public:
  std::vector<Stmt> loops;
  std::vector<const Block*> blocks;

  void visit_For(const For* op, const Stmt& s) override {
    on_loop(op, s);
    loops.push_back(s);
    visit_stmt(op->body);
    loops.pop_back();
  }
  void visit_BlockRealize(const BlockRealize* op, const Stmt& s) override {
    on_block(op, s);
    std::vector<Stmt> saved;
    saved.swap(loops);
    blocks.push_back(op->block_node());
    visit_stmt(op->block_node()->body);
    if (op->block_node()->init.defined()) visit_stmt(op->block_node()->init);
    blocks.pop_back();
    loops.swap(saved);
  }
  virtual void on_loop(const For*, const Stmt&) {}
  virtual void on_block(const BlockRealize*, const Stmt&) {}
  const Block* parent() const { return blocks.empty() ? nullptr : blocks.back(); }
};

Stmt no_op() {
  return Evaluate::make(IntImm::make(DataType::i32(), 0));
}

class Replacer : public IRMutator {
 public:
  explicit Replacer(const StmtMap& m) : map_(m) {}
  Stmt visit_stmt(const Stmt& s) override {
    auto it = map_.find(s.get());
    if (it != map_.end()) return it->second;
    return IRMutator::visit_stmt(s);
  }
  Stmt visit_For(const For* op, const Stmt& s) override {
    Stmt b = mutate(op->body);
    if (!b.defined()) return Stmt();
    if (b.same_as(op->body)) return s;
    return For::make(op->loop_var, op->min, op->extent, op->kind, b, op->thread_tag);
  }
  Stmt visit_SeqStmt(const SeqStmt* op, const Stmt& s) override {
    std::vector<Stmt> seq;
    bool changed = false;
    for (const Stmt& x : op->seq) {
      Stmt y = mutate(x);
      changed = changed || !y.same_as(x);
      if (y.defined()) seq.push_back(y);
    }
    if (!changed) return s;
    return seq.empty() ? Stmt() : SeqStmt::make(std::move(seq));
  }
  Stmt visit_IfThenElse(const IfThenElse* op, const Stmt& s) override {
    Stmt t = mutate(op->then_case);
    Stmt f = op->else_case.defined() ? mutate(op->else_case) : Stmt();
    if (t.same_as(op->then_case) && f.same_as(op->else_case)) return s;
    if (!t.defined() && !f.defined()) return Stmt();
    if (!t.defined()) return IfThenElse::make(!op->condition, f);
    return IfThenElse::make(op->condition, t, f);
  }
  Stmt visit_Block(const Block* op, const Stmt& s) override {
    Stmt b = mutate(op->body);
    Stmt i = op->init.defined() ? mutate(op->init) : Stmt();
    if (b.same_as(op->body) && i.same_as(op->init)) return s;
    return Block::make(op->name_hint, op->iter_vars, op->reads, op->writes,
                       b.defined() ? b : no_op(), i, op->alloc_buffers, op->annotations);
  }
  Stmt visit_BlockRealize(const BlockRealize* op, const Stmt& s) override {
    Stmt b = mutate(op->block);
    if (!b.defined()) return Stmt();
    return b.same_as(op->block) ? s : BlockRealize::make(op->iter_values, op->predicate, b);
  }

 private:
  const StmtMap& map_;
};

class PredicateAdder : public IRMutator {
 public:
  explicit PredicateAdder(Expr c) : cond_(std::move(c)) {}
  Stmt visit_BlockRealize(const BlockRealize* op, const Stmt&) override {
    int64_t v = 0;
    bool always = is_const_int(op->predicate, &v) && v;
    return BlockRealize::make(op->iter_values, always ? cond_ : (op->predicate && cond_),
                              op->block);
  }

 private:
  Expr cond_;
};

}  // namespace

std::optional<BlockInfo> find_block(const Stmt& body, const std::string& name, int* count) {
  struct Finder : ScopeWalker {
    std::string name;
    std::optional<BlockInfo> found;
    int count = 0;
    void on_block(const BlockRealize* op, const Stmt& s) override {
      if (op->block_node()->name_hint != name) return;
      ++count;
      found = BlockInfo{s, op, op->block_node(), loops, parent()};
    }
  } f;
  f.name = name;
  f.visit(body);
  if (count) *count = f.count;
  return f.found;
}

std::optional<LoopInfo> find_loop(const Stmt& body, const VarNode* var) {
  struct Finder : ScopeWalker {
    const VarNode* var;
    std::optional<LoopInfo> found;
    void on_loop(const For* op, const Stmt& s) override {
      if (op->loop_var.node() == var) found = LoopInfo{s, op, loops, parent()};
    }
  } f;
  f.var = var;
  f.visit(body);
  return f.found;
}

std::vector<Stmt> child_block_realizes(const Stmt& s) {
  struct Collector : IRVisitor {
    std::vector<Stmt> out;
    void visit_BlockRealize(const BlockRealize*, const Stmt& s) override { out.push_back(s); }
  } c;
  if (auto* br = s.as<BlockRealize>()) {
    c.visit(br->block_node()->body);
  } else {
    c.visit(s);
  }
  return c.out;
}

Stmt replace_stmts(const Stmt& body, const StmtMap& repl) {
  Stmt r = Replacer(repl).mutate(body);
  return r.defined() ? r : no_op();
}

const Block* root_block(const Stmt& body) {
  auto* br = body.as<BlockRealize>();
  INGOT_ICHECK(br != nullptr, "schedule body is not a root block");
  return br->block_node();
}

Stmt top_level_stmt(const BlockInfo& info) {
  return info.loops.empty() ? info.realize : info.loops.front();
}

std::vector<Stmt> root_seq(const Stmt& body) {
  const Block* root = root_block(body);
  if (auto* seq = root->body.as<SeqStmt>()) return seq->seq;
  return {root->body};
}

int index_in(const std::vector<Stmt>& seq, const Stmt& s) {
  for (size_t i = 0; i < seq.size(); ++i)
    if (seq[i].same_as(s)) return int(i);
  return -1;
}

Stmt rebuild_root(const Stmt& body, std::vector<Stmt> seq, const std::vector<Buffer>& add_alloc,
                  const BufferNode* drop_alloc) {
  const Block* root = root_block(body);
  std::vector<Buffer> alloc;
  for (const Buffer& b : root->alloc_buffers)
    if (b.get() != drop_alloc) alloc.push_back(b);
  alloc.insert(alloc.end(), add_alloc.begin(), add_alloc.end());
  Stmt block = Block::make(root->name_hint, root->iter_vars, root->reads, root->writes,
                           seq.empty() ? no_op() : SeqStmt::make(std::move(seq)), root->init, alloc,
                           root->annotations);
  return BlockRealize::make({}, body.as<BlockRealize>()->predicate, block);
}

Stmt add_predicate(const Stmt& s, const Expr& cond) {
  return PredicateAdder(cond).mutate(s);
}

std::optional<std::string> reduce_use(const Stmt& s, const VarNode* var) {
  struct Finder : IRVisitor {
    const VarNode* var;
    std::optional<std::string> found;
    void visit_BlockRealize(const BlockRealize* op, const Stmt& s) override {
      const Block* b = op->block_node();
      for (size_t i = 0; i < b->iter_vars.size() && !found; ++i) {
        if (b->iter_vars[i].kind == IterKind::kReduce &&
            tir::uses_var(op->iter_values[i], [&](const VarNode* v) { return v == var; }))
          found = "the reduction iter var \"" + b->iter_vars[i].var.name() + "\" of block \"" +
                  b->name_hint + "\"";
      }
      IRVisitor::visit_BlockRealize(op, s);
    }
  } f;
  f.var = var;
  f.visit(s);
  return f.found;
}

bool is_param(const std::vector<Buffer>& params, const BufferNode* b) {
  for (const Buffer& p : params)
    if (p.get() == b) return true;
  return false;
}

bool is_constant_param(const PrimFunc& f, const BufferNode* b) {
  for (int p : f.constant_params)
    if (f.params.at(size_t(p)).get() == b) return true;
  return false;
}

std::string unique_block_name(const Stmt& body, const std::string& base) {
  int n = 0;
  std::string name = base;
  for (int k = 1; find_block(body, name, &n); ++k) name = base + "_" + std::to_string(k);
  return name;
}

}  // namespace ingot::schedule

// Primitive compute_inline: an elementwise producer block is removed and every load of its
// output is replaced by the value it stored (with its iter vars replaced by the load indices).
#include <unordered_set>

#include "schedule/primitives/common.h"
#include "tir/mutator.h"
#include "tir/op.h"
#include "tir/region_analysis.h"
#include "tir/substitute.h"

namespace ingot::schedule {

using namespace tir;

class ComputeInlineError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

namespace {

// Replaces loads of `buf` with the stored value; blocks whose body changed get new regions.
class LoadInliner : public IRMutator {
 public:
  LoadInliner(const BufferNode* buf, std::vector<Var> vars, Expr value)
      : buf_(buf), vars_(std::move(vars)), value_(std::move(value)) {}
  Expr visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
    Expr r = IRMutator::visit_BufferLoad(op, e);
    auto* l = r.as<BufferLoad>();
    if (l->buffer.get() != buf_) return r;
    VarMap m;
    for (size_t k = 0; k < vars_.size(); ++k)
      if (vars_[k].defined()) m[vars_[k].node()] = l->indices[k];
    return substitute(value_, m);
  }
  Stmt visit_Block(const Block* op, const Stmt& s) override {
    Stmt r = IRMutator::visit_Block(op, s);
    // The root keeps its empty regions; other blocks state what they now read.
    bool is_root = op->name_hint == "root" && op->iter_vars.empty();
    return r.same_as(s) || is_root ? r : reinfer_block_regions(r.as<Block>());
  }

 private:
  const BufferNode* buf_;
  std::vector<Var> vars_;
  Expr value_;
};

}  // namespace

// Preconditions:
// - the block has no init and no reduce iter vars, and its body is one BufferStore whose
//   indices are distinct iter vars, one per dimension (or 0 for a dimension of extent 1), and
//   whose value does not read the buffer;
// - the buffer is allocated in the function (not a parameter: an output must be stored);
// - no other block writes the buffer.
void Schedule::compute_inline(BlockRV block) {
  BlockInfo bi = block_info(*this, block);
  const Block* b = bi.block;
  std::string name = qname(b->name_hint);
  // 1. The block must be a single elementwise store.
  auto* store = b->body.as<BufferStore>();
  if (b->init.defined())
    fail_schedule<ComputeInlineError>("cannot inline block {}: it is a reduction", name);
  if (!store)
    fail_schedule<ComputeInlineError>(
        "cannot inline block {}: its body is not a single buffer store", name);
  std::unordered_set<const VarNode*> distinct;
  std::vector<Var> vars;
  for (const IterVar& iv : b->iter_vars)
    if (iv.kind != IterKind::kSpatial)
      fail_schedule<ComputeInlineError>("cannot inline block {}: it is a reduction", name);
  for (size_t d = 0; d < store->indices.size(); ++d) {
    const Expr& i = store->indices[d];
    int64_t at = -1, extent = 0;
    if (is_const_int(i, &at) && at == 0 && is_const_int(store->buffer->shape[d], &extent) &&
        extent == 1) {
      vars.emplace_back();  // a dimension of one element: nothing to bind
      continue;
    }
    auto* v = i.as<VarNode>();
    bool is_iter = false;
    for (const IterVar& iv : b->iter_vars) is_iter = is_iter || iv.var.node() == v;
    if (!v || !is_iter || !distinct.insert(v).second)
      fail_schedule<ComputeInlineError>(
          "cannot inline block {}: it stores at {}[{}], not at distinct iter vars", name,
          store->buffer->name, to_string(i));
    vars.push_back(to_var(i));
  }
  if (uses_var(store->value, [&](const VarNode* v) {
        for (const IterVar& iv : b->iter_vars)
          if (iv.var.node() == v) return !distinct.count(v);
        return false;
      }))
    fail_schedule<ComputeInlineError>(
        "cannot inline block {}: its value uses an iter var that is not a store index", name);
  Buffer buf(store->buffer);
  // 2. The output must be an intermediate buffer with this block as its only writer.
  if (is_param(func_.params, buf.get()))
    fail_schedule<ComputeInlineError>(
        "cannot inline block {}: its output {} is a function parameter", name, qname(buf->name));
  struct Writers : IRVisitor {
    const BufferNode* buf;
    int n = 0;
    void visit_BufferStore(const BufferStore* op, const Stmt& s) override {
      n += op->buffer.get() == buf;
      IRVisitor::visit_BufferStore(op, s);
    }
  } w;
  w.buf = buf.get();
  w.visit(func_.body);
  if (w.n != 1)
    fail_schedule<ComputeInlineError>("cannot inline block {}: {} is written by {} stores", name,
                                      qname(buf->name), w.n);
  struct Reads : IRVisitor {
    const BufferNode* buf;
    bool hit = false;
    void visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
      hit = hit || op->buffer.get() == buf;
      IRVisitor::visit_BufferLoad(op, e);
    }
  } self;
  self.buf = buf.get();
  self.visit(store->value);
  if (self.hit)
    fail_schedule<ComputeInlineError>("cannot inline block {}: it reads its own output", name);
  // 3. Remove the block (empty loops go with it), inline its value, drop the allocation.
  Stmt body = replace_stmts(func_.body, {{bi.realize.get(), Stmt()}});
  body = LoadInliner(buf.get(), vars, store->value).mutate(body);
  set_body(rebuild_root(body, root_seq(body), {}, buf.get()));
  // 4. Record.
  record({"compute_inline", {rv_name(block)}, nlohmann::json::object(), {}, {}});
}

}  // namespace ingot::schedule

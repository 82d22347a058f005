// Inlining of intermediate tensors inside a fused group (see fuse_group.h).
#include "lower/fuse_group.h"

#include <algorithm>
#include <set>

#include "tir/mutator.h"
#include "tir/op.h"
#include "tir/structural_equal.h"
#include "tir/substitute.h"
#include "tir/visitor.h"

namespace ingot::lower {

using namespace tir;

namespace {

bool is_zero(const Expr& e) {
  auto* imm = e.as<IntImm>();
  return imm != nullptr && imm->value == 0;
}

// The loop variables of a store's indices mapped to the given expressions.
VarMap bind_indices(const std::vector<Expr>& store_indices, const std::vector<Expr>& values) {
  VarMap m;
  for (size_t k = 0; k < store_indices.size(); ++k)
    if (auto* v = store_indices[k].as<VarNode>()) m[v] = values[k];
  return m;
}

class LoadInliner : public IRMutator {
 public:
  LoadInliner(const BufferNode* buf, const ElementwiseStore& store) : buf_(buf), store_(store) {}
  Expr visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
    Expr r = IRMutator::visit_BufferLoad(op, e);
    auto* l = r.as<BufferLoad>();
    if (l->buffer.get() != buf_) return r;
    return substitute(store_.value, bind_indices(store_.indices, l->indices));
  }

 private:
  const BufferNode* buf_;
  const ElementwiseStore& store_;
};

// Counts the loads and stores of one buffer and remembers the last store.
class AccessCounter : public IRVisitor {
 public:
  explicit AccessCounter(const BufferNode* buf) : buf_(buf) {}
  void visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
    if (op->buffer.get() == buf_) ++loads;
    IRVisitor::visit_BufferLoad(op, e);
  }
  void visit_BufferStore(const BufferStore* op, const Stmt& s) override {
    if (op->buffer.get() == buf_) {
      ++stores;
      store = op;
    }
    IRVisitor::visit_BufferStore(op, s);
  }
  int loads = 0, stores = 0;
  const BufferStore* store = nullptr;

 private:
  const BufferNode* buf_;
};

// Replaces loads of `buf` at exactly `indices` by `value`; any other load of it is a mismatch.
class OwnIndexLoadReplacer : public IRMutator {
 public:
  OwnIndexLoadReplacer(const BufferNode* buf, const std::vector<Expr>& indices, Expr value)
      : buf_(buf), indices_(indices), value_(std::move(value)) {}
  Expr visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
    if (op->buffer.get() != buf_) return IRMutator::visit_BufferLoad(op, e);
    bool same = op->indices.size() == indices_.size();
    for (size_t k = 0; same && k < indices_.size(); ++k)
      same = structural_equal(op->indices[k], indices_[k]);
    if (!same) mismatch = true;
    return value_;
  }
  bool mismatch = false;

 private:
  const BufferNode* buf_;
  const std::vector<Expr>& indices_;
  Expr value_;
};

}  // namespace

std::optional<ElementwiseStore> match_elementwise_store(const Stmt& s, const Buffer& buf) {
  std::vector<const For*> loops;
  Stmt cur = s;
  while (auto* f = cur.as<For>()) {
    if (!is_zero(f->min) || f->extent.as<IntImm>() == nullptr) return std::nullopt;
    loops.push_back(f);
    cur = f->body;
  }
  // A block-form nest (compute/common.h:loop_nest): the block's store with its iter vars
  // replaced by the loop variables they are bound to.
  if (auto* realize = cur.as<BlockRealize>()) {
    const Block* block = realize->block_node();
    int64_t always = 0;
    if (block->init.defined() || !block->alloc_buffers.empty() ||
        !is_const_int(realize->predicate, &always) || always == 0)
      return std::nullopt;
    VarMap bind;
    for (size_t k = 0; k < block->iter_vars.size(); ++k)
      bind[block->iter_vars[k].var.node()] = realize->iter_values[k];
    cur = substitute(block->body, bind);
  }
  auto* store = cur.as<BufferStore>();
  if (store == nullptr || store->buffer.get() != buf.get()) return std::nullopt;
  const auto& shape = buf->shape;
  if (store->indices.size() != shape.size()) return std::nullopt;
  size_t used = 0;
  for (size_t k = 0; k < shape.size(); ++k) {
    const Expr& idx = store->indices[k];
    auto* extent = shape[k].as<IntImm>();
    if (extent == nullptr) return std::nullopt;
    if (is_zero(idx) && extent->value == 1) continue;
    auto* v = idx.as<VarNode>();
    if (v == nullptr) return std::nullopt;
    bool found = false;
    for (const For* f : loops) {
      if (f->loop_var.node() != v) continue;
      found = f->extent.as<IntImm>()->value == extent->value;
    }
    if (!found) return std::nullopt;
    ++used;
  }
  if (used != loops.size()) return std::nullopt;  // every loop indexes one dim
  AccessCounter reads(buf.get());
  reads.visit(store->value);
  if (reads.loads != 0) return std::nullopt;
  return ElementwiseStore{store->indices, store->value};
}

bool is_inlinable_block_nest(const Stmt& s, const Buffer& buf) {
  Stmt cur = s;
  while (auto* f = cur.as<For>()) cur = f->body;
  auto* realize = cur.as<BlockRealize>();
  if (realize == nullptr) return false;
  const Block* block = realize->block_node();
  if (block->init.defined() || !block->alloc_buffers.empty()) return false;
  auto* store = block->body.as<BufferStore>();
  if (store == nullptr || store->buffer.get() != buf.get() ||
      store->indices.size() != buf->shape.size())
    return false;
  std::set<const VarNode*> seen;
  for (size_t d = 0; d < store->indices.size(); ++d) {
    int64_t extent = 0;
    if (!is_const_int(buf->shape[d], &extent)) return false;
    if (is_zero(store->indices[d]) && extent == 1) continue;
    auto* v = store->indices[d].as<VarNode>();
    if (v == nullptr || !seen.insert(v).second) return false;
    auto iv = std::find_if(block->iter_vars.begin(), block->iter_vars.end(),
                           [&](const IterVar& i) { return i.var.node() == v; });
    int64_t lo = -1, n = 0;
    if (iv == block->iter_vars.end() || iv->kind != IterKind::kSpatial ||
        !is_const_int(iv->min, &lo) || !is_const_int(iv->extent, &n) || lo != 0 || n != extent)
      return false;
  }
  for (const IterVar& iv : block->iter_vars)
    if (iv.kind != IterKind::kSpatial) return false;
  AccessCounter reads(buf.get());
  reads.visit(store->value);
  return reads.loads == 0;
}

bool reads_buffer(const Stmt& s, const Buffer& buf) {
  AccessCounter access(buf.get());
  access.visit(s);
  return access.loads > 0;
}

Stmt inline_loads(const Stmt& s, const Buffer& buf, const ElementwiseStore& store) {
  return LoadInliner(buf.get(), store).mutate(s);
}

Expr inline_loads(const Expr& e, const Buffer& buf, const ElementwiseStore& store) {
  return LoadInliner(buf.get(), store).mutate(e);
}

bool stores_once(const Stmt& producer, const Buffer& buf) {
  Stmt cur = producer;
  while (auto* f = cur.as<For>()) cur = f->body;
  auto* realize = cur.as<BlockRealize>();
  if (realize == nullptr || realize->block_node()->init.defined()) return false;
  AccessCounter access(buf.get());
  access.visit(realize->block_node()->body);
  return access.stores == 1 && access.loads == 0;
}

bool reads_at_own_index(const Stmt& reader, const Buffer& buf, const Buffer& out) {
  if (!is_inlinable_block_nest(reader, out) || out->shape.size() != buf->shape.size()) return false;
  for (size_t k = 0; k < out->shape.size(); ++k)
    if (!structural_equal(out->shape[k], buf->shape[k])) return false;
  Stmt cur = reader;
  while (auto* f = cur.as<For>()) cur = f->body;
  auto* store = cur.as<BlockRealize>()->block_node()->body.as<BufferStore>();
  OwnIndexLoadReplacer own(buf.get(), store->indices, make_const(buf->dtype, 0));
  own.mutate(store->value);
  return !own.mismatch;
}

}  // namespace ingot::lower

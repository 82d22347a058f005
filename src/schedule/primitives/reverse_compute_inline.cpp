// Primitive reverse_compute_inline: an elementwise consumer block is removed and folded into the
// producer of the buffer it reads: the producer stores the consumer's result directly. The
// producer may be more than one store (a row reduction's block: an accumulator, its loop, then
// the one store of the result): its one store of the buffer becomes the consumer's store.
#include <unordered_set>

#include "schedule/primitives/common.h"
#include "tir/mutator.h"
#include "tir/op.h"
#include "tir/region_analysis.h"
#include "tir/substitute.h"
#include "tir/visitor.h"

namespace ingot::schedule {

using namespace tir;

class ReverseComputeInlineError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

namespace {

// Whether the producer's store index is the constant `c` or an iter var whose domain is {c}.
bool stores_at_constant(const Block& producer, const Expr& index, int64_t c) {
  int64_t v = 0;
  if (is_const_int(index, &v)) return v == c;
  for (const IterVar& iv : producer.iter_vars) {
    int64_t lo = 0, extent = 0;
    if (iv.var.same_as(index) && is_const_int(iv.min, &lo) && is_const_int(iv.extent, &extent))
      return lo == c && extent == 1;
  }
  return false;
}

}  // namespace

// Preconditions:
// - the consumer has no init, only spatial iter vars, and its body is one BufferStore;
// - it reads exactly one buffer written by another block (the producer), every load of it at
//   the same indices, which are the consumer's iter vars, each once (or constants where the
//   producer stores at the same constants);
// - the producer's body stores that buffer exactly once and never loads it, with no init;
// - the buffer is not a function parameter and the consumer is its only reader.
void Schedule::reverse_compute_inline(BlockRV block) {
  BlockInfo bi = block_info(*this, block);
  const Block* c = bi.block;
  std::string name = qname(c->name_hint);
  // 1. The consumer must be a single elementwise store.
  auto* store = c->body.as<BufferStore>();
  if (!store || c->init.defined())
    fail_schedule<ReverseComputeInlineError>(
        "cannot reverse-inline block {}: its body is not a single buffer store", name);
  for (const IterVar& iv : c->iter_vars)
    if (iv.kind != IterKind::kSpatial)
      fail_schedule<ReverseComputeInlineError>("cannot reverse-inline block {}: it is a reduction",
                                               name);
  // 2. Find the producer: the one other block writing a buffer the consumer reads.
  std::optional<BlockInfo> producer;
  Buffer buf;
  for (const BufferRegion& r : c->reads) {
    // The outermost blocks writing it (a block nested in one, a row's lane block, is part of
    // it).
    struct W : IRVisitor {
      const BufferNode* buf;
      std::vector<Stmt> found;
      void visit_BlockRealize(const BlockRealize* op, const Stmt& s) override {
        for (const BufferRegion& w : op->block_node()->writes)
          if (w.buffer.get() == buf && op->block_node()->name_hint != "root") {
            found.push_back(s);
            return;
          }
        IRVisitor::visit_BlockRealize(op, s);
      }
    } w;
    w.buf = r.buffer.get();
    w.visit(root_block(func_.body)->body);
    if (w.found.empty()) continue;
    if (producer || w.found.size() > 1)
      fail_schedule<ReverseComputeInlineError>(
          "cannot reverse-inline block {}: it reads more than one produced buffer", name);
    int n = 0;
    producer = find_block(func_.body, w.found[0].as<BlockRealize>()->block_node()->name_hint, &n);
    buf = r.buffer;
  }
  if (!producer)
    fail_schedule<ReverseComputeInlineError>(
        "cannot reverse-inline block {}: no block produces what it reads", name);
  const Block* p = producer->block;
  struct Access : IRVisitor {
    const BufferNode* buf;
    int loads = 0;
    std::vector<const BufferStore*> stores;
    void visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
      loads += op->buffer.get() == buf;
      IRVisitor::visit_BufferLoad(op, e);
    }
    void visit_BufferStore(const BufferStore* op, const Stmt& s) override {
      if (op->buffer.get() == buf) stores.push_back(op);
      IRVisitor::visit_BufferStore(op, s);
    }
  } access;
  access.buf = buf.get();
  access.visit(p->body);
  if (p->init.defined() || access.stores.size() != 1 || access.loads != 0)
    fail_schedule<ReverseComputeInlineError>(
        "cannot reverse-inline block {}: its producer {} does not store {} exactly once", name,
        qname(p->name_hint), qname(buf->name));
  const BufferStore* pstore = access.stores[0];
  if (is_param(func_.params, buf.get()))
    fail_schedule<ReverseComputeInlineError>(
        "cannot reverse-inline block {}: {} is a function parameter", name, qname(buf->name));
  // 3. The consumer's loads of the buffer: identical indices, its iter vars each once.
  std::vector<Expr> idx;
  bool mismatch = false;
  struct L : IRVisitor {
    const BufferNode* buf;
    std::vector<std::vector<Expr>> loads;
    void visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
      if (op->buffer.get() == buf) loads.push_back(op->indices);
      IRVisitor::visit_BufferLoad(op, e);
    }
  } loads;
  loads.buf = buf.get();
  loads.visit(root_block(func_.body)->body);
  struct Self : IRVisitor {
    const BufferNode* buf;
    int n = 0;
    void visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
      n += op->buffer.get() == buf;
      IRVisitor::visit_BufferLoad(op, e);
    }
  } mine;
  mine.buf = buf.get();
  mine.visit(store->value);
  if (mine.n != int(loads.loads.size()))
    fail_schedule<ReverseComputeInlineError>(
        "cannot reverse-inline block {}: another block also reads {}", name, qname(buf->name));
  VarMap m;
  idx = loads.loads[0];
  for (size_t k = 0; k < idx.size(); ++k) {
    // (A constant index, a dimension of one, where the producer stores at the same constant.)
    int64_t ci = 0;
    if (is_const_int(idx[k], &ci)) {
      mismatch = mismatch || !stores_at_constant(*p, pstore->indices[k], ci);
      continue;
    }
    auto* v = idx[k].as<VarNode>();
    mismatch = mismatch || !v || m.count(v);
    if (v) m[v] = pstore->indices[k];
  }
  for (const auto& l : loads.loads)
    for (size_t k = 0; k < l.size(); ++k) mismatch = mismatch || !l[k].same_as(idx[k]);
  for (const IterVar& iv : c->iter_vars) mismatch = mismatch || !m.count(iv.var.node());
  if (mismatch)
    fail_schedule<ReverseComputeInlineError>(
        "cannot reverse-inline block {}: it does not load {} at exactly its iter vars", name,
        qname(buf->name));
  // 4. The producer stores the consumer's value (loads of buf replaced by the produced value).
  struct Fold : IRMutator {
    const BufferNode* buf;
    Expr value;
    Expr visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
      return op->buffer.get() == buf ? value : IRMutator::visit_BufferLoad(op, e);
    }
  } fold;
  fold.buf = buf.get();
  fold.value = pstore->value;
  Expr value = substitute(fold.mutate(store->value), m);
  std::vector<Expr> out_idx;
  for (const Expr& i : store->indices) out_idx.push_back(substitute(i, m));
  Stmt nstore = BufferStore::make(Buffer(store->buffer), value, out_idx);
  // (A block nested in the producer around the store, a lane block, writes the consumer's
  // buffer now: its regions are inferred again.)
  struct Replace : IRMutator {
    const BufferStore* target;
    Stmt with;
    Stmt visit_BufferStore(const BufferStore* op, const Stmt& s) override {
      return op == target ? with : IRMutator::visit_BufferStore(op, s);
    }
    Stmt visit_Block(const Block* op, const Stmt& s) override {
      Stmt r = IRMutator::visit_Block(op, s);
      return r.same_as(s) ? r : reinfer_block_regions(r.as<Block>());
    }
  } replace;
  replace.target = pstore;
  replace.with = nstore;
  Stmt nb = make_block(p->name_hint, p->iter_vars, replace.mutate(p->body), Stmt(),
                       p->alloc_buffers, p->annotations);
  Stmt nr = BlockRealize::make(producer->br->iter_values, producer->br->predicate, nb);
  // 5. Replace the producer, remove the consumer and the dead buffer.
  Stmt body =
      replace_stmts(func_.body, {{producer->realize.get(), nr}, {bi.realize.get(), Stmt()}});
  set_body(rebuild_root(body, root_seq(body), {}, buf.get()));
  // 6. Record.
  record({"reverse_compute_inline", {rv_name(block)}, nlohmann::json::object(), {}, {}});
}

}  // namespace ingot::schedule

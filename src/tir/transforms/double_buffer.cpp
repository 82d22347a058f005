// Double buffering of shared-memory slabs (see double_buffer.h).
#include "tir/transforms/double_buffer.h"

#include <map>

#include "support/error.h"
#include "tir/analysis.h"
#include "tir/mutator.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace ingot::tir {

std::optional<DoubleBufferedBody> split_double_buffered(const Stmt& body, std::string* why) {
  const auto* seq = body.as<SeqStmt>();
  if (seq == nullptr) {
    *why = "its body is one statement, not copies then their readers";
    return std::nullopt;
  }
  DoubleBufferedBody out;
  for (const Stmt& st : seq->seq) {
    const ScopeAccesses shared = scope_accesses(st, StorageScope::kShared);
    const bool copy = !shared.writes.empty() && shared.reads.empty() &&
                      scope_accesses(st, StorageScope::kGlobal).writes.empty() &&
                      scope_accesses(st, StorageScope::kLocal).writes.empty() &&
                      scope_accesses(st, StorageScope::kWorkspace).writes.empty();
    if (copy && out.rest.empty()) {
      out.copies.push_back(st);
      out.buffers.insert(shared.writes.begin(), shared.writes.end());
      continue;
    }
    for (const BufferNode* b : shared.writes)
      if (out.buffers.count(b) > 0) {
        *why = "shared buffer " + b->name + " is written after the copies that open its body";
        return std::nullopt;
      }
    out.rest.push_back(st);
  }
  if (out.copies.empty() || out.rest.empty()) {
    *why = out.copies.empty() ? "its body does not open with copies into shared memory"
                              : "nothing in its body follows the copies";
    return std::nullopt;
  }
  return out;
}

namespace {

// Replaces buffers by others in loads and stores.
class BufferRenamer : public IRMutator {
 public:
  explicit BufferRenamer(const std::map<const BufferNode*, Buffer>& to) : to_(to) {}
  Expr visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
    auto it = to_.find(op->buffer.get());
    if (it == to_.end()) return IRMutator::visit_BufferLoad(op, e);
    std::vector<Expr> indices;
    for (const Expr& i : op->indices) indices.push_back(mutate(i));
    return BufferLoad::make(it->second, std::move(indices));
  }
  Stmt visit_BufferStore(const BufferStore* op, const Stmt& s) override {
    auto it = to_.find(op->buffer.get());
    if (it == to_.end()) return IRMutator::visit_BufferStore(op, s);
    std::vector<Expr> indices;
    for (const Expr& i : op->indices) indices.push_back(mutate(i));
    return BufferStore::make(it->second, mutate(op->value), std::move(indices));
  }

 private:
  const std::map<const BufferNode*, Buffer>& to_;
};

class DoubleBufferer : public IRMutator {
 public:
  explicit DoubleBufferer(std::string kernel) : kernel_(std::move(kernel)) {}

  Stmt visit_For(const For* op, const Stmt& s) override {
    Stmt loop = IRMutator::visit_For(op, s);
    const auto* f = loop.as<For>();
    if (f->kind != ForKind::kDoubleBuffered) return loop;
    int64_t extent = 0;
    INGOT_ICHECK(is_const_int(f->extent, &extent),
                 "kernel {}: double-buffered loop {} of non-constant extent", kernel_,
                 f->loop_var.name());
    Stmt serial = For::make(f->loop_var, f->min, f->extent, ForKind::kSerial, f->body);
    if (extent < 2) return serial;
    // The slabs' allocations (compact_buffers put them at the loop's body), then the sequence.
    std::vector<Buffer> allocated;
    Stmt body = f->body;
    while (const auto* a = body.as<Allocate>()) {
      if (a->buffer->scope != StorageScope::kShared) break;
      allocated.emplace_back(a->buffer);
      body = a->body;
    }
    std::string why;
    std::optional<DoubleBufferedBody> parts = split_double_buffered(body, &why);
    if (parts) {
      for (const BufferNode* b : parts->buffers) {
        bool here = false;
        for (const Buffer& a : allocated) here = here || a.get() == b;
        if (!here) why = "shared buffer " + b->name + " is not allocated in its body";
      }
    }
    INGOT_ICHECK(parts && why.empty(), "kernel {}: cannot double-buffer loop {}: {}", kernel_,
                 f->loop_var.name(), why);
    // The second set of buffers.
    std::map<const BufferNode*, Buffer> second;
    for (const Buffer& a : allocated)
      if (parts->buffers.count(a.get()) > 0)
        second[a.get()] =
            Buffer::make(a->name + "_1", a->dtype, a->shape, a->scope, a->strides, a->alignment);
    BufferRenamer to_second(second);
    const Var& k = f->loop_var;
    auto at = [&](const std::vector<Stmt>& stmts, const Expr& iteration, bool odd) {
      Stmt st = substitute(SeqStmt::make(stmts), k, iteration);
      return odd ? to_second.mutate(st) : st;
    };
    Var u(k.name() + "_pair", k.dtype());
    auto step = [&](int64_t offset) {
      return f->min + u * make_const(k.dtype(), 2.0) + make_const(k.dtype(), double(offset));
    };
    // Pairs of slabs whose refill of the first set is always needed: all but the last pair when
    // K is even (the last pair's slabs are copied and computed after the loop).
    const int64_t pairs = extent % 2 == 0 ? extent / 2 - 1 : extent / 2;
    std::vector<Stmt> out = {at(parts->copies, f->min, false)};
    if (pairs > 0)
      out.push_back(For::make(
          u, make_const(k.dtype(), 0.0), make_const(k.dtype(), double(pairs)), ForKind::kSerial,
          SeqStmt::make({at(parts->copies, step(1), true), at(parts->rest, step(0), false),
                         at(parts->copies, step(2), false), at(parts->rest, step(1), true)})));
    auto slab = [&](int64_t i) { return f->min + make_const(k.dtype(), double(i)); };
    if (extent % 2 == 0) {
      out.push_back(at(parts->copies, slab(extent - 1), true));
      out.push_back(at(parts->rest, slab(extent - 2), false));
      out.push_back(at(parts->rest, slab(extent - 1), true));
    } else {
      out.push_back(at(parts->rest, slab(extent - 1), false));
    }
    Stmt result = SeqStmt::make(std::move(out));
    for (auto it = allocated.rbegin(); it != allocated.rend(); ++it) {
      auto s2 = second.find(it->get());
      if (s2 != second.end()) result = Allocate::make(s2->second, result);
      result = Allocate::make(*it, result);
    }
    return result;
  }

 private:
  std::string kernel_;
};

}  // namespace

PrimFunc double_buffer(PrimFunc f) {
  f.body = DoubleBufferer(f.name).mutate(f.body);
  return f;
}

}  // namespace ingot::tir

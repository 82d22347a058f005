// Flatten buffers: a mutator rewriting multi-dimensional indices into one flat index.
#include "tir/transforms/flatten_buffers.h"

#include "support/error.h"
#include "tir/arith/analyzer.h"
#include "tir/mutator.h"
#include "tir/op.h"

namespace ingot::tir {

namespace {

// Row-major strides of `shape` (or the buffer's own), simplified to constants where possible.
std::vector<Expr> strides_of(const BufferNode& b) {
  if (!b.strides.empty()) return b.strides;
  std::vector<Expr> s(b.shape.size());
  Expr acc = i64(1);
  for (size_t k = b.shape.size(); k-- > 0;) {
    s[k] = acc;
    acc = arith::simplify(acc * cast(DataType::i64(), b.shape[k]));
  }
  return s;
}

// term * stride, without the multiplication when the stride is 1.
Expr scaled(const Expr& term, const Expr& stride) {
  int64_t v;
  if (is_const_int(stride, &v) && v == 1) return term;
  return term * cast(term.dtype(), stride);
}

}  // namespace

Expr flat_index(const BufferNode& b, const std::vector<Expr>& indices) {
  INGOT_ICHECK(indices.size() == b.shape.size(), "buffer {} has {} dimensions, accessed with {}",
               b.name, b.shape.size(), indices.size());
  std::vector<Expr> strides = strides_of(b);
  Expr base, ramp_stride;
  int lanes = 1;
  for (size_t k = 0; k < indices.size(); ++k) {
    Expr idx = indices[k], part_base, part_stride;
    if (auto* r = idx.as<Ramp>()) {
      part_base = r->base;
      part_stride = scaled(r->stride, strides[k]);
      lanes = r->lanes;
    } else if (auto* bc = idx.as<Broadcast>()) {
      part_base = bc->value;
      lanes = bc->lanes;
    } else {
      INGOT_ICHECK(idx.dtype().is_scalar(),
                   "buffer {}: vector index {} must be a ramp or broadcast", b.name, k);
      part_base = idx;
    }
    part_base = scaled(part_base, strides[k]);
    base = base.defined() ? base + cast(base.dtype(), part_base) : part_base;
    if (part_stride.defined())
      ramp_stride = ramp_stride.defined() ? ramp_stride + part_stride : part_stride;
  }
  if (!base.defined()) base = i64(0);
  if (lanes == 1) return base;
  if (!ramp_stride.defined()) return Broadcast::make(base, lanes);
  return Ramp::make(base, cast(base.dtype(), ramp_stride), lanes);
}

namespace {

class Flattener : public IRMutator {
 public:
  Expr visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
    Expr load = IRMutator::visit_BufferLoad(op, e);
    auto* l = load.as<BufferLoad>();
    if (is_flat(*l->buffer, l->indices)) return load;
    return BufferLoad::make(Buffer(l->buffer), {flat_index(*l->buffer, l->indices)});
  }
  Stmt visit_BufferStore(const BufferStore* op, const Stmt& s) override {
    Stmt store = IRMutator::visit_BufferStore(op, s);
    auto* st = store.as<BufferStore>();
    if (is_flat(*st->buffer, st->indices)) return store;
    return BufferStore::make(Buffer(st->buffer), st->value, {flat_index(*st->buffer, st->indices)});
  }

 private:
  // One dense dimension is already flat.
  static bool is_flat(const BufferNode& b, const std::vector<Expr>& idx) {
    return b.shape.size() == 1 && idx.size() == 1 && b.strides.empty();
  }
};

}  // namespace

PrimFunc flatten_buffers(PrimFunc f) {
  f.body = Flattener().mutate(f.body);
  return f;
}

}  // namespace ingot::tir

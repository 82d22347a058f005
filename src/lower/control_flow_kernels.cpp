// The counter, flag, slicing and stacking kernels of control flow (see control_flow_kernels.h).
#include "lower/control_flow_kernels.h"

#include "lower/compute/common.h"
#include "tir/op.h"

namespace ingot::lower {

namespace {

using tir::Buffer;
using tir::Expr;

tir::Stmt store(const Buffer& b, Expr value) {
  return tir::BufferStore::make(b, tir::cast(b->dtype, std::move(value)), {});
}

// The index along the iteration axis at this iteration.
Expr iteration_index(const Buffer& iter, const ScanAxis& axis) {
  Expr i = iter.load({});
  return axis.reverse ? axis.length - tir::i64(1) - i : i;
}

Expr is_true(const Buffer& flag) {
  return flag.load({}) != tir::make_const(flag->dtype, 0);
}

// The trip count as an expression (its buffer's value), or undefined.
Expr trip_limit(const TripCount& trips) {
  return trips.m.defined() ? tir::cast(tir::DataType::i64(), trips.m.load({})) : trips.limit;
}

}  // namespace

tir::PrimFunc loop_init_kernel(const TripCount& trips, const Buffer& cond, const Buffer& iter,
                               const Buffer& cond_state, const Buffer& keep) {
  tir::PrimFunc f;
  if (trips.m.defined()) f.params.push_back(trips.m);
  if (cond.defined()) f.params.push_back(cond);
  f.params.insert(f.params.end(), {iter, cond_state, keep});
  Expr go = cond.defined() ? is_true(cond) : tir::make_const(tir::DataType::boolean(), 1);
  std::vector<tir::Stmt> body = {store(iter, tir::i64(0)), store(cond_state, go)};
  Expr k = is_true(cond_state);
  if (Expr limit = trip_limit(trips); limit.defined()) k = tir::i64(0) < limit && k;
  body.push_back(store(keep, k));
  f.body = tir::SeqStmt::make(body);
  return f;
}

tir::PrimFunc loop_step_kernel(const Buffer& iter, const TripCount& trips, const Buffer& cond_state,
                               const Buffer& keep) {
  tir::PrimFunc f;
  f.params.push_back(iter);
  if (trips.m.defined()) f.params.push_back(trips.m);
  f.params.insert(f.params.end(), {cond_state, keep});
  std::vector<tir::Stmt> body = {store(iter, iter.load({}) + tir::i64(1))};
  Expr k = is_true(cond_state);
  if (Expr limit = trip_limit(trips); limit.defined()) k = iter.load({}) < limit && k;
  body.push_back(store(keep, k));
  f.body = tir::SeqStmt::make(body);
  return f;
}

namespace {

// Copies between `slice` and `whole` at the iteration's index: into the slice (a scan input) or
// into the whole (stacking a scan output).
tir::PrimFunc scan_copy(const Buffer& whole, const Buffer& iter, const Buffer& slice,
                        const ScanAxis& axis, bool into_whole) {
  tir::PrimFunc f;
  f.params = into_whole ? std::vector<Buffer>{slice, iter, whole}
                        : std::vector<Buffer>{whole, iter, slice};
  f.body =
      loop_nest(Extents(std::vector<Expr>{axis.outer, axis.inner}), "i", [&](const Index& idx) {
        Expr at_whole = (idx[0] * axis.length + iteration_index(iter, axis)) * axis.inner + idx[1];
        Expr at_slice = idx[0] * axis.inner + idx[1];
        return into_whole ? tir::BufferStore::make(whole, slice.load({at_slice}), {at_whole})
                          : tir::BufferStore::make(slice, whole.load({at_whole}), {at_slice});
      });
  return f;
}

}  // namespace

tir::PrimFunc scan_slice_kernel(const Buffer& whole, const Buffer& iter, const Buffer& slice,
                                const ScanAxis& axis) {
  return scan_copy(whole, iter, slice, axis, false);
}

tir::PrimFunc scan_stack_kernel(const Buffer& slice, const Buffer& iter, const Buffer& whole,
                                const ScanAxis& axis) {
  return scan_copy(whole, iter, slice, axis, true);
}

}  // namespace ingot::lower

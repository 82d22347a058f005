// Compute rule of Softmax over one axis, numerically stable: per slice, the max is subtracted
// before exponentiating, exponentials are written and summed, then scaled by 1/sum.
// Over the last (contiguous) axis the three passes run on kLanes-wide strips: the max and the
// sum are kept per lane in a small local array (independent lanes, so each strip loop
// vectorizes without reassociating a reduction) and folded across the lanes once per slice;
// the slices (rows) run in parallel.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

namespace {

// Lanes of the per-lane accumulators: one AVX-512 register of float32, two of AVX2.
constexpr int64_t kLanes = 16;

// y = softmax(x) along the last axis, of length `len`, for every index of the other dims.
Stmt softmax_last_axis(const Buffer& x, const Buffer& y, const std::vector<int64_t>& xs) {
  DataType dt = y->dtype;
  int64_t len = xs.back();
  int64_t strips = len / kLanes, tail = len - strips * kLanes;
  std::vector<int64_t> outer(xs.begin(), xs.end() - 1);
  return loop_nest(
      outer, "o",
      [&](const Index& o) {
        auto at = [&](Expr k) {
          Index idx = o;
          idx.push_back(k);
          return idx;
        };
        Buffer lane_max =
            Buffer::make("lane_max", dt, std::vector<int64_t>{kLanes}, StorageScope::kLocal);
        Buffer lane_sum =
            Buffer::make("lane_sum", dt, std::vector<int64_t>{kLanes}, StorageScope::kLocal);
        Accumulator mx("max", dt), sum("sum", dt);
        // for each lane l: body(l, strip index s, element s * kLanes + l) over the strips.
        auto over_strips = [&](const std::function<Stmt(Expr, Expr)>& body) {
          return serial_loop("s", i64(0), strips, [&](Expr s) {
            return serial_loop(
                "l", i64(0), kLanes, [&](Expr l) { return body(l, s * i64(kLanes) + l); },
                ForKind::kVectorized);
          });
        };
        auto over_tail = [&](const std::function<Stmt(Expr)>& body) {
          if (tail == 0) return Stmt();
          return serial_loop("t", i64(strips * kLanes), tail, body);
        };
        auto over_lanes = [&](const std::function<Stmt(Expr)>& body, ForKind kind) {
          return serial_loop("l", i64(0), kLanes, body, kind);
        };
        std::vector<Stmt> seq;
        auto add = [&](Stmt s) {
          if (s.defined()) seq.push_back(std::move(s));
        };
        // 1. The max: per lane over the strips, then across the lanes and the tail.
        add(mx.set(min_value(dt)));
        if (strips > 0) {
          add(over_lanes([&](Expr l) { return BufferStore::make(lane_max, min_value(dt), {l}); },
                         ForKind::kVectorized));
          add(over_strips([&](Expr l, Expr k) {
            return BufferStore::make(lane_max, max(lane_max.load({l}), x.load(at(k))), {l});
          }));
          add(over_lanes([&](Expr l) { return mx.set(max(mx.get(), lane_max.load({l}))); },
                         ForKind::kSerial));
        }
        add(over_tail([&](Expr k) { return mx.set(max(mx.get(), x.load(at(k)))); }));
        // 2. y = exp(x - max), summed per lane.
        add(sum.set(make_const(dt, 0)));
        if (strips > 0) {
          add(over_lanes(
              [&](Expr l) { return BufferStore::make(lane_sum, make_const(dt, 0), {l}); },
              ForKind::kVectorized));
          add(over_strips([&](Expr l, Expr k) {
            Expr e = exp(x.load(at(k)) - mx.get());
            return SeqStmt::make(
                {BufferStore::make(y, e, at(k)),
                 BufferStore::make(lane_sum, lane_sum.load({l}) + y.load(at(k)), {l})});
          }));
          add(over_lanes([&](Expr l) { return sum.set(sum.get() + lane_sum.load({l})); },
                         ForKind::kSerial));
        }
        add(over_tail([&](Expr k) {
          Expr e = exp(x.load(at(k)) - mx.get());
          return SeqStmt::make(
              {BufferStore::make(y, e, at(k)), sum.set(sum.get() + y.load(at(k)))});
        }));
        // 3. y *= 1 / sum.
        add(sum.set(make_const(dt, 1) / sum.get()));
        add(serial_loop(
            "k", i64(0), len,
            [&](Expr k) { return BufferStore::make(y, y.load(at(k)) * sum.get(), at(k)); },
            ForKind::kVectorized));
        Stmt body = SeqStmt::make(seq);
        if (strips > 0) body = Allocate::make(lane_max, Allocate::make(lane_sum, body));
        return mx.scope(sum.scope(body));
      },
      {.parallel_outer = true, .vectorize_inner = false});
}

}  // namespace

Stmt compute_softmax(const graph::Node& node, const std::vector<Buffer>& inputs,
                     const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kFloat);
  DataType dt = y->dtype;
  std::vector<int64_t> xs = const_shape(x);
  int axis = node_axis(node, -1, int(xs.size()));
  if (axis == int(xs.size()) - 1) return softmax_last_axis(x, y, xs);
  // Another axis: loops over every dim but the axis; the axis is walked three times per slice.
  std::vector<int64_t> outer = xs;
  outer[axis] = 1;
  int64_t len = xs[axis];

  return loop_nest(
      outer, "o",
      [&](const Index& o) {
        auto at = [&](Expr k) {
          Index idx = o;
          idx[axis] = k;
          return idx;
        };
        Accumulator mx("max", dt), sum("sum", dt);
        Stmt find_max = serial_loop("k", i64(0), len,
                                    [&](Expr k) { return mx.set(max(mx.get(), x.load(at(k)))); });
        Stmt exps = serial_loop("k", i64(0), len, [&](Expr k) {
          Expr e = exp(x.load(at(k)) - mx.get());
          return SeqStmt::make(
              {BufferStore::make(y, e, at(k)), sum.set(sum.get() + y.load(at(k)))});
        });
        Stmt scale = serial_loop("k", i64(0), len, [&](Expr k) {
          return BufferStore::make(y, y.load(at(k)) * sum.get(), at(k));
        });
        Stmt body = SeqStmt::make({mx.set(min_value(dt)), find_max, sum.set(make_const(dt, 0)),
                                   exps, sum.set(make_const(dt, 1) / sum.get()), scale});
        return mx.scope(sum.scope(body));
      },
      {.parallel_outer = true, .vectorize_inner = false});
}

}  // namespace ingot::lower

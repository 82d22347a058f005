// Compute rules of BatchNormalization (inference form), LayerNormalization, InstanceNormalization,
// RMSNormalization, GroupNormalization, MeanVarianceNormalization (mean and variance accumulated
// per region in local scalars, then one vectorizable write pass), LpNormalization and LRN (the
// square sum over a window of channels per element, float16 accumulated in float32).
#include <functional>

#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

Stmt compute_batch_norm(const graph::Node& node, const std::vector<Buffer>& inputs,
                        const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& scale = inputs.at(1);
  const Buffer& bias = inputs.at(2);
  const Buffer& mean = inputs.at(3);
  const Buffer& var = inputs.at(4);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kFloat);
  DataType dt = y->dtype;
  Expr eps = make_const(dt, node.attrs.get_float("epsilon", 1e-5));
  std::vector<int64_t> ys = const_shape(y);
  return loop_nest(ys, "i", [&](const Index& idx) {
    Index c = {ys.size() > 1 ? idx[1] : i64(0)};
    Expr norm = (x.load(idx) - mean.load(c)) / sqrt(var.load(c) + eps);
    return BufferStore::make(y, norm * scale.load(c) + bias.load(c), idx);
  });
}

namespace {

// y = affine(normalised x) over regions of x: per index o of the `outer` shape, the elements
// place(o, r) for r over the `inner` shape. Mean and variance accumulate in local scalars, then
// one vectorizable write pass: y = affine((x - mean) / sqrt(variance + epsilon)), where
// `affine(v, o, r)` applies scale and shift. With `center` false
// (RMSNormalization) the mean is taken as 0: x is scaled by 1/sqrt(mean(x^2)+eps). For trailing
// regions (o ++ r), outputs[1] / outputs[2], when present, receive the mean and 1/stddev (X's
// shape with the normalised dims 1).
using Affine = std::function<Expr(Expr, const Index&, const Index&)>;
using Place = std::function<Index(const Index&, const Index&)>;

Stmt normalize_regions(const graph::Node& node, const Buffer& x, const std::vector<Buffer>& outputs,
                       const std::vector<Expr>& outer, const std::vector<Expr>& inner,
                       const Place& place, const Affine& affine, double epsilon,
                       bool center = true) {
  const Buffer& y = outputs.at(0);
  DataType dt = y->dtype;
  const size_t rank = x->shape.size();
  int64_t n = 0;
  Expr elems = product(inner);
  Expr count = is_const_int(elems, &n) ? make_const(dt, double(n)) : cast(dt, elems);
  Expr eps = make_const(dt, epsilon);

  return loop_nest(outer, "o", [&](const Index& o) {
    auto full = [&](const Index& r) { return place(o, r); };
    Accumulator mean("mean", dt), var("var", dt);
    auto centred = [&](Expr v) { return center ? v - mean.get() : v; };
    Stmt sum =
        mean.reduce(inner, "r", [&](const Index& r) { return mean.get() + x.load(full(r)); });
    Stmt sq = var.reduce(inner, "r", [&](const Index& r) {
      Expr d = centred(x.load(full(r)));
      return var.get() + d * d;
    });
    Stmt write = lane_nest(inner, "r", [&](const Index& r) {
      Expr v = affine(centred(x.load(full(r))) * var.get(), o, r);
      return BufferStore::make(y, v, full(r));
    });
    std::vector<Stmt> seq;
    if (center) seq = {mean.set(make_const(dt, 0)), sum, mean.set(mean.get() / count)};
    seq.insert(seq.end(), {var.set(make_const(dt, 0)), sq,
                           // var now holds 1/stddev
                           var.set(make_const(dt, 1) / sqrt(var.get() / count + eps)), write});
    Index stat_idx = o;
    stat_idx.resize(rank, i64(0));
    if (outputs.size() > 1 && outputs[1].defined())
      seq.push_back(BufferStore::make(outputs[1], mean.get(), stat_idx));
    if (outputs.size() > 2 && outputs[2].defined())
      seq.push_back(BufferStore::make(outputs[2], var.get(), stat_idx));
    Stmt body = SeqStmt::make(seq);
    return mean.scope(var.scope(body));
  });
}

// Regions over the trailing dims of x from `axis`, per index of the leading dims.
Stmt normalize_trailing(const graph::Node& node, const Buffer& x,
                        const std::vector<Buffer>& outputs, int axis, const Affine& affine,
                        bool center = true) {
  const std::vector<Expr>& xs = x->shape;
  INGOT_ICHECK(axis >= 0 && axis < int(xs.size()), "{}: axis {} out of range", node_label(node),
               axis);
  std::vector<Expr> outer(xs.begin(), xs.begin() + axis), inner(xs.begin() + axis, xs.end());
  auto place = [](const Index& o, const Index& r) {
    Index idx = o;
    idx.insert(idx.end(), r.begin(), r.end());
    return idx;
  };
  return normalize_regions(node, x, outputs, outer, inner, place, affine,
                           node.attrs.get_float("epsilon", 1e-5), center);
}

}  // namespace

Stmt compute_layer_norm(const graph::Node& node, const std::vector<Buffer>& inputs,
                        const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& scale = inputs.at(1);
  Buffer bias = inputs.size() > 2 ? inputs[2] : Buffer();
  check_dtype(node, x, DTypeClass::kFloat);
  return normalize_trailing(node, x, outputs, node_axis(node, -1, x.ndim()),
                            [&](Expr v, const Index&, const Index& r) {
                              v = v * scale.load(broadcast_index(scale, r));
                              return bias.defined() ? v + bias.load(broadcast_index(bias, r)) : v;
                            });
}

Stmt compute_instance_norm(const graph::Node& node, const std::vector<Buffer>& inputs,
                           const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& scale = inputs.at(1);
  const Buffer& bias = inputs.at(2);
  check_dtype(node, x, DTypeClass::kFloat);
  return normalize_trailing(node, x, {outputs.at(0)}, 2, [&](Expr v, const Index& o, const Index&) {
    Index c = {o[1]};
    return v * scale.load(c) + bias.load(c);
  });
}

Stmt compute_rms_norm(const graph::Node& node, const std::vector<Buffer>& inputs,
                      const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& scale = inputs.at(1);
  check_dtype(node, x, DTypeClass::kFloat);
  return normalize_trailing(
      node, x, {outputs.at(0)}, node_axis(node, -1, x.ndim()),
      [&](Expr v, const Index& o, const Index& r) {
        Index idx = o;
        idx.insert(idx.end(), r.begin(), r.end());
        return v * scale.load(broadcast_index(scale, idx));
      },
      /*center=*/false);
}

// Statistics per (batch, group) over the group's channels and the spatial dims; scale and bias
// per channel.
Stmt compute_group_norm(const graph::Node& node, const std::vector<Buffer>& inputs,
                        const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& scale = inputs.at(1);
  const Buffer& bias = inputs.at(2);
  check_dtype(node, x, DTypeClass::kFloat);
  std::vector<int64_t> xs = const_shape(x);
  int64_t groups = node.attrs.get_int("num_groups", 0);
  INGOT_ICHECK(groups > 0 && xs[1] % groups == 0, "{}: bad num_groups", node_label(node));
  int64_t per_group = xs[1] / groups;
  std::vector<int64_t> inner = {per_group};
  inner.insert(inner.end(), xs.begin() + 2, xs.end());
  auto place = [&](const Index& o, const Index& r) {
    Index idx = {o[0], o[1] * per_group + r[0]};
    idx.insert(idx.end(), r.begin() + 1, r.end());
    return idx;
  };
  return normalize_regions(
      node, x, {outputs.at(0)}, exprs({xs[0], groups}), exprs(inner), place,
      [&](Expr v, const Index& o, const Index& r) {
        Index c = {o[1] * per_group + r[0]};
        return v * scale.load(c) + bias.load(c);
      },
      node.attrs.get_float("epsilon", 1e-5));
}

// Mean-variance normalisation over `axes`: regions over those dims, per index of the others.
// ONNX divides by sqrt(variance) + 1e-9; epsilon 1e-18 under the root is the same to float
// precision and likewise maps a constant region to 0.
Stmt compute_mvn(const graph::Node& node, const std::vector<Buffer>& inputs,
                 const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  check_dtype(node, x, DTypeClass::kFloat);
  std::vector<int64_t> xs = const_shape(x);
  std::vector<bool> reduced(xs.size(), false);
  for (int64_t a : node.attrs.get_ints("axes")) reduced.at(size_t(a)) = true;
  std::vector<int64_t> outer, inner;
  for (size_t d = 0; d < xs.size(); ++d) (reduced[d] ? inner : outer).push_back(xs[d]);
  auto place = [&](const Index& o, const Index& r) {
    Index idx;
    size_t io = 0, ir = 0;
    for (size_t d = 0; d < xs.size(); ++d) idx.push_back(reduced[d] ? r[ir++] : o[io++]);
    return idx;
  };
  return normalize_regions(
      node, x, {outputs.at(0)}, exprs(outer), exprs(inner), place,
      [](Expr v, const Index&, const Index&) { return v; }, 1e-18);
}

// y = x / (sum over the axis of |x|^p)^(1/p), p 1 or 2; 0 where the norm is 0 (ONNX's reference).
Stmt compute_lp_norm(const graph::Node& node, const std::vector<Buffer>& inputs,
                     const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kFloat);
  std::vector<int64_t> xs = const_shape(x);
  int axis = node_axis(node, -1, x.ndim());
  bool l1 = node.attrs.get_int("p", 2) == 1;
  DataType dt = y->dtype;
  std::vector<int64_t> outer = xs;
  outer[size_t(axis)] = 1;
  return loop_nest(outer, "o", [&](const Index& o) {
    auto at = [&](Expr k) {
      Index idx = o;
      idx[size_t(axis)] = k;
      return idx;
    };
    Accumulator norm("norm", dt);
    Stmt sum = serial_loop("k", i64(0), xs[size_t(axis)], [&](Expr k) {
      Expr v = x.load(at(k));
      return norm.set(norm.get() + (l1 ? fabs(v) : v * v));
    });
    Stmt write = serial_loop("k", i64(0), xs[size_t(axis)], [&](Expr k) {
      Expr zero = make_const(dt, 0);
      Expr v = select(norm.get() == zero, zero, x.load(at(k)) / norm.get());
      return BufferStore::make(y, v, at(k));
    });
    std::vector<Stmt> seq = {norm.set(make_const(dt, 0)), sum};
    if (!l1) seq.push_back(norm.set(sqrt(norm.get())));
    seq.push_back(write);
    Stmt body = SeqStmt::make(seq);
    return norm.scope(body);
  });
}

// y = x / (bias + alpha / size * (sum of x^2 over channels c - floor((size-1)/2) ..
// c + ceil((size-1)/2), clipped to [0, C)))^beta.
Stmt compute_lrn(const graph::Node& node, const std::vector<Buffer>& inputs,
                 const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kFloat);
  std::vector<int64_t> xs = const_shape(x);
  int64_t channels = xs[1];
  int64_t size = node.attrs.get_int("size", 1);
  int64_t before = (size - 1) / 2;
  DataType adt = accum_dtype(y->dtype);
  Expr scale = make_const(adt, node.attrs.get_float("alpha", 1e-4) / double(size));
  Expr bias = make_const(adt, node.attrs.get_float("bias", 1.0));
  Expr beta = make_const(adt, node.attrs.get_float("beta", 0.75));
  return loop_nest(xs, "i", [&](const Index& idx) {
    Accumulator sq("sq", adt);
    Stmt sum = serial_loop("w", i64(0), size, [&](Expr w) {
      Expr ch = idx[1] + (w - i64(before));
      Index xi = idx;
      xi[1] = ch;
      Expr v = widen(x.load(xi));
      return IfThenElse::make(ch >= i64(0) && ch < i64(channels), sq.set(sq.get() + v * v));
    });
    Expr out = widen(x.load(idx)) / pow(bias + scale * sq.get(), beta);
    return sq.scope(SeqStmt::make(
        {sq.set(make_const(adt, 0)), sum, BufferStore::make(y, cast(y->dtype, out), idx)}));
  });
}

}  // namespace ingot::lower

// Compute rules of BatchNormalization (inference form), LayerNormalization and
// InstanceNormalization (mean and variance accumulated per outer index in local buffers, then
// one vectorizable write pass).
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

// y = affine(normalised x) over the trailing dims of x from `axis`, per index of the leading
// dims: mean and variance accumulate in local scalars, then one vectorizable write pass.
// `affine(v, o, r)` applies scale and shift at the full index o ++ r. outputs[1] / outputs[2],
// when present, receive the mean and 1/stddev (X's shape with the normalised dims 1).
using Affine = std::function<Expr(Expr, const Index&, const Index&)>;

Stmt normalize_trailing(const graph::Node& node, const Buffer& x,
                        const std::vector<Buffer>& outputs, int axis, const Affine& affine) {
  const Buffer& y = outputs.at(0);
  DataType dt = y->dtype;
  std::vector<int64_t> xs = const_shape(x);
  INGOT_ICHECK(axis >= 0 && axis < int(xs.size()), "{}: axis {} out of range", node_label(node),
               axis);
  std::vector<int64_t> outer(xs.begin(), xs.begin() + axis), inner(xs.begin() + axis, xs.end());
  Expr count = make_const(dt, double(num_elements(inner)));
  Expr eps = make_const(dt, node.attrs.get_float("epsilon", 1e-5));
  NestOptions serial = {.parallel_outer = false, .vectorize_inner = false};

  return loop_nest(
      outer, "o",
      [&](const Index& o) {
        auto full = [&](const Index& in) {
          Index idx = o;
          idx.insert(idx.end(), in.begin(), in.end());
          return idx;
        };
        Accumulator mean("mean", dt), var("var", dt);
        Stmt sum = loop_nest(
            inner, "r", [&](const Index& r) { return mean.set(mean.get() + x.load(full(r))); },
            serial);
        Stmt sq = loop_nest(
            inner, "r",
            [&](const Index& r) {
              Expr d = x.load(full(r)) - mean.get();
              return var.set(var.get() + d * d);
            },
            serial);
        Stmt write = loop_nest(inner, "r",
                               [&](const Index& r) {
                                 Expr v = affine((x.load(full(r)) - mean.get()) * var.get(), o, r);
                                 return BufferStore::make(y, v, full(r));
                               },
                               {.parallel_outer = false, .vectorize_inner = true});
        std::vector<Stmt> seq = {
            mean.set(make_const(dt, 0)),
            sum,
            mean.set(mean.get() / count),
            var.set(make_const(dt, 0)),
            sq,
            var.set(make_const(dt, 1) / sqrt(var.get() / count + eps)),  // var now holds 1/stddev
            write};
        Index stat_idx = o;
        stat_idx.resize(xs.size(), i64(0));
        if (outputs.size() > 1 && outputs[1].defined())
          seq.push_back(BufferStore::make(outputs[1], mean.get(), stat_idx));
        if (outputs.size() > 2 && outputs[2].defined())
          seq.push_back(BufferStore::make(outputs[2], var.get(), stat_idx));
        Stmt body = SeqStmt::make(seq);
        return mean.scope(var.scope(body));
      },
      {.parallel_outer = true, .vectorize_inner = false});
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

}  // namespace ingot::lower

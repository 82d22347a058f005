// Element expressions of small run-time values (see value_elements.h).
#include "lower/value_elements.h"

#include "lower/compute/common.h"
#include "ops/value_symbols.h"
#include "support/error.h"
#include "tir/arith/analyzer.h"
#include "tir/op.h"

namespace ingot::lower {

namespace {

using ops::OpKind;
using tir::Expr;

std::vector<int64_t> shape_of(const graph::Value* v) {
  return v->type.static_shape();
}

std::vector<int64_t> unflatten(int64_t i, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] == 0 ? 0 : i % shape[d];
    i = shape[d] == 0 ? 0 : i / shape[d];
  }
  return idx;
}

int64_t flatten(const std::vector<int64_t>& idx, const std::vector<int64_t>& shape) {
  int64_t i = 0;
  for (size_t d = 0; d < shape.size(); ++d) i = i * shape[d] + idx[d];
  return i;
}

// The flat index into `in` (broadcast to `out`'s shape, numpy rules) of output index `idx`.
int64_t broadcast_flat(const std::vector<int64_t>& idx, const std::vector<int64_t>& in) {
  std::vector<int64_t> j(in.size(), 0);
  const size_t shift = idx.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) j[d] = in[d] == 1 ? 0 : idx[d + shift];
  return flatten(j, in);
}

}  // namespace

Expr ValueElements::element(const graph::Value* v, int64_t i) {
  const tir::DataType dt = to_tir_dtype(v->type.dtype);
  if (v->is_constant()) {
    if (dt.is_float()) return tir::make_const(dt, v->constant->get_f64(i));
    return tir::make_const(dt, double(v->constant->get_i64(i)));
  }
  if (!v->symbolic_value.empty())
    return onnx_cast(dt, symbols_.expr(v->symbolic_value.at(size_t(i))));
  if (v->producer == nullptr) return load_(v, i);
  auto key = std::make_pair(v, i);
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  INGOT_ICHECK(ops::computes_small_values(v->producer->op) && v->type.is_static(),
               "the value function cannot compute '{}' ({})", v->name, v->producer->describe());
  Expr e = compute(*v->producer, v, i);
  memo_.emplace(key, e);
  return e;
}

Expr ValueElements::element_at(const graph::Value* v, const Expr& i) {
  int64_t k = 0;
  if (tir::is_const_int(i, &k)) return element(v, k);
  const int64_t n = v->type.num_elements();
  Expr e = element(v, n - 1);
  for (int64_t j = n - 1; j-- > 0;) e = tir::select(i == tir::i64(j), element(v, j), e);
  return e;
}

Expr ValueElements::compute(const graph::Node& n, const graph::Value* v, int64_t i) {
  const std::vector<int64_t> out = shape_of(v);
  const std::vector<int64_t> idx = unflatten(i, out);
  const tir::DataType dt = to_tir_dtype(v->type.dtype);
  auto operand = [&](size_t k) {  // input k at this element, broadcast
    const graph::Value* in = n.inputs.at(k);
    return element(in, broadcast_flat(idx, shape_of(in)));
  };
  switch (n.op) {
    case OpKind::Identity:
    case OpKind::Reshape:
    case OpKind::Flatten:
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
      return element(n.inputs.at(0), i);
    case OpKind::Cast:
      return onnx_cast(dt, element(n.inputs.at(0), i));
    case OpKind::Expand:
      return operand(0);
    case OpKind::Neg:
      return -operand(0);
    case OpKind::Abs: {
      Expr x = operand(0);
      return dt.is_float() ? tir::fabs(x) : tir::select(x < tir::make_const(dt, 0), -x, x);
    }
    case OpKind::Floor:
      return tir::call(tir::Intrinsic::floor, {operand(0)});
    case OpKind::Ceil:
      return tir::call(tir::Intrinsic::ceil, {operand(0)});
    case OpKind::Not:
      return !operand(0);
    case OpKind::Add:
      return operand(0) + operand(1);
    case OpKind::Sub:
      return operand(0) - operand(1);
    case OpKind::Mul:
      return operand(0) * operand(1);
    case OpKind::Div:
      return dt.is_float() ? operand(0) / operand(1) : trunc_div(operand(0), operand(1));
    case OpKind::Max:
    case OpKind::Min: {
      Expr r = operand(0);
      for (size_t k = 1; k < n.inputs.size(); ++k)
        r = n.op == OpKind::Max ? tir::max(r, operand(k)) : tir::min(r, operand(k));
      return r;
    }
    case OpKind::Equal:
      return operand(0) == operand(1);
    case OpKind::Less:
      return operand(0) < operand(1);
    case OpKind::LessOrEqual:
      return operand(0) <= operand(1);
    case OpKind::Greater:
      return operand(0) > operand(1);
    case OpKind::GreaterOrEqual:
      return operand(0) >= operand(1);
    case OpKind::And:
      return operand(0) && operand(1);
    case OpKind::Or:
      return operand(0) || operand(1);
    case OpKind::Where:
      return tir::select(operand(0), operand(1), operand(2));
    case OpKind::Concat: {
      const int axis = node_axis(n, 0, int(out.size()));
      std::vector<int64_t> j = idx;
      for (const graph::Value* in : n.inputs) {
        const std::vector<int64_t> s = shape_of(in);
        if (j[size_t(axis)] < s[size_t(axis)]) return element(in, flatten(j, s));
        j[size_t(axis)] -= s[size_t(axis)];
      }
      break;
    }
    case OpKind::Split: {  // output o starts after the sizes of those before it
      const int axis = node_axis(n, 0, int(out.size()));
      const std::vector<int64_t> sizes = n.attrs.get_ints("split");
      std::vector<int64_t> j = idx;
      for (size_t o = 0; o < n.outputs.size() && n.outputs[o] != v; ++o)
        j[size_t(axis)] += sizes.at(o);
      return element(n.inputs.at(0), flatten(j, shape_of(n.inputs.at(0))));
    }
    case OpKind::Slice: {
      const std::vector<int64_t> starts = n.attrs.get_ints("starts"),
                                 steps = n.attrs.get_ints("steps");
      const graph::Value* x = n.inputs.at(0);
      std::vector<int64_t> j(idx.size());
      for (size_t d = 0; d < idx.size(); ++d) j[d] = starts.at(d) + idx[d] * steps.at(d);
      return element(x, flatten(j, shape_of(x)));
    }
    case OpKind::Gather: {
      const graph::Value* data = n.inputs.at(0);
      const graph::Value* indices = n.inputs.at(1);
      const std::vector<int64_t> ds = shape_of(data), is = shape_of(indices);
      const int axis = node_axis(n, 0, int(ds.size()));
      const int64_t q = int64_t(is.size()), len = ds[size_t(axis)];
      std::vector<int64_t> qi(idx.begin() + axis, idx.begin() + axis + q);
      Expr k = tir::cast(tir::DataType::i64(), element(indices, flatten(qi, is)));
      k = tir::select(k < tir::i64(0), k + tir::i64(len), k);
      if (len > 0) k = tir::min(tir::max(k, tir::i64(0)), tir::i64(len - 1));
      // flat = (outer * len + k) * inner + rest
      int64_t outer = 0, inner = 1, rest = 0;
      for (int d = 0; d < axis; ++d) outer = outer * ds[size_t(d)] + idx[size_t(d)];
      for (size_t d = size_t(axis) + 1; d < ds.size(); ++d) {
        inner *= ds[d];
        rest = rest * ds[d] + idx[size_t(q) + d - 1];
      }
      return element_at(data, tir::arith::simplify((tir::i64(outer * len) + k) * tir::i64(inner) +
                                                   tir::i64(rest)));
    }
    default:
      break;
  }
  fail_internal("the value function cannot compute '{}' ({})", v->name, n.describe());
}

}  // namespace ingot::lower

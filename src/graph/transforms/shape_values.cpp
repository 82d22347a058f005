// Data propagation of small shape tensors: Shape, Size, ConstantOfShape,
// Identity/Reshape/Flatten/Squeeze/Unsqueeze, Cast (to int), Gather, Slice, Concat, Neg and integer
// Add/Sub/Mul/Div/Max/Min with broadcasting, over symbolic expressions (a symbolic dim's Shape is
// its expression).
#include "graph/transforms/shape_values.h"

namespace ingot::graph {

namespace {

using Vals = ShapeValues;

bool is_int(DType d) {
  return d == DType::kI64 || d == DType::kI32;
}

// Flat index into an input of shape `in` broadcast to `out` (both static, right-aligned).
int64_t broadcast_index(int64_t flat, const std::vector<int64_t>& out,
                        const std::vector<int64_t>& in) {
  int64_t idx = 0, stride = 1;
  for (int64_t d = int64_t(out.size()) - 1, e = int64_t(in.size()) - 1; d >= 0; --d, --e) {
    int64_t coord = flat % out[d];
    flat /= out[d];
    if (e < 0) continue;
    if (in[e] != 1) idx += coord * stride;
    stride *= in[e];
  }
  return idx;
}

std::optional<Vals> arith(const Node& n, const Vals& a, const Vals& b) {
  const std::vector<int64_t> out_shape = n.outputs[0]->type.static_shape();
  const std::vector<int64_t> sa = n.inputs[0]->type.static_shape();
  const std::vector<int64_t> sb = n.inputs[1]->type.static_shape();
  int64_t count = n.outputs[0]->type.num_elements();
  Vals out(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const SymExpr& x = a[broadcast_index(i, out_shape, sa)];
    const SymExpr& y = b[broadcast_index(i, out_shape, sb)];
    switch (n.op) {
      case ops::OpKind::Add:
        out[i] = x + y;
        break;
      case ops::OpKind::Sub:
        out[i] = x - y;
        break;
      case ops::OpKind::Mul:
        out[i] = x * y;
        break;
      case ops::OpKind::Max:
        out[i] = SymExpr::max(x, y);
        break;
      case ops::OpKind::Min:
        out[i] = SymExpr::min(x, y);
        break;
      case ops::OpKind::Div: {
        // Integer Div truncates, as in ONNX Runtime: a floor division when x >= 0 and y > 0.
        auto cx = x.as_constant(), cy = y.as_constant();
        if (!cy || *cy == 0) return std::nullopt;  // left for run time
        if (cx) {
          out[i] = SymExpr(*cx / *cy);
        } else if (*cy > 0 && x.provably_nonnegative()) {
          out[i] = SymExpr::floordiv(x, *cy);
        } else {
          return std::nullopt;
        }
        break;
      }
      default:
        return std::nullopt;
    }
  }
  return out;
}

}  // namespace

std::optional<Vals> propagate_shape_value(const Node& n, const KnownValues& known) {
  if (n.outputs.size() != 1) return std::nullopt;
  const TensorType& ot = n.outputs[0]->type;
  if (!is_int(ot.dtype) || !ot.is_static() || ot.num_elements() > kMaxShapeValueElements)
    return std::nullopt;
  auto in = [&](int i) -> const Vals* {
    return i < int(n.inputs.size()) && n.inputs[i] ? known(n.inputs[i]) : nullptr;
  };
  switch (n.op) {
    case ops::OpKind::Shape: {
      const TensorType& x = n.inputs[0]->type;
      Vals out;
      for (int64_t i = n.attrs.get_int("start", 0); i < n.attrs.get_int("end", x.rank()); ++i)
        out.push_back(x.shape[i].sym());
      return out;
    }
    case ops::OpKind::Identity:
    case ops::OpKind::Reshape:
    case ops::OpKind::Flatten:
    case ops::OpKind::Squeeze:
    case ops::OpKind::Unsqueeze:
    case ops::OpKind::Cast:
      if (const Vals* v = in(0)) return *v;
      return std::nullopt;
    case ops::OpKind::Gather: {
      const Vals* data = in(0);
      const Vals* idx = in(1);
      if (!data || !idx || n.inputs[0]->type.rank() != 1) return std::nullopt;
      int64_t size = int64_t(data->size());
      Vals out;
      for (const SymExpr& e : *idx) {
        std::optional<int64_t> c = e.as_constant();
        if (!c) return std::nullopt;
        int64_t i = *c < 0 ? *c + size : *c;
        if (i < 0 || i >= size) return std::nullopt;  // reported by the run-time check
        out.push_back((*data)[i]);
      }
      return out;
    }
    case ops::OpKind::Neg:
      if (const Vals* v = in(0)) {
        Vals out;
        for (const SymExpr& x : *v) out.push_back(-x);
        return out;
      }
      return std::nullopt;
    case ops::OpKind::ConstantOfShape:
      return Vals(size_t(ot.num_elements()), SymExpr(int64_t(n.attrs.get_float("value", 0.0))));
    case ops::OpKind::Size: {
      SymExpr count(1);
      for (const Dim& d : n.inputs[0]->type.shape) count = count * d.sym();
      return Vals{count};
    }
    case ops::OpKind::Slice: {  // attributes normalised by inference: one entry per dim
      const Vals* data = in(0);
      if (!data || n.inputs[0]->type.rank() != 1) return std::nullopt;
      int64_t start = n.attrs.get_ints("starts").at(0), step = n.attrs.get_ints("steps").at(0);
      Vals out;
      for (int64_t i = 0; i < ot.num_elements(); ++i) out.push_back((*data)[start + i * step]);
      return out;
    }
    case ops::OpKind::Concat: {
      if (ot.rank() != 1) return std::nullopt;
      Vals out;
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        const Vals* v = in(int(i));
        if (!v) return std::nullopt;
        out.insert(out.end(), v->begin(), v->end());
      }
      return out;
    }
    case ops::OpKind::Add:
    case ops::OpKind::Sub:
    case ops::OpKind::Mul:
    case ops::OpKind::Max:
    case ops::OpKind::Min:
    case ops::OpKind::Div: {
      if (n.inputs.size() != 2) return std::nullopt;
      const Vals* a = in(0);
      const Vals* b = in(1);
      if (!a || !b || !n.inputs[0]->type.is_static() || !n.inputs[1]->type.is_static())
        return std::nullopt;
      return arith(n, *a, *b);
    }
    default:
      return std::nullopt;
  }
}

}  // namespace ingot::graph

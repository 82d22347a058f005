// Reductions as the loop IR writes them (see reduction.h).
#include "tir/reduction.h"

#include "tir/analysis.h"
#include "tir/op.h"
#include "tir/structural_equal.h"

namespace ingot::tir {

std::optional<CombiningStore> match_combining_store(const BufferStore& st) {
  auto is_out = [&](const Expr& e) {
    const auto* ld = e.as<BufferLoad>();
    if (ld == nullptr || ld->buffer.get() != st.buffer.get()) return false;
    for (size_t k = 0; k < ld->indices.size(); ++k)
      if (!structural_equal(ld->indices[k], st.indices[k])) return false;
    return true;
  };
  auto try_binary = [&](const Expr& a, const Expr& b,
                        NodeTag tag) -> std::optional<CombiningStore> {
    if (is_out(a) && !loads_buffer(b, st.buffer.get())) return CombiningStore{tag, b};
    if (is_out(b) && !loads_buffer(a, st.buffer.get())) return CombiningStore{tag, a};
    return std::nullopt;
  };
  const Expr& v = st.value;
  if (const auto* x = v.as<Add>()) return try_binary(x->a, x->b, NodeTag::Add);
  if (const auto* x = v.as<Mul>()) return try_binary(x->a, x->b, NodeTag::Mul);
  if (const auto* x = v.as<Max>()) return try_binary(x->a, x->b, NodeTag::Max);
  if (const auto* x = v.as<Min>()) return try_binary(x->a, x->b, NodeTag::Min);
  return std::nullopt;
}

std::optional<WidenedProduct> match_widened_product(const BufferStore& st) {
  auto c = match_combining_store(st);
  if (!c || c->combiner != NodeTag::Add || st.buffer->dtype != DataType::f32()) return std::nullopt;
  const auto* mul = c->value.as<Mul>();
  if (mul == nullptr) return std::nullopt;
  auto half_load = [](const Expr& e) -> const BufferLoad* {
    const auto* cast = e.as<Cast>();
    const BufferLoad* ld = cast ? cast->value.as<BufferLoad>() : nullptr;
    const DataType t = ld ? ld->buffer->dtype : DataType::f32();
    return ld && t.is_float16() && t.is_scalar() ? ld : nullptr;
  };
  const BufferLoad* a = half_load(mul->a);
  const BufferLoad* b = half_load(mul->b);
  if (a == nullptr || b == nullptr || a->buffer->dtype != b->buffer->dtype) return std::nullopt;
  return WidenedProduct{a, b};
}

Expr reduction_identity(NodeTag combiner, DataType dt) {
  switch (combiner) {
    case NodeTag::Mul:
      return make_const(dt, 1);
    case NodeTag::Max:
      return min_value(dt);
    case NodeTag::Min:
      return max_value(dt);
    default:
      return make_const(dt, 0);
  }
}

Expr combine(NodeTag combiner, Expr a, Expr b) {
  switch (combiner) {
    case NodeTag::Mul:
      return a * b;
    case NodeTag::Max:
      return max(a, b);
    case NodeTag::Min:
      return min(a, b);
    default:
      return a + b;
  }
}

}  // namespace ingot::tir

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

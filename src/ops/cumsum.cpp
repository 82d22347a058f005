// CumSum and CumProd: running sums / products along one axis (`exclusive` starts from the
// identity, `reverse` runs from the end). The axis is an attribute when constant; otherwise it
// stays input 1 (a scalar read at run time, any axis of the rank).
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

std::vector<TensorType> infer_cumsum(Node& n) {
  const TensorType& x = input_type(n, 0, "x");
  require_rank_at_least(n, x, 1, "x");
  if (x.dtype == DType::kBool) fail_user("{}: input 'x' must be numeric, got bool", n.describe());
  if (has_input(n, 1)) {
    const graph::Value* a = n.inputs[1];
    if (a->type.dtype != DType::kI32 && a->type.dtype != DType::kI64)
      fail_user("{}: input 'axis' must be int32 or int64, got {}", n.describe(), a->type.str());
    if (a->type.rank() > 1 || (a->type.rank() == 1 && !(a->type.shape[0] == Dim::fixed(1))))
      fail_user("{}: input 'axis' {} must be a scalar", n.describe(), a->type.str());
    if (a->is_constant()) {
      n.attrs.set("axis", a->constant->get_i64(0));
      n.inputs.resize(1);
    }
  } else if (!n.attrs.has("axis")) {
    fail_user("{}: input 'axis' is missing", n.describe());
  }
  if (n.attrs.has("axis"))
    n.attrs.set("axis", normalize_axis(n, n.attrs.get_int("axis", 0), x.rank(), "axis"));
  for (const char* flag : {"exclusive", "reverse"}) {
    int64_t v = n.attrs.get_int(flag, 0);
    if (v != 0 && v != 1)
      fail_user("{}: attribute '{}' must be 0 or 1, got {}", n.describe(), flag, v);
    n.attrs.set(flag, v);
  }
  return {x};
}

double cumsum_flops(const Node& n) {
  return approx_elements(n.inputs.at(0)->type);
}

}  // namespace

void add_cumsum_ops(std::vector<OpInfo>& t) {
  for (auto [kind, name] : {std::pair{OpKind::CumSum, "CumSum"}, {OpKind::CumProd, "CumProd"}}) {
    OpInfo cs{
        kind,
        name,
        PatternKind::kOpaque,
        {{"axis", AttrType::kInt}, {"exclusive", AttrType::kInt}, {"reverse", AttrType::kInt}}};
    cs.min_inputs = 1;
    cs.max_inputs = 2;
    cs.infer_fn = infer_cumsum;
    cs.flops_fn = cumsum_flops;
    t.push_back(cs);
  }
}

}  // namespace ingot::ops::detail

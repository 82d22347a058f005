// Einsum: the equation (normalised to its explicit form) is parsed against the input ranks;
// output dims take the extents of their labels (ellipsis dims broadcast across operands).
#include <algorithm>
#include <optional>

#include "ops/einsum_equation.h"
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

std::vector<TensorType> infer_einsum(Node& n) {
  const TensorType& first = input_type(n, 0, "Inputs");
  if (first.dtype == DType::kBool) fail_user("{}: inputs must be numeric, got bool", n.describe());
  std::vector<int> ranks;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const TensorType& t = input_type(n, int(i), "Inputs");
    require_same_dtype(n, first, t, "input 0", fmt::format("input {}", i).c_str());
    ranks.push_back(t.rank());
  }
  std::string error;
  auto spec = parse_einsum(n.attrs.get_string("equation", ""), ranks, &error);
  if (!spec) fail_user("{}: {}", n.describe(), error);
  std::vector<std::optional<Dim>> extent(size_t(spec->num_labels));
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const TensorType& t = n.inputs[i]->type;
    for (size_t d = 0; d < spec->inputs[i].size(); ++d) {
      auto& e = extent[size_t(spec->inputs[i][d])];
      const Dim& dim = t.shape[d];
      if (!e)
        e = dim;
      else if (spec->inputs[i][d] < spec->ellipsis_rank)
        e = broadcast_shapes(n, {*e}, {dim})[0];
      else
        e = merge_dims(n, *e, dim, fmt::format("the dims labelled by one letter of input {}", i));
    }
  }
  std::vector<Dim> out;
  for (int l : spec->output) out.push_back(extent[size_t(l)].value_or(Dim::fixed(1)));
  n.attrs.set("equation", spec->canonical);
  return {TensorType{first.dtype, out}};
}

// Per point of the full label space: a multiply per extra operand and an add.
double einsum_flops(const Node& n) {
  std::vector<int> ranks;
  for (const graph::Value* v : n.inputs) ranks.push_back(v->type.rank());
  std::string error;
  auto spec = parse_einsum(n.attrs.get_string("equation", ""), ranks, &error);
  if (!spec) return 0;
  std::vector<double> extent(size_t(spec->num_labels), 1);
  for (size_t i = 0; i < n.inputs.size(); ++i)
    for (size_t d = 0; d < spec->inputs[i].size(); ++d) {
      const Dim& dim = n.inputs[i]->type.shape[d];
      if (dim.is_static())
        extent[size_t(spec->inputs[i][d])] =
            std::max(extent[size_t(spec->inputs[i][d])], double(dim.value));
    }
  double space = 1;
  for (double e : extent) space *= e;
  return space * double(std::max<size_t>(n.inputs.size(), 2));
}

}  // namespace

void add_einsum_ops(std::vector<OpInfo>& t) {
  OpInfo e{OpKind::Einsum, "Einsum", PatternKind::kOpaque, {{"equation", AttrType::kString, true}}};
  e.min_inputs = 1;
  e.max_inputs = -1;
  e.infer_fn = infer_einsum;
  e.flops_fn = einsum_flops;
  t.push_back(e);
}

}  // namespace ingot::ops::detail

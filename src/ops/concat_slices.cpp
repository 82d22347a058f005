// concat_slice_offsets (see concat_slices.h).
#include "ops/concat_slices.h"

#include "support/error.h"

namespace ingot::ops {

std::optional<std::vector<int64_t>> concat_slice_offsets(const graph::Node& n) {
  INGOT_ICHECK(n.op == OpKind::Concat, "{} is not a Concat", n.describe());
  const graph::Value* y = n.outputs.at(0);
  if (y == nullptr || !y->type.is_static()) return std::nullopt;
  int64_t rank = y->type.rank();
  int64_t axis = n.attrs.get_int("axis", 0);
  if (axis < 0) axis += rank;
  INGOT_ICHECK(axis >= 0 && axis < rank, "{}: axis {} out of range", n.describe(), axis);
  for (int64_t d = 0; d < axis; ++d)
    if (y->type.shape[size_t(d)].value != 1) return std::nullopt;
  std::vector<int64_t> offsets;
  int64_t offset = 0;
  for (const graph::Value* v : n.inputs) {
    if (v == nullptr || !v->type.is_static()) return std::nullopt;
    offsets.push_back(offset);
    offset += v->type.num_elements() * graph::dtype_bytes(v->type.dtype);
  }
  return offsets;
}

std::optional<std::vector<int64_t>> split_slice_offsets(const graph::Node& n) {
  INGOT_ICHECK(n.op == OpKind::Split, "{} is not a Split", n.describe());
  const graph::Value* x = n.inputs.at(0);
  if (x == nullptr || !x->type.is_static()) return std::nullopt;
  int64_t rank = x->type.rank();
  int64_t axis = n.attrs.get_int("axis", 0);
  if (axis < 0) axis += rank;
  INGOT_ICHECK(axis >= 0 && axis < rank, "{}: axis {} out of range", n.describe(), axis);
  for (int64_t d = 0; d < axis; ++d)
    if (x->type.shape[size_t(d)].value != 1) return std::nullopt;
  std::vector<int64_t> offsets;
  int64_t offset = 0;
  for (const graph::Value* v : n.outputs) {
    if (v == nullptr || !v->type.is_static() || v->type.dtype != x->type.dtype) return std::nullopt;
    offsets.push_back(offset);
    offset += v->type.num_elements() * graph::dtype_bytes(v->type.dtype);
  }
  return offsets;
}

}  // namespace ingot::ops

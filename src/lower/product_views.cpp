// The parameter views of a dense product (see product_views.h).
#include "lower/product_views.h"

#include <algorithm>

#include "lower/compute/matmul_operand.h"

namespace ingot::lower {

namespace {

// The last `keep` dims kept, the others flattened into one (merged into the first kept dim
// when `rows`, else a leading dim of their own).
std::vector<int64_t> flattened(const graph::Value* v, size_t keep, bool rows) {
  std::vector<int64_t> s = v->type.static_shape();
  int64_t lead = 1;
  for (size_t d = 0; d + keep < s.size(); ++d) lead *= s[d];
  std::vector<int64_t> out(s.end() - int64_t(keep), s.end());
  if (rows) {
    out[0] *= lead;
  } else {
    out.insert(out.begin(), lead);
  }
  return out;
}

}  // namespace

std::map<const graph::Value*, std::vector<int64_t>> product_view_shapes(const graph::Node& node) {
  const graph::Value* a = node.inputs[0];
  const graph::Value* b = node.inputs[1];
  const graph::Value* y = node.outputs[0];
  const graph::Value* z = node.inputs.size() > 3 ? node.inputs[3] : nullptr;
  if (z != nullptr && z->type.shape != y->type.shape) z = nullptr;
  std::map<const graph::Value*, std::vector<int64_t>> views;
  if (b->type.rank() == 2) {
    if (a->type.rank() <= 2 || !node.attrs.get_ints("perm_a").empty()) return views;
    for (const graph::Value* v : {a, y, z})
      if (v) views[v] = flattened(v, 2, true);
    return views;
  }
  if (a->type.rank() <= 3) return views;
  const bool a_flat = keeps_batch_dims(node.attrs.get_ints("perm_a")),
             b_flat = keeps_batch_dims(node.attrs.get_ints("perm_b"));
  // An operand read as it is has its own batch dims: the block one var per batch dim of
  // extent > 1, which the others can share only if there is one.
  if (!a_flat || !b_flat) {
    std::vector<int64_t> ys = y->type.static_shape();
    if (std::count_if(ys.begin(), ys.end() - 2, [](int64_t e) { return e > 1; }) > 1) return views;
  }
  for (const graph::Value* v : {a_flat ? a : nullptr, b_flat ? b : nullptr, y, z})
    if (v) views[v] = flattened(v, 2, false);
  return views;
}

}  // namespace ingot::lower

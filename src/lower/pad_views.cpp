// The parameter views of a constant Pad (see pad_views.h).
#include "lower/pad_views.h"

#include "ops/op.h"
#include "ops/value_symbols.h"

namespace ingot::lower {

std::map<const graph::Value*, std::vector<int64_t>> pad_view_shapes(const graph::Node& node) {
  if (node.op != ops::OpKind::Pad || node.inputs.empty() || node.outputs.empty()) return {};
  const graph::Value* x = node.inputs[0];
  const graph::Value* y = node.outputs[0];
  if (x == nullptr || y == nullptr || !x->type.is_static() || !y->type.is_static() ||
      ops::pad_reads_values(node) || node.attrs.get_string("mode", "constant") != "constant")
    return {};
  const std::vector<int64_t> xs = x->type.static_shape(), ys = y->type.static_shape();
  const std::vector<int64_t> pads = node.attrs.get_ints("pads", {});
  const size_t rank = xs.size();
  if (pads.size() != 2 * rank) return {};
  size_t last = rank;
  for (size_t d = 0; d < rank; ++d) {
    if (pads[d] < 0 || pads[rank + d] < 0) return {};
    if (pads[d] != 0 || pads[rank + d] != 0) last = d;
  }
  if (last == rank || last + 1 == rank) return {};
  std::vector<int64_t> xv(xs.begin(), xs.begin() + long(last) + 1);
  std::vector<int64_t> yv(ys.begin(), ys.begin() + long(last) + 1);
  for (size_t d = last + 1; d < rank; ++d) xv.back() *= xs[d], yv.back() *= ys[d];
  return {{x, xv}, {y, yv}};
}

}  // namespace ingot::lower

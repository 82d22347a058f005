// separate_resize (see separate_resize.h).
#include "graph/transforms/separate_resize.h"

#include <cmath>

namespace ingot::graph {

namespace {

// The axes a canonical Resize changes: a scale other than 1 or a new size.
std::vector<size_t> resized_axes(const Node& n, const std::vector<int64_t>& in,
                                 const std::vector<int64_t>& out) {
  std::vector<double> scales = n.attrs.get_floats("scales");
  std::vector<size_t> axes;
  if (scales.size() != in.size()) return axes;
  for (size_t d = 0; d < in.size(); ++d)
    if (std::abs(scales[d] - 1) > 1e-9 || in[d] != out[d]) axes.push_back(d);
  return axes;
}

bool separable(const Node& n) {
  if (n.op != ops::OpKind::Resize || n.outputs.size() != 1 || n.inputs.empty()) return false;
  const Value* x = n.inputs[0];
  const Value* y = n.outputs[0];
  std::string mode = n.attrs.get_string("mode", "nearest");
  return (mode == "linear" || mode == "cubic") && x->type.dtype == DType::kF32 &&
         y->type.dtype == DType::kF32 && x->type.is_static() && y->type.is_static() &&
         n.attrs.get_string("coordinate_transformation_mode", "half_pixel") != "tf_crop_and_resize";
}

void separate(Graph& g, Node& n) {
  std::vector<int64_t> in = n.inputs[0]->type.static_shape(),
                       out = n.outputs[0]->type.static_shape();
  std::vector<size_t> axes = resized_axes(n, in, out);
  if (axes.size() < 2) return;
  std::vector<double> scales = n.attrs.get_floats("scales");
  // Innermost axis first: its pass gathers; the later passes read whole rows.
  Value* x = n.inputs[0];
  std::vector<int64_t> shape = in;
  for (size_t i = axes.size(); i-- > 1;) {
    size_t d = axes[i];
    std::vector<double> one(scales.size(), 1.0);
    one[d] = scales[d];
    shape[d] = out[d];
    Attrs a = n.attrs;
    a.set("scales", one);
    a.set("sizes", shape);
    std::string suffix = "_axis" + std::to_string(d);
    Node* pass =
        g.add_node(ops::OpKind::Resize, n.name + suffix, {x}, {n.outputs[0]->name + suffix}, a);
    pass->opset = n.opset;
    pass->outputs[0]->type.dtype = DType::kF32;
    for (int64_t v : shape) pass->outputs[0]->type.shape.push_back(Dim::fixed(v));
    x = pass->outputs[0];
  }
  // The original node keeps its output value and resizes the outermost axis.
  std::vector<double> one(scales.size(), 1.0);
  one[axes[0]] = scales[axes[0]];
  n.attrs.set("scales", one);
  n.inputs = {x};
}

}  // namespace

void separate_resize(Graph& g) {
  std::vector<Node*> todo;
  for (const auto& n : g.nodes())
    if (separable(*n)) todo.push_back(n.get());
  for (Node* n : todo) separate(g, *n);
  if (!todo.empty()) g.topo_sort();
}

}  // namespace ingot::graph

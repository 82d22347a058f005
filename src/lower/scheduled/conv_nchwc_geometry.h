// What the ConvNCHWc kernel builders (conv_nchwc.cpp, depthwise_nchwc.cpp)
// share: a ConvNCHWc node's blocked shapes, strides, dilations and pads, optional inputs, the
// zero-padded copy of the input.
#pragma once

#include <algorithm>
#include <vector>

#include "graph/graph.h"
#include "lower/scheduled/scheduled.h"
#include "support/error.h"

namespace ingot::lower {

struct ConvNchwcGeometry {
  std::vector<int64_t> xs, ws, ys, strides, dil, pads;
  size_t spatial = 0;
};

inline ConvNchwcGeometry conv_nchwc_geometry(const graph::Node& node) {
  ConvNchwcGeometry g;
  g.xs = node.inputs.at(0)->type.static_shape();
  g.ws = node.inputs.at(1)->type.static_shape();
  g.ys = node.outputs.at(0)->type.static_shape();
  g.spatial = g.ws.size() - 2;
  g.strides = node.attrs.get_ints("strides", std::vector<int64_t>(g.spatial, 1));
  g.dil = node.attrs.get_ints("dilations", std::vector<int64_t>(g.spatial, 1));
  g.pads = node.attrs.get_ints("pads", std::vector<int64_t>(2 * g.spatial, 0));
  INGOT_ICHECK(g.spatial >= 1 && g.spatial <= 3 && g.xs.size() == g.spatial + 3 &&
                   g.ys.size() == g.spatial + 3 && g.pads.size() == 2 * g.spatial,
               "{}: not a 1-D to 3-D blocked convolution", node.describe());
  INGOT_ICHECK(node.inputs[1]->is_constant() &&
                   (node.inputs.size() < 3 || !node.inputs[2] || node.inputs[2]->is_constant()),
               "{}: blocked convolution needs constant weights and bias", node.describe());
  return g;
}

inline const graph::Value* optional_input(const graph::Node& node, size_t i) {
  return node.inputs.size() > i ? node.inputs[i] : nullptr;
}

// The blocked input zero padded spatially by a kernel appended to `kernels` (the input itself
// when the conv has no padding).
const graph::Value* pad_blocked_input(const graph::Node& node, const ConvNchwcGeometry& g,
                                      ValueFactory& values, std::vector<NodeKernel>& kernels);

}  // namespace ingot::lower

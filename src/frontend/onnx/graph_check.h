// Well-formedness checks of an ONNX GraphProto before conversion: unique value names, every node
// input and graph output defined, no cycles; yields the nodes in a topological order.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace ingot::frontend::detail {

// The node's name, or "<OpType>_<index>" when the model gave none.
std::string node_name(const onnx::NodeProto& node, int index);

// Checks `g` and returns the indices of its nodes in a stable topological order. Problems are
// UserErrors "'<display_name>' is not a valid ONNX model: ...".
std::vector<int> check_and_order_graph(const onnx::GraphProto& g, const std::string& display_name);

}  // namespace ingot::frontend::detail

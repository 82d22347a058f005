// Well-formedness checks of an ONNX GraphProto before conversion: unique value names, every node
// input and graph output defined, no cycles; yields the nodes in a topological order.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <unordered_set>
#include <vector>

namespace ingot::frontend::detail {

// The node's name, or "<OpType>_<index>" when the model gave none.
std::string node_name(const onnx::NodeProto& node, int index);

// Checks `g` and returns the indices of its nodes in a stable topological order. Problems are
// UserErrors "'<display_name>' is not a valid ONNX model: ...". A control-flow body `g` may read
// the names `outer` makes visible from its enclosing graphs; a node depends on the values its
// bodies read (implicit inputs) as on its own inputs.
std::vector<int> check_and_order_graph(const onnx::GraphProto& g, const std::string& display_name,
                                       const std::unordered_set<std::string>* outer = nullptr);

// The names a graph (a control-flow body) reads without defining them, its nested bodies
// included: what it captures from the graphs around it.
std::unordered_set<std::string> free_names(const onnx::GraphProto& g);

// The names node `node`'s bodies (graph attributes) read from outside them.
std::unordered_set<std::string> implicit_inputs(const onnx::NodeProto& node);

}  // namespace ingot::frontend::detail

// Graph IR: a Graph owns Nodes and Values in SSA form. Values carry a TensorType whose dims are
// static or symbolic; constants are Values with shared immutable data. Nodes hold an OpKind from
// the op registry (not a string), typed attributes, inputs and outputs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "graph/attrs.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "ops/op_kind.h"

namespace ingot::graph {

struct Node;
class Graph;

struct Value {
  int id = 0;        // unique within the graph
  std::string name;  // the ONNX value name (outputs keep it; used for run-time I/O)
  TensorType type;
  Node* producer = nullptr;  // null for graph inputs and constants
  int output_index = 0;
  TensorPtr constant;  // set for initializers / Constant outputs / folded values
  // The model's symbol for each dim ("" when static) as declared before --input-shapes bound
  // them; empty when nothing was bound. Kept so artifacts can still name their dims ("N").
  std::vector<std::string> declared_symbols;
  // A small integer tensor (a shape computation) whose elements are known at compile time as
  // expressions of the input symbols but are not all constants ([batch, seq, 12, 64]); set by
  // infer_types. Ops that take shapes read it where they would read a constant.
  std::vector<SymExpr> symbolic_value;
  // An input of a control-flow body (Node::subgraphs), not of the model: its values change per
  // iteration or branch, so they cannot decide value symbols (ops/value_symbols.h).
  bool body_input = false;
  bool is_constant() const { return constant != nullptr; }
};

struct Node {
  int id = 0;
  ops::OpKind op;
  std::string name;  // ONNX node name, or "<OpType>_<index>" when the model had none
  int opset = 0;     // the default-domain opset of the model it came from (for messages)
  Attrs attrs;
  std::vector<Value*> inputs;  // nullptr for an omitted optional input
  std::vector<Value*> outputs;
  // Op types of the nodes graph passes merged into this one, in order (for compile reports).
  std::vector<std::string> fused;
  // Set by the fuse_ops pass: nodes with the same group id become one kernel (the group's last
  // node in graph order is its anchor, the only member read outside the group); -1: alone.
  int fusion_group = -1;
  // The bodies of a control-flow node (If: then, else; Loop and Scan: body). A body is a graph
  // isolated from above: its inputs are the op's formal ones followed by one per captured outer
  // value, which the node lists as its inputs after its own (ops/control_flow.cpp).
  std::vector<std::shared_ptr<Graph>> subgraphs;
  // Pairs of dims this node's inference took to be equal (a symbolic dim merged with a static
  // one, as a MatMul's K): a run whose symbols make a pair differ is refused (value symbols).
  mutable std::vector<std::pair<SymExpr, SymExpr>> assumed_equal;
  // "node 'conv1' (Conv)" for messages.
  std::string describe() const;
};

class Graph {
 public:
  std::string name;
  std::vector<Value*> inputs;   // run-time inputs, in ONNX order (initializers excluded)
  std::vector<Value*> outputs;  // in ONNX order

  Value* add_value(std::string name, TensorType type);
  Value* add_constant(std::string name, TensorPtr data);
  // Creates `num_outputs` fresh output values named output_names[i] (types filled by inference).
  Node* add_node(ops::OpKind op, std::string name, std::vector<Value*> inputs,
                 std::vector<std::string> output_names, Attrs attrs = {});

  // Nodes in insertion order. Passes keep this a topological order (see topo_sort()).
  const std::vector<std::unique_ptr<Node>>& nodes() const { return nodes_; }
  const std::vector<std::unique_ptr<Value>>& values() const { return values_; }
  std::vector<Node*> users(const Value* v) const;
  void replace_all_uses(Value* from, Value* to);  // also in graph outputs
  void remove_node(Node* n);                      // its outputs must be unused
  void remove_dead();                             // nodes not reaching an output; unused values
  void topo_sort();                               // reorders nodes_; UserError on a cycle
  Value* find_value(const std::string& name) const;

 private:
  int next_id_ = 0;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<std::unique_ptr<Value>> values_;
};

}  // namespace ingot::graph

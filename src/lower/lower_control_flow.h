// Lowering of control flow (If, Loop, Scan) into entry steps around the bodies' kernels. A body's
// inputs are views of the values they stand for; its outputs are copied where the node's
// outputs live. Kernel order is the liveness order: a loop reports its kernel range so that
// every value crossing its back edge stays live over the whole loop (docs/dynamic-shapes.md).
// The lowering of the graph (lower_graph.cpp) is the host: it places values and owns the entry.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "lower/symbolic_dims.h"
#include "tir/module.h"

namespace ingot::lower {

class LoweringHost {
 public:
  virtual ~LoweringHost() = default;
  // Kernels and entry steps, in entry order; a branch reads `flag` (a byte, 0 = false).
  virtual void add_kernel(tir::PrimFunc f, std::vector<const graph::Value*> values) = 0;
  virtual void add_step(tir::KernelCall::Op op, int label, const graph::Value* flag = nullptr) = 0;
  virtual int new_label() = 0;
  virtual int num_kernels() const = 0;
  // A loop ran kernels [first, last]: values crossing its back edge stay live over all of it.
  virtual void loop_region(int first, int last) = 0;
  virtual void lower_nodes(const graph::Graph& g) = 0;
  // Values: placing a constant, the storage a value lives in, making `v` a view of `of`'s
  // storage, whether `v` has a place of its own (a model output, a Concat slice), new values.
  virtual void place_constant(const graph::Value* v) = 0;
  virtual const graph::Value* storage(const graph::Value* v) const = 0;
  virtual void view(const graph::Value* v, const graph::Value* of) = 0;
  virtual bool has_own_place(const graph::Value* v) const = 0;
  virtual graph::Value& new_value(const std::string& name, graph::TensorType type) = 0;
  // A value standing for `symbol`'s slot in the entry's symbols table (ArgRef::kSymbol): a
  // counting kernel's output (lower_data_dependent.h).
  virtual const graph::Value& symbol_slot(const std::string& symbol) = 0;
  // Kernel building blocks: a value's parameter, a flat copy kernel, unique kernel names, a
  // name made a valid identifier, the symbols.
  virtual tir::Buffer param_buffer(const graph::Value* v, bool flat) = 0;
  virtual tir::PrimFunc flat_copy(const graph::Value* src, const std::string& dst_name) = 0;
  virtual std::string unique_name(const std::string& base) = 0;
  virtual std::string name_of(const std::string& s) const = 0;
  virtual const SymbolTable& symbols() const = 0;
};

// Lowers `node` when it is an If, Loop or Scan; false for any other node.
bool lower_control_flow_node(const graph::Node& node, LoweringHost& host);

}  // namespace ingot::lower

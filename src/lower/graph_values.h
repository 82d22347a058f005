// Descriptions of graph values and nodes that lowering needs: kernel and parameter names, the
// artifact's tensor descriptions, element counts over symbolic dims, FLOPs and source ops.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "lower/symbolic_dims.h"
#include "ops/op_kind.h"
#include "tir/module.h"

namespace ingot::lower {

// A valid C identifier from a value or node name (other characters become '_').
std::string sanitize(const std::string& name);
// The name of the kernel a node (or a fused group anchored at it) lowers to, "<node>_<Op>"
// (before any suffix that makes it unique in its module).
std::string kernel_name(const std::string& node_name, ops::OpKind op);
// The artifact's description of a graph input or output.
tir::TensorDesc describe(const graph::Value* v, const SymbolTable& symbols);
// The element count as an expression of the symbols.
graph::SymExpr elements(const graph::Value* v);
// Whether a node reads or writes a tensor with a symbolic dim.
bool has_symbolic_values(const graph::Node& node);
// FLOPs of a node; 0 (unknown) for one over symbolic shapes, whose count depends on the binding.
double node_flops(const graph::Node& node);
// The op and the ops fused into it, for reports.
std::vector<std::string> source_ops(const graph::Node& node);

}  // namespace ingot::lower

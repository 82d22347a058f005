// Descriptions of graph values and nodes for lowering (see graph_values.h).
#include "lower/graph_values.h"

#include <cctype>

#include "lower/compute/common.h"
#include "ops/op.h"

namespace ingot::lower {

std::string sanitize(const std::string& name) {
  std::string s;
  for (char c : name) s.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s.insert(0, "_");
  return s;
}

std::string kernel_name(const std::string& node_name, ops::OpKind op) {
  return sanitize(node_name) + "_" + ops::op_name(op);
}

tir::TensorDesc describe(const graph::Value* v, const SymbolTable& symbols) {
  tir::TensorDesc d;
  d.name = v->name;
  d.dtype = to_tir_dtype(v->type.dtype);
  for (const graph::Dim& dim : v->type.shape) d.shape.push_back(dim.is_static() ? dim.value : -1);
  if (v->declared_symbols.size() == v->type.shape.size()) {
    d.dim_names = v->declared_symbols;
  } else {
    for (const graph::Dim& dim : v->type.shape)
      d.dim_names.push_back(dim.is_static() ? "" : dim.expr.str());
  }
  if (!v->type.is_static()) d.shape_exprs = symbols.shape(v->type);
  return d;
}

graph::SymExpr elements(const graph::Value* v) {
  graph::SymExpr n = 1;
  for (const graph::Dim& d : v->type.shape) n = n * d.sym();
  return n;
}

bool has_symbolic_values(const graph::Node& node) {
  for (const auto* list : {&node.inputs, &node.outputs})
    for (const graph::Value* v : *list)
      if (v != nullptr && !v->type.is_static()) return true;
  return false;
}

double node_flops(const graph::Node& node) {
  return has_symbolic_values(node) ? 0.0 : ops::op_info(node.op).flops(node);
}

std::vector<std::string> source_ops(const graph::Node& node) {
  std::vector<std::string> ops = {ops::op_name(node.op)};
  ops.insert(ops.end(), node.fused.begin(), node.fused.end());
  return ops;
}

}  // namespace ingot::lower

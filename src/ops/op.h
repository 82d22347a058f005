// Per-op information at the graph level: fusion pattern, attribute schema, type/shape
// inference (which also normalises attributes to the canonical form of docs/graph-forms.md)
// and FLOP count. One table entry per OpKind; each op family defines its entries in its own file.
#pragma once

#include <vector>

#include "graph/graph.h"
#include "ops/op_kind.h"

namespace ingot::ops {

// How an op composes in fusion (TVM's OpPatternKind).
enum class PatternKind {
  kElementwise,
  kBroadcast,
  kInjective,
  kReduction,
  kOutEWiseFusable,
  kOpaque
};
const char* pattern_name(PatternKind p);  // "elementwise", "broadcast", ...

enum class AttrType { kInt, kFloat, kString, kInts, kFloats, kStrings };
const char* attr_type_name(AttrType t);  // "int", "float", "string", "ints", ...

struct AttrSpec {
  const char* name;
  AttrType type;
  bool required = false;
};

// An input whose canonical place is an attribute (docs/graph-forms.md): the importer stores it
// in `attr` when it is a constant at import, and otherwise passes it as node input `slot`;
// infer() moves it into `attr` once shape-value propagation has made it a constant, and
// otherwise reports that it must be a compile-time constant (a run-time value would make the
// output shape data-dependent).
struct ConstInput {
  int slot;
  const char* what;  // the ONNX input name, for messages
  const char* attr;  // its type comes from the attribute schema (int, float or ints)
  // The op also takes values known only as expressions of the symbols (a shape computed from a
  // symbolic dim, Value::symbolic_value): such an input stays an input, and the op's inference
  // reads it with shape_operand().
  bool symbolic = false;
  // A graph input here is read at run time: its values decide value symbols
  // (ops/value_symbols.h), and the input stays an input.
  bool runtime = false;
};

struct OpInfo {
  OpKind kind;
  const char* name;
  PatternKind pattern;
  std::vector<AttrSpec> attrs;
  int min_inputs = 1;   // counting omitted optional inputs (nullptr) as present slots
  int max_inputs = 1;   // -1: variadic
  int num_outputs = 1;  // -1: variadic (at least one)
  std::vector<ConstInput> const_inputs{};
  // Implementation hooks (set by the op family files).
  std::vector<graph::TensorType> (*infer_fn)(graph::Node&) = nullptr;
  double (*flops_fn)(const graph::Node&) = nullptr;
  // Control-flow ops: sets the types of the bodies' inputs (Node::subgraphs) from the node's
  // input types, before inference of the bodies and then of the node.
  void (*bind_bodies_fn)(graph::Node&) = nullptr;

  // Checks input/output counts and the attribute schema (UserError naming node, op and
  // attribute), then infers the output types from the input types and normalises the node's
  // attributes to the canonical form. Shape errors are UserErrors naming the node.
  std::vector<graph::TensorType> infer(graph::Node& n) const;
  // Floating-point operations (a multiply-add counts 2) of the node, from its inferred types.
  // Symbolic dims count as 1.
  double flops(const graph::Node& n) const;
  // Attribute-schema and arity check alone (part of infer()).
  void validate(const graph::Node& n) const;
  // Moves constant `const_inputs` into their attributes (part of infer()); UserError naming the
  // node and input when one is not a constant.
  void resolve_const_inputs(graph::Node& n) const;
};

const OpInfo& op_info(OpKind op);

// Activation ops a fused Conv/MatMul epilogue can apply by their own compute rule (one input,
// float attributes only, finite at 0 so the zero padding lanes of blocked tensors stay finite).
bool is_epilogue_activation(OpKind op);

// For "must be a compile-time constant" messages: "; it is the graph input 'x' (specialise it with
// --specialize-inputs)" when `v` is a graph input (no producer, not a constant), else "".
std::string graph_input_hint(const graph::Value* v);

}  // namespace ingot::ops

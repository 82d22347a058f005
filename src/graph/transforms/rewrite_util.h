// Small graph-rewrite helpers shared by the optimisation passes.
#pragma once

#include <functional>

#include "graph/graph.h"

namespace ingot::graph {

// The only node reading `v`, or null when v has no user, several users (or one user reading it
// twice) or is a graph output.
Node* single_user(const Graph& g, const Value* v);

// `consumer` (an elementwise op reading producer's only output) is merged into `producer`: the
// producer takes over the consumer's output value (so graph outputs keep their names) and the
// consumer and the intermediate value are removed. The producer has one output, of the type of
// the consumer's first; the consumer's other outputs (if any) must be unused.
void absorb_consumer(Graph& g, Node* producer, Node* consumer);

// A float32 constant tensor.
TensorPtr f32_constant(std::vector<int64_t> shape, const std::vector<float>& values);
// `t` converted element by element to a 16-bit float `dtype` (float16, bfloat16): `bits` gives
// each element's bits from its value (--dtype float16 / bfloat16's weights).
TensorPtr half_width_constant(const Tensor& t, DType dtype, uint16_t (*bits)(double));
// A value name not yet taken in the graph: base, else base_1, base_2, ...
std::string fresh_value_name(const Graph& g, const std::string& base);
// `n`'s output types from its op's inference over its inputs' (a node a pass just built or
// changed, before the pass manager infers the whole graph again).
void set_output_types(Node& n);

}  // namespace ingot::graph

namespace ingot::graph {

// The producer of `v` when it is an `op` node whose output v is read only by `reader` (one
// use); null otherwise.
Node* producer_if(const Graph& g, const Value* v, ops::OpKind op, const Node* reader);

// The value of a one-element constant, or false.
bool scalar_value(const Value* v, double* out);

// `matched` (a connected set of nodes; `last` among them produces the pattern's result and
// every other output is read only inside the set) is replaced by `replacement`, which takes over
// last's output value and lists their ops in its `fused` (for the compile report). The graph is
// re-sorted.
void replace_pattern(Graph& g, const std::vector<Node*>& matched, Node* last, Node* replacement);

// Pattern passes anchored at one op kind: calls try_rewrite(g, node) on the nodes of `anchor`
// until no call rewrites anything (each success restarts the walk: the node list changed).
void rewrite_to_fixpoint(Graph& g, ops::OpKind anchor,
                         const std::function<bool(Graph&, Node*)>& try_rewrite);

}  // namespace ingot::graph

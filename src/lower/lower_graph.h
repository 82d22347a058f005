// Lowering of a type-inferred, static graph to loop IR: one kernel per node or fused group
// (built from the ops' compute rules, intermediates of a group inlined; lower/fuse_group.h),
// constants packed into a blob, intermediates planned into a workspace arena (Reshape-like
// nodes as views of their input's storage), and the entry call sequence.
#pragma once

#include "graph/graph.h"
#include "tir/module.h"

namespace ingot::lower {

struct LowerOptions {
  // > 0: the target's widest vector register in bits. The ops with a default schedule rule
  // (MatMul/Gemm with constant weights, 2-D Conv) become block-form kernels tagged with the rule,
  // their weights packed for that vector width (lower/scheduled/). 0: every node gets the loop
  // nest of its compute rule.
  int vector_bits = 0;
  // GPU targets: MatMul and Gemm become one reduction block each (compute_product_block), which
  // the GPU matmul rule tiles; vector_bits is then 0.
  bool gpu = false;
};

// `g` must have its types inferred (graph::infer_types). UserError when a dimension is still
// symbolic (naming the input and the --input-shapes option) or an op/dtype is not supported.
tir::IRModule lower_graph(const graph::Graph& g, const LowerOptions& options = {});

// UserError naming the input and its symbol (with the --input-shapes to bind it) when a graph
// input has an unbound dim, or naming the node when an output does: kernels are compiled for
// static shapes (docs/dynamic-shapes.md, step 3). The driver checks right after type inference,
// so the graph passes only ever see static shapes.
void check_static_shapes(const graph::Graph& g);

}  // namespace ingot::lower

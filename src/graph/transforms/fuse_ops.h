// fuse_ops: operator fusion by pattern kind (TVM's FuseOps, simplified to groups whose only
// value read outside is the last node's output). Walking the graph backwards, each node that
// is not yet grouped anchors a group and pulls in producers whose outputs only the group reads:
//   - injective chains: elementwise / broadcast / injective producers into elementwise,
//     broadcast or injective consumers;
//   - injective prologues into reductions: the same producers into a reduction (Reduce*,
//     ArgMax/Min, global pooling) or a normalisation (Softmax, LayerNormalization, ...);
//   - elementwise epilogues onto a reduction: a reduction whose output is smaller than its
//     input joins a group of elementwise / broadcast ops with its output's shape (one per group).
// A producer never joins a consumer whose output has more elements than the producer's (a
// broadcast would recompute it per repeated element), and multi-output ops stay alone, as does
// a Concat whose inputs are contiguous slices of its output (ops/concat_slices.h): lowering
// builds it in place.
// Conv, MatMul and Gemm keep their own epilogue fusion (fuse_epilogue) and scheduled kernels.
// Lowering turns each group into one kernel, inlining producers into their readers
// (lower/fuse_group.h). The pass only sets Node::fusion_group; the graph is not rewritten.
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

void fuse_ops(Graph& g);

}  // namespace ingot::graph

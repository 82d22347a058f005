// Lowering of a type-inferred, static graph to loop IR: one kernel per node or fused group
// (built from the ops' compute rules, intermediates of a group inlined; lower/fuse_group.h),
// constants packed into a blob, intermediates planned into a workspace arena (Reshape-like
// nodes as views of their input's storage), and the entry call sequence.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "graph/graph.h"
#include "lower/symbolic_dims.h"
#include "tir/module.h"

namespace ingot::lower {

struct LowerOptions {
  // CPU targets with default schedules: the products over symbolic rows become the block-form
  // compute their rule matches (lower/compute/matmul_block.cpp).
  // Lowering takes no layout or tile from the target: a ConvNCHWc's blocks are its tensors'
  // (graph pass layout_nchwc). Unset: every node gets the loop nest of its compute rule.
  bool cpu_schedules = false;
  // Every MatMul and Gemm that compute_product_block describes (static shapes) becomes that one
  // reduction block: on GPU targets the GPU matmul rule tiles it; on CPU targets (c, and llvm
  // with default schedules) the rules that match its pattern schedule it (dense_matmul,
  // row_product for the others). Unset (--schedule naive on llvm): only the row form.
  bool product_blocks = false;
  // With product_blocks: a float16 product's block may accumulate in a float32 buffer of the
  // whole output (the GPU matmul rule folds it into its write-back, so it never reaches
  // memory). Unset (the c target), such a product keeps the row form, whose scratch is a row.
  bool wide_accumulators = false;
  // Bounds of the inputs' symbolic dims (--dim-bounds). A graph whose inputs keep symbolic dims
  // lowers to kernels over symbolic extents (docs/dynamic-shapes.md); each symbol needs an upper
  // bound, which sizes the workspace.
  std::map<std::string, SymbolBounds> dim_bounds = {};
  // > 0 (--kv-cache): each input `past` whose output Concat(past, new) extends it becomes a state
  // of this many entries that the session keeps (lower/kv_cache_states.h); 0: none.
  int64_t kv_cache_capacity = 0;
};

// `g` must have its types inferred (graph::infer_types). UserError when a symbolic dimension
// has no bound (naming the input and the --dim-bounds option), a dim depends on data, or an
// op/dtype is not supported.
tir::IRModule lower_graph(const graph::Graph& g, const LowerOptions& options = {});

}  // namespace ingot::lower

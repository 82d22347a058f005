// value_symbol_nests (see value_symbol_nests.h).
#include "lower/value_symbol_nests.h"

#include "lower/compute/compute.h"
#include "ops/value_symbols.h"
#include "tir/op.h"

namespace ingot::lower {

tir::Stmt value_symbol_nest(const graph::Node& node, const std::vector<tir::Buffer>& ins,
                            const std::vector<tir::Buffer>& outs, const SymbolTable& symbols) {
  if (ops::slice_reads_values(node)) {
    std::vector<tir::Expr> starts, steps;
    const graph::TensorType& y = node.outputs.at(0)->type;
    for (int d = 0; d < node.inputs[0]->type.rank(); ++d) {
      const bool value = y.shape[size_t(d)] == ops::value_dim(node, 0, d);
      starts.push_back(value ? symbols.expr(graph::SymExpr::symbol(ops::slice_start(node, d)))
                             : tir::i64(0));
      steps.push_back(value ? symbols.expr(graph::SymExpr::symbol(ops::slice_step(node, d)))
                            : tir::i64(1));
    }
    return compute_slice_values(node, ins, outs, starts, steps);
  }
  if (ops::pad_reads_values(node)) {
    std::vector<tir::Expr> begins;
    for (int d = 0; d < node.inputs[0]->type.rank(); ++d)
      begins.push_back(symbols.expr(graph::SymExpr::symbol(ops::pad_begin(node, d))));
    return compute_pad_values(node, ins, outs, begins);
  }
  if (ops::stft_reads_values(node))
    return compute_stft_values(node, ins, outs,
                               symbols.expr(graph::SymExpr::symbol(ops::stft_step(node))),
                               symbols.expr(graph::SymExpr::symbol(ops::stft_frame(node))));
  if (ops::col2im_reads_values(node)) {
    std::vector<tir::Expr> block;
    for (int d = 0; d + 2 < node.outputs.at(0)->type.rank(); ++d)
      block.push_back(symbols.expr(graph::SymExpr::symbol(ops::col2im_block(node, d))));
    return compute_col2im_blocks(node, ins, outs, block);
  }
  if (ops::dft_reads_axis(node))
    return compute_dft_value_axis(node, ins, outs,
                                  symbols.expr(graph::SymExpr::symbol(ops::dft_axis(node))));
  if (ops::has_value_axes(node)) {
    std::vector<tir::Expr> kept;
    for (int d = 0; d < node.inputs[0]->type.rank(); ++d)
      kept.push_back(symbols.expr(graph::SymExpr::symbol(ops::kept_extent(node, d))));
    return compute_reduce_value_axes(node, ins, outs, kept);
  }
  return tir::Stmt();
}

}  // namespace ingot::lower

// The compute nests of ops whose extents or parameters are value symbols (ops/value_symbols.h):
// a Slice, Pad, STFT, Col2Im, DFT or reduction that reads shape-deciding inputs at run time gets
// its kernel with those symbols as expressions of the bound symbols.
#pragma once

#include <vector>

#include "graph/graph.h"
#include "lower/symbolic_dims.h"
#include "tir/buffer.h"
#include "tir/stmt.h"

namespace ingot::lower {

// The nest of `node` when it reads value symbols, else an undefined statement (the node's
// compute rule applies).
tir::Stmt value_symbol_nest(const graph::Node& node, const std::vector<tir::Buffer>& ins,
                            const std::vector<tir::Buffer>& outs, const SymbolTable& symbols);

}  // namespace ingot::lower

// The value function of a module (tir::IRModule::value_fn, ops/value_symbols.h): each value
// symbol's definition from the input values of the node that defines it, with the checks that
// make those values valid, as one serial kernel the runtime calls before each run.
#pragma once

#include "graph/graph.h"
#include "lower/symbolic_dims.h"
#include "tir/module.h"

namespace ingot::lower {

// Sets mod.value_fn and mod.value_fn_inputs when `symbols` has value symbols.
void build_value_fn(const graph::Graph& g, const SymbolTable& symbols, tir::IRModule& mod);

}  // namespace ingot::lower

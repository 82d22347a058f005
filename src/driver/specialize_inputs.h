// Guarded input specialization (`ingot compile --specialize-inputs values.npz`): graph inputs
// compiled for given values. The inputs stay inputs of the artifact; the compiler reads them as
// constants (so shapes they decide become static), and the artifact records each value so the
// runtime refuses to run it with another one.
#pragma once

#include <map>
#include <string>

#include "driver/input_shapes.h"
#include "graph/graph.h"
#include "tir/module.h"

namespace ingot::driver {

struct SpecializedInputs {
  std::string source;                              // for messages: "--specialize-inputs 'v.npz'"
  std::map<std::string, graph::TensorPtr> values;  // input name -> value
};

// Reads every member NAME.npy of the .npz as the value of input NAME. UserError naming the file
// when it cannot be read or holds an element type ingot has no tensors of.
SpecializedInputs read_specialized_inputs(const std::string& npz_path);

// For each specialised input with a symbolic dim, binds its shape to the value's (added to
// `shapes`, which bind_input_shapes applies); UserError when --input-shapes binds it otherwise.
void bind_specialized_shapes(const graph::Graph& g, const SpecializedInputs& s,
                             InputShapes& shapes);

// Records each value in the module's input table (tir::TensorDesc::specialized_value).
void record_specialized_inputs(tir::IRModule& mod, const SpecializedInputs& s);

}  // namespace ingot::driver

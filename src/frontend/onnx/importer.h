// The ONNX importer's public API: an ONNX model (file or bytes) -> graph::Graph in the canonical
// forms of docs/graph-forms.md. Every problem with the model is reported as a UserError.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "graph/graph.h"

namespace ingot::frontend {

// Newest default-domain opset the importer accepts (what onnx.defs.onnx_opset_version() reported
// for onnx 1.23) and the oldest (every opset ONNX defines: which opsets each op is imported at is
// the converter table's business, so a model at an old opset whose ops did not change since, such
// as Not-1, imports, and one using an op whose old form ingot lacks is refused naming that op).
inline constexpr int kMinOnnxOpset = 1;
inline constexpr int kMaxOnnxOpset = 28;

struct ImportOptions {
  // Graph inputs specialised to a value (`ingot compile --specialize-inputs`): each stays a
  // run-time input of the graph (Graph::inputs, its declared type unchanged), but the nodes that
  // read it (and shape inference after them) read a constant holding this value. A graph output
  // that is the input itself stays the input. UserError, naming `specialized_source`, for a name
  // that is not a run-time input of the model, another dtype, another rank, or a static dim that
  // differs (a symbolic dim accepts any size; bind it with bind_input_shapes).
  std::map<std::string, graph::TensorPtr> specialized_inputs;
  std::string specialized_source;  // where the values come from, for messages ("'v.npz'")
};

// Reads and imports `path`; external data files are resolved relative to its directory.
std::unique_ptr<graph::Graph> import_onnx_file(const std::string& path,
                                               const ImportOptions& options = {});

// Imports a serialized ModelProto. `model_dir` resolves external data ("" = current directory);
// `display_name` names the model in error messages (usually the file path).
std::unique_ptr<graph::Graph> import_onnx_bytes(const std::string& bytes,
                                                const std::string& model_dir,
                                                const std::string& display_name,
                                                const ImportOptions& options = {});

}  // namespace ingot::frontend

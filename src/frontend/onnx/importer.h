// The ONNX importer's public API: an ONNX model (file or bytes) -> graph::Graph in the canonical
// forms of docs/graph-forms.md. Every problem with the model is reported as a UserError.
#pragma once

#include <memory>
#include <string>

#include "graph/graph.h"

namespace ingot::frontend {

// Newest default-domain opset the importer accepts (what onnx.defs.onnx_opset_version() reported
// for onnx 1.23) and the oldest.
inline constexpr int kMinOnnxOpset = 7;
inline constexpr int kMaxOnnxOpset = 28;

// Reads and imports `path`; external data files are resolved relative to its directory.
std::unique_ptr<graph::Graph> import_onnx_file(const std::string& path);

// Imports a serialized ModelProto. `model_dir` resolves external data ("" = current directory);
// `display_name` names the model in error messages (usually the file path).
std::unique_ptr<graph::Graph> import_onnx_bytes(const std::string& bytes,
                                                const std::string& model_dir,
                                                const std::string& display_name);

}  // namespace ingot::frontend

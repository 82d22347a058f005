// The compile pipeline as a library call: ONNX file -> artifact, with optional IR dumps. The CLI's
// `ingot compile` is a thin wrapper over compile_model().
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "driver/input_shapes.h"

namespace ingot::driver {

struct CompileOptions {
  std::string target = "llvm";       // "llvm [-mcpu=..] [-mattr=..]"
  InputShapes input_shapes;          // binds symbolic / overrides input shapes
  std::string output_format = "so";  // "so" (MLF comes with the C backend)
  std::vector<std::string> dump;     // any of "graph", "tir", "llvm": printed to the dump stream
  std::vector<std::string> print_ir_after;  // stage names (see pipeline_stage_names())
  // MatMul/Gemm with constant weights and 2-D convolutions get packed weights and the default
  // schedule rules (tiled, tensorized with the target's FMA micro-kernel, parallel); false keeps
  // every op's plain loop nest (--schedule naive; for debugging and comparison).
  bool default_schedules = true;
};

struct CompileReport {
  int num_kernels = 0;
  uint64_t workspace_bytes = 0;
  uint64_t constant_bytes = 0;
  std::string target;
};

// Names of the pipeline's stages, in order, for --print-ir-after.
const std::vector<std::string>& pipeline_stage_names();

// Compiles `model_path` into `output_path`. Errors: UserError (bad model/option; nothing is written
// at output_path) or InternalError (a bug).
CompileReport compile_model(const std::string& model_path, const std::string& output_path,
                            const CompileOptions& options, std::ostream& dump_stream);

}  // namespace ingot::driver

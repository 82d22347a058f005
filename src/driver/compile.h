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
  std::string target = "llvm";  // "llvm [-mcpu=..] [-mattr=..]"
  InputShapes input_shapes;     // binds symbolic / overrides input shapes
  // .npz of input values to specialise the model to (--specialize-inputs; "" for none): those
  // inputs stay inputs of the artifact but compile as constants, and the runtime refuses other
  // values (driver/specialize_inputs.h).
  std::string specialize_inputs;
  std::string output_format = "so";  // "so" (MLF comes with the C backend)
  std::vector<std::string> dump;     // any of "graph", "tir", "llvm": printed to the dump stream
  std::vector<std::string> print_ir_after;  // stage names (see pipeline_stage_names())
  // MatMul/Gemm with constant weights and 2-D convolutions get packed weights and the default
  // schedule rules (tiled, tensorized with the target's FMA micro-kernel, parallel); false keeps
  // every op's plain loop nest (--schedule naive; for debugging and comparison).
  bool default_schedules = true;
  int opt_level = 2;                         // -O0..3: which graph passes run
  std::vector<std::string> disabled_passes;  // graph pass names (--disabled-pass)
  bool print_pass_times = false;             // per pass and stage, to the dump stream
  bool report = false;                       // print the compile report (print_report)
};

struct KernelReport {
  std::string name;
  std::vector<std::string> ops;  // graph ops it computes (fused ones included)
  double flops = 0, bytes = 0;
};

struct CompileReport {
  int num_nodes_imported = 0;  // graph nodes after import and type inference (before passes)
  int num_nodes = 0;           // after the graph optimisation passes
  int num_fusion_groups = 0;    // fuse_ops groups of two or more nodes (one kernel each)
  int num_kernels = 0;
  std::vector<KernelReport> kernels;
  uint64_t workspace_bytes = 0;
  uint64_t constant_bytes = 0;
  std::string target;
};

// Names of the pipeline's stages, in order, for --print-ir-after (the graph optimisation passes,
// graph::optimization_passes(), run after "infer_types" and are accepted too).
const std::vector<std::string>& pipeline_stage_names();

// The compile report as text: node and kernel counts before / after the graph passes, workspace
// and constant bytes, and per kernel its ops, FLOPs and bytes.
void print_report(const CompileReport& r, std::ostream& out);

// Compiles `model_path` into `output_path`. Errors: UserError (bad model/option; nothing is written
// at output_path) or InternalError (a bug).
CompileReport compile_model(const std::string& model_path, const std::string& output_path,
                            const CompileOptions& options, std::ostream& dump_stream);

}  // namespace ingot::driver

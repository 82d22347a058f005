// The compile pipeline as a library call: ONNX file -> artifact, with optional IR dumps. The CLI's
// `ingot compile` is a thin wrapper over compile_model().
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "codegen/target.h"
#include "driver/c_artifact.h"
#include "driver/dim_bounds.h"
#include "driver/input_shapes.h"
#include "graph/transforms/layout_plan.h"
#include "schedule/rules/default_rules.h"

namespace ingot::tir {
struct IRModule;
}

namespace ingot::driver {

// Where a compile is, for a progress display (`ingot compile` on a terminal). The steps are
// compile_steps(); `done` of `total` counts the step's units ("kernels") where it has some, else
// both are 0. Successive calls never go back: (step, done) only increases.
struct CompileProgress {
  int step = 0;   // 1-based
  int steps = 0;  // compile_steps().size()
  std::string stage;
  int done = 0, total = 0;
  std::string unit;
};

// The steps progress reports: import, infer_types (with constant folding), graph_passes, lower
// (lowering, schedules and loop passes), codegen, link.
const std::vector<std::string>& compile_steps();

struct CompileOptions {
  std::string target = "llvm";  // "llvm [-mcpu=..] [-mattr=..]"
  InputShapes input_shapes;     // binds symbolic / overrides input shapes
  // Bounds of the symbolic dims left unbound (--dim-bounds); each needs an upper bound, and
  // the llvm target then compiles kernels over symbolic extents (docs/dynamic-shapes.md).
  DimBounds dim_bounds;
  // > 0 (--kv-cache N): each key/value cache pair (input `past`, output Concat(past, new))
  // becomes a state of N entries the session keeps between runs (lower/kv_cache_states.h).
  int64_t kv_cache_capacity = 0;
  // Weight-only quantization (--quantize-weights): "" (none), "int8" or "int4", in groups of
  // group_size along each product's reduced dim (graph/transforms/quantize_weights.h).
  std::string quantize_weights;
  int group_size = 128;
  // With quantize_weights: an .npz of inputs (by name) on which the compile also builds the
  // float32 artifact and reports each float output's error against it (driver/output_accuracy.h).
  std::string accuracy_inputs;
  // Refuse symbolic dims as the c and GPU targets do (`ingot tune`: its tasks are measured at
  // one shape; tuning symbolic kernels is not built).
  bool static_shapes_only = false;
  // .npz of input values to specialise the model to (--specialize-inputs; "" for none): those
  // inputs stay inputs of the artifact but compile as constants, and the runtime refuses other
  // values (driver/specialize_inputs.h).
  std::string specialize_inputs;
  // "so": a shared library the runtime loads; "mlf": a Model Library Format tarball (--target c
  // only; driver/c_artifact.h, docs/mlf.md).
  std::string output_format = "so";
  // The artifact's model name (--model-name; "" keeps the ONNX graph's name). A C identifier:
  // with --target c it is the prefix of every C symbol (`ingot_<name>_run`), so two models
  // link into one program.
  std::string model_name;
  // Fail the compile (writing nothing) when the static workspace, or (c target) the flash the
  // code and constants take, is over this many bytes; -1: no limit.
  int64_t workspace_bytes_limit = -1;
  int64_t flash_bytes_limit = -1;
  // "float32": the model's own dtypes; "float16": computed in float16 with float32 reductions
  // and the model's float32 interface (--dtype; graph/transforms/convert_float16.h);
  // "bfloat16": products by constant weights in bfloat16 with float32 accumulation, the rest
  // float32 (graph/transforms/convert_bfloat16.h).
  std::string dtype = "float32";
  std::vector<std::string> dump;  // any of "graph", "tir", "llvm": printed to the dump stream
  std::vector<std::string> print_ir_after;  // stage names (see pipeline_stage_names())
  // MatMul/Gemm with constant weights and 2-D convolutions get packed weights and the default
  // schedule rules (tiled, tensorized with the target's FMA micro-kernel, parallel); false keeps
  // every op's plain loop nest (--schedule naive; for debugging and comparison).
  bool default_schedules = true;
  // --conv-algorithm: "auto" (the default policy of graph pass winograd_conv), "direct",
  // "winograd_f2" or "winograd_f4" (every 3 x 3 stride-1 blocked conv with that tile).
  std::string conv_algorithm = "auto";
  int opt_level = 2;                         // -O0..3: which graph passes run
  std::vector<std::string> disabled_passes;  // graph pass names (--disabled-pass)
  bool print_pass_times = false;             // per pass and stage, to the dump stream
  bool report = false;                       // print the compile report (print_report)
  // Called as the compile advances (CompileProgress); from one thread at a time, possibly not
  // the caller's (codegen compiles kernels on several threads).
  std::function<void(const CompileProgress&)> progress;
  int codegen_threads = 0;  // threads compiling kernels; 0: one per hardware thread
  // A JSON-lines file from `ingot tune` ("" for none): each kernel whose task has a measured
  // record for this target is scheduled by the best record's trace, the rest by the defaults.
  std::string tuning_records;
  // Tuned convolution algorithms by conv (`ingot tune` before it writes them to the records):
  // conv node name -> tile, 0 direct; with the records' own.
  std::map<std::string, int> conv_tiles;
  // Tuned channel blocks by conv (`ingot tune`'s layout plan before it writes it to the
  // records): conv node name -> output block; with the records' own.
  std::map<std::string, int64_t> conv_blocks;
  // Called with the lowered, unscheduled module; returning false ends the compile there (nothing
  // is built or written; the report holds what the graph stages found). `ingot tune` reads its
  // tasks this way.
  std::function<bool(const tir::IRModule&)> after_lower;
};

struct KernelReport {
  std::string name;
  std::vector<std::string> ops;  // graph ops it computes (fused ones included)
  double flops = 0, bytes = 0;
};

struct CompileReport {
  int num_nodes_imported = 0;  // graph nodes after import and type inference (before passes)
  int num_nodes = 0;           // after the graph optimisation passes
  int num_fusion_groups = 0;   // fuse_ops groups of two or more nodes (one kernel each)
  int num_kernels = 0;
  std::vector<KernelReport> kernels;
  uint64_t workspace_bytes = 0;
  uint64_t constant_bytes = 0;
  std::string target;
  // Constant folding (driver/constant_eval.h): nodes folded (evaluated, or Identity nodes of
  // constants), batches infer_types handed over, libraries built and run, evaluation time, and
  // the target folded code was compiled for (the host's).
  int folded_nodes = 0;
  int fold_batches = 0;
  int fold_modules = 0;
  double fold_ms = 0;
  std::string fold_target;
  int codegen_threads = 0;  // threads that compiled the kernels
  // The convs graph pass winograd_conv rewrote (node names; `ingot tune` times their kernels).
  std::vector<std::string> winograd_convs;
  // The digest of the graph the passes started from (graph/graph_digest.h): the model that
  // graph-level tuning decisions belong to.
  std::string graph_digest;
  // The layout classes graph pass layout_nchwc blocked (`ingot tune` chooses a block per class).
  std::vector<graph::ConvLayoutClass> conv_layout_classes;
  std::string tuning_summary;  // with tuning_records: the one-line summary of what was applied
  // With quantize_weights: one line of what was quantized (weights, bytes before and after,
  // the largest element error).
  std::string quantization_summary;
  std::string device_summary;  // --target cuda: ptxas's registers and spills, one line
  bool has_memory = false;     // --target c: the memory report
  MemoryReport memory;
};

// Names of the pipeline's stages, in order, for --print-ir-after (the graph optimisation passes,
// graph::optimization_passes(), run after "infer_types" and are accepted too).
const std::vector<std::string>& pipeline_stage_names();

// The rule kind, vector ISA and thread budget the default schedule rules (and the tuner) use
// for a target: "llvm" with its ISA, or "cuda" / "opencl" with -max-num-threads.
schedule::RuleTarget rule_target(const codegen::Target& target);

// The compile report as text: node and kernel counts before / after the graph passes, workspace
// and constant bytes, and per kernel its ops, FLOPs and bytes.
void print_report(const CompileReport& r, std::ostream& out);

// The resolved target of a --target string, described for people (compile --print-target).
// UserError for an unknown kind, option, triple, CPU or feature.
std::string describe_target(const std::string& target_spec);

// Compiles `model_path` into `output_path`. Errors: UserError (bad model/option; nothing is written
// at output_path) or InternalError (a bug).
CompileReport compile_model(const std::string& model_path, const std::string& output_path,
                            const CompileOptions& options, std::ostream& dump_stream);

}  // namespace ingot::driver

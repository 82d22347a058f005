// The compile pipeline as a list of named stages (compile_stages()) over one target description
// (CompileTarget) and one state (CompileRun), as Halide's Lower.cpp reads: import, infer types,
// check shapes, graph passes, quantize weights, lower, schedule, loop passes, codegen, report,
// accuracy. compile_model (compile.h) runs them in order.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "codegen/build.h"
#include "codegen/target.h"
#include "driver/c_artifact.h"
#include "driver/compile.h"
#include "driver/constant_eval.h"
#include "driver/specialize_inputs.h"
#include "graph/graph.h"
#include "graph/transforms/infer_types.h"
#include "schedule/rules/default_rules.h"
#include "support/channel_block.h"
#include "tir/module.h"
#include "tune/records.h"

namespace ingot::driver {

// Everything the stages read of the target: the codegen target, what the default rules see of it
// (rule kind, vector ISA, threads), and what follows from it and the options.
struct CompileTarget {
  codegen::Target target;
  schedule::RuleTarget rules;
  bool gpu = false;
  bool c = false;  // the c target
  // CPU default schedules (the llvm target with --schedule default): the channel blocks and
  // block-form computes the CPU rules take.
  bool cpu_schedules = false;

  static CompileTarget of(const CompileOptions& options);
  // The conv rule's channel blocks with CPU default schedules, else none.
  std::optional<ChannelBlockPolicy> channel_blocks() const;
};

// The state the stages share, from the options to the report.
struct CompileRun {
  CompileRun(const std::string& model, const std::string& output, const CompileOptions& o,
             CompileTarget target, std::ostream& d)
      : model_path(model), output_path(output), options(o), dump(d), t(std::move(target)) {}

  const std::string& model_path;
  const std::string& output_path;
  const CompileOptions& options;
  std::ostream& dump;
  const CompileTarget t;

  std::unique_ptr<graph::Graph> graph;
  SpecializedInputs specialized;
  std::unique_ptr<ConstantFolder> folder;
  graph::InferTypesStats infer_stats;
  int nodes_imported = 0;
  std::string quantization_summary;
  tir::IRModule mod;
  std::string tuning_summary;
  codegen::BuildStats built;
  MemoryReport memory;
  CompileReport report;
  bool stop = false;  // options.after_lower ended the compile: nothing is built
  std::optional<std::vector<tune::TuningRecord>> records;  // (tuning_records())
  const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

  // --print-pass-times: "stage NAME   MS ms  (detail)" on the dump stream.
  void print_time(const char* stage, double ms, const std::string& detail = "") const;
  // CompileOptions::progress at step `step` of compile_steps().
  void progress(int step, int done = 0, int total = 0, const char* unit = "") const;
  // --tuning-records: the file's records, read once (the graph passes take the conv
  // algorithms, the schedule stage the schedules).
  const std::vector<tune::TuningRecord>& tuning_records();
  // --print-ir-after STAGE: the graph, or the module, after it.
  void after_graph(const std::string& stage) const;
  void after_tir(const std::string& stage) const;
};

struct CompileStage {
  std::string name;
  // The progress step it starts (1-based, compile_steps()), or 0: it belongs to the step before.
  int step = 0;
  std::function<void(CompileRun&)> run;
};

// The stages, in order.
const std::vector<CompileStage>& compile_stages();

}  // namespace ingot::driver

// The compile pipeline, written as one readable list of named stages (as Halide's Lower.cpp):
// import -> bind shapes -> infer types -> dead code -> verify -> lower -> schedule -> tir passes
// (lower_blocks, unroll_loops, flatten_buffers, simplify) -> codegen.
#include "driver/compile.h"

#include <algorithm>
#include <ostream>

#include "codegen/build.h"
#include "codegen/llvm/codegen_llvm.h"
#include "codegen/target.h"
#include "frontend/onnx/importer.h"
#include "graph/printer.h"
#include "graph/transforms/bind_input_shapes.h"
#include "graph/transforms/dead_code.h"
#include "graph/transforms/infer_types.h"
#include "graph/verifier.h"
#include "lower/lower_graph.h"
#include "schedule/rules/default_rules.h"
#include "support/error.h"
#include "tir/printer.h"
#include "tir/transforms/flatten_buffers.h"
#include "tir/transforms/lower_blocks.h"
#include "tir/transforms/simplify.h"
#include "tir/transforms/unroll_loops.h"

namespace ingot::driver {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

void check_options(const CompileOptions& o) {
  for (const auto& d : o.dump) {
    if (d != "graph" && d != "tir" && d != "llvm")
      fail_user("--dump: unknown IR '{}' (valid: graph, tir, llvm)", d);
  }
  for (const auto& s : o.print_ir_after) {
    if (!contains(pipeline_stage_names(), s)) {
      std::string valid;
      for (const auto& n : pipeline_stage_names()) valid += (valid.empty() ? "" : ", ") + n;
      fail_user("--print-ir-after: unknown stage '{}' (valid: {})", s, valid);
    }
  }
  if (o.output_format != "so")
    fail_user("--output-format: '{}' is not supported yet (valid: so)", o.output_format);
}

}  // namespace

const std::vector<std::string>& pipeline_stage_names() {
  static const std::vector<std::string> names = {
      "import",      "bind_input_shapes", "infer_types",  "dead_code", "lower",
      "schedule",    "lower_blocks",      "unroll_loops", "flatten_buffers", "simplify",
      "codegen"};
  return names;
}

CompileReport compile_model(const std::string& model_path, const std::string& output_path,
                            const CompileOptions& options, std::ostream& dump) {
  check_options(options);
  codegen::Target target = codegen::Target::parse(options.target);
  if (target.kind != codegen::Target::kLLVM)
    fail_user("--target: '{}' is not supported yet (valid: llvm)", options.target);

  auto after_graph = [&](const std::string& stage, const graph::Graph& g) {
    if (contains(options.print_ir_after, stage))
      dump << "// IR after " << stage << "\n" << graph::print_graph(g) << "\n";
  };

  // Graph level.
  std::unique_ptr<graph::Graph> g = frontend::import_onnx_file(model_path);
  after_graph("import", *g);
  if (!options.input_shapes.empty()) graph::bind_input_shapes(*g, options.input_shapes);
  after_graph("bind_input_shapes", *g);
  graph::infer_types(*g);
  after_graph("infer_types", *g);
  graph::remove_dead_code(*g);
  graph::verify_graph(*g);
  after_graph("dead_code", *g);
  if (contains(options.dump, "graph")) dump << graph::print_graph(*g) << "\n";

  // Loop level.
  lower::LowerOptions lower_options;
  if (options.default_schedules) lower_options.vector_bits = target.vector_bits;
  tir::IRModule mod = lower::lower_graph(*g, lower_options);
  auto after_tir = [&](const std::string& stage) {
    if (contains(options.print_ir_after, stage))
      dump << "// IR after " << stage << "\n" << tir::to_string(mod) << "\n";
  };
  auto each_kernel = [&](const std::string& stage, auto&& pass) {
    for (tir::PrimFunc& f : mod.kernels) f = pass(std::move(f));
    after_tir(stage);
  };
  after_tir("lower");
  schedule::apply_default_schedules(mod, target.vector_bits);
  after_tir("schedule");
  each_kernel("lower_blocks", [](tir::PrimFunc f) { return tir::lower_blocks(std::move(f)); });
  each_kernel("unroll_loops", [](tir::PrimFunc f) { return tir::unroll_loops(std::move(f), 64); });
  each_kernel("flatten_buffers",
              [](tir::PrimFunc f) { return tir::flatten_buffers(std::move(f)); });
  each_kernel("simplify", [](tir::PrimFunc f) { return tir::simplify(std::move(f)); });
  if (contains(options.dump, "tir")) dump << tir::to_string(mod) << "\n";

  // Machine level.
  if (contains(options.dump, "llvm") || contains(options.print_ir_after, "codegen"))
    dump << codegen::emit_llvm_ir(mod, target) << "\n";
  codegen::build_shared_library(mod, target, output_path);

  CompileReport report;
  report.num_kernels = int(mod.kernels.size());
  report.workspace_bytes = mod.workspace_bytes;
  report.constant_bytes = mod.constants.size();
  report.target = target.str();
  return report;
}

}  // namespace ingot::driver

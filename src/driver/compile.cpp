// The compile pipeline, written as one readable list of named stages (as Halide's Lower.cpp):
// import -> bind shapes -> infer types -> dead code -> verify -> lower -> schedule -> tir passes
// (lower_blocks, unroll_loops, flatten_buffers, simplify) -> codegen.
#include "driver/compile.h"

#include "driver/constant_eval.h"
#include "driver/specialize_inputs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <ostream>
#include <set>

#include "codegen/build.h"
#include "codegen/llvm/codegen_llvm.h"
#include "codegen/target.h"
#include "frontend/onnx/importer.h"
#include "graph/printer.h"
#include "graph/transforms/bind_input_shapes.h"
#include "graph/transforms/dead_code.h"
#include "graph/transforms/infer_types.h"
#include "graph/transforms/pass_manager.h"
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
    bool pass =
        std::any_of(graph::optimization_passes().begin(), graph::optimization_passes().end(),
                    [&](const graph::GraphPass& p) { return p.name == s; });
    if (!contains(pipeline_stage_names(), s) && !pass) {
      std::string valid;
      for (const auto& n : pipeline_stage_names()) valid += (valid.empty() ? "" : ", ") + n;
      for (const auto& p : graph::optimization_passes()) valid += ", " + p.name;
      fail_user("--print-ir-after: unknown stage or pass '{}' (valid: {})", s, valid);
    }
  }
  if (o.opt_level < 0 || o.opt_level > 3)
    fail_user("-O: optimisation level {} is out of range (valid: 0 to 3)", o.opt_level);
  graph::check_pass_names(o.disabled_passes, "--disabled-pass");
  if (o.output_format != "so")
    fail_user("--output-format: '{}' is not supported yet (valid: so)", o.output_format);
}

}  // namespace

const std::vector<std::string>& pipeline_stage_names() {
  static const std::vector<std::string> names = {
      "import",       "bind_input_shapes", "infer_types",     "lower",    "schedule",
      "lower_blocks", "unroll_loops",      "flatten_buffers", "simplify", "codegen"};
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
  SpecializedInputs specialized;
  frontend::ImportOptions import_options;
  if (!options.specialize_inputs.empty()) {
    specialized = read_specialized_inputs(options.specialize_inputs);
    import_options.specialized_inputs = specialized.values;
    import_options.specialized_source = specialized.source;
  }
  std::unique_ptr<graph::Graph> g = frontend::import_onnx_file(model_path, import_options);
  after_graph("import", *g);
  InputShapes input_shapes = options.input_shapes;
  bind_specialized_shapes(*g, specialized, input_shapes);
  if (!input_shapes.empty()) graph::bind_input_shapes(*g, input_shapes);
  after_graph("bind_input_shapes", *g);
  // Constant folding runs with inference, through ingot's own kernels (-O1 and up).
  graph::ConstantEvaluator fold;
  if (options.opt_level >= 1 &&
      std::find(options.disabled_passes.begin(), options.disabled_passes.end(),
                graph::kFoldConstantsPass) == options.disabled_passes.end())
    fold = evaluate_constant_node;
  graph::infer_types(*g, fold);
  after_graph("infer_types", *g);
  int nodes_imported = int(g->nodes().size());
  graph::PassOptions pass_options{options.opt_level, options.disabled_passes,
                                  options.print_ir_after, options.print_pass_times,
                                  options.default_schedules ? target.vector_bits : 0};
  graph::run_optimization_passes(*g, pass_options, dump);
  graph::verify_graph(*g);
  if (contains(options.dump, "graph")) dump << graph::print_graph(*g) << "\n";

  // Loop level.
  auto timed = [&](const char* stage, auto&& fn) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (options.print_pass_times) dump << fmt::format("stage {:<23} {:9.3f} ms\n", stage, ms);
  };
  lower::LowerOptions lower_options;
  if (options.default_schedules) lower_options.vector_bits = target.vector_bits;
  tir::IRModule mod;
  timed("lower", [&] { mod = lower::lower_graph(*g, lower_options); });
  record_specialized_inputs(mod, specialized);
  auto after_tir = [&](const std::string& stage) {
    if (contains(options.print_ir_after, stage))
      dump << "// IR after " << stage << "\n" << tir::to_string(mod) << "\n";
  };
  auto each_kernel = [&](const std::string& stage, auto&& pass) {
    for (tir::PrimFunc& f : mod.kernels) f = pass(std::move(f));
    after_tir(stage);
  };
  after_tir("lower");
  timed("schedule", [&] { schedule::apply_default_schedules(mod, target.vector_bits); });
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
  timed("codegen", [&] { codegen::build_shared_library(mod, target, output_path); });

  CompileReport report;
  report.num_nodes_imported = nodes_imported;
  report.num_nodes = int(g->nodes().size());
  std::set<int> groups;
  for (const auto& n : g->nodes())
    if (n->fusion_group >= 0) groups.insert(n->fusion_group);
  report.num_fusion_groups = int(groups.size());
  report.num_kernels = int(mod.kernels.size());
  for (const tir::PrimFunc& f : mod.kernels)
    report.kernels.push_back({f.name, f.source_ops, f.flops, f.bytes_moved});
  report.workspace_bytes = mod.workspace_bytes;
  report.constant_bytes = mod.constants.size();
  report.target = target.str();
  return report;
}

void print_report(const CompileReport& r, std::ostream& out) {
  out << fmt::format("graph nodes: {} imported, {} after the graph passes\n", r.num_nodes_imported,
                     r.num_nodes);
  out << fmt::format(
      "kernels: {} before fusion (one per imported node), {} after ({} fused groups; "
      "reshapes of intermediates are views)\n",
      r.num_nodes_imported, r.num_kernels, r.num_fusion_groups);
  out << fmt::format("workspace {} bytes, constants {} bytes\n", r.workspace_bytes,
                     r.constant_bytes);
  size_t w = 6;
  for (const KernelReport& k : r.kernels) w = std::max(w, k.name.size());
  out << fmt::format("{:<{}}  {:>10}  {:>12}  {}\n", "kernel", w, "MFLOP", "MB moved", "ops");
  double flops = 0, bytes = 0;
  for (const KernelReport& k : r.kernels) {
    out << fmt::format("{:<{}}  {:>10.3f}  {:>12.3f}  {}\n", k.name, w, k.flops / 1e6,
                       k.bytes / 1e6, fmt::join(k.ops, " + "));
    flops += k.flops, bytes += k.bytes;
  }
  out << fmt::format("{:<{}}  {:>10.3f}  {:>12.3f}\n", "total", w, flops / 1e6, bytes / 1e6);
}

}  // namespace ingot::driver

// The compile pipeline's stages (see compile_stages.h), each a function of the run's state.
#include "driver/compile_stages.h"

#include <fmt/format.h>

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>
#include <sstream>

#include "codegen/c/c_model_source.h"
#include "codegen/llvm/codegen_llvm.h"
#include "driver/loop_passes.h"
#include "driver/output_accuracy.h"
#include "frontend/onnx/importer.h"
#include "graph/graph_digest.h"
#include "graph/printer.h"
#include "graph/transforms/bind_input_shapes.h"
#include "graph/transforms/pass_manager.h"
#include "graph/transforms/quantize_weights.h"
#include "graph/verifier.h"
#include "lower/lower_graph.h"
#include "schedule/rules/conv2d.h"
#include "support/error.h"
#include "tir/printer.h"
#include "tir/transforms/apply_param_layouts.h"
#include "tune/records.h"

namespace ingot::driver {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Import the ONNX file (with --specialize-inputs' values as constants) and bind input shapes.
void run_import_model(CompileRun& r) {
  const Clock::time_point t0 = Clock::now();
  frontend::ImportOptions import_options;
  if (!r.options.specialize_inputs.empty()) {
    r.specialized = read_specialized_inputs(r.options.specialize_inputs);
    import_options.specialized_inputs = r.specialized.values;
    import_options.specialized_source = r.specialized.source;
  }
  r.graph = frontend::import_onnx_file(r.model_path, import_options);
  r.after_graph("import");
  InputShapes input_shapes = r.options.input_shapes;
  bind_specialized_shapes(*r.graph, r.specialized, input_shapes);
  if (!input_shapes.empty()) graph::bind_input_shapes(*r.graph, input_shapes);
  r.after_graph("bind_input_shapes");
  r.print_time("import", ms_since(t0));
}

// Type inference; constant folding runs with it, through ingot's own kernels compiled for the
// host, whatever the target (-O1 and up).
void run_infer_types(CompileRun& r) {
  const Clock::time_point t0 = Clock::now();
  r.folder = std::make_unique<ConstantFolder>(codegen::Target::host());
  graph::ConstantEvaluator fold;
  if (r.options.opt_level >= 1 && !contains(r.options.disabled_passes, graph::kFoldConstantsPass))
    fold = r.folder->evaluator();
  graph::infer_types(*r.graph, fold, &r.infer_stats);
  r.print_time("infer_types", ms_since(t0));
  const FoldStats& folded = r.folder->stats();
  if (fold)
    r.print_time("fold_constants", folded.ms,
                 fmt::format("part of infer_types: {} nodes evaluated in {} batches, {} modules{}; "
                             "{} identities of constants",
                             folded.nodes, folded.batches, folded.modules,
                             folded.declined ? fmt::format(", {} declined", folded.declined) : "",
                             r.infer_stats.identities_folded));
  r.after_graph("infer_types");
}

// Symbolic dims stay symbolic on the llvm target (kernels over symbolic extents); the c and GPU
// targets, and `ingot tune`, compile static shapes only.
void run_check_shapes(CompileRun& r) {
  const graph::Graph& g = *r.graph;
  const CompileOptions& o = r.options;
  bool symbolic = false;  // symbolic input dims, or dims the values of inputs decide
  for (const graph::Value* v : g.inputs) symbolic = symbolic || !v->type.is_static();
  for (const auto& n : g.nodes())
    for (const graph::Value* v : n->outputs) symbolic = symbolic || (v && !v->type.is_static());
  const bool static_only = r.t.c || r.t.gpu || o.static_shapes_only;
  if (o.kv_cache_capacity > 0 && static_only)
    fail_user(
        "--kv-cache: the {} target compiles static shapes only; a cache needs the llvm "
        "target and --dim-bounds",
        r.t.c ? "c" : o.target);
  if (static_only) {
    lower::check_static_shapes(g);
    if (!o.dim_bounds.empty())
      fail_user(
          "--dim-bounds: the {} target compiles static shapes only; bind the dims with "
          "--input-shapes",
          r.t.c ? "c" : o.target);
  } else if (symbolic) {
    // Every symbol bounded, every bound a symbol; every dim an expression of the symbols.
    lower::check_symbolic_shapes(g, lower::SymbolTable(g, o.dim_bounds));
  } else if (!o.dim_bounds.empty()) {
    lower::SymbolTable(g, o.dim_bounds);  // names the symbols that do not exist
  }
  r.nodes_imported = int(g.nodes().size());
}

void run_graph_passes(CompileRun& r) {
  const Clock::time_point t0 = Clock::now();
  const CompileOptions& o = r.options;
  graph::PassOptions pass_options{o.opt_level,           o.disabled_passes,    o.print_ir_after,
                                  o.print_pass_times,    r.t.channel_blocks(), o.dtype == "float16",
                                  o.dtype == "bfloat16", o.conv_algorithm};
  // Tuned convolution algorithms (`ingot tune`'s decisions in the records) replace the default
  // policy's choice for the convs they name; an algorithm given on the command line wins. The
  // report lists the convs that run as Winograd.
  r.report.graph_digest = graph::graph_digest(*r.graph);
  graph::WinogradPolicy policy = graph::winograd_policy(o.conv_algorithm);
  // --dtype bfloat16: by default every conv direct, its products in bfloat16
  // (convert_bfloat16_convs): ResNet-50 ran a little faster than with float32 Winograd F(4x4)
  // for its 3x3 convs, with a third of the constants (docs/bfloat16.md).
  const graph::WinogradPolicy by_default =
      o.dtype == "bfloat16"
          ? graph::WinogradPolicy([](const graph::WinogradConvShape&) { return 0; })
          : graph::WinogradPolicy(graph::default_winograd_tile);
  if (o.conv_algorithm == "auto") {
    std::map<std::string, int> tiles = o.conv_tiles;
    if (!o.tuning_records.empty())
      tiles.merge(
          tune::conv_algorithm_tiles(r.tuning_records(), r.t.target.str(), r.report.graph_digest));
    policy = [tiles, by_default](const graph::WinogradConvShape& s) {
      auto it = tiles.find(s.node);
      return it != tiles.end() ? it->second : by_default(s);
    };
  }
  // The tuned layout plan (`ingot tune`'s conv_layout decisions): each conv it names writes
  // that channel block. The layout classes go to the report (the tuner's choices are per class).
  if (pass_options.channel_blocks) {
    std::map<std::string, int64_t> planned = o.conv_blocks;
    if (!o.tuning_records.empty())
      planned.merge(
          tune::conv_layout_blocks(r.tuning_records(), r.t.target.str(), r.report.graph_digest));
    pass_options.channel_blocks->planned = std::move(planned);
  }
  pass_options.on_layout_classes = [&r](std::vector<graph::ConvLayoutClass> classes) {
    r.report.conv_layout_classes = std::move(classes);
  };
  pass_options.conv_policy = [&r, policy](const graph::WinogradConvShape& s) {
    int m = policy(s);
    if (m != 0) r.report.winograd_convs.push_back(s.node);
    return m;
  };
  graph::run_optimization_passes(*r.graph, pass_options, r.dump);
  r.print_time("graph_passes", ms_since(t0));
}

// --quantize-weights: the products' constant weights in int8 / int4 groups.
void run_quantize_weights(CompileRun& r) {
  const CompileOptions& o = r.options;
  if (o.quantize_weights.empty()) return;
  const int bits = o.quantize_weights == "int8" ? 8 : 4;
  graph::QuantizeWeightsStats q = graph::quantize_weights(*r.graph, bits, o.group_size);
  graph::infer_types(*r.graph);
  r.quantization_summary = fmt::format(
      "quantized {} weights to {} in groups of {}: {:.1f} MB -> {:.1f} MB ({:.2f}x smaller), "
      "largest element error {:.2g} of the weight's largest magnitude{}",
      q.quantized, o.quantize_weights, o.group_size, double(q.float_bytes) / 1e6,
      double(q.quantized_bytes) / 1e6,
      q.quantized_bytes > 0 ? double(q.float_bytes) / double(q.quantized_bytes) : 0.0,
      q.max_rel_error,
      q.skipped > 0 ? fmt::format("; {} left in float32 (another reader, or K not a multiple "
                                  "of the group)",
                                  q.skipped)
                    : "");
  r.after_graph("quantize_weights");
}

void run_verify_graph(CompileRun& r) {
  graph::verify_graph(*r.graph);
  if (contains(r.options.dump, "graph")) r.dump << graph::print_graph(*r.graph) << "\n";
}

// Lowering, then the rules that take kernels by their pattern name them (task keys, reports,
// records). options.after_lower may end the compile here.
void run_lower_graph(CompileRun& r) {
  const Clock::time_point t0 = Clock::now();
  lower::LowerOptions lower_options;
  lower_options.cpu_schedules = r.t.cpu_schedules;
  lower_options.product_blocks = r.t.gpu || r.t.c || r.t.cpu_schedules;
  lower_options.wide_accumulators = r.t.gpu;
  lower_options.dim_bounds = r.options.dim_bounds;
  lower_options.kv_cache_capacity = r.options.kv_cache_capacity;
  r.mod = lower::lower_graph(*r.graph, lower_options);
  r.print_time("lower", ms_since(t0));
  schedule::assign_schedule_rules(r.mod, r.t.rules.kind);
  record_specialized_inputs(r.mod, r.specialized);
  if (!r.options.model_name.empty()) r.mod.model_name = r.options.model_name;
  if (r.options.after_lower && !r.options.after_lower(r.mod)) {
    r.stop = true;
    return;
  }
  r.after_tir("lower");
}

// Tuning records first (the default rules leave kernels that have a trace), then the default
// rules; the layouts the schedules gave constants, and their scratch buffers, reach the module.
void run_schedule_kernels(CompileRun& r) {
  const Clock::time_point t0 = Clock::now();
  if (!r.options.tuning_records.empty()) {
    tune::RecordsApplied applied = tune::apply_records(r.mod, r.tuning_records(), r.t.target.str());
    r.tuning_summary = tune::describe(applied);
  }
  // The CPU rules always schedule the llvm target (--schedule naive leaves its kernels in loop
  // form: no block-form kernel reaches them); the c and GPU targets only with default schedules.
  if ((!r.t.gpu && !r.t.c) || r.options.default_schedules)
    schedule::apply_default_schedules(r.mod, r.t.rules);
  r.print_time("schedule", ms_since(t0));
  tir::apply_param_layouts(r.mod);
  r.after_tir("schedule");
  if (contains(r.options.dump, "traces")) r.dump << schedule::schedule_traces_to_python(r.mod);
}

void run_tir_passes(CompileRun& r) {
  for (const LoopPass& p : driver::loop_passes())
    if ((r.t.gpu ? p.gpu : p.cpu) && !(r.t.c && p.stage == "vectorize_loops")) {
      for (tir::PrimFunc& f : r.mod.kernels) f = p.run(std::move(f));
      r.after_tir(p.stage);
    }
  if (contains(r.options.dump, "tir")) r.dump << tir::to_string(r.mod) << "\n";
}

// Machine code (or C), compiled kernel by kernel on several threads, then linked.
void run_codegen_and_link(CompileRun& r) {
  const CompileOptions& o = r.options;
  const CompileTarget& t = r.t;
  const bool print_codegen = contains(o.print_ir_after, "codegen");
  if (t.c && (contains(o.dump, "c") || print_codegen))
    r.dump << codegen::print_c_model(r.mod, codegen::c_model_name(r.mod.model_name), false).source
           << "\n";
  if (!t.gpu && !t.c && (contains(o.dump, "llvm") || print_codegen))
    r.dump << codegen::emit_llvm_ir(r.mod, t.target) << "\n";
  if (t.gpu && (contains(o.dump, "opencl") || contains(o.dump, "cuda") || print_codegen))
    r.dump << codegen::emit_device_source(r.mod, t.target) << "\n";
  const int num_kernels = int(r.mod.kernels.size());
  r.progress(5, 0, num_kernels, "kernels");
  bool linking = false;
  codegen::BuildOptions build_options;
  build_options.threads = o.codegen_threads;
  build_options.on_kernel = [&](int done, int total) {
    r.progress(5, done, total, "kernels");
    if (done == total) {
      linking = true;
      r.progress(6);
    }
  };
  if (t.c) {
    const Clock::time_point t0 = Clock::now();
    r.memory = write_c_artifact(r.mod, t.target, r.output_path,
                                {o.output_format, r.model_path,
                                 o.output_format == "mlf" ? graph::print_graph(*r.graph) : "",
                                 o.workspace_bytes_limit, o.flash_bytes_limit});
    r.built.codegen_ms = ms_since(t0);
    r.built.threads = 1;
  } else {
    check_workspace_limit(int64_t(r.mod.workspace_bytes), o.workspace_bytes_limit);
    r.built = codegen::build_shared_library(r.mod, t.target, r.output_path, build_options);
  }
  if (!linking) r.progress(6);
  std::vector<codegen::BuildStats::Kernel> slowest = r.built.kernels;
  std::sort(slowest.begin(), slowest.end(),
            [](const auto& a, const auto& b) { return a.ms > b.ms; });
  std::string slow;
  for (size_t i = 0; i < std::min<size_t>(3, slowest.size()); ++i)
    slow += fmt::format("{}{} {:.0f} ms", i ? ", " : "; slowest: ", slowest[i].name, slowest[i].ms);
  r.print_time("codegen", r.built.codegen_ms,
               fmt::format("{} kernels on {} threads, {} objects{}", num_kernels, r.built.threads,
                           r.built.objects, slow));
  r.print_time("link", r.built.link_ms);
  r.print_time("total", ms_since(r.start));
}

void run_fill_report(CompileRun& r) {
  CompileReport& report = r.report;
  const FoldStats& folded = r.folder->stats();
  report.num_nodes_imported = r.nodes_imported;
  report.num_nodes = int(r.graph->nodes().size());
  std::set<int> groups;
  for (const auto& n : r.graph->nodes())
    if (n->fusion_group >= 0) groups.insert(n->fusion_group);
  report.num_fusion_groups = int(groups.size());
  report.num_kernels = int(r.mod.kernels.size());
  for (const tir::PrimFunc& f : r.mod.kernels)
    report.kernels.push_back({f.name, f.source_ops, f.flops, f.bytes_moved});
  report.workspace_bytes = r.mod.workspace_bytes;
  report.constant_bytes = r.mod.constants.size();
  report.target = r.t.target.str();
  report.folded_nodes = folded.nodes + r.infer_stats.identities_folded;
  report.fold_batches = folded.batches;
  report.fold_modules = folded.modules;
  report.fold_ms = folded.ms;
  report.fold_target = folded.target;
  report.codegen_threads = r.built.threads;
  report.tuning_summary = r.tuning_summary;
  report.quantization_summary = r.quantization_summary;
  report.device_summary = r.built.device_summary;
  report.has_memory = r.t.c;
  report.memory = r.memory;
}

// --accuracy-inputs: the float32 artifact of the same model, then both run on the inputs, each
// float output's error reported. A failure removes the quantized artifact too (nothing
// half-done is left).
void run_accuracy(CompileRun& r) {
  const CompileOptions& o = r.options;
  if (o.accuracy_inputs.empty()) return;
  try {
    std::string dir = (std::filesystem::temp_directory_path() / "ingot-accuracy-XXXXXX").string();
    if (!mkdtemp(dir.data())) fail_user("--accuracy-inputs: cannot create a temporary directory");
    struct Cleanup {
      std::string dir;
      ~Cleanup() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
      }
    } cleanup{dir};
    CompileOptions ref = o;
    ref.quantize_weights.clear();
    ref.accuracy_inputs.clear();
    ref.dump.clear();
    ref.print_ir_after.clear();
    ref.print_pass_times = false;
    ref.progress = nullptr;
    std::ostringstream quiet;
    const std::string ref_path = dir + "/float32.so";
    compile_model(r.model_path, ref_path, ref, quiet);
    for (const OutputError& e : compare_outputs(ref_path, r.output_path, o.accuracy_inputs))
      r.report.quantization_summary += fmt::format(
          "\n  output '{}' against float32 on {}: max relative error {:.3g}, mean {:.3g}", e.name,
          o.accuracy_inputs, e.max_rel, e.mean_rel);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(r.output_path, ec);
    throw;
  }
}

}  // namespace

CompileTarget CompileTarget::of(const CompileOptions& options) {
  CompileTarget t;
  t.target = codegen::Target::parse(options.target);
  t.rules = rule_target(t.target);
  t.gpu = t.target.is_gpu();
  t.c = t.target.kind == codegen::Target::kC;
  // The c target runs the compute rules' plain loop nests (no CPU layouts, packing or vector
  // schedules: the C compiler for the target vectorizes what it can).
  t.cpu_schedules = options.default_schedules && !t.gpu && !t.c;
  return t;
}

std::optional<ChannelBlockPolicy> CompileTarget::channel_blocks() const {
  if (!cpu_schedules) return std::nullopt;
  return schedule::conv_channel_blocks(rules.isa);
}

const std::vector<tune::TuningRecord>& CompileRun::tuning_records() {
  if (!records) records = tune::read_records(options.tuning_records);
  return *records;
}

void CompileRun::print_time(const char* stage, double ms, const std::string& detail) const {
  if (options.print_pass_times)
    dump << fmt::format("stage {:<23} {:9.3f} ms{}\n", stage, ms,
                        detail.empty() ? "" : "  (" + detail + ")");
}

void CompileRun::progress(int step, int done, int total, const char* unit) const {
  if (options.progress)
    options.progress(
        {step, int(compile_steps().size()), compile_steps()[size_t(step - 1)], done, total, unit});
}

void CompileRun::after_graph(const std::string& stage) const {
  if (contains(options.print_ir_after, stage))
    dump << "// IR after " << stage << "\n" << graph::print_graph(*graph) << "\n";
}

void CompileRun::after_tir(const std::string& stage) const {
  if (contains(options.print_ir_after, stage))
    dump << "// IR after " << stage << "\n" << tir::to_string(mod) << "\n";
}

const std::vector<CompileStage>& compile_stages() {
  static const std::vector<CompileStage> stages = {
      {"import", 1, run_import_model},
      {"infer_types", 2, run_infer_types},
      {"check_shapes", 0, run_check_shapes},
      {"graph_passes", 3, run_graph_passes},
      {"quantize_weights", 0, run_quantize_weights},
      {"verify_graph", 0, run_verify_graph},
      {"lower", 4, run_lower_graph},
      {"schedule", 0, run_schedule_kernels},
      {"loop_passes", 0, run_tir_passes},
      {"codegen", 0, run_codegen_and_link},  // reports steps 5 (codegen) and 6 (link) itself
      {"report", 0, run_fill_report},
      {"accuracy", 0, run_accuracy},
  };
  return stages;
}

}  // namespace ingot::driver

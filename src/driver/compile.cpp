// The compile pipeline, written as one readable list of named stages (as Halide's Lower.cpp):
// import -> bind shapes -> infer types -> dead code -> verify -> lower -> schedule -> tir passes
// (lower_blocks, unroll_loops, vectorize_loops, flatten_buffers, simplify) -> codegen.
#include "driver/compile.h"

#include "driver/constant_eval.h"
#include "driver/loop_passes.h"
#include "driver/output_accuracy.h"
#include "driver/specialize_inputs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <ostream>
#include <set>
#include <sstream>

#include "codegen/build.h"
#include "codegen/c/c_model_source.h"
#include "codegen/llvm/codegen_llvm.h"
#include "codegen/target.h"
#include "frontend/onnx/importer.h"
#include "graph/printer.h"
#include "graph/transforms/bind_input_shapes.h"
#include "graph/transforms/dead_code.h"
#include "graph/transforms/infer_types.h"
#include "graph/transforms/pass_manager.h"
#include "graph/transforms/quantize_weights.h"
#include "graph/verifier.h"
#include "lower/lower_graph.h"
#include "schedule/rules/conv2d.h"
#include "schedule/rules/default_rules.h"
#include "support/error.h"
#include "support/npz.h"
#include "tir/printer.h"
#include "tir/transforms/apply_param_layouts.h"
#include "tune/records.h"

namespace ingot::driver {
namespace {

bool is_c_identifier(const std::string& s) {
  auto alpha = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
  return !s.empty() && alpha(s[0]) && std::all_of(s.begin(), s.end(), [&](char c) {
    return alpha(c) || std::isdigit(static_cast<unsigned char>(c));
  });
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

void check_options(const CompileOptions& o) {
  for (const auto& d : o.dump) {
    if (d != "graph" && d != "tir" && d != "llvm" && d != "traces" && d != "opencl" &&
        d != "cuda" && d != "c")
      fail_user("--dump: unknown value '{}' (valid: graph, tir, llvm, traces, opencl, cuda, c)", d);
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
  if (o.output_format != "so" && o.output_format != "mlf")
    fail_user("--output-format: '{}' is not supported (valid: so, mlf)", o.output_format);
  if (!o.model_name.empty() && !is_c_identifier(o.model_name))
    fail_user(
        "--model-name: '{}' is not a C identifier (letters, digits and '_', not starting "
        "with a digit)",
        o.model_name);
  if (o.dtype != "float32" && o.dtype != "float16")
    fail_user("--dtype: '{}' is not supported (valid: float32, float16)", o.dtype);
}

}  // namespace

schedule::RuleTarget rule_target(const codegen::Target& target) {
  // What the layout pass, lowering and schedules see of the target's vector ISA: NEON (128-bit)
  // on AArch64, else x86 by its vector width; none for GPU targets (no CPU layouts or packing:
  // the GPU rules schedule the compute rules' plain nests).
  if (target.kind == codegen::Target::kC) return {"c", CpuVectorIsa::x86(0)};
  if (target.is_gpu())
    return {target.kind == codegen::Target::kCUDA ? "cuda" : "opencl", CpuVectorIsa::x86(0),
            target.max_num_threads,
            target.kind == codegen::Target::kCUDA && target.sm_version() >= 80};
  return {"llvm", target.is_aarch64() ? CpuVectorIsa::aarch64_neon()
                                      : CpuVectorIsa::x86(target.vector_bits)};
}

const std::vector<std::string>& pipeline_stage_names() {
  static const std::vector<std::string> names = {
      "import",          "bind_input_shapes", "infer_types",   "lower",        "schedule",
      "lower_blocks",    "compact_buffers",   "double_buffer", "unroll_loops", "vectorize_loops",
      "flatten_buffers", "simplify",          "codegen"};
  return names;
}

const std::vector<std::string>& compile_steps() {
  static const std::vector<std::string> steps = {"import", "infer_types", "graph_passes",
                                                 "lower",  "codegen",     "link"};
  return steps;
}

std::string describe_target(const std::string& target_spec) {
  return codegen::describe_target(codegen::Target::parse(target_spec));
}

CompileReport compile_model(const std::string& model_path, const std::string& output_path,
                            const CompileOptions& options, std::ostream& dump) {
  check_options(options);
  codegen::Target target = codegen::Target::parse(options.target);
  const bool gpu = target.is_gpu();
  const bool c_target = target.kind == codegen::Target::kC;
  if (!options.quantize_weights.empty() && options.quantize_weights != "int8" &&
      options.quantize_weights != "int4")
    fail_user("--quantize-weights must be int8 or int4, got '{}'", options.quantize_weights);
  if (!options.accuracy_inputs.empty()) {
    if (options.quantize_weights.empty())
      fail_user("--accuracy-inputs needs --quantize-weights (it compares against float32)");
    if (c_target || gpu)
      fail_user("--accuracy-inputs: the report runs the artifacts on this CPU (llvm target only)");
    (void)read_npz(options.accuracy_inputs);  // a bad file fails before any work
  }
  if (options.group_size < 2 || options.group_size % 2 != 0)
    fail_user("--group-size must be an even number >= 2, got {}", options.group_size);
  if (options.output_format == "mlf" && !c_target)
    fail_user("--output-format mlf needs --target c (a Model Library Format holds C), got '{}'",
              options.target);
  if (c_target && options.dtype != "float32")
    fail_user("--dtype {}: the c target computes in the model's own types only", options.dtype);
  if (options.flash_bytes_limit >= 0 && !c_target)
    fail_user("--flash-bytes-limit needs --target c, got '{}'", options.target);
  for (const auto& d : options.dump) {
    if (d == "opencl" && target.kind != codegen::Target::kOpenCL)
      fail_user("--dump opencl needs --target opencl, got '{}'", options.target);
    if (d == "cuda" && target.kind != codegen::Target::kCUDA)
      fail_user("--dump cuda needs --target cuda, got '{}'", options.target);
    if (d == "llvm" && (gpu || c_target))
      fail_user("--dump llvm needs an llvm target, got '{}'", options.target);
    if (d == "c" && !c_target) fail_user("--dump c needs --target c, got '{}'", options.target);
  }
  const CpuVectorIsa isa = rule_target(target).isa;
  // The c target runs the compute rules' plain loop nests (no CPU layouts, packing or vector
  // schedules: the C compiler for the target vectorizes what it can).
  const bool cpu_schedules = options.default_schedules && !gpu && !c_target;

  auto after_graph = [&](const std::string& stage, const graph::Graph& g) {
    if (contains(options.print_ir_after, stage))
      dump << "// IR after " << stage << "\n" << graph::print_graph(g) << "\n";
  };
  // Stage times (--print-pass-times) and progress (CompileOptions::progress).
  using Clock = std::chrono::steady_clock;
  const Clock::time_point compile_start = Clock::now();
  auto ms_since = [](Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  };
  auto print_time = [&](const char* stage, double ms, const std::string& detail = "") {
    if (options.print_pass_times)
      dump << fmt::format("stage {:<23} {:9.3f} ms{}\n", stage, ms,
                          detail.empty() ? "" : "  (" + detail + ")");
  };
  auto progress = [&](int step, int done = 0, int total = 0, const char* unit = "") {
    if (options.progress)
      options.progress({step, int(compile_steps().size()), compile_steps()[size_t(step - 1)], done,
                        total, unit});
  };
  progress(1);
  Clock::time_point t_import = Clock::now();

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
  print_time("import", ms_since(t_import));
  // Constant folding runs with inference, through ingot's own kernels compiled for the host,
  // whatever the target (-O1 and up).
  progress(2);
  Clock::time_point t_infer = Clock::now();
  ConstantFolder folder(codegen::Target::host());
  graph::ConstantEvaluator fold;
  if (options.opt_level >= 1 &&
      std::find(options.disabled_passes.begin(), options.disabled_passes.end(),
                graph::kFoldConstantsPass) == options.disabled_passes.end())
    fold = folder.evaluator();
  graph::InferTypesStats infer_stats;
  graph::infer_types(*g, fold, &infer_stats);
  print_time("infer_types", ms_since(t_infer));
  const FoldStats& folded = folder.stats();
  if (fold)
    print_time("fold_constants", folded.ms,
               fmt::format("part of infer_types: {} nodes evaluated in {} batches, {} modules{}; "
                           "{} identities of constants",
                           folded.nodes, folded.batches, folded.modules,
                           folded.declined ? fmt::format(", {} declined", folded.declined) : "",
                           infer_stats.identities_folded));
  after_graph("infer_types", *g);
  // Symbolic dims stay symbolic on the llvm target (kernels over symbolic extents); the c and
  // GPU targets compile static shapes only.
  bool symbolic = false;  // symbolic input dims, or dims the values of inputs decide
  for (const graph::Value* v : g->inputs) symbolic = symbolic || !v->type.is_static();
  for (const auto& n : g->nodes())
    for (const graph::Value* v : n->outputs) symbolic = symbolic || (v && !v->type.is_static());
  if (options.kv_cache_capacity > 0 && (c_target || gpu || options.static_shapes_only))
    fail_user(
        "--kv-cache: the {} target compiles static shapes only; a cache needs the llvm "
        "target and --dim-bounds",
        c_target ? "c" : options.target);
  if (c_target || gpu || options.static_shapes_only) {
    lower::check_static_shapes(*g);
    if (!options.dim_bounds.empty())
      fail_user(
          "--dim-bounds: the {} target compiles static shapes only; bind the dims with "
          "--input-shapes",
          c_target ? "c" : options.target);
  } else if (symbolic) {
    // Every symbol bounded, every bound a symbol; every dim an expression of the symbols.
    lower::check_symbolic_shapes(*g, lower::SymbolTable(*g, options.dim_bounds));
  } else if (!options.dim_bounds.empty()) {
    lower::SymbolTable(*g, options.dim_bounds);  // names the symbols that do not exist
  }
  int nodes_imported = int(g->nodes().size());
  graph::PassOptions pass_options{
      options.opt_level,
      options.disabled_passes,
      options.print_ir_after,
      options.print_pass_times,
      cpu_schedules ? std::optional(schedule::conv_channel_blocks(isa)) : std::nullopt,
      options.dtype == "float16"};
  progress(3);
  Clock::time_point t_passes = Clock::now();
  graph::run_optimization_passes(*g, pass_options, dump);
  std::string quantization_summary;
  if (!options.quantize_weights.empty()) {
    const int bits = options.quantize_weights == "int8" ? 8 : 4;
    graph::QuantizeWeightsStats q = graph::quantize_weights(*g, bits, options.group_size);
    graph::infer_types(*g);
    quantization_summary = fmt::format(
        "quantized {} weights to {} in groups of {}: {:.1f} MB -> {:.1f} MB ({:.2f}x smaller), "
        "largest element error {:.2g} of the weight's largest magnitude{}",
        q.quantized, options.quantize_weights, options.group_size, double(q.float_bytes) / 1e6,
        double(q.quantized_bytes) / 1e6,
        q.quantized_bytes > 0 ? double(q.float_bytes) / double(q.quantized_bytes) : 0.0,
        q.max_rel_error,
        q.skipped > 0 ? fmt::format("; {} left in float32 (another reader, or K not a multiple "
                                    "of the group)",
                                    q.skipped)
                      : "");
    after_graph("quantize_weights", *g);
  }
  print_time("graph_passes", ms_since(t_passes));
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
  if (cpu_schedules) lower_options.cpu_blocks = schedule::conv_channel_blocks(isa);
  lower_options.gpu = gpu;
  lower_options.dim_bounds = options.dim_bounds;
  lower_options.kv_cache_capacity = options.kv_cache_capacity;
  tir::IRModule mod;
  progress(4);
  timed("lower", [&] { mod = lower::lower_graph(*g, lower_options); });
  // Kernels a rule takes by their pattern get its name now (task keys, reports, records).
  schedule::assign_schedule_rules(mod, rule_target(target).kind);
  record_specialized_inputs(mod, specialized);
  if (!options.model_name.empty()) mod.model_name = options.model_name;
  if (options.after_lower && !options.after_lower(mod)) return CompileReport{};
  auto after_tir = [&](const std::string& stage) {
    if (contains(options.print_ir_after, stage))
      dump << "// IR after " << stage << "\n" << tir::to_string(mod) << "\n";
  };
  auto each_kernel = [&](const std::string& stage, auto&& pass) {
    for (tir::PrimFunc& f : mod.kernels) f = pass(std::move(f));
    after_tir(stage);
  };
  after_tir("lower");
  std::string tuning_summary;
  timed("schedule", [&] {
    if (!options.tuning_records.empty()) {
      // Records first: apply_default_schedules leaves kernels that already have a trace.
      tune::RecordsApplied applied =
          tune::apply_records(mod, tune::read_records(options.tuning_records), target.str());
      tuning_summary = tune::describe(applied);
    }
    if (c_target) {
      // Plain loop nests with the fused groups' intermediates inlined (see cpu_schedules).
      if (options.default_schedules) schedule::apply_default_schedules(mod, rule_target(target));
    } else if (!gpu) {
      schedule::apply_default_schedules(mod, isa);
    } else if (options.default_schedules) {
      schedule::apply_default_schedules(mod, rule_target(target));
    }
  });
  // The layouts the schedules gave constants, and their scratch buffers, reach the module.
  tir::apply_param_layouts(mod);
  after_tir("schedule");
  if (contains(options.dump, "traces")) dump << schedule::schedule_traces_to_python(mod);
  for (const LoopPass& p : loop_passes())
    if ((gpu ? p.gpu : p.cpu) && !(c_target && p.stage == "vectorize_loops"))
      each_kernel(p.stage, p.run);
  if (contains(options.dump, "tir")) dump << tir::to_string(mod) << "\n";

  // Machine level.
  if (c_target && (contains(options.dump, "c") || contains(options.print_ir_after, "codegen")))
    dump << codegen::print_c_model(mod, codegen::c_model_name(mod.model_name), false).source
         << "\n";
  if (!gpu && !c_target &&
      (contains(options.dump, "llvm") || contains(options.print_ir_after, "codegen")))
    dump << codegen::emit_llvm_ir(mod, target) << "\n";
  if (gpu && (contains(options.dump, "opencl") || contains(options.dump, "cuda") ||
              contains(options.print_ir_after, "codegen")))
    dump << codegen::emit_device_source(mod, target) << "\n";
  const int num_kernels = int(mod.kernels.size());
  progress(5, 0, num_kernels, "kernels");
  bool linking = false;
  codegen::BuildOptions build_options;
  build_options.threads = options.codegen_threads;
  build_options.on_kernel = [&](int done, int total) {
    progress(5, done, total, "kernels");
    if (done == total) {
      linking = true;
      progress(6);
    }
  };
  codegen::BuildStats built;
  MemoryReport memory;
  if (c_target) {
    auto t0 = Clock::now();
    memory = write_c_artifact(mod, target, output_path,
                              {options.output_format, model_path,
                               options.output_format == "mlf" ? graph::print_graph(*g) : "",
                               options.workspace_bytes_limit, options.flash_bytes_limit});
    built.codegen_ms = ms_since(t0);
    built.threads = 1;
  } else {
    check_workspace_limit(int64_t(mod.workspace_bytes), options.workspace_bytes_limit);
    built = codegen::build_shared_library(mod, target, output_path, build_options);
  }
  if (!linking) progress(6);
  std::vector<codegen::BuildStats::Kernel> slowest = built.kernels;
  std::sort(slowest.begin(), slowest.end(),
            [](const auto& a, const auto& b) { return a.ms > b.ms; });
  std::string slow;
  for (size_t i = 0; i < std::min<size_t>(3, slowest.size()); ++i)
    slow += fmt::format("{}{} {:.0f} ms", i ? ", " : "; slowest: ", slowest[i].name, slowest[i].ms);
  print_time("codegen", built.codegen_ms,
             fmt::format("{} kernels on {} threads, {} objects{}", num_kernels, built.threads,
                         built.objects, slow));
  print_time("link", built.link_ms);
  print_time("total", ms_since(compile_start));

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
  report.folded_nodes = folded.nodes + infer_stats.identities_folded;
  report.fold_batches = folded.batches;
  report.fold_modules = folded.modules;
  report.fold_ms = folded.ms;
  report.fold_target = folded.target;
  report.codegen_threads = built.threads;
  report.tuning_summary = tuning_summary;
  report.quantization_summary = quantization_summary;
  report.device_summary = built.device_summary;
  report.has_memory = c_target;
  report.memory = memory;
  if (!options.accuracy_inputs.empty()) {
    // The float32 artifact of the same model, then both run on the inputs. A failure removes
    // the quantized artifact too (nothing half-done is left).
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
      CompileOptions ref = options;
      ref.quantize_weights.clear();
      ref.accuracy_inputs.clear();
      ref.dump.clear();
      ref.print_ir_after.clear();
      ref.print_pass_times = false;
      ref.progress = nullptr;
      std::ostringstream quiet;
      const std::string ref_path = dir + "/float32.so";
      compile_model(model_path, ref_path, ref, quiet);
      for (const OutputError& e : compare_outputs(ref_path, output_path, options.accuracy_inputs))
        report.quantization_summary += fmt::format(
            "\n  output '{}' against float32 on {}: max relative error {:.3g}, mean {:.3g}", e.name,
            options.accuracy_inputs, e.max_rel, e.mean_rel);
    } catch (...) {
      std::error_code ec;
      std::filesystem::remove(output_path, ec);
      throw;
    }
  }
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

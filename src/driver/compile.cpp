// compile_model: the options checked, then the pipeline's named stages run in order over one
// target description (driver/compile_stages.h: import -> infer types -> check shapes -> graph
// passes -> quantize weights -> lower -> schedule -> loop passes -> codegen -> report).
#include "driver/compile.h"

#include "driver/compile_stages.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <ostream>

#include "codegen/target.h"
#include "graph/transforms/pass_manager.h"
#include "graph/transforms/winograd_conv.h"
#include "support/error.h"
#include "support/npz.h"

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
  if (o.dtype != "float32" && o.dtype != "float16" && o.dtype != "bfloat16")
    fail_user("--dtype: '{}' is not supported (valid: float32, float16, bfloat16)", o.dtype);
  graph::check_conv_algorithm(o.conv_algorithm);
}

// The options that depend on the target (and on each other).
void check_target_options(const CompileOptions& options, const CompileTarget& t) {
  if (!options.quantize_weights.empty() && options.quantize_weights != "int8" &&
      options.quantize_weights != "int4")
    fail_user("--quantize-weights must be int8 or int4, got '{}'", options.quantize_weights);
  if (!options.accuracy_inputs.empty()) {
    if (options.quantize_weights.empty())
      fail_user("--accuracy-inputs needs --quantize-weights (it compares against float32)");
    if (t.c || t.gpu)
      fail_user("--accuracy-inputs: the report runs the artifacts on this CPU (llvm target only)");
    (void)read_npz(options.accuracy_inputs);  // a bad file fails before any work
  }
  if (options.group_size < 2 || options.group_size % 2 != 0)
    fail_user("--group-size must be an even number >= 2, got {}", options.group_size);
  if (options.output_format == "mlf" && !t.c)
    fail_user("--output-format mlf needs --target c (a Model Library Format holds C), got '{}'",
              options.target);
  if (t.c && options.dtype != "float32")
    fail_user("--dtype {}: the c target computes in the model's own types only", options.dtype);
  if (options.flash_bytes_limit >= 0 && !t.c)
    fail_user("--flash-bytes-limit needs --target c, got '{}'", options.target);
  const codegen::Target::Kind kind = t.target.kind;
  for (const auto& d : options.dump) {
    if (d == "opencl" && kind != codegen::Target::kOpenCL)
      fail_user("--dump opencl needs --target opencl, got '{}'", options.target);
    if (d == "cuda" && kind != codegen::Target::kCUDA)
      fail_user("--dump cuda needs --target cuda, got '{}'", options.target);
    if (d == "llvm" && (t.gpu || t.c))
      fail_user("--dump llvm needs an llvm target, got '{}'", options.target);
    if (d == "c" && !t.c) fail_user("--dump c needs --target c, got '{}'", options.target);
  }
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
  schedule::RuleTarget t{"llvm", target.is_aarch64() ? CpuVectorIsa::aarch64_neon()
                                                     : CpuVectorIsa::x86(target.vector_bits)};
  t.int8_quads = target.int8_dot_quads(t.isa.tile_lanes());
  t.int8_signed_quads = target.int8_signed_dot_quads(t.isa.tile_lanes());
  t.amx_int8 = target.amx_int8();
  t.amx_bf16 = target.amx_bf16();
  return t;
}

const std::vector<std::string>& pipeline_stage_names() {
  static const std::vector<std::string> names = {
      "import",          "bind_input_shapes", "infer_types",     "lower",         "schedule",
      "lower_blocks",    "hoist_guards",      "compact_buffers", "double_buffer", "unroll_loops",
      "vectorize_loops", "flatten_buffers",   "simplify",        "codegen"};
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
  CompileTarget t = CompileTarget::of(options);
  check_target_options(options, t);
  CompileRun run(model_path, output_path, options, std::move(t), dump);
  for (const CompileStage& stage : compile_stages()) {
    if (stage.step > 0) run.progress(stage.step);
    stage.run(run);
    if (run.stop) return run.report;  // (what the stages before the stop found)
  }
  return run.report;
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

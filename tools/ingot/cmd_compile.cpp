// `ingot compile MODEL.onnx [-o OUT.so] [--target T] [--input-shapes ...]
// [--specialize-inputs V.npz] [--dump ...]`.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

#include "driver/compile.h"
#include "tools/ingot/commands.h"

namespace ingot::cli {

namespace {

// The compile's progress as one line on stderr, redrawn in place ("[5/6] codegen 40/77
// kernels") and erased when the compile ends; only for a terminal.
class TerminalProgress {
 public:
  void update(const driver::CompileProgress& p) {
    std::string line =
        "[" + std::to_string(p.step) + "/" + std::to_string(p.steps) + "] " + p.stage;
    if (p.total > 0)
      line += " " + std::to_string(p.done) + "/" + std::to_string(p.total) + " " + p.unit;
    if (line == last_) return;
    last_ = line;
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
  }
  ~TerminalProgress() {
    if (last_.empty()) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }

 private:
  std::string last_;
};

}  // namespace

void add_compile_command(CLI::App& app, int& exit_code) {
  struct Args {
    std::string model, output = "module.so", input_shapes, dim_bounds;
    driver::CompileOptions options;
    bool quiet = false, print_target = false;
    std::string schedule = "default";
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("compile", "compile an ONNX model into an artifact");
  cmd->add_option("model", args->model, "the ONNX model file (required unless --print-target)");
  cmd->add_option("-o,--output", args->output, "output artifact path")->capture_default_str();
  cmd->add_option("--target", args->options.target,
                  "compilation target, e.g. \"llvm -mcpu=skylake-avx512\" (default: host CPU)")
      ->capture_default_str();
  cmd->add_option("--input-shapes", args->input_shapes,
                  "bind input shapes, e.g. \"input:[1,3,224,224] mask:[1,128]\"");
  cmd->add_option("--dim-bounds", args->dim_bounds,
                  "bounds of the symbolic dims left unbound, e.g. \"seq:1..1024 past:0..1023\": "
                  "one artifact serves every binding within them (llvm target)");
  cmd->add_option("--kv-cache", args->options.kv_cache_capacity,
                  "keep each key/value cache (an input `past` and the output Concat(past, new)) "
                  "in the session as a state of N entries: runs append in place and nothing is "
                  "copied back (llvm target, with --dim-bounds)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--quantize-weights", args->options.quantize_weights,
                  "weight-only quantization of the constant weights of MatMul/Gemm (and a tied "
                  "embedding's Gather): int8 or int4, dequantized inside the products");
  cmd->add_option("--accuracy-inputs", args->options.accuracy_inputs,
                  "--quantize-weights: also build the float32 artifact and print each output's "
                  "max/mean relative error against it on these inputs (.npz by input name)");
  cmd->add_option("--group-size", args->options.group_size,
                  "--quantize-weights: weights per scale along the reduced dim (even)")
      ->capture_default_str();
  cmd->add_option("--specialize-inputs", args->options.specialize_inputs,
                  "compile for these input values (.npz, one NAME.npy per input): the inputs stay "
                  "inputs, shapes they decide become static, and running with other values fails");
  cmd->add_option("--output-format", args->options.output_format,
                  "so: a shared library the runtime loads; mlf: a Model Library Format tarball of "
                  "C sources, constants and metadata (--target c; docs/mlf.md)")
      ->check(CLI::IsMember({"so", "mlf"}))
      ->capture_default_str();
  cmd->add_option("--model-name", args->options.model_name,
                  "the artifact's model name (default: the ONNX graph's); with --target c the "
                  "prefix of its C symbols, ingot_<name>_run, so several models link together");
  cmd->add_option("--workspace-bytes-limit", args->options.workspace_bytes_limit,
                  "fail (writing nothing) when the model's static workspace is over N bytes")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--flash-bytes-limit", args->options.flash_bytes_limit,
                  "--target c: fail (writing nothing) when code + constants are over N bytes")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--conv-algorithm", args->options.conv_algorithm,
                  "3x3 stride-1 convolutions on CPUs: auto (Winograd F(4x4,3x3) or F(2x2,3x3) "
                  "where the default policy picks it), direct, winograd_f2, winograd_f4")
      ->capture_default_str();
  cmd->add_option("--dtype", args->options.dtype,
                  "float16: compute the model in float16 (weights converted at compile time, "
                  "reductions in float32, inputs and outputs still float32); bfloat16: products "
                  "by constant weights (MatMul, Gemm) in bfloat16 with float32 accumulation, "
                  "weights stored as bfloat16, the rest float32")
      ->capture_default_str();
  cmd->add_option("--tuning-records", args->options.tuning_records,
                  "JSON-lines records from `ingot tune`: each kernel whose task has a record for "
                  "this target runs the best record's schedule, the rest the default")
      ->check(CLI::ExistingFile);
  cmd->add_option("--dump", args->options.dump,
                  "print to stdout: graph, tir, llvm, opencl, cuda, c (the final IR or code of "
                  "those levels), traces (each scheduled kernel's schedule as a Python-like trace)")
      ->delimiter(',');
  cmd->add_option("--print-ir-after", args->options.print_ir_after,
                  "print the IR after these pipeline stages")
      ->delimiter(',');
  cmd->add_option("--schedule", args->schedule,
                  "default: packed weights and the default schedule rules for matmul and conv; "
                  "naive: every op's plain loop nest")
      ->check(CLI::IsMember({"default", "naive"}))
      ->capture_default_str();
  cmd->add_option("-O,--opt-level", args->options.opt_level,
                  "graph optimisation level 0..3 (0: none; 1: identity removal, CSE; 2: + batch "
                  "norm folding and epilogue fusion)")
      ->capture_default_str();
  cmd->add_option("--disabled-pass", args->options.disabled_passes,
                  "graph passes not to run (names as in --print-pass-times)")
      ->delimiter(',');
  cmd->add_flag("--print-pass-times", args->options.print_pass_times,
                "print the time of each graph pass and compile stage");
  cmd->add_flag("--report", args->options.report,
                "print the compile report: node and kernel counts before and after the graph "
                "passes, workspace and constant bytes, per kernel its ops, FLOPs and bytes");
  cmd->add_flag("-q,--quiet", args->quiet, "print nothing on success");
  cmd->add_flag("--print-target", args->print_target,
                "print the resolved target (triple, CPU, vector ISA, the CPU features the code "
                "needs) and exit");
  cmd->callback([args, &exit_code] {
    if (args->print_target) {
      std::cout << driver::describe_target(args->options.target);
      exit_code = 0;
      return;
    }
    if (args->model.empty()) throw CLI::RequiredError("model");
    args->options.default_schedules = args->schedule == "default";
    if (!args->input_shapes.empty())
      args->options.input_shapes = driver::parse_input_shapes(args->input_shapes);
    if (!args->dim_bounds.empty())
      args->options.dim_bounds = driver::parse_dim_bounds(args->dim_bounds);
    // Progress on a terminal only: pipes, files and tests see nothing; nor while stage output
    // (--print-pass-times, --dump, --print-ir-after) is printed as the compile goes.
    const driver::CompileOptions& o = args->options;
    bool streaming = o.print_pass_times || !o.dump.empty() || !o.print_ir_after.empty();
    std::optional<TerminalProgress> progress;
    if (!args->quiet && !streaming && isatty(STDERR_FILENO)) {
      progress.emplace();
      args->options.progress = [&progress](const driver::CompileProgress& p) {
        progress->update(p);
      };
    }
    driver::CompileReport r =
        driver::compile_model(args->model, args->output, args->options, std::cout);
    progress.reset();
    args->options.progress = nullptr;
    if (args->options.report) driver::print_report(r, std::cout);
    if (!args->quiet && !r.tuning_summary.empty()) std::cout << r.tuning_summary << "\n";
    if (!args->quiet && !r.quantization_summary.empty())
      std::cout << r.quantization_summary << "\n";
    if (!args->quiet && !r.device_summary.empty()) std::cout << r.device_summary << "\n";
    if (!args->quiet && r.has_memory) std::cout << driver::describe_memory(r.memory);
    if (!args->quiet) {
      std::cout << "compiled " << args->model << " -> " << args->output << " (target '" << r.target
                << "', " << r.num_kernels << " kernels, workspace " << r.workspace_bytes
                << " bytes, constants " << r.constant_bytes << " bytes)\n";
    }
    exit_code = 0;
  });
}

}  // namespace ingot::cli

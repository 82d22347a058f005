// The graph pass manager (see pass_manager.h): the pass list and its driver.
#include "graph/transforms/pass_manager.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ostream>

#include "graph/printer.h"
#include "graph/transforms/collapse_reshape_transpose.h"
#include "graph/transforms/convert_bfloat16.h"
#include "graph/transforms/convert_bfloat16_convs.h"
#include "graph/transforms/convert_float16.h"
#include "graph/transforms/cse.h"
#include "graph/transforms/dead_code.h"
#include "graph/transforms/fold_batch_norm.h"
#include "graph/transforms/fold_gemm_alpha.h"
#include "graph/transforms/fold_transpose_matmul.h"
#include "graph/transforms/fuse_epilogue.h"
#include "graph/transforms/fuse_gelu.h"
#include "graph/transforms/fuse_integer_matmul.h"
#include "graph/transforms/fuse_layer_norm.h"
#include "graph/transforms/fuse_ops.h"
#include "graph/transforms/fuse_qconv_residual.h"
#include "graph/transforms/fuse_qdq.h"
#include "graph/transforms/fuse_softmax.h"
#include "graph/transforms/fuse_swish.h"
#include "graph/transforms/infer_types.h"
#include "graph/transforms/layout_nchwc.h"
#include "graph/transforms/remove_identity.h"
#include "graph/transforms/separate_resize.h"
#include "graph/transforms/trim_conv_taps.h"
#include "graph/transforms/winograd_conv.h"
#include "graph/verifier.h"
#include "support/error.h"

namespace ingot::graph {

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// A pass that needs nothing from the options.
std::function<void(Graph&, const PassOptions&)> plain(void (*pass)(Graph&)) {
  return [pass](Graph& g, const PassOptions&) { pass(g); };
}

}  // namespace

const std::vector<GraphPass>& optimization_passes() {
  static const std::vector<GraphPass> passes = {
      {"remove_identity", 1, "drop Identity (and inference Dropout) nodes", plain(remove_identity)},
      {"cse", 1, "merge nodes that compute the same op on the same inputs",
       plain(eliminate_common_subexpressions)},
      {"collapse_reshape_transpose", 1,
       "merge chains of Reshape-like ops and of Transposes; drop identities",
       plain(collapse_reshape_transpose)},
      {"fuse_qdq", 1,
       "run QuantizeLinear(Conv / MatMul / Gemm(DequantizeLinear ...)) as integer kernels (QConv, "
       "QMatMul) and fold the remaining dequantized constants",
       [](Graph& g, const PassOptions& o) { fuse_qdq(g, bool(o.channel_blocks)); }},
      {"fuse_integer_matmul", 1,
       "run MatMulInteger's int32 product over int8 weights as the 8-bit product IntMatMul (its "
       "activation's zero point subtracted after)",
       plain(fuse_integer_matmul)},
      {"fold_gemm_alpha", 1,
       "fold Gemm's alpha into its constant B (the product is then a plain dense product)",
       plain(fold_gemm_alpha)},
      {"fold_batch_norm", 2, "fold BatchNormalization into the preceding Conv's weights and bias",
       plain(fold_batch_norm)},
      {"trim_conv_taps", 2,
       "drop Conv kernel taps that read only padding (large dilations on small maps)",
       plain(trim_conv_taps)},
      {"separate_resize", 2,
       "split a linear / cubic Resize of several axes into one Resize per axis, innermost first",
       plain(separate_resize)},
      {"fuse_layer_norm", 2, "fuse decomposed layer normalisation into LayerNormalization",
       plain(fuse_layer_norm)},
      {"fuse_gelu", 2, "fuse the decomposed erf and tanh GELU into Gelu", plain(fuse_gelu)},
      {"fuse_softmax", 2, "fuse decomposed Exp / ReduceSum softmax into Softmax",
       plain(fuse_softmax)},
      {"fuse_swish", 2, "fuse the decomposed SiLU x * Sigmoid(x) into Swish", plain(fuse_swish)},
      {"fold_transpose_matmul", 2, "read a Transpose's input through its permutation in MatMul",
       plain(fold_transpose_matmul)},
      {"fuse_epilogue", 2, "fuse a residual Add and a Relu/Clip activation into the preceding Conv",
       plain(fuse_epilogue)},
      {"convert_float16", 0,
       "with --dtype float16: compute the model in float16 behind its float32 inputs and "
       "outputs (after the fusions, so they see float32 patterns)",
       [](Graph& g, const PassOptions& o) {
         if (!o.float16) return;
         convert_float16(g);
         infer_types(g);
       }},
      {"convert_bfloat16", 0,
       "with --dtype bfloat16: products by constant weights read bfloat16 weights and "
       "activations and accumulate in float32; the rest stays float32",
       [](Graph& g, const PassOptions& o) {
         if (!o.bfloat16) return;
         convert_bfloat16(g);
         infer_types(g);
       }},
      {"layout_nchwc", 1,
       "run 1-3-D convolutions, pooling and Concat on channel-blocked (NCHWc) tensors, "
       "converting only at the boundaries",
       [](Graph& g, const PassOptions& o) {
         if (!o.channel_blocks) return;
         if (o.on_layout_classes) o.on_layout_classes(conv_layout_classes(g, *o.channel_blocks));
         convert_layout_nchwc(g, *o.channel_blocks);
       }},
      {"fuse_qconv_residual", 1,
       "run a QDQ residual block's DequantizeLinear + Add + QuantizeLinear in the 8-bit conv's "
       "epilogue (CPU targets)",
       [](Graph& g, const PassOptions& o) {
         if (o.channel_blocks) fuse_qconv_residual(g);
       }},
      {"winograd_conv", 2,
       "run 3x3 stride-1 blocked convolutions as Winograd F(4x4, 3x3) or F(2x2, 3x3) where "
       "--conv-algorithm picks it (input transform, batched product, output transform)",
       [](Graph& g, const PassOptions& o) {
         if (o.channel_blocks)
           convert_winograd_conv(g,
                                 o.conv_policy ? o.conv_policy : winograd_policy(o.conv_algorithm));
       }},
      {"convert_bfloat16_convs", 0,
       "with --dtype bfloat16 on CPU targets: blocked convolutions read bfloat16 weights and "
       "inputs and accumulate in float32; a conv read only by such convs writes bfloat16",
       [](Graph& g, const PassOptions& o) {
         if (!o.bfloat16 || !o.channel_blocks) return;
         convert_bfloat16_convs(g);
         infer_types(g);
       }},
      {"dead_code", 0, "remove nodes that do not reach an output", plain(remove_dead_code)},
      {"fuse_ops", 2,
       "group injective chains, injective prologues into reductions and elementwise epilogues "
       "onto reductions into single kernels",
       plain(fuse_ops)},
  };
  return passes;
}

void check_pass_names(const std::vector<std::string>& names, const std::string& option) {
  for (const std::string& n : names) {
    bool known = n == kFoldConstantsPass ||
                 std::any_of(optimization_passes().begin(), optimization_passes().end(),
                             [&](const GraphPass& p) { return p.name == n; });
    if (known) continue;
    std::vector<std::string> valid = {kFoldConstantsPass};
    for (const GraphPass& p : optimization_passes()) valid.push_back(p.name);
    fail_user("{}: unknown pass '{}' (valid: {})", option, n, fmt::join(valid, ", "));
  }
}

void run_optimization_passes(Graph& g, const PassOptions& options, std::ostream& log) {
  for (const GraphPass& p : optimization_passes()) {
    if (options.opt_level < p.opt_level || contains(options.disabled, p.name)) continue;
    auto t0 = std::chrono::steady_clock::now();
    p.run(g, options);
    verify_graph(g);
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (options.print_times) log << fmt::format("pass {:<24} {:9.3f} ms\n", p.name, ms);
    if (contains(options.print_ir_after, p.name))
      log << "// IR after " << p.name << "\n" << print_graph(g) << "\n";
  }
  // Control-flow bodies are graphs of their own, optimised alike (quietly).
  PassOptions quiet = options;
  quiet.print_ir_after.clear();
  quiet.print_times = false;
  quiet.on_layout_classes = nullptr;  // (the layout plan is the main graph's)
  if (quiet.channel_blocks) quiet.channel_blocks->planned.clear();
  for (const auto& n : g.nodes())
    for (const std::shared_ptr<Graph>& body : n->subgraphs)
      run_optimization_passes(*body, quiet, log);
}

}  // namespace ingot::graph

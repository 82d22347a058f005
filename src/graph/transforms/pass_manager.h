// The graph pass manager: the optimisation passes as a named list, each enabled from an
// optimisation level (-O0..3) unless disabled by name (--disabled-pass), run in order with
// optional IR printing after a pass (--print-ir-after) and timing (--print-pass-times).
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/transforms/layout_plan.h"
#include "graph/transforms/winograd_conv.h"
#include "support/channel_block.h"

namespace ingot::graph {

struct PassOptions {
  int opt_level = 2;
  std::vector<std::string> disabled = {};        // pass names
  std::vector<std::string> print_ir_after = {};  // pass names (others are ignored here)
  bool print_times = false;
  // CPU targets with default schedules: the channel blocks their convolution rules tile by
  // (schedule/rules/conv2d.h: conv_channel_blocks). Unset: layout_nchwc does nothing.
  std::optional<ChannelBlockPolicy> channel_blocks = std::nullopt;
  // --dtype float16: convert_float16 runs (after the fusions, which match float32 patterns).
  bool float16 = false;
  // --dtype bfloat16: convert_bfloat16 runs (where convert_float16 would).
  bool bfloat16 = false;
  // --conv-algorithm: which 3 x 3 convolutions winograd_conv runs as Winograd (with
  // channel_blocks set; graph/transforms/winograd_conv.h).
  std::string conv_algorithm = "auto";
  // When set, the choice per conv instead (tuned decisions: driver/compile_stages.cpp).
  std::function<int(const WinogradConvShape&)> conv_policy = nullptr;
  // When set, called by layout_nchwc with the graph's layout classes (layout_plan.h) before it
  // converts (channel_blocks->planned is the plan it then applies).
  std::function<void(std::vector<ConvLayoutClass>)> on_layout_classes = nullptr;
};

struct GraphPass {
  std::string name;
  int opt_level;  // runs when the optimisation level is at least this
  std::string summary;
  std::function<void(Graph&, const PassOptions&)> run;
};

// Constant folding runs inside type inference (infer_types with an evaluator, from -O1), so
// that later nodes see the constants; it is disabled by this name like a pass.
inline constexpr const char* kFoldConstantsPass = "fold_constants";

// The optimisation passes, in the order they run (after type inference).
const std::vector<GraphPass>& optimization_passes();

// UserError naming the unknown pass (and listing the valid ones) if a disabled name is unknown.
void check_pass_names(const std::vector<std::string>& names, const std::string& option);

// Runs the enabled passes on a typed graph, then on its control-flow bodies; IR dumps and times
// (of the graph itself) go to `log`.
void run_optimization_passes(Graph& g, const PassOptions& options, std::ostream& log);

}  // namespace ingot::graph

// `ingot tune`'s first step: the algorithm of each 3x3 stride-1 convolution (direct, Winograd
// F(2x2, 3x3) or F(4x4, 3x3); graph pass winograd_conv), measured in the whole model and
// recorded as decisions (tune/records.h, kConvAlgorithmRule) that compile applies in the graph
// passes (docs/tune.md, "Convolution algorithms, chosen in the model").
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "codegen/target.h"
#include "driver/tune.h"
#include "tune/records.h"

namespace ingot::driver {

// The algorithm of each 3x3 (1x3, 3x1) stride-1 convolution, measured in the whole model (issue 47:
// an algorithm is an alternative of the design space, like a tile). The model is built three times,
// every conv graph pass winograd_conv can rewrite run direct, as F(2x2, 3x3) and as F(4x4,
// 3x3), and the three are timed in one process, alternating single calls with the kernel
// profile on; each conv takes the choice whose kernels (the direct conv and the explicit zero
// Pad that produces its input, found in the direct build's entry program; the input transform,
// which pads itself, the product and the output transform) took least, recorded as a decision
// (tune/records.h, kConvAlgorithmRule, appended by the caller once the options are checked) that
// compile applies in the graph passes. A variant whose outputs differ from the direct model's by
// more than 1e-3 is not chosen. Runs
// only with --conv-algorithm auto on a CPU target with default schedules, once per records file
// (a run on a file that has them keeps them); returns the decisions in effect.
// `model_digest` (graph/graph_digest.h) scopes the decisions to this model.
std::vector<tune::TuningRecord> choose_conv_algorithms(
    const std::string& model_path, const std::string& model_digest, const TuneOptions& options,
    const codegen::Target& target, const std::filesystem::path& dir, TuneReport& report,
    bool& fresh, std::ostream& log);

}  // namespace ingot::driver

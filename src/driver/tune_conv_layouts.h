// `ingot tune`'s second graph-level step: the layout plan, one output channel block per class
// of convolutions that must share it (graph/transforms/layout_plan.h), measured in the whole
// model and recorded as decisions (tune/records.h, kConvLayoutRule) that compile applies in
// graph pass layout_nchwc (docs/tune.md, "Channel blocks, chosen in the model").
#pragma once

#include <filesystem>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "codegen/target.h"
#include "driver/tune.h"
#include "tune/records.h"

namespace ingot::driver {

// The model (with the conv algorithms `conv_tiles` already chosen) is built with the default
// blocks, and once per colour and other block: neighbouring classes (a conv reads one and
// writes the other) have different colours, and a build gives block B to the classes of one
// colour that may take it, so each class is timed with its neighbours at their defaults. The
// builds are timed in one process, alternating single calls with the kernel profile on. Each
// class takes the block whose build ran its kernels fastest, by at least 2% against the
// default blocks: its writers', depthwise convs', pools' and elementwise kernels, its readers'
// (a conv reading the class's values reads them in its block) and its values' padding and
// conversions. A build whose outputs differ from the default's by more than 1e-3 is not
// chosen. Each conv of a class gets a record (the caller appends them once the options are
// checked). Runs only with --conv-layout auto on a CPU target with default schedules, once per
// records file (a run on a file that has decisions keeps them); returns the decisions in
// effect.
std::vector<tune::TuningRecord> choose_conv_layouts(
    const std::string& model_path, const std::string& model_digest, const TuneOptions& options,
    const codegen::Target& target, const std::map<std::string, int>& conv_tiles,
    const std::filesystem::path& dir, TuneReport& report, bool& fresh, std::ostream& log);

// The kernels of a layout class among a kernel profile's names: those named after one of its
// nodes or values ("<name>_..."; the pass names blocked values' Pad and conversion nodes after
// the value).
std::vector<std::string> layout_class_kernels(const graph::ConvLayoutClass& c,
                                              const std::map<std::string, double>& kernel_ms);

}  // namespace ingot::driver

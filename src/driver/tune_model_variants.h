// Builds of one model timed against each other in one process: how `ingot tune`'s graph-level
// steps (conv algorithms, layouts) measure their alternatives in the model.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "tune/measure.h"

namespace ingot::driver {

struct VariantTimes {
  std::vector<tune::Measurement> runs;  // per build, each kernel's fastest call included
  std::vector<bool> usable;             // outputs within 1e-3 of the first build's
};

// Times `jobs` (the first the reference build) alternating single calls with the kernel profile
// on (tune::whole_model_options). Empty when a build is not measured; a line of `log` says why,
// prefixed by `step` ("conv layouts"), and that `fallback` decides. A build whose outputs differ
// from the reference's by more than 1e-3 is not usable: a line names it (`names`, one per job).
std::optional<VariantTimes> time_model_variants(const std::vector<tune::MeasureJob>& jobs,
                                                const std::vector<std::string>& names,
                                                const tune::MeasureOptions& options,
                                                const std::string& step,
                                                const std::string& fallback, std::ostream& log);

}  // namespace ingot::driver

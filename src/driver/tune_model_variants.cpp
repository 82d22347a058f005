// time_model_variants (see tune_model_variants.h).
#include "driver/tune_model_variants.h"

#include <fmt/format.h>

#include <ostream>

namespace ingot::driver {

std::optional<VariantTimes> time_model_variants(const std::vector<tune::MeasureJob>& jobs,
                                                const std::vector<std::string>& names,
                                                const tune::MeasureOptions& options,
                                                const std::string& step,
                                                const std::string& fallback, std::ostream& log) {
  VariantTimes t;
  t.runs = tune::measure_artifacts(jobs, tune::whole_model_options(options));
  for (const tune::Measurement& x : t.runs)
    if (!x.ok() || x.kernel_ms.empty()) {
      log << fmt::format("{}: not measured ({}): {} decides\n", step,
                         x.error.empty() ? std::string("no kernel profile") : x.error, fallback);
      return std::nullopt;
    }
  t.usable.assign(t.runs.size(), true);
  for (size_t v = 1; v < t.runs.size(); ++v) {
    double diff = tune::max_relative_difference(t.runs[v].outputs, t.runs[0].outputs);
    t.usable[v] = diff <= 1e-3;
    if (!t.usable[v])
      log << fmt::format(
          "{}: the {} build's outputs differ from the {} build's ({:.3g}): not "
          "chosen\n",
          step, names[v], names[0], diff);
  }
  return t;
}

}  // namespace ingot::driver

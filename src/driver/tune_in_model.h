// The last step of `ingot tune`: each task's finalists timed inside the whole model, and the
// whole model default against tuned (docs/tune.md, "Finalists chosen in the model").
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "driver/tune.h"
#include "tir/module.h"
#include "tune/task.h"

namespace ingot::driver {

// A kernel timed alone, on inputs that stay in its caches, is not the kernel the model runs
// after its producer (docs/perf.md Table 4g: a 400-trial ResNet-50 run whose tuned kernels were
// 1.04x faster alone ran 0.95x in the model). So every task whose confirmed finalists differ
// from its default (`tasks`, of `model`) is timed in the model: the model is built with the
// graph decisions and default schedules, and once per finalist rank r (each such task's r-th
// fastest confirmed schedule, at most 3 ranks), and the builds are timed in one process,
// alternating single calls with the kernel profile on. Each task gets an in-model record per
// schedule timed there (its kernels' fastest calls, averaged), which compile prefers to any
// other (tune/records.h): the fastest in the model wins, the default included. A build whose
// outputs differ from the default schedules' by more than 1e-3 counts for no task. Then the
// untuned model and the tuned one (the records) are timed against each other for the report.
// Tasks checked by an earlier run (--resume) are not checked again.
void check_in_model(const std::string& model_path, const TuneOptions& options,
                    const std::vector<const tune::Task*>& tasks, const tir::IRModule& model,
                    const std::string& target, bool graph_decisions,
                    const std::filesystem::path& dir, TuneReport& report, std::ostream& log);

}  // namespace ingot::driver

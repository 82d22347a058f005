// Tuning tasks: one per distinct schedulable kernel of a module (a kernel naming a schedule
// rule), identified by a key that hashes its unscheduled block form (parameter shapes and dtypes
// and the body, not its name: two layers of the same shape and fused ops share a task) together
// with the rule and the target. The weight is how many kernels share it, so time saved on a task
// counts once per call. Records are keyed the same way, so a record is applied only to the
// compute and target it was measured for.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tir/module.h"

namespace ingot::tune {

// The task key of an unscheduled kernel for a target (its canonical string): 16 hex digits.
std::string task_key(const tir::PrimFunc& unscheduled, const std::string& target);

struct Task {
  std::string key;
  std::string rule;
  std::vector<int> kernels;  // indices into the module's kernels, first one the representative
  double flops = 0;          // per call
  int weight() const { return int(kernels.size()); }
};

// The tasks of a lowered, unscheduled module, in order of first appearance.
std::vector<Task> extract_tasks(const tir::IRModule& mod, const std::string& target);

}  // namespace ingot::tune

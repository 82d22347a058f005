// Which task gets the next batch of trials, in the spirit of MetaSchedule's gradient-based task
// scheduler: after a warm-up (every task gets its default and `warmup` more trials, in order),
// the task whose weighted best time fell fastest over its last `window` trials goes next: that is
// where trials have recently bought the most end-to-end time. A small exploration term (a share
// of the task's weighted time, divided by its trials so far) keeps a task that has not improved
// lately from starving. Tasks at their cap, or no longer searching, are skipped.
#pragma once

#include <vector>

namespace ingot::tune {

struct TaskProgress {
  double weight = 1;         // calls per model run
  std::vector<double> best;  // best seconds after each trial (<= 0: none yet)
  int cap = 0;               // most trials this task may take
  bool active = true;        // false: nothing more to search (no choices, or no reference)
  int trials() const { return int(best.size()); }
};

struct TaskSchedulerOptions {
  int warmup = 2;         // trials after the default before the gradient decides
  int window = 3;         // trials the gradient looks back over
  double explore = 0.05;  // exploration share of the task's weighted time
};

// The index of the next task to tune, or -1 when none can take a trial.
int next_task(const std::vector<TaskProgress>& tasks, const TaskSchedulerOptions& o = {});

}  // namespace ingot::tune

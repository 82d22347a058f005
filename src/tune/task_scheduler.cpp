// The gradient-based task scheduler (see task_scheduler.h).
#include "tune/task_scheduler.h"

#include <algorithm>

namespace ingot::tune {

int next_task(const std::vector<TaskProgress>& tasks, const TaskSchedulerOptions& o) {
  auto open = [](const TaskProgress& t) { return t.active && t.trials() < t.cap; };
  // 1. Warm-up, in order: the default and a few more trials each.
  for (size_t k = 0; k < tasks.size(); ++k)
    if (open(tasks[k]) && tasks[k].trials() < 1 + o.warmup) return int(k);
  // 2. The steepest weighted improvement per trial, plus exploration.
  int pick = -1;
  double best_score = -1;
  for (size_t k = 0; k < tasks.size(); ++k) {
    const TaskProgress& t = tasks[k];
    if (!open(t)) continue;
    double now = t.best.back();
    if (now <= 0) continue;  // never measured: no time to gain on
    int back = std::min(o.window, t.trials() - 1);
    double then = t.best[size_t(t.trials() - 1 - back)];
    double gradient = back > 0 && then > 0 ? t.weight * std::max(0.0, then - now) / back : 0;
    double score = gradient + o.explore * t.weight * now / t.trials();
    if (score > best_score) best_score = score, pick = int(k);
  }
  return pick;
}

}  // namespace ingot::tune

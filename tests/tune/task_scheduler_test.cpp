// The task scheduler: warm-up in order, then the task whose weighted best time is falling
// fastest, exploration for a stalled heavy task, and nothing for tasks at their cap or inactive.
#include <gtest/gtest.h>

#include "tune/task_scheduler.h"

namespace ingot::testing {
namespace {

using tune::TaskProgress;

TEST(TaskScheduler, WarmsUpEveryTaskInOrderFirst) {
  std::vector<TaskProgress> t(3);
  for (TaskProgress& p : t) p.cap = 10;
  EXPECT_EQ(tune::next_task(t), 0);
  t[0].best = {3, 3, 3};  // default + 2: warmed up
  EXPECT_EQ(tune::next_task(t), 1);
  t[1].best = {1, 1, 1};
  t[2].active = false;  // e.g. a rule without choices
  EXPECT_NE(tune::next_task(t), 2);
}

TEST(TaskScheduler, FollowsTheSteepestWeightedImprovement) {
  std::vector<TaskProgress> t(2);
  for (TaskProgress& p : t) p.cap = 20;
  t[0].best = {10, 10, 10, 10};  // stalled
  t[1].best = {10, 9, 8, 7};     // improving 1 per trial
  EXPECT_EQ(tune::next_task(t), 1);
  // The same improvement on a task called 3 times per run weighs 3x.
  t[0].best = {10, 10, 9.5, 9};
  t[0].weight = 3;
  EXPECT_EQ(tune::next_task(t), 0);
}

TEST(TaskScheduler, ExploresAStalledHeavyTaskAndStopsAtTheCaps) {
  std::vector<TaskProgress> t(2);
  for (TaskProgress& p : t) p.cap = 6;
  t[0].best = {100, 100, 100, 100};  // heavy, stalled
  t[1].best = {1, 1, 1, 1};          // light, stalled
  EXPECT_EQ(tune::next_task(t), 0);  // exploration goes where the time is
  t[0].best.resize(6, 100);          // at its cap
  EXPECT_EQ(tune::next_task(t), 1);
  t[1].best.resize(6, 1);
  EXPECT_EQ(tune::next_task(t), -1);
  // A task whose default failed has no time: never picked after the warm-up.
  std::vector<TaskProgress> f(1);
  f[0].cap = 9, f[0].best = {-1, -1, -1};
  EXPECT_EQ(tune::next_task(f), -1);
}

}  // namespace
}  // namespace ingot::testing

// The tuner's cost model: gradient-boosted trees (XGBoost, Debian libxgboost-dev, through its C
// API) over the loop-IR features of features.h, as in Ansor and MetaSchedule. The trees score
// each row (group of stores); a kernel's score is the sum over its rows ("pack-sum"), so kernels
// with different numbers of rows compare. Training uses a pairwise ranking loss within each task:
// for two measured candidates of the same task the faster one should score higher
// (log(1 + exp(-(S_fast - S_slow))), its gradient handed to XGBoost per row as a custom
// objective). Only the order within a task matters to the search, and a ranking loss does not
// spend the trees on each task's absolute scale. Retrained from scratch on every measurement
// so far when asked; saved to and loaded from a file (the booster as XGBoost JSON, with the
// feature names, so a model from other features is refused).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tune/features.h"

namespace ingot::tune {

class CostModel {
 public:
  // `threads`: XGBoost's threads; `seed`: its sampling seed.
  explicit CostModel(int threads = 1, uint64_t seed = 0);
  ~CostModel();
  CostModel(const CostModel&) = delete;
  CostModel& operator=(const CostModel&) = delete;

  // A measured candidate of task `task` (its time in seconds; failures are not added).
  void add(const std::string& task, KernelFeatures features, double seconds);
  size_t samples() const { return samples_.size(); }
  // Pairs of the same task with different times: what training can learn from.
  size_t comparable_pairs() const;

  // Trains a fresh model on every sample added (`rounds` boosting rounds). Does nothing and
  // returns false when there is no comparable pair.
  bool train(int rounds = 40);
  // True once trained or loaded.
  bool ready() const { return booster_ != nullptr; }
  // Scores (higher: predicted faster), one per kernel; only comparable within one task.
  std::vector<double> predict(const std::vector<const KernelFeatures*>& kernels) const;

  // The trained model as a file; load() refuses (UserError naming the file) a file that is not
  // a model of these features.
  void save(const std::string& path) const;
  void load(const std::string& path);

 private:
  struct Sample {
    int task;
    KernelFeatures features;
    double seconds;
  };
  void free_booster();
  int threads_;
  uint64_t seed_;
  std::map<std::string, int> task_ids_;
  std::vector<Sample> samples_;
  void* booster_ = nullptr;  // BoosterHandle
};

}  // namespace ingot::tune

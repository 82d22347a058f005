// The XGBoost cost model learns a ranking from synthetic kernels whose time follows from two of
// their features, saves and loads, and refuses files that are not its models.
#include "tune/cost_model.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "support/error.h"

namespace ingot::tune {
namespace {

// A kernel of 1-3 rows with random features; its "time" is exp(-sum over rows of
// (2 x0 - x1)), so a faster kernel has a higher pack-sum of 2 x0 - x1.
struct Synthetic {
  KernelFeatures features;
  double seconds;
};

Synthetic synthetic(std::mt19937_64& rng) {
  std::uniform_real_distribution<float> u(0, 4);
  Synthetic s;
  int rows = 1 + int(rng() % 3);
  double score = 0;
  for (int r = 0; r < rows; ++r) {
    for (size_t c = 0; c < feature_count(); ++c) s.features.rows.push_back(u(rng));
    float* row = s.features.rows.data() + size_t(r) * feature_count();
    score += 2 * row[0] - row[1];
  }
  s.seconds = 1e-3 * std::exp(-0.3 * score);
  return s;
}

// The fraction of pairs the scores order as the times do.
double pair_accuracy(const std::vector<Synthetic>& test, const std::vector<double>& scores) {
  int right = 0, all = 0;
  for (size_t i = 0; i < test.size(); ++i)
    for (size_t j = i + 1; j < test.size(); ++j) {
      ++all;
      if ((test[i].seconds < test[j].seconds) == (scores[i] > scores[j])) ++right;
    }
  return double(right) / all;
}

class CostModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("ingot_cost_model_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

TEST_F(CostModelTest, LearnsARankingFromPackSumScores) {
  std::mt19937_64 rng(7);
  CostModel model(1, 3);
  EXPECT_FALSE(model.ready());
  for (int k = 0; k < 300; ++k) {
    Synthetic s = synthetic(rng);
    model.add(k % 2 ? "task_a" : "task_b", s.features, s.seconds);
  }
  EXPECT_EQ(model.samples(), 300u);
  ASSERT_TRUE(model.train());
  ASSERT_TRUE(model.ready());
  std::vector<Synthetic> test;
  std::vector<const KernelFeatures*> kernels;
  for (int k = 0; k < 80; ++k) test.push_back(synthetic(rng));
  for (const Synthetic& s : test) kernels.push_back(&s.features);
  std::vector<double> scores = model.predict(kernels);
  // Random scores order half the pairs right; the model must learn the order.
  EXPECT_GT(pair_accuracy(test, scores), 0.8);

  // Saved and loaded, it predicts the same.
  model.save(path("m.json"));
  CostModel loaded(2, 0);
  loaded.load(path("m.json"));
  EXPECT_TRUE(loaded.ready());
  std::vector<double> again = loaded.predict(kernels);
  ASSERT_EQ(again.size(), scores.size());
  for (size_t i = 0; i < scores.size(); ++i) EXPECT_NEAR(again[i], scores[i], 1e-4);
}

TEST_F(CostModelTest, NothingToLearnWithoutComparablePairs) {
  std::mt19937_64 rng(1);
  CostModel model;
  EXPECT_FALSE(model.train());
  Synthetic a = synthetic(rng), b = synthetic(rng);
  model.add("one", a.features, a.seconds);
  model.add("two", b.features, b.seconds);  // another task: not comparable
  model.add("one", b.features, -1);         // a failed trial is not a sample
  EXPECT_EQ(model.samples(), 2u);
  EXPECT_EQ(model.comparable_pairs(), 0u);
  EXPECT_FALSE(model.train());
  EXPECT_FALSE(model.ready());
}

TEST_F(CostModelTest, RefusesFilesThatAreNotItsModels) {
  CostModel model;
  EXPECT_THROW(model.load(path("missing.json")), UserError);
  std::ofstream(path("other.json")) << "{\"format\": \"something else\"}";
  EXPECT_THROW(model.load(path("other.json")), UserError);
  std::ofstream(path("features.json")) << "{\"format\": \"ingot-cost-model\", \"version\": 1, "
                                          "\"features\": [\"x\"], \"booster\": {}}";
  try {
    model.load(path("features.json"));
    FAIL() << "a model of other features loaded";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("other features"), std::string::npos) << e.what();
  }
  std::ofstream(path("trees.json")) << "{\"format\": \"ingot-cost-model\", \"version\": 1, "
                                       "\"features\": " +
                                           nlohmann::json(feature_names()).dump() +
                                           ", \"booster\": {\"not\": \"trees\"}}";
  EXPECT_THROW(model.load(path("trees.json")), UserError);
  EXPECT_FALSE(model.ready());
}

}  // namespace
}  // namespace ingot::tune

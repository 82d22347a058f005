// The XGBoost cost model with a pack-sum pairwise ranking objective (see cost_model.h).
#include "tune/cost_model.h"

#include <fmt/format.h>
#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "support/error.h"

namespace ingot::tune {

namespace {

constexpr const char* kFormat = "ingot-cost-model";
constexpr int kVersion = 1;
constexpr size_t kMaxPartners = 64;  // ranking pairs per sample (drawn when a task has more)

void check(int rc, const char* what) {
  if (rc != 0) fail_internal("xgboost: {} failed: {}", what, XGBGetLastError());
}

// A dense matrix of the kernels' rows, freed with the object.
class Matrix {
 public:
  explicit Matrix(const std::vector<float>& rows) {
    check(XGDMatrixCreateFromMat(rows.data(), rows.size() / feature_count(), feature_count(),
                                 std::nanf(""), &handle_),
          "XGDMatrixCreateFromMat");
  }
  ~Matrix() { XGDMatrixFree(handle_); }
  Matrix(const Matrix&) = delete;
  Matrix& operator=(const Matrix&) = delete;
  DMatrixHandle get() const { return handle_; }

 private:
  DMatrixHandle handle_ = nullptr;
};

// Per-row margins (the trees' raw scores).
std::vector<float> margins(void* booster, const Matrix& m, bool training) {
  bst_ulong len = 0;
  const float* out = nullptr;
  check(XGBoosterPredict(booster, m.get(), 1, 0, training ? 1 : 0, &len, &out), "XGBoosterPredict");
  return std::vector<float>(out, out + len);
}

void set_params(void* booster, int threads, uint64_t seed) {
  const std::pair<const char*, std::string> params[] = {
      {"booster", "gbtree"},
      {"tree_method", "hist"},
      {"max_depth", "6"},
      {"eta", "0.2"},
      {"min_child_weight", "0"},
      {"gamma", "0"},
      {"lambda", "1"},
      {"base_score", "0"},
      {"subsample", "1"},
      {"nthread", std::to_string(threads)},
      {"seed", std::to_string(seed % 2147483647u)},
      {"verbosity", "0"}};
  for (const auto& [k, v] : params) check(XGBoosterSetParam(booster, k, v.c_str()), k);
}

}  // namespace

CostModel::CostModel(int threads, uint64_t seed) : threads_(std::max(1, threads)), seed_(seed) {
  static const bool quiet = [] { return XGBSetGlobalConfig("{\"verbosity\": 0}") == 0; }();
  (void)quiet;
}

CostModel::~CostModel() {
  free_booster();
}

void CostModel::free_booster() {
  if (booster_) XGBoosterFree(booster_);
  booster_ = nullptr;
}

void CostModel::add(const std::string& task, KernelFeatures features, double seconds) {
  if (!(seconds > 0) || features.row_count() == 0) return;
  auto [it, fresh] = task_ids_.try_emplace(task, int(task_ids_.size()));
  (void)fresh;
  samples_.push_back({it->second, std::move(features), seconds});
}

size_t CostModel::comparable_pairs() const {
  size_t pairs = 0;
  for (size_t i = 0; i < samples_.size(); ++i)
    for (size_t j = i + 1; j < samples_.size(); ++j)
      if (samples_[i].task == samples_[j].task && samples_[i].seconds != samples_[j].seconds)
        ++pairs;
  return pairs;
}

bool CostModel::train(int rounds) {
  // 1. Pairs (faster, slower) within each task, weighted by how far apart the times are (a
  //    gap within measurement noise, ~1%, teaches little).
  struct Pair {
    size_t fast, slow;
    double weight;
  };
  std::vector<Pair> pairs;
  std::mt19937_64 rng(seed_);
  std::map<int, std::vector<size_t>> by_task;
  for (size_t i = 0; i < samples_.size(); ++i) by_task[samples_[i].task].push_back(i);
  for (const auto& [task, members] : by_task) {
    for (size_t i : members) {
      std::vector<size_t> partners;
      for (size_t j : members)
        if (j > i) partners.push_back(j);
      if (partners.size() > kMaxPartners) {
        std::shuffle(partners.begin(), partners.end(), rng);
        partners.resize(kMaxPartners);
      }
      for (size_t j : partners) {
        double a = samples_[i].seconds, b = samples_[j].seconds;
        if (a == b) continue;
        double gap = std::fabs(std::log(a / b));
        pairs.push_back({a < b ? i : j, a < b ? j : i, std::min(1.0, gap / 0.1)});
      }
    }
  }
  if (pairs.empty()) return false;
  // 2. All rows in one matrix; each sample's first row and row count.
  std::vector<float> rows;
  std::vector<size_t> first(samples_.size() + 1, 0);
  for (size_t i = 0; i < samples_.size(); ++i) {
    rows.insert(rows.end(), samples_[i].features.rows.begin(), samples_[i].features.rows.end());
    first[i + 1] = first[i] + samples_[i].features.row_count();
  }
  Matrix m(rows);
  std::vector<float> zero(first.back(), 0.f);
  check(XGDMatrixSetFloatInfo(m.get(), "label", zero.data(), zero.size()), "set labels");
  free_booster();
  DMatrixHandle dm = m.get();
  check(XGBoosterCreate(&dm, 1, &booster_), "XGBoosterCreate");
  set_params(booster_, threads_, seed_);
  // 3. Boosting rounds with the pairwise logistic loss on pack-sum scores: a sample's score is
  //    the sum of its rows' margins, so every row of it gets the sample's gradient.
  std::vector<float> grad(first.back()), hess(first.back());
  for (int r = 0; r < rounds; ++r) {
    std::vector<float> margin = margins(booster_, m, true);
    std::vector<double> score(samples_.size(), 0), g(samples_.size(), 0), h(samples_.size(), 0);
    for (size_t i = 0; i < samples_.size(); ++i)
      for (size_t k = first[i]; k < first[i + 1]; ++k) score[i] += margin[k];
    for (const Pair& p : pairs) {
      double d = score[p.fast] - score[p.slow];
      double q = 1.0 / (1.0 + std::exp(d));  // d loss / d(-d): the chance the order is wrong
      g[p.fast] -= p.weight * q;
      g[p.slow] += p.weight * q;
      h[p.fast] += p.weight * q * (1 - q);
      h[p.slow] += p.weight * q * (1 - q);
    }
    for (size_t i = 0; i < samples_.size(); ++i)
      for (size_t k = first[i]; k < first[i + 1]; ++k) {
        grad[k] = float(g[i]);
        hess[k] = float(std::max(h[i], 1e-6));
      }
    check(XGBoosterBoostOneIter(booster_, m.get(), grad.data(), hess.data(), grad.size()),
          "XGBoosterBoostOneIter");
  }
  return true;
}

std::vector<double> CostModel::predict(const std::vector<const KernelFeatures*>& kernels) const {
  INGOT_ICHECK(booster_ != nullptr, "cost model: predict before training");
  std::vector<double> scores(kernels.size(), 0);
  std::vector<float> rows;
  for (const KernelFeatures* k : kernels) rows.insert(rows.end(), k->rows.begin(), k->rows.end());
  if (rows.empty()) return scores;
  Matrix m(rows);
  std::vector<float> margin = margins(booster_, m, false);
  size_t at = 0;
  for (size_t i = 0; i < kernels.size(); ++i)
    for (size_t k = 0; k < kernels[i]->row_count(); ++k) scores[i] += margin[at++];
  return scores;
}

void CostModel::save(const std::string& path) const {
  INGOT_ICHECK(booster_ != nullptr, "cost model: save before training");
  bst_ulong len = 0;
  const char* buf = nullptr;
  check(XGBoosterSaveModelToBuffer(booster_, "{\"format\": \"json\"}", &len, &buf),
        "XGBoosterSaveModelToBuffer");
  nlohmann::json doc = {{"format", kFormat},
                        {"version", kVersion},
                        {"features", feature_names()},
                        {"booster", nlohmann::json::parse(buf, buf + len)}};
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << doc.dump();
    if (!out) fail_user("cannot write the cost model {}", path);
  }
  std::filesystem::rename(tmp, path);
}

void CostModel::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_user("cannot read the cost model {}", path);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json doc = nlohmann::json::parse(text.str(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || doc.value("format", "") != kFormat)
    fail_user("{}: not an ingot cost model", path);
  if (doc.value("version", 0) != kVersion ||
      doc.value("features", nlohmann::json()) != nlohmann::json(feature_names()))
    fail_user("{}: a cost model of another version or other features; delete it to start afresh",
              path);
  std::string booster = doc.at("booster").dump();
  free_booster();
  check(XGBoosterCreate(nullptr, 0, &booster_), "XGBoosterCreate");
  if (XGBoosterLoadModelFromBuffer(booster_, booster.data(), booster.size()) != 0) {
    free_booster();
    fail_user("{}: the cost model's trees do not load: {}", path, XGBGetLastError());
  }
  check(XGBoosterSetParam(booster_, "nthread", std::to_string(threads_).c_str()), "nthread");
}

}  // namespace ingot::tune

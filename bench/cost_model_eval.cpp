// How well the tuner's cost model ranks candidates it has not seen: k-fold cross-validation
// over the measured records of a tuning run. The model's tasks are extracted as `ingot tune`
// does, every measured (unconfirmed) record's trace is replayed on its task's kernel to get its
// features, and for each fold a model trained on the other folds scores the fold's records.
// Printed: the share of same-task pairs of held-out records it orders as measured (random
// scores: 50%), pairs whose times differ by more than 5% on their own line (closer pairs are
// within this host's noise), and how often its top held-out pick per task is within 5% of
// that task's fastest held-out record. Not a Google Benchmark: its own main.
//
//   cost_model_eval MODEL.onnx RECORDS.jsonl [--input-shapes "input:[1,3,224,224]"] [--folds 5]
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "driver/compile.h"
#include "driver/input_shapes.h"
#include "ingot/runtime.h"
#include "schedule/rules/default_rules.h"
#include "schedule/trace.h"
#include "support/error.h"
#include "tir/transforms/lower_blocks.h"
#include "tune/cost_model.h"
#include "tune/records.h"
#include "tune/task.h"

namespace {

using namespace ingot;

struct Sample {
  std::string task;
  tune::KernelFeatures features;
  double seconds;
};

int run(int argc, char** argv) {
  if (argc < 3) {
    fmt::print(stderr,
               "usage: cost_model_eval MODEL.onnx RECORDS.jsonl [--input-shapes S] "
               "[--folds K]\n");
    return 2;
  }
  driver::CompileOptions co;
  int folds = 5;
  for (int i = 3; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--input-shapes") co.input_shapes = driver::parse_input_shapes(argv[i + 1]);
    if (flag == "--folds") folds = std::max(2, std::stoi(argv[i + 1]));
  }
  std::vector<tune::TuningRecord> records = tune::read_records(argv[2]);
  if (records.empty()) fail_user("{}: no records", argv[2]);
  tir::IRModule model;
  co.target = records[0].target;
  co.after_lower = [&model](const tir::IRModule& m) {
    model = m;
    return false;
  };
  driver::compile_model(argv[1], "", co, std::cerr);
  std::map<std::string, const tir::PrimFunc*> kernel_of;
  for (const tune::Task& t : tune::extract_tasks(model, records[0].target))
    kernel_of[t.key] = &model.kernels[size_t(t.kernels[0])];
  const int threads = ingot_get_num_threads();  // the runtime's default, as the tuner uses
  std::vector<Sample> samples;
  for (const tune::TuningRecord& r : records) {
    auto it = kernel_of.find(r.task);
    if (!r.ok() || r.confirmed || it == kernel_of.end()) continue;
    schedule::Schedule s = schedule::Trace::from_json(r.trace).replay(*it->second);
    tir::PrimFunc f = tir::lower_blocks(schedule::scheduled_kernel(*it->second, s));
    samples.push_back({r.task, tune::extract_features(f, threads), r.seconds});
  }
  // Points the features cannot tell apart: records of one task with equal features but
  // different decisions.
  std::map<std::string, std::set<std::vector<float>>> distinct;
  std::map<std::string, std::set<std::string>> points;
  for (size_t k = 0, r = 0; r < records.size(); ++r) {
    if (!records[r].ok() || records[r].confirmed || !kernel_of.count(records[r].task)) continue;
    distinct[records[r].task].insert(samples[k++].features.rows);
    std::string d;
    for (const nlohmann::json& i : records[r].trace.at("instructions"))
      d += i.at("decision").dump();
    points[records[r].task].insert(d);
  }
  size_t n_points = 0, n_distinct = 0;
  for (const auto& [task, p] : points) n_points += p.size(), n_distinct += distinct[task].size();
  std::vector<size_t> order(samples.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::shuffle(order.begin(), order.end(), std::mt19937_64(1));
  long right = 0, pairs = 0, right_far = 0, far = 0, top_ok = 0, tops = 0;
  for (int fold = 0; fold < folds; ++fold) {
    tune::CostModel cm(threads, 1);
    std::vector<size_t> test;
    for (size_t k = 0; k < order.size(); ++k) {
      const Sample& s = samples[order[k]];
      if (int(k % size_t(folds)) == fold) {
        test.push_back(order[k]);
      } else {
        cm.add(s.task, s.features, s.seconds);
      }
    }
    if (!cm.train()) continue;
    std::vector<const tune::KernelFeatures*> kernels;
    for (size_t i : test) kernels.push_back(&samples[i].features);
    std::vector<double> score = cm.predict(kernels);
    std::map<std::string, std::vector<size_t>> by_task;  // positions in `test`
    for (size_t a = 0; a < test.size(); ++a) by_task[samples[test[a]].task].push_back(a);
    for (const auto& [task, members] : by_task) {
      if (members.size() < 2) continue;
      size_t pick = members[0], fastest = members[0];
      for (size_t a : members) {
        if (score[a] > score[pick]) pick = a;
        if (samples[test[a]].seconds < samples[test[fastest]].seconds) fastest = a;
        for (size_t b : members) {
          if (b <= a) continue;
          double ta = samples[test[a]].seconds, tb = samples[test[b]].seconds;
          if (ta == tb || score[a] == score[b]) continue;
          bool ok = (ta < tb) == (score[a] > score[b]);
          ++pairs, right += ok;
          if (std::max(ta, tb) > 1.05 * std::min(ta, tb)) ++far, right_far += ok;
        }
      }
      ++tops;
      top_ok += samples[test[pick]].seconds <= 1.05 * samples[test[fastest]].seconds;
    }
  }
  auto pct = [](long a, long b) { return b ? 100.0 * double(a) / double(b) : 0.0; };
  fmt::print("{} measured records, {} tasks, {}-fold cross-validation\n", samples.size(),
             kernel_of.size(), folds);
  fmt::print("distinct points: {}, distinct feature vectors among them: {}\n", n_points,
             n_distinct);
  fmt::print("held-out pairs ordered as measured: {} of {} ({:.1f}%)\n", right, pairs,
             pct(right, pairs));
  fmt::print("  pairs more than 5% apart:        {} of {} ({:.1f}%)\n", right_far, far,
             pct(right_far, far));
  fmt::print("top pick within 5% of the fastest: {} of {} task folds ({:.1f}%)\n", top_ok, tops,
             pct(top_ok, tops));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
}

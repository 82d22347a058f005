// Metrics of the inference server in the Prometheus text format (version 0.0.4): inference
// requests by model and status code, a latency histogram of successful inferences, reloads, and
// the per-model gauges (queue depth, in-flight requests, sessions, loaded version).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace ingot::server {

class Metrics {
 public:
  // Upper bounds (seconds) of the latency histogram's buckets; +Inf is implied.
  static constexpr std::array<double, 16> kBuckets = {
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};

  // Declares a served model: its histogram is exposed (all zero) before its first request.
  void add_model(const std::string& model);
  // One finished inference request (POST .../infer) of `model` ("_unknown" for a name no model
  // has); `seconds` from the body received to the reply built, recorded for status 200 only.
  // A body refused for its size (413) is counted too, before any handler runs.
  void observe_request(const std::string& model, int status, double seconds);
  void observe_reload(const std::string& model, bool ok);

  struct ModelGauges {
    std::string model;
    int queued = 0;
    int in_flight = 0;
    int sessions = 0;
    uint64_t version = 0;
  };
  // The exposition text: the counters and the histogram, then `gauges`, then `ready`.
  std::string render(const std::vector<ModelGauges>& gauges, bool ready) const;

 private:
  struct Histogram {
    std::array<uint64_t, kBuckets.size() + 1> counts{};  // per bucket, not cumulative; last +Inf
    double sum = 0;
    uint64_t count = 0;
  };
  mutable std::mutex mu_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;
  std::map<std::string, Histogram> latency_;
  std::map<std::pair<std::string, bool>, uint64_t> reloads_;
};

}  // namespace ingot::server

// Metrics of the inference server: counters, histogram and gauges as Prometheus text (see
// metrics.h; names listed in docs/server.md).
#include "metrics.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace ingot::server {

namespace {

// A label value, escaped as the exposition format wants (backslash, quote, newline).
std::string label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

}  // namespace

void Metrics::add_model(const std::string& model) {
  std::lock_guard<std::mutex> lock(mu_);
  latency_[model];
}

void Metrics::observe_request(const std::string& model, int status, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  ++requests_[{model, status}];
  if (status != 200) return;
  Histogram& h = latency_[model];
  size_t b = 0;
  while (b < kBuckets.size() && seconds > kBuckets[b]) ++b;
  ++h.counts[b];
  h.sum += seconds;
  ++h.count;
}

void Metrics::observe_reload(const std::string& model, bool ok) {
  std::lock_guard<std::mutex> lock(mu_);
  ++reloads_[{model, ok}];
}

std::string Metrics::render(const std::vector<ModelGauges>& gauges, bool ready) const {
  std::string out;
  std::lock_guard<std::mutex> lock(mu_);
  out +=
      "# HELP ingot_requests_total Inference requests (POST /v2/models/{name}/infer) by model and "
      "HTTP status code.\n"
      "# TYPE ingot_requests_total counter\n";
  for (const auto& [key, n] : requests_) {
    out += "ingot_requests_total{model=\"" + label(key.first) + "\",code=\"" +
           std::to_string(key.second) + "\"} " + std::to_string(n) + "\n";
  }
  out +=
      "# HELP ingot_request_duration_seconds Latency of successful inference requests, from the "
      "request body received to the reply built.\n"
      "# TYPE ingot_request_duration_seconds histogram\n";
  for (const auto& [model, h] : latency_) {
    std::string m = label(model);
    uint64_t cumulative = 0;
    for (size_t b = 0; b <= kBuckets.size(); ++b) {
      cumulative += h.counts[b];
      std::string le = "+Inf";
      if (b < kBuckets.size()) {
        char buf[32];
        std::snprintf(buf, sizeof(buf), "%g", kBuckets[b]);  // "0.0005", "2.5", "10"
        le = buf;
      }
      out += "ingot_request_duration_seconds_bucket{model=\"" + m + "\",le=\"" + le + "\"} " +
             std::to_string(cumulative) + "\n";
    }
    out += "ingot_request_duration_seconds_sum{model=\"" + m + "\"} " + number(h.sum) + "\n";
    out += "ingot_request_duration_seconds_count{model=\"" + m + "\"} " + std::to_string(h.count) +
           "\n";
  }
  out +=
      "# HELP ingot_reloads_total Model reloads (POST /v2/models/{name}/reload, SIGHUP) by "
      "result.\n"
      "# TYPE ingot_reloads_total counter\n";
  for (const auto& [key, n] : reloads_) {
    out += "ingot_reloads_total{model=\"" + label(key.first) + "\",result=\"" +
           (key.second ? "ok" : "error") + "\"} " + std::to_string(n) + "\n";
  }
  struct Gauge {
    const char* name;
    const char* help;
    double (*value)(const ModelGauges&);
  };
  static const Gauge kGauges[] = {
      {"ingot_queue_depth", "Requests waiting for a free session.",
       [](const ModelGauges& g) { return static_cast<double>(g.queued); }},
      {"ingot_inflight_requests",
       "Requests holding a session (setting inputs, running, copying outputs).",
       [](const ModelGauges& g) { return static_cast<double>(g.in_flight); }},
      {"ingot_sessions", "Sessions of the loaded version.",
       [](const ModelGauges& g) { return static_cast<double>(g.sessions); }},
      {"ingot_model_version",
       "Version number of the loaded artifact (1, then +1 per reload; 0 "
       "before the first load).",
       [](const ModelGauges& g) { return static_cast<double>(g.version); }},
  };
  for (const Gauge& gauge : kGauges) {
    out += std::string("# HELP ") + gauge.name + " " + gauge.help + "\n# TYPE " + gauge.name +
           " gauge\n";
    for (const ModelGauges& g : gauges) {
      out += std::string(gauge.name) + "{model=\"" + label(g.model) + "\"} " +
             number(gauge.value(g)) + "\n";
    }
  }
  out +=
      "# HELP ingot_ready 1 when every model is loaded and the server is not shutting down.\n"
      "# TYPE ingot_ready gauge\n";
  out += std::string("ingot_ready ") + (ready ? "1" : "0") + "\n";
  return out;
}

}  // namespace ingot::server

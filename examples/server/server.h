// Server wiring of the inference server: the HTTP routes (KServe v2 health, metadata, infer,
// reload, Prometheus /metrics) over cpp-httplib, the model slots, readiness and shutdown.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <httplib.h>

#include "metrics.h"
#include "model_pool.h"

namespace ingot::server {

struct ServerOptions {
  std::vector<std::pair<std::string, std::string>> models;  // name, artifact path
  std::string host = "127.0.0.1";
  int port = 8080;                    // 0: any free port
  int sessions = 1;                   // per model
  int queue_depth = 64;               // waiting requests per model
  int deadline_ms = 10000;            // longest wait for a session
  size_t max_body_bytes = 64u << 20;  // larger bodies get 413
  int http_threads = 0;               // 0: models * (sessions + queue_depth) + 16, <= 1024
};

class InferenceServer {
 public:
  explicit InferenceServer(ServerOptions options);
  InferenceServer(const InferenceServer&) = delete;
  InferenceServer& operator=(const InferenceServer&) = delete;

  // Binds the listening socket; returns the port (the one picked when options.port is 0).
  // Throws std::runtime_error when the address cannot be bound.
  int bind();
  // Accepts and serves connections until stop(); run it on its own thread after bind(). False
  // when the accept loop ended without stop() (a socket error).
  bool serve();
  // Loads every model in order, then marks the server ready. Throws std::runtime_error naming
  // the model on the first failure. Stops early (not ready) once stop() was called.
  void load_models();
  // Reloads every loaded model from its path (SIGHUP); one line per model on stderr.
  void reload_all();
  // Marks the server not ready, stops accepting, and lets the requests it accepted finish;
  // serve() then returns. Thread-safe; later calls do nothing.
  void stop();

 private:
  // httplib::Server with its listening socket visible (to raise the listen backlog).
  class Http : public httplib::Server {
   public:
    int listen_socket() const { return svr_sock_; }
  };

  void routes();
  ModelSlot* find(const std::string& name) const;
  void handle_infer(const httplib::Request& req, httplib::Response& res);
  void infer(const httplib::Request& req, httplib::Response& res, ModelSlot& slot);
  void handle_reload(const httplib::Request& req, httplib::Response& res);
  void handle_metadata(const httplib::Request& req, httplib::Response& res);
  void handle_metrics(const httplib::Request& req, httplib::Response& res);

  ServerOptions options_;
  std::vector<std::unique_ptr<ModelSlot>> slots_;
  Metrics metrics_;
  Http http_;
  std::atomic<bool> ready_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<bool> serve_returned_{false};
  std::atomic<bool> stop_called_{false};
};

}  // namespace ingot::server

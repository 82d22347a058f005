// Server wiring of the inference server: routes, request flow (decode, wait for a session, run,
// encode), errors as {"error": "..."} with a 4xx/5xx status, readiness and shutdown.
#include "server.h"

#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "npy_codec.h"
#include "tensor_codec.h"

namespace ingot::server {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr size_t kMaxDefaultHttpThreads = 1024;

std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Replies {"error": message} (one line) with `status`.
void reply_error(httplib::Response& res, int status, std::string message) {
  std::replace(message.begin(), message.end(), '\n', ' ');
  std::replace(message.begin(), message.end(), '\r', ' ');
  res.status = status;
  res.set_content(dump(json{{"error", message}}), "application/json");
}

void reply_json(httplib::Response& res, const json& body, int status = 200) {
  res.status = status;
  res.set_content(dump(body), "application/json");
}

// The media type of a Content-Type / Accept entry, lower case, without parameters.
std::string media_type(const std::string& header) {
  std::string t = header.substr(0, header.find(';'));
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  t.erase(t.begin(), std::find_if(t.begin(), t.end(), not_space));
  t.erase(std::find_if(t.rbegin(), t.rend(), not_space).base(), t.end());
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  return t;
}

bool accepts_npy(const httplib::Request& req) {
  std::string accept = req.get_header_value("Accept");
  size_t start = 0;
  while (start <= accept.size()) {
    size_t end = accept.find(',', start);
    if (end == std::string::npos) end = accept.size();
    if (media_type(accept.substr(start, end - start)) == "application/x-npy") return true;
    start = end + 1;
  }
  return false;
}

std::string quote_name(const std::string& s) {
  return "'" + s + "'";
}

// NAME of a path /v2/models/NAME/infer, else "".
std::string infer_path_model(const std::string& path) {
  const std::string prefix = "/v2/models/", suffix = "/infer";
  if (path.size() <= prefix.size() + suffix.size() || path.compare(0, prefix.size(), prefix) != 0 ||
      path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return "";
  }
  std::string name = path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
  return name.find('/') == std::string::npos ? name : "";
}

// nlohmann's parse error without its "[json.exception.parse_error.101] " prefix.
std::string json_error(const json::exception& e) {
  std::string m = e.what();
  if (!m.empty() && m[0] == '[') {
    size_t close = m.find("] ");
    if (close != std::string::npos) m = m.substr(close + 2);
  }
  return m;
}

}  // namespace

InferenceServer::InferenceServer(ServerOptions options) : options_(std::move(options)) {
  for (const auto& [name, path] : options_.models) {
    slots_.push_back(
        std::make_unique<ModelSlot>(name, path, options_.sessions, options_.queue_depth));
    metrics_.add_model(name);
  }
  // Enough workers that a request over a full queue still finds one to answer its 503.
  size_t threads =
      options_.http_threads > 0
          ? static_cast<size_t>(options_.http_threads)
          : std::min<size_t>(
                kMaxDefaultHttpThreads,
                slots_.size() * static_cast<size_t>(options_.sessions + options_.queue_depth) + 16);
  http_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http_.set_payload_max_length(options_.max_body_bytes);
  http_.set_tcp_nodelay(true);  // small replies: no Nagle / delayed-ACK stalls
  http_.set_keep_alive_max_count(1000);
  routes();
}

ModelSlot* InferenceServer::find(const std::string& name) const {
  for (const auto& s : slots_)
    if (s->name() == name) return s.get();
  return nullptr;
}

void InferenceServer::routes() {
  http_.Get("/v2/health/live", [](const httplib::Request&, httplib::Response& res) {
    reply_json(res, {{"live", true}});
  });
  http_.Get("/v2/health/ready", [this](const httplib::Request&, httplib::Response& res) {
    bool ready = ready_ && !stopping_;
    reply_json(res, {{"ready", ready}}, ready ? 200 : 503);
  });
  http_.Get("/v2", [](const httplib::Request&, httplib::Response& res) {
    reply_json(res, {{"name", "ingot_server"},
                     {"version", INGOT_SERVER_VERSION},
                     {"extensions", json::array()}});
  });
  http_.Get(R"(/v2/models/([^/]+)/ready)",
            [this](const httplib::Request& req, httplib::Response& res) {
              ModelSlot* slot = find(req.matches[1]);
              if (slot == nullptr) {
                return reply_error(res, 404, "unknown model " + quote_name(req.matches[1]));
              }
              bool ready = slot->current() != nullptr && !stopping_;
              reply_json(res, {{"name", slot->name()}, {"ready", ready}}, ready ? 200 : 503);
            });
  http_.Get(R"(/v2/models/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    handle_metadata(req, res);
  });
  http_.Post(
      R"(/v2/models/([^/]+)/infer)",
      [this](const httplib::Request& req, httplib::Response& res) { handle_infer(req, res); });
  http_.Post(
      R"(/v2/models/([^/]+)/reload)",
      [this](const httplib::Request& req, httplib::Response& res) { handle_reload(req, res); });
  http_.Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
    handle_metrics(req, res);
  });
  // Replies that carry no body yet (no route, 413 from httplib, ...) get a JSON error.
  http_.set_error_handler(httplib::Server::HandlerWithResponse(
      [this](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        std::string message;
        switch (res.status) {
          case 404:
            message = "no route for " + req.method + " " + req.path;
            break;
          case 400:
            if (req.method == "POST" && !req.has_header("Content-Length") &&
                !req.has_header("Transfer-Encoding")) {
              message = "a POST needs a Content-Length header (curl: -d '' for an empty body)";
            } else {
              message = "malformed HTTP request";
            }
            break;
          case 413: {
            if (media_type(req.get_header_value("Content-Type")) ==
                "application/x-www-form-urlencoded") {
              // httplib parses form bodies and refuses those over 8 KiB; curl -d sends this type.
              message =
                  "application/x-www-form-urlencoded bodies are limited to 8192 bytes: send "
                  "Content-Type: application/json (curl: -H 'Content-Type: application/json')";
            } else {
              message = "request body larger than --max-body-bytes (" +
                        std::to_string(options_.max_body_bytes) + " bytes)";
            }
            // Refused before routing: counted here as the inference request it was meant to be.
            std::string model = infer_path_model(req.path);
            if (req.method == "POST" && !model.empty()) {
              ModelSlot* slot = find(model);
              metrics_.observe_request(slot ? slot->name() : "_unknown", 413, 0.0);
            }
            break;
          }
          case 414:
            message = "request URI too long";
            break;
          default:
            message = "HTTP status " + std::to_string(res.status);
            break;
        }
        reply_error(res, res.status, message);
        return httplib::Server::HandlerResponse::Handled;
      }));
  http_.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string message = "internal error";
        try {
          if (ep) std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          message += std::string(": ") + e.what();
        } catch (...) {
        }
        reply_error(res, 500, message);
      });
}

int InferenceServer::bind() {
  errno = 0;
  int port = options_.port == 0
                 ? http_.bind_to_any_port(options_.host)
                 : (http_.bind_to_port(options_.host, options_.port) ? options_.port : -1);
  if (port < 0) {
    int err = errno;
    throw std::runtime_error("cannot listen on " + options_.host + ":" +
                             std::to_string(options_.port) +
                             (err ? std::string(": ") + std::strerror(err) : std::string()));
  }
  // httplib listens with a backlog of 5; a burst of clients connecting at once would overflow it
  // (dropped SYNs, one-second client retries). Linux takes a new backlog on a listening socket.
  ::listen(http_.listen_socket(), 1024);
  return port;
}

bool InferenceServer::serve() {
  http_.listen_after_bind();
  serve_returned_ = true;
  return stop_called_;
}

void InferenceServer::load_models() {
  for (const auto& slot : slots_) {
    if (stopping_) return;
    try {
      auto v = slot->load();
      std::fprintf(stderr, "ingot_server: loaded model '%s' from %s (%d sessions)\n",
                   slot->name().c_str(), v->path.c_str(), options_.sessions);
    } catch (const rt::Error& e) {
      throw std::runtime_error("cannot load model '" + slot->name() + "' from " + slot->path() +
                               ": " + e.what());
    }
  }
  ready_ = !stopping_;
}

void InferenceServer::reload_all() {
  for (const auto& slot : slots_) {
    if (stopping_) return;
    if (slot->current() == nullptr) {
      std::fprintf(stderr, "ingot_server: model '%s' is not loaded yet; not reloaded\n",
                   slot->name().c_str());
      continue;
    }
    try {
      auto v = slot->load();
      metrics_.observe_reload(slot->name(), true);
      std::fprintf(stderr, "ingot_server: reloaded model '%s' from %s (version %llu)\n",
                   slot->name().c_str(), v->path.c_str(),
                   static_cast<unsigned long long>(v->number));
    } catch (const std::exception& e) {
      metrics_.observe_reload(slot->name(), false);
      std::fprintf(stderr,
                   "ingot_server: reload of model '%s' failed (still serving the old "
                   "version): %s\n",
                   slot->name().c_str(), e.what());
    }
  }
}

void InferenceServer::stop() {
  stopping_ = true;
  ready_ = false;
  if (stop_called_.exchange(true)) return;
  // httplib's stop() only acts once the accept loop runs; serve() may not have got there yet.
  while (!http_.is_running() && !serve_returned_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  http_.stop();
}

void InferenceServer::handle_metadata(const httplib::Request& req, httplib::Response& res) {
  ModelSlot* slot = find(req.matches[1]);
  if (slot == nullptr) return reply_error(res, 404, "unknown model " + quote_name(req.matches[1]));
  auto version = slot->current();
  if (version == nullptr) {
    res.set_header("Retry-After", "1");
    return reply_error(res, 503, "model " + quote_name(slot->name()) + " is not loaded yet");
  }
  json inputs = json::array(), outputs = json::array();
  for (int i = 0; i < version->model.num_inputs(); ++i) {
    inputs.push_back(tensor_metadata(version->model.input_info(i)));
  }
  for (int i = 0; i < version->model.num_outputs(); ++i) {
    outputs.push_back(tensor_metadata(version->model.output_info(i)));
  }
  const IngotArtifact& a = version->model.artifact();
  reply_json(res, {{"name", slot->name()},
                   {"versions", {std::to_string(version->number)}},
                   {"platform", "ingot"},
                   {"inputs", inputs},
                   {"outputs", outputs},
                   {"parameters",
                    {{"path", version->path},
                     {"target", a.target ? a.target : ""},
                     {"sessions", slot->num_sessions()},
                     {"queue_depth", slot->queue_depth()}}}});
}

void InferenceServer::handle_infer(const httplib::Request& req, httplib::Response& res) {
  auto start = Clock::now();
  ModelSlot* slot = find(req.matches[1]);
  if (slot == nullptr) {
    reply_error(res, 404, "unknown model " + quote_name(req.matches[1]));
  } else {
    try {
      infer(req, res, *slot);
    } catch (const CodecError& e) {
      reply_error(res, 400, e.what());
    } catch (const std::bad_alloc&) {
      reply_error(res, 500, "out of memory");
    } catch (const std::exception& e) {
      reply_error(res, 500, std::string("internal error: ") + e.what());
    }
  }
  std::chrono::duration<double> seconds = Clock::now() - start;
  metrics_.observe_request(slot ? slot->name() : "_unknown", res.status, seconds.count());
}

void InferenceServer::infer(const httplib::Request& req, httplib::Response& res, ModelSlot& slot) {
  // The deadline: --deadline-ms, or earlier with X-Deadline-Ms.
  int64_t deadline_ms = options_.deadline_ms;
  if (req.has_header("X-Deadline-Ms")) {
    std::string v = req.get_header_value("X-Deadline-Ms");
    int64_t ms = -1;
    auto r = std::from_chars(v.data(), v.data() + v.size(), ms);
    if (r.ec != std::errc() || r.ptr != v.data() + v.size() || ms < 0) {
      std::string message = "X-Deadline-Ms must be a non-negative integer (milliseconds), got '";
      return reply_error(res, 400, message + v + "'");
    }
    deadline_ms = std::min(deadline_ms, ms);
  }
  auto deadline = Clock::now() + std::chrono::milliseconds(deadline_ms);

  auto version = slot.current();
  if (version == nullptr) {
    res.set_header("Retry-After", "1");
    return reply_error(res, 503, "model " + quote_name(slot.name()) + " is not loaded yet");
  }

  // The body: raw bytes, .npy, or KServe JSON (parsed once; decoded per model version).
  enum class Body { kJson, kRaw, kNpy } body_kind = Body::kJson;
  std::string content_type = media_type(req.get_header_value("Content-Type"));
  if (content_type == "application/octet-stream") {
    body_kind = Body::kRaw;
  } else if (content_type == "application/x-npy") {
    body_kind = Body::kNpy;
  }
  json request;
  if (body_kind == Body::kJson) {
    try {
      request = json::parse(req.body);
    } catch (const json::exception& e) {
      return reply_error(res, 400, "malformed JSON: " + json_error(e));
    }
  }
  bool npy_reply = accepts_npy(req);
  std::string output_param = req.get_param_value("output");
  struct Prepared {
    std::vector<InputData> inputs;
    std::vector<int> outputs;
  };
  auto prepare = [&](const ModelVersion& v) {
    Prepared p;
    if (body_kind == Body::kRaw) {
      p.inputs = decode_raw_input(req.body, v.model);
    } else if (body_kind == Body::kNpy) {
      p.inputs = decode_npy_input(req.body, v.model);
    } else {
      p.inputs = decode_json_inputs(request, v.model);
      p.outputs = requested_outputs(request, v.model);
    }
    if (!output_param.empty()) {
      int index = v.model.find_output(output_param);
      if (index < 0) throw CodecError("model has no output " + quote_name(output_param));
      p.outputs = {index};
    } else if (p.outputs.empty()) {
      for (int i = 0; i < v.model.num_outputs(); ++i) p.outputs.push_back(i);
    }
    if (npy_reply) p.outputs.resize(std::min<size_t>(p.outputs.size(), 1));
    return p;
  };
  Prepared prepared = prepare(*version);

  SessionLease lease;
  switch (slot.acquire(deadline, &lease)) {
    case Acquire::kOk:
      break;
    case Acquire::kQueueFull:
      res.set_header("Retry-After", "1");
      return reply_error(res, 503,
                         "model " + quote_name(slot.name()) + " is busy: all " +
                             std::to_string(slot.num_sessions()) + " sessions in use and " +
                             std::to_string(slot.queue_depth()) + " requests queued; retry later");
    case Acquire::kDeadline:
      return reply_error(res, 504,
                         "no session of model " + quote_name(slot.name()) +
                             " became free within the deadline (" + std::to_string(deadline_ms) +
                             " ms)");
    case Acquire::kNotLoaded:
      res.set_header("Retry-After", "1");
      return reply_error(res, 503, "model " + quote_name(slot.name()) + " is not loaded yet");
  }
  if (lease.version() != version) {  // reloaded meanwhile: decode for the version we run on
    version = lease.version();
    prepared = prepare(*version);
  }

  std::vector<OutputData> outputs;
  rt::Session& session = lease.session();
  try {
    // Requests are independent: a pooled session's caches (--kv-cache) start empty each time.
    if (version->model.num_states() > 0) session.set_state_length(0);
    for (const InputData& in : prepared.inputs) {
      session.set_input_copy(in.index, in.bytes.data(), in.bytes.size());
    }
  } catch (const rt::Error& e) {
    // Everything the codec checks passed: what is left is the data itself (an input specialised
    // at compile time to another value).
    return reply_error(res, e.status() == INGOT_ERR_INVALID_ARGUMENT ? 400 : 500, e.what());
  }
  try {
    session.run();
    for (int index : prepared.outputs) {
      DLTensor view = session.output(index);
      const IngotTensorInfo& info = version->model.output_info(index);
      const char* data = static_cast<const char*>(view.data) + view.byte_offset;
      outputs.push_back(OutputData{&info, std::string(data, tensor_bytes(info))});
    }
  } catch (const rt::Error& e) {
    return reply_error(res, 500, e.what());
  }
  lease.release();  // encode without holding the session

  if (npy_reply) {
    const OutputData& o = outputs.at(0);
    res.status = 200;
    res.set_header("X-Output-Name", o.info->name);
    res.set_content(write_npy(o.info->dtype, o.info->shape, o.info->ndim, o.bytes),
                    "application/x-npy");
    return;
  }
  std::string body = "{\"model_name\":" + dump(json(slot.name())) + ",\"model_version\":\"" +
                     std::to_string(version->number) + "\"";
  if (request.is_object() && request.contains("id")) body += ",\"id\":" + dump(request["id"]);
  body += ",\"outputs\":[";
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (i) body += ',';
    append_json_output(body, outputs[i]);
  }
  body += "]}";
  res.status = 200;
  res.set_content(body, "application/json");
}

void InferenceServer::handle_reload(const httplib::Request& req, httplib::Response& res) {
  ModelSlot* slot = find(req.matches[1]);
  if (slot == nullptr) return reply_error(res, 404, "unknown model " + quote_name(req.matches[1]));
  if (stopping_) return reply_error(res, 503, "the server is shutting down");
  std::string path;
  bool blank = std::all_of(req.body.begin(), req.body.end(),
                           [](unsigned char c) { return std::isspace(c); });
  if (!blank) {
    json body;
    try {
      body = json::parse(req.body);
    } catch (const json::exception& e) {
      return reply_error(res, 400, "malformed JSON: " + json_error(e));
    }
    if (!body.is_object()) return reply_error(res, 400, "the reload body must be a JSON object");
    auto it = body.find("path");
    if (it != body.end()) {
      if (!it->is_string() || it->get_ref<const std::string&>().empty()) {
        return reply_error(res, 400, "'path' must be a non-empty string");
      }
      path = it->get<std::string>();
    }
  }
  if (slot->current() == nullptr) {
    res.set_header("Retry-After", "1");
    return reply_error(res, 503, "model " + quote_name(slot->name()) + " is not loaded yet");
  }
  std::string from = path.empty() ? slot->path() : path;
  try {
    auto v = slot->load(path);
    metrics_.observe_reload(slot->name(), true);
    std::fprintf(stderr, "ingot_server: reloaded model '%s' from %s (version %llu)\n",
                 slot->name().c_str(), v->path.c_str(), static_cast<unsigned long long>(v->number));
    reply_json(res,
               {{"name", slot->name()}, {"version", std::to_string(v->number)}, {"path", v->path}});
  } catch (const std::bad_alloc&) {
    metrics_.observe_reload(slot->name(), false);
    reply_error(res, 500, "reload of model " + quote_name(slot->name()) + " failed: out of memory");
  } catch (const rt::Error& e) {
    metrics_.observe_reload(slot->name(), false);
    bool load_error = e.status() == INGOT_ERR_LOAD || e.status() == INGOT_ERR_INVALID_ARGUMENT;
    reply_error(res, load_error ? 400 : 500,
                "reload of model " + quote_name(slot->name()) + " from " + from +
                    " failed (still serving version " + std::to_string(slot->current()->number) +
                    "): " + e.what());
  }
}

void InferenceServer::handle_metrics(const httplib::Request&, httplib::Response& res) {
  std::vector<Metrics::ModelGauges> gauges;
  for (const auto& slot : slots_) {
    ModelSlot::Gauges g = slot->gauges();
    gauges.push_back({slot->name(), g.queued, g.in_flight, slot->num_sessions(), g.version});
  }
  res.status = 200;
  res.set_content(metrics_.render(gauges, ready_ && !stopping_),
                  "text/plain; version=0.0.4; charset=utf-8");
}

}  // namespace ingot::server

// Measurement workers on Redis streams (see remote.h).
#include "tune/remote.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <random>
#include <sstream>

#include <fmt/format.h>

#include "support/error.h"

namespace ingot::tune {

namespace {

using Clock = std::chrono::steady_clock;

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  if (!out) fail_user("cannot write '{}'", path);
}

// A number field of a stream entry; nullopt when absent or malformed (a foreign writer).
std::optional<double> number(const std::vector<std::pair<std::string, std::string>>& f,
                             const std::string& name) {
  std::string v = field(f, name);
  char* end = nullptr;
  double x = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(x)) return std::nullopt;
  return x;
}

std::string claims_key(const std::string& job) {
  return std::string("ingot:tune:claims:") + job;
}

// The first stream entry of an XREADGROUP / XREAD reply ([[stream, [[id, fields]...]]]), or null.
const RedisReply* first_entry(const RedisReply& r) {
  if (r.kind != RedisReply::kArray || r.elements.empty()) return nullptr;
  const RedisReply& stream = r.elements[0];
  if (stream.elements.size() < 2 || stream.elements[1].elements.empty()) return nullptr;
  return &stream.elements[1].elements[0];
}

}  // namespace

RemoteMeasurer::RemoteMeasurer(const RedisAddress& address, const MeasureOptions& options,
                               double wait_s)
    : redis_(address), options_(options), wait_s_(wait_s) {
  std::random_device rd;
  run_ = fmt::format("{:08x}{:08x}-{}", rd(), rd(), getpid());
  reply_ = "ingot:tune:results:" + run_;
  std::string err;
  redis_.command_allow_error({"XGROUP", "CREATE", kJobsStream, kWorkersGroup, "0", "MKSTREAM"},
                             &err);
  if (!err.empty() && err.rfind("BUSYGROUP", 0) != 0)
    fail_user("{}: cannot create the workers group: {}", address.str(), err);
}

RemoteMeasurer::~RemoteMeasurer() {
  try {
    redis_.command({"DEL", reply_});
  } catch (const UserError&) {
    // The server went away: nothing left to clean.
  }
}

std::vector<Measurement> RemoteMeasurer::measure(const std::vector<MeasureJob>& jobs) {
  std::vector<Measurement> out(jobs.size());
  workers_.assign(jobs.size(), "");
  std::map<std::string, size_t> pending;
  for (size_t k = 0; k < jobs.size(); ++k) {
    std::string id = fmt::format("{}/{}", run_, next_++);
    pending[id] = k;
    out[k].outputs = jobs[k].outputs;
    redis_.command({"XADD",
                    kJobsStream,
                    "*",
                    "id",
                    id,
                    "reply",
                    reply_,
                    "artifact",
                    read_bytes(jobs[k].artifact),
                    "repeat",
                    std::to_string(options_.repeat),
                    "number",
                    std::to_string(options_.number),
                    "threads",
                    std::to_string(options_.threads),
                    "timeout",
                    fmt::format("{}", options_.timeout_s),
                    "flush",  // (workers before --cache-state)
                    options_.cache_state != "warm" ? "1" : "0",
                    "cache_state",
                    options_.cache_state,
                    "min_repeat_ms",
                    fmt::format("{}", options_.min_repeat_ms)});
  }
  Clock::time_point last_news = Clock::now();
  while (!pending.empty()) {
    RedisReply r =
        redis_.command({"XREAD", "COUNT", "64", "BLOCK", "1000", "STREAMS", reply_, last_});
    bool news = false;
    if (r.kind == RedisReply::kArray && !r.elements.empty())
      for (const RedisReply& e : r.elements[0].elements[1].elements) {
        last_ = e.elements[0].str;
        auto f = entry_fields(e.elements[1]);
        auto it = pending.find(field(f, "id"));
        if (it == pending.end()) continue;  // a second result for a job already answered
        size_t k = it->second;
        pending.erase(it);
        news = true;
        workers_[k] = field(f, "worker");
        std::string err = field(f, "error");
        if (!err.empty()) {
          out[k].error = err;
          continue;
        }
        std::optional<double> seconds = number(f, "seconds");
        if (!seconds || *seconds <= 0) {
          out[k].error = "the worker's answer has no time";
          continue;
        }
        out[k].seconds = *seconds;
        write_bytes(jobs[k].outputs, field(f, "outputs"));
      }
    if (news) last_news = Clock::now();
    if (std::chrono::duration<double>(Clock::now() - last_news).count() > wait_s_) {
      for (const auto& [id, k] : pending)
        out[k].error = fmt::format("no worker answered within {:.0f} s", wait_s_);
      break;
    }
  }
  return out;
}

int run_worker(const RedisAddress& address, const WorkerOptions& o, std::ostream& log) {
  RedisClient redis(address);
  std::string err;
  redis.command_allow_error({"XGROUP", "CREATE", kJobsStream, kWorkersGroup, "0", "MKSTREAM"},
                            &err);
  if (!err.empty() && err.rfind("BUSYGROUP", 0) != 0)
    fail_user("{}: cannot create the workers group: {}", address.str(), err);
  std::string name = o.name.empty() ? fmt::format("worker-{}", getpid()) : o.name;
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / fmt::format("ingot-worker-{}", getpid());
  std::filesystem::create_directories(dir);
  int answered = 0, taken = 0;
  Clock::time_point idle_since = Clock::now();
  log << fmt::format("{}: waiting for jobs on {} ({})\n", name, address.str(), kJobsStream);
  log.flush();
  while (o.max_jobs == 0 || answered < o.max_jobs) {
    // 1. A job a dead worker left idle, else a new one.
    const RedisReply* entry = nullptr;
    RedisReply claimed = redis.command({"XAUTOCLAIM", kJobsStream, kWorkersGroup, name,
                                        std::to_string(o.claim_idle_ms), "0-0", "COUNT", "1"});
    if (claimed.elements.size() >= 2 && !claimed.elements[1].elements.empty())
      entry = &claimed.elements[1].elements[0];
    RedisReply fresh;
    if (!entry) {
      fresh = redis.command({"XREADGROUP", "GROUP", kWorkersGroup, name, "COUNT", "1", "BLOCK",
                             "1000", "STREAMS", kJobsStream, ">"});
      entry = first_entry(fresh);
    }
    if (!entry) {
      if (o.idle_exit_s > 0 &&
          std::chrono::duration<double>(Clock::now() - idle_since).count() > o.idle_exit_s)
        break;
      continue;
    }
    std::string entry_id = entry->elements[0].str;
    auto f = entry_fields(entry->elements[1]);
    std::string job = field(f, "id"), reply = field(f, "reply");
    ++taken;
    if (o.die_on_job > 0 && taken == o.die_on_job) {
      log << fmt::format("{}: exiting with job {} unanswered (--die-on-job)\n", name, job);
      log.flush();
      std::_Exit(3);
    }
    // 2. Measure it, unless it has already cost kMaxClaims workers.
    long long claims = redis.command({"INCR", claims_key(job)}).integer;
    redis.command({"EXPIRE", claims_key(job), "86400"});
    std::vector<std::string> result = {"XADD", reply, "*", "id", job, "worker", name};
    std::optional<double> repeat = number(f, "repeat"), runs = number(f, "number"),
                          threads = number(f, "threads"), timeout = number(f, "timeout");
    if (claims > kMaxClaims) {
      result.insert(result.end(),
                    {"error", fmt::format("taken by {} workers, none answered", claims - 1)});
    } else if (!repeat || !runs || !threads || !timeout || reply.empty()) {
      result.insert(result.end(), {"error", "malformed job"});
    } else {
      std::string so = (dir / "job.so").string(), npz = (dir / "job.npz").string();
      write_bytes(so, field(f, "artifact"));
      MeasureOptions m;
      m.ingot = o.ingot;
      m.repeat = int(*repeat), m.number = int(*runs), m.threads = int(*threads);
      m.timeout_s = *timeout;
      m.cache_state = field(f, "cache_state");
      if (m.cache_state != "cold" && m.cache_state != "model")
        m.cache_state = field(f, "flush") == "1" ? "cold" : "warm";
      m.min_repeat_ms = number(f, "min_repeat_ms").value_or(0);
      std::filesystem::remove(npz);
      Measurement r = measure_artifact(so, npz, m);
      if (r.ok()) {
        result.insert(result.end(),
                      {"seconds", fmt::format("{}", r.seconds), "outputs", read_bytes(npz)});
      } else {
        result.insert(result.end(), {"error", r.error});
      }
    }
    // 3. Answer, then acknowledge (a worker dying in between makes a second answer, which the
    //    tuner ignores). A job without a reply stream cannot be answered, only dropped.
    if (!reply.empty()) redis.command(result);
    redis.command({"XACK", kJobsStream, kWorkersGroup, entry_id});
    redis.command({"XDEL", kJobsStream, entry_id});
    ++answered;
    idle_since = Clock::now();
    log << fmt::format("{}: answered job {}\n", name, job);
    log.flush();
  }
  std::filesystem::remove_all(dir);
  return answered;
}

}  // namespace ingot::tune

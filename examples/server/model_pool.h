// Model pool of the inference server: each served model is a slot holding its loaded version (an
// artifact and a fixed set of sessions) and a bounded FIFO of requests waiting for a free session.
// A full queue refuses at once (503), a wait past the request's deadline gives up (504). Reload
// builds a new version beside the old one and swaps it in; requests already holding a session
// finish on the old version, which is freed with its last session.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ingot/runtime.hpp"

namespace ingot::server {

// One loaded artifact and its sessions. Immutable once built; which sessions are free is the
// slot's business.
struct ModelVersion {
  // Loads `path` and creates `num_sessions` sessions; throws rt::Error with the runtime's message.
  ModelVersion(std::string path, int num_sessions, uint64_t number);
  std::string path;
  uint64_t number;  // 1 for the first load, +1 per successful reload
  rt::Model model;
  std::vector<std::unique_ptr<rt::Session>> sessions;  // declared after `model`: freed before it
};

class ModelSlot;

// A session held by one request; goes back to its slot when destroyed.
class SessionLease {
 public:
  SessionLease() = default;
  SessionLease(SessionLease&& o) noexcept;
  SessionLease& operator=(SessionLease&& o) noexcept;
  SessionLease(const SessionLease&) = delete;
  SessionLease& operator=(const SessionLease&) = delete;
  ~SessionLease();

  rt::Session& session() const { return *version_->sessions[static_cast<size_t>(index_)]; }
  const std::shared_ptr<ModelVersion>& version() const { return version_; }
  void release();

 private:
  friend class ModelSlot;
  ModelSlot* slot_ = nullptr;
  std::shared_ptr<ModelVersion> version_;
  int index_ = -1;
};

enum class Acquire { kOk, kQueueFull, kDeadline, kNotLoaded };

class ModelSlot {
 public:
  ModelSlot(std::string name, std::string path, int num_sessions, int queue_depth);
  ModelSlot(const ModelSlot&) = delete;
  ModelSlot& operator=(const ModelSlot&) = delete;

  const std::string& name() const { return name_; }
  int num_sessions() const { return num_sessions_; }
  int queue_depth() const { return queue_depth_; }

  // Loads the slot's path ("" keeps it) or `path`, builds its sessions and swaps it in. Serialised
  // with other loads of this slot. Throws rt::Error (the old version stays) on failure.
  std::shared_ptr<ModelVersion> load(const std::string& path = "");

  // The version now served (nullptr before the first load).
  std::shared_ptr<ModelVersion> current() const;
  // The path the next load("") reads.
  std::string path() const;

  // Takes a free session, or waits in FIFO order for one until `deadline`. kQueueFull when
  // `queue_depth` requests are already waiting (0: never wait). `lease` must be empty.
  Acquire acquire(std::chrono::steady_clock::time_point deadline, SessionLease* lease);

  struct Gauges {
    int queued = 0;     // requests waiting for a session
    int in_flight = 0;  // sessions held by requests (any version)
    uint64_t version = 0;
  };
  Gauges gauges() const;

 private:
  friend class SessionLease;
  struct Waiter {
    std::condition_variable cv;
    std::shared_ptr<ModelVersion> version;  // set with `index` by the thread that hands it over
    int index = -1;
  };
  void release(const std::shared_ptr<ModelVersion>& version, int index);
  // Hands free sessions of the current version to waiters, oldest first. mu_ held.
  void hand_over_locked();

  const std::string name_;
  const int num_sessions_;
  const int queue_depth_;
  std::mutex load_mu_;  // serialises loads
  mutable std::mutex mu_;
  std::string path_;
  std::shared_ptr<ModelVersion> current_;
  std::vector<int> free_;  // free sessions of current_
  std::list<Waiter*> waiters_;
  int in_flight_ = 0;
  uint64_t loads_ = 0;
};

}  // namespace ingot::server

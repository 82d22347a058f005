// Model pool of the inference server: sessions per model, the bounded FIFO of waiting requests,
// and the reload swap (see model_pool.h).
#include "model_pool.h"

#include <utility>

namespace ingot::server {

ModelVersion::ModelVersion(std::string p, int num_sessions, uint64_t n)
    : path(std::move(p)), number(n), model(path) {
  sessions.reserve(static_cast<size_t>(num_sessions));
  for (int i = 0; i < num_sessions; ++i) sessions.push_back(std::make_unique<rt::Session>(model));
}

SessionLease::SessionLease(SessionLease&& o) noexcept
    : slot_(std::exchange(o.slot_, nullptr)),
      version_(std::move(o.version_)),
      index_(std::exchange(o.index_, -1)) {}

SessionLease& SessionLease::operator=(SessionLease&& o) noexcept {
  if (this != &o) {
    release();
    slot_ = std::exchange(o.slot_, nullptr);
    version_ = std::move(o.version_);
    index_ = std::exchange(o.index_, -1);
  }
  return *this;
}

SessionLease::~SessionLease() {
  release();
}

void SessionLease::release() {
  if (slot_ != nullptr) slot_->release(version_, index_);
  slot_ = nullptr;
  index_ = -1;
  // The last lease of a replaced version frees it here, outside the slot's lock.
  version_.reset();
}

ModelSlot::ModelSlot(std::string name, std::string path, int num_sessions, int queue_depth)
    : name_(std::move(name)),
      num_sessions_(num_sessions),
      queue_depth_(queue_depth),
      path_(std::move(path)) {}

std::shared_ptr<ModelVersion> ModelSlot::load(const std::string& path) {
  std::lock_guard<std::mutex> load_lock(load_mu_);
  std::string p = path.empty() ? this->path() : path;
  // Built outside mu_: requests keep being served by the current version meanwhile.
  auto next = std::make_shared<ModelVersion>(p, num_sessions_, loads_ + 1);
  std::shared_ptr<ModelVersion> old;
  {
    std::lock_guard<std::mutex> lock(mu_);
    old = std::exchange(current_, next);
    path_ = p;
    ++loads_;
    free_.clear();
    for (int i = num_sessions_ - 1; i >= 0; --i) free_.push_back(i);
    hand_over_locked();
  }
  return next;  // `old` is released here; leases still holding it keep it alive
}

std::shared_ptr<ModelVersion> ModelSlot::current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_;
}

std::string ModelSlot::path() const {
  std::lock_guard<std::mutex> lock(mu_);
  return path_;
}

Acquire ModelSlot::acquire(std::chrono::steady_clock::time_point deadline, SessionLease* lease) {
  std::unique_lock<std::mutex> lock(mu_);
  if (current_ == nullptr) return Acquire::kNotLoaded;
  if (!free_.empty() && waiters_.empty()) {
    lease->slot_ = this;
    lease->version_ = current_;
    lease->index_ = free_.back();
    free_.pop_back();
    ++in_flight_;
    return Acquire::kOk;
  }
  if (static_cast<int>(waiters_.size()) >= queue_depth_) return Acquire::kQueueFull;
  Waiter w;
  auto it = waiters_.insert(waiters_.end(), &w);
  while (w.index < 0) {
    if (w.cv.wait_until(lock, deadline) == std::cv_status::timeout && w.index < 0) {
      waiters_.erase(it);
      return Acquire::kDeadline;
    }
  }
  // hand_over_locked() removed `w` from waiters_ and counted it in flight.
  lease->slot_ = this;
  lease->version_ = std::move(w.version);
  lease->index_ = w.index;
  return Acquire::kOk;
}

void ModelSlot::release(const std::shared_ptr<ModelVersion>& version, int index) {
  std::lock_guard<std::mutex> lock(mu_);
  --in_flight_;
  if (version != current_) return;  // a replaced version's session is not reused
  free_.push_back(index);
  hand_over_locked();
}

void ModelSlot::hand_over_locked() {
  while (!free_.empty() && !waiters_.empty()) {
    Waiter* w = waiters_.front();
    waiters_.pop_front();
    w->version = current_;
    w->index = free_.back();
    free_.pop_back();
    ++in_flight_;
    w->cv.notify_one();
  }
}

ModelSlot::Gauges ModelSlot::gauges() const {
  std::lock_guard<std::mutex> lock(mu_);
  Gauges g;
  g.queued = static_cast<int>(waiters_.size());
  g.in_flight = in_flight_;
  g.version = current_ ? current_->number : 0;
  return g;
}

}  // namespace ingot::server

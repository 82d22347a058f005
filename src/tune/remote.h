// Measurement workers on Redis: the tuner publishes each candidate artifact as a job on the
// stream `ingot:tune:jobs`; `ingot tune-worker redis://HOST:PORT`, on any machine with the target
// CPU, reads jobs through the consumer group `workers`, measures them as the local tuner would
// (tune/measure.h), posts the result (time or error, and the outputs) on the job's reply stream,
// then acknowledges the job. A job a worker took and never acknowledged (the worker died) is
// claimed again by another worker once it has been idle `claim_idle_ms` (XAUTOCLAIM); a job that
// has been taken kMaxClaims times without a result is answered with an error instead, so a
// candidate that kills its worker cannot kill them all. The tuner keeps the first result per job
// (a worker that dies between posting and acknowledging makes a second one), so every trial is
// measured and recorded exactly once. Workers run the code they are sent: keep the Redis server
// on a network only trusted machines reach (as with TVM's RPC tracker).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "tune/measure.h"
#include "tune/redis_client.h"

namespace ingot::tune {

inline constexpr const char* kJobsStream = "ingot:tune:jobs";
inline constexpr const char* kWorkersGroup = "workers";
inline constexpr int kMaxClaims = 3;

// The tuner's side: one connection, one reply stream per tuning run.
class RemoteMeasurer {
 public:
  // wait_s: how long to wait without any new result before giving the rest up as errors.
  RemoteMeasurer(const RedisAddress& address, const MeasureOptions& options, double wait_s);
  ~RemoteMeasurer();
  // Measures the jobs on the workers; results in job order (each job's outputs written).
  std::vector<Measurement> measure(const std::vector<MeasureJob>& jobs);
  // Which worker measured each job of the last batch (for records and tests).
  const std::vector<std::string>& workers() const { return workers_; }

 private:
  RedisClient redis_;
  MeasureOptions options_;
  double wait_s_;
  std::string run_, reply_, last_ = "0-0";
  int next_ = 0;
  std::vector<std::string> workers_;
};

struct WorkerOptions {
  std::string name;           // consumer name (default: host-pid)
  std::string ingot;          // the ingot executable that runs the artifacts
  int claim_idle_ms = 60000;  // a job idle this long in a dead worker's hands is claimed again
  int max_jobs = 0;           // return after this many jobs (0: run until stopped)
  double idle_exit_s = 0;     // return after this long without a job (0: never)
  // For fault-injection tests: exit (code 3) right after taking this job (1-based), without
  // measuring or acknowledging it, as a worker killed mid-measurement would.
  int die_on_job = 0;
};

// The worker loop; returns the number of jobs it answered.
int run_worker(const RedisAddress& address, const WorkerOptions& options, std::ostream& log);

}  // namespace ingot::tune

// Running an artifact for measurement, shared by `ingot run` and `ingot measure`: inputs bound
// from a .npz or filled from a fixed seed, a cache flusher, timed samples, --min-repeat-ms, and
// outputs written to a .npz.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ingot/runtime.hpp"
#include "support/npz.h"

namespace ingot::cli {

std::string shape_string(const int64_t* shape, int ndim);
std::string dtype_string(IngotDType dtype);
size_t tensor_bytes(const IngotTensorInfo& info);

// Binds every input of `session`: from the .npz `inputs` ("" for none) by name, the rest filled
// per `fill_mode` (zeros, ones, random: uniform [0, 1) from a fixed seed; a specialised input with
// its compile-time value). An array named after a state (--kv-cache) is loaded as that cache's
// entries. Returns the buffers the session reads (keep them alive).
std::vector<NpyArray> bind_inputs(const std::string& inputs, const std::string& fill_mode,
                                  const rt::Model& model, rt::Session& session);

// Evicts the caches by streaming over twice the last-level cache (last_level_cache_bytes; 64 MiB
// when the size is not known), so a run starts cold, as a kernel does after a large neighbour in
// a model; then reads `read_back` (tune::CacheState::kModel: the run's inputs) into the cache
// again. At most 256 MiB: a flush that size would cost more than most runs it precedes.
class CacheFlusher {
 public:
  CacheFlusher();
  void flush(const std::vector<NpyArray>* read_back = nullptr);

 private:
  std::vector<uint64_t> buf_;
  volatile uint64_t sink_ = 0;
};

// Runs the session once. A model with states (--kv-cache) starts every run from the length that
// bind_inputs left (the states --inputs gave, or empty), so repeated runs time one step.
void run_step(rt::Session& session);

// `repeat` samples, each the mean of `number` runs, in milliseconds; with a flusher, each run
// starts after a flush (and `read_back` read into the cache again) that is not timed.
std::vector<double> time_runs(rt::Session& session, int repeat, int number, CacheFlusher* flusher,
                              const std::vector<NpyArray>* read_back = nullptr);

// --min-repeat-ms (as TVM's time evaluator): runs the model for about `min_ms` as a warm-up
// (threads awake, the clock up, caches and pages warm), and returns how many runs a sample needs
// to last at least `min_ms` (at least `number`). With `cache_flush` the warm-up only: each run
// is timed cold after its own flush, and a flush costs more than a short run, so `number` stays.
int runs_for_min_ms(rt::Session& session, double min_ms, int number, bool cache_flush);

// The session's outputs as a .npz (written atomically).
void write_outputs(const std::string& path, const rt::Session& session, const rt::Model& model);

}  // namespace ingot::cli

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
#include "tools/ingot/cache_evict.h"

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

// What `--cache-state model` restores before each timed run: the state a kernel finds inside a
// model larger than the cache, its own code and constants evicted by the rest of the model's
// (`memory`: artifact_memory) and its inputs just written by the kernels before it (`inputs`).
struct ModelState {
  const std::vector<NpyArray>* inputs = nullptr;
  std::vector<MemoryRange> memory;
  // `model`'s artifact memory and `inputs` (kept by the caller).
  static ModelState of(const rt::Model& model, const std::vector<NpyArray>& inputs);
  size_t memory_bytes() const;  // the bytes each flush evicts
};

// Starts a timed run from cold caches. Cold: by streaming over twice the last-level cache
// (last_level_cache_bytes; 64 MiB when the size is not known, at most 256 MiB: a flush that size
// would cost more than most runs it precedes), as a kernel finds them after a large neighbour.
// The model state: the artifact's memory evicted line by line (evict_lines; streamed where the
// CPU cannot), then its inputs read back into the cache. Eviction costs a pass over the
// artifact's own bytes, not over the cache: on a guest that reports a 480 MiB L3 a streaming
// flush took 256 MiB and ResNet-50's tuning would have run for hours.
class CacheFlusher {
 public:
  void flush(const ModelState* model = nullptr);

 private:
  void stream();
  std::vector<uint64_t> buf_;  // allocated at the first streaming flush
  volatile uint64_t sink_ = 0;
};

// Runs the session once. A model with states (--kv-cache) starts every run from the length that
// bind_inputs left (the states --inputs gave, or empty), so repeated runs time one step.
void run_step(rt::Session& session);

// `repeat` samples, each the mean of `number` runs, in milliseconds; with a flusher, each run
// starts after a flush (of `model`'s state where given) that is not timed.
std::vector<double> time_runs(rt::Session& session, int repeat, int number, CacheFlusher* flusher,
                              const ModelState* model = nullptr);

// --min-repeat-ms (as TVM's time evaluator): runs the model for about `min_ms` as a warm-up
// (threads awake, the clock up, caches and pages warm), and returns how many runs a sample needs
// to last at least `min_ms` (at least `number`). With `cache_flush` the warm-up only: each run
// is timed cold after its own flush, and a flush costs more than a short run, so `number` stays.
int runs_for_min_ms(rt::Session& session, double min_ms, int number, bool cache_flush);

// The session's outputs as a .npz (written atomically).
void write_outputs(const std::string& path, const rt::Session& session, const rt::Model& model);

}  // namespace ingot::cli

// Measurement of one candidate artifact in a separate process: `ingot run` on the artifact
// (inputs filled with the runtime's fixed-seed random values, so every candidate of a task sees
// the same data) with warm-up, repeat and number, the outputs written to an .npz. The result is
// the fastest sample: on a shared machine, interference only ever adds time, so the minimum is
// the steadiest estimate of what the code itself costs. A crash, a
// non-zero exit or a run past the timeout (the process is killed) costs that trial only and is
// reported as its error, never the tuner's.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ingot::tune {

struct MeasureOptions {
  std::string ingot;  // the ingot executable
  int repeat = 10;    // timing samples (the fastest is the result)
  int number = 3;     // runs averaged per sample (at least)
  // `ingot run --min-repeat-ms`: a warm-up of this long, and samples at least this long
  double min_repeat_ms = 10;
  int threads = 0;  // 0: the runtime's default
  double timeout_s = 20;
  // `ingot measure --cache-state`: what each timed run starts from, "warm", "cold" or "model"
  // (flushed, then the inputs read back); `ingot tune` resolves its "auto" per model
  // (resolve_cache_state).
  std::string cache_state = "warm";
  // `ingot measure --per-kernel` (batches only): single calls with the kernel profile on, and
  // each kernel's fastest call (Measurement::kernel_ms).
  bool per_kernel = false;
};

struct Measurement {
  double seconds = -1;                      // per run, of the fastest sample
  std::string error;                        // "" when measured
  std::string outputs;                      // the .npz the run wrote
  std::map<std::string, double> kernel_ms;  // per_kernel: each kernel's fastest call (ms)
  bool ok() const { return error.empty(); }
};

// Times `artifact` in a child process (`ingot measure`, its fastest sample at full precision);
// `outputs` is where its outputs go.
Measurement measure_artifact(const std::string& artifact, const std::string& outputs,
                             const MeasureOptions& o);

struct MeasureJob {
  std::string artifact;  // the candidate (.so) on the tuner's machine
  std::string outputs;   // where the tuner wants the outputs (.npz)
};

// Several candidates in one child process (`ingot measure`): loaded together, warmed up, then
// timed in rounds, one sample of each candidate per round, so that an interruption of this
// shared machine (seconds long, often twice the time) falls on every candidate's samples alike
// instead of on whichever candidate was running, and the fastest sample of each escapes it; one
// process start per batch instead of per candidate. A batch that crashes or hangs (timeout:
// per candidate x count) is measured again one candidate per process, so the failure is
// recorded against the candidate that caused it.
std::vector<Measurement> measure_artifacts(const std::vector<MeasureJob>& jobs,
                                           const MeasureOptions& o);

// What each timed run starts from (`--cache-state`): kWarm, the caches the previous run left
// (repeated runs of one kernel keep its constants cached); kCold, every cache flushed; kModel,
// flushed and then the inputs read back: the state a kernel finds inside a model larger than the
// cache, its inputs just written by the kernels before it and its constants evicted by the rest
// of the model's (docs/tune.md, "Candidates timed from the model's cache state").
enum class CacheState { kWarm, kCold, kModel };
// The state named "warm", "cold" or "model"; a UserError naming --cache-state otherwise.
CacheState parse_cache_state(const std::string& name);

// `state` ("auto" or a name parse_cache_state takes) with "auto" resolved for a model whose
// constants and workspace take `footprint` bytes on a host whose last-level cache holds `llc` (0:
// unknown): "model" when they exceed it (inside the model a kernel's constants are evicted by the
// rest of the model's between its runs, while its inputs were just written by the kernels before
// it), else "warm" (the whole model stays cached).
std::string resolve_cache_state(const std::string& state, uint64_t footprint, uint64_t llc);

// The options of a whole-model measurement (the conv algorithm choice, the check of tuned kernels
// in the model): single calls with the kernel profile on, from warm caches (the model is its own
// context), at least 20 rounds and a 60 s timeout.
MeasureOptions whole_model_options(const MeasureOptions& o);

// The largest |a - b| / (1 + |b|) over the arrays of two .npz files with the same members
// (float16/32/64, integers and bool), or +infinity when their members, shapes or dtypes differ,
// a dtype is not numeric, or an integer element differs at all (a schedule of exact integer
// arithmetic changes no bit).
double max_relative_difference(const std::string& a_npz, const std::string& b_npz);

}  // namespace ingot::tune

// Tuning records: JSON lines, one measured trial each (task key, target, rule, the kernel it was
// measured on, the trace with its decisions, seconds per call or the error), appended as trials
// finish so an interrupted run can resume. `ingot compile --tuning-records` replays the best
// trace of each task on every kernel of that task; records for another target or a compute the
// model no longer has are skipped and counted, never applied.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tir/module.h"

namespace ingot::tune {

struct TuningRecord {
  std::string task;      // task_key of the unscheduled kernel and target
  std::string target;    // the target string the trial was compiled and measured for
  std::string rule;      // the schedule rule that generated the trace
  std::string kernel;    // the kernel it was measured on (for people reading the file)
  nlohmann::json trace;  // schedule::Trace::to_json
  double seconds = -1;   // per call; meaningful only without an error
  std::string error;     // why the trial failed ("" when it was measured)
  // Measured again in the task's confirmation round (alternating with the other finalists and
  // the default schedule): where a task has confirmed records, its best is chosen among those.
  bool confirmed = false;
  // How the search came to it: "default", "random", "mutation", "model" (the cost model's
  // pick), "confirmation" (measured again), or "in-model" (the default or the task's best,
  // timed inside the whole model: seconds is its kernels' fastest call, averaged over them).
  std::string origin = {};
  std::string worker = {};  // the `ingot tune-worker` that measured it ("" when measured here)
  // Graph-level decisions (is_graph_decision): the digest of the model graph they were measured
  // on (graph/graph_digest.h), as they name nodes ("": any model, the records of session 38-40).
  std::string model = {};

  bool ok() const { return error.empty() && seconds > 0; }
  bool in_model() const { return origin == "in-model"; }
};

nlohmann::json record_to_json(const TuningRecord& r);
// UserError naming `where` (file:line) on a malformed record.
TuningRecord record_from_json(const nlohmann::json& j, const std::string& where);

// Every record of a JSON-lines file (blank lines skipped); UserError naming the file and line.
std::vector<TuningRecord> read_records(const std::string& path);
// Appends one record as a line and flushes it (UserError when the file cannot be written).
void append_record(const std::string& path, const TuningRecord& r);

// The fastest measured record per task key: among the task's in-model records where it has any,
// else among its confirmed records where it has any, else among all.
std::map<std::string, TuningRecord> best_records(const std::vector<TuningRecord>& records);

// Records of rule kConvAlgorithmRule are graph-level decisions, not schedules: `ingot tune`'s
// choice of algorithm for one 3x3 stride-1 convolution (graph pass winograd_conv), measured in
// the whole model. Task "conv_algorithm:<conv node>", kernel the conv node's name, trace
// {"tile": 0 | 2 | 4} (0: direct), seconds the conv's kernels' time in the model with that
// choice.
inline constexpr const char* kConvAlgorithmRule = "conv_algorithm";

// The conv decisions among `records` for `target` and the model of digest `model`: conv node
// name -> tile (the last record of a conv wins).
std::map<std::string, int> conv_algorithm_tiles(const std::vector<TuningRecord>& records,
                                                const std::string& target,
                                                const std::string& model);

// Records of rule kConvLayoutRule are graph-level decisions too: `ingot tune`'s layout plan,
// the output channel block of one groups = 1 convolution (graph pass layout_nchwc; every conv
// of a layout class, graph/transforms/layout_plan.h, gets the class's block), measured in the
// whole model. Task "conv_layout:<conv node>", kernel the conv node's name, trace
// {"block": B}, seconds the class's kernels' time in the model with that block.
inline constexpr const char* kConvLayoutRule = "conv_layout";

// The layout decisions among `records` for `target` and the model of digest `model`: conv
// node name -> block (the last record of a conv wins).
std::map<std::string, int64_t> conv_layout_blocks(const std::vector<TuningRecord>& records,
                                                  const std::string& target,
                                                  const std::string& model);

// Whether a graph-level decision is one for `target` and the model of digest `model`.
bool decision_applies(const TuningRecord& r, const char* rule, const std::string& target,
                      const std::string& model);
// The decisions of `rule` for `target` and `model` in the records file at `path` (none when it
// does not exist yet).
std::vector<TuningRecord> recorded_decisions(const std::string& path, const char* rule,
                                             const std::string& target, const std::string& model);

// The decisions of a trace (schedule::Trace::to_json) as one comparable string: the sampled
// values in order (two traces with equal decisions schedule a kernel alike).
std::string trace_decisions(const nlohmann::json& trace);

// Whether a record is a graph-level decision (conv algorithm or layout), not a kernel schedule.
bool is_graph_decision(const TuningRecord& r);

struct RecordsApplied {
  int kernels_from_records = 0;  // kernels whose schedule is a record's trace
  int tasks_from_records = 0;
  int kernels_default = 0;  // schedulable kernels without a usable record
  int records_skipped = 0;  // best records of another target, an absent task, or not replaying
};

// Replays, on each schedulable (still unscheduled) kernel of `mod`, the best record of its task
// for `target`, and stores the trace in PrimFunc::schedule_trace; the rest keep their rule for
// the default-schedule stage.
RecordsApplied apply_records(tir::IRModule& mod, const std::vector<TuningRecord>& records,
                             const std::string& target);

// One line for the compile's output: "tuning records: ...".
std::string describe(const RecordsApplied& a);

}  // namespace ingot::tune

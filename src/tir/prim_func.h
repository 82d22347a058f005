// A PrimFunc is one kernel: buffer parameters and a loop-IR body.
#pragma once

#include <string>
#include <vector>

#include "tir/buffer.h"
#include "tir/param_layout.h"
#include "tir/stmt.h"

namespace ingot::tir {

struct PrimFunc {
  std::string name;            // unique within a module, a valid C identifier
  std::vector<Buffer> params;  // all scope kGlobal; codegen passes one pointer per param
  Stmt body;
  double flops = 0;        // floating point operations per call (for profiling/roofline)
  double bytes_moved = 0;  // compulsory bytes read + written per call
  // The default schedule rule that applies to this block-form kernel ("" = none: the body is
  // already in loop form). Set by schedule::assign_schedule_rules after lowering, read by
  // schedule::apply_default_schedules.
  // The rule keeps its name after scheduling (reports); the trace that rule recorded (JSON
  // text of schedule::Trace, "" when unscheduled): what a tuner starts from and `--dump traces`
  // prints.
  std::string schedule_rule = {};
  std::string schedule_trace = {};
  // The graph ops this kernel computes, e.g. {"Conv", "BatchNormalization", "Relu"} (reports).
  std::vector<std::string> source_ops = {};
  // int64 scalars after the buffers: the symbols this kernel's shapes and loops use (the entry
  // passes the values bound at run time; IRModule::symbols by name).
  std::vector<Var> shape_vars = {};
  // Parameters (indices) bound to constants at every call (set by lowering): a schedule may give
  // them another layout (layouts), which the module's constants then take after scheduling
  // (tir/transforms/apply_param_layouts.h).
  std::vector<int> constant_params = {};
  struct ParamLayout {
    int param = -1;
    std::vector<int64_t> shape;  // the parameter's shape before
    TiledLayout layout;
  };
  std::vector<ParamLayout> layouts = {};
  // Parameters the schedule added (cache_read into "global"): scratch memory for one call,
  // which the module binds to a workspace region after scheduling.
  std::vector<int> scratch_params = {};
};

}  // namespace ingot::tir

// The loop-level passes between the schedule stage and codegen, in order, as one list the
// compile (which can print the IR after each) and the tuner (which builds candidates) share.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tir/module.h"

namespace ingot::driver {

struct LoopPass {
  std::string stage;  // as in pipeline_stage_names()
  std::function<tir::PrimFunc(tir::PrimFunc)> run;
  bool gpu = true;  // also for GPU targets (no unrolling or CPU vector code there yet)
  bool cpu = true;  // also for CPU targets
};

const std::vector<LoopPass>& loop_passes();

// Every loop pass of the target's kind (GPU or CPU) over every kernel of `mod`.
void run_loop_passes(tir::IRModule& mod, bool gpu = false);

}  // namespace ingot::driver

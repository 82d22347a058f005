// The loop-level passes after scheduling (see loop_passes.h).
#include "driver/loop_passes.h"

#include "tir/transforms/compact_buffers.h"
#include "tir/transforms/double_buffer.h"
#include "tir/transforms/flatten_buffers.h"
#include "tir/transforms/hoist_guards.h"
#include "tir/transforms/lower_blocks.h"
#include "tir/transforms/simplify.h"
#include "tir/transforms/unroll_loops.h"
#include "tir/transforms/vectorize_loops.h"

namespace ingot::driver {

const std::vector<LoopPass>& loop_passes() {
  static const std::vector<LoopPass> passes = {
      {"lower_blocks", [](tir::PrimFunc f) { return tir::lower_blocks(std::move(f)); }, true},
      {"hoist_guards", [](tir::PrimFunc f) { return tir::hoist_guards(std::move(f)); }, false},
      {"compact_buffers", [](tir::PrimFunc f) { return tir::compact_buffers(std::move(f)); }, true,
       false},
      // (CPU: local buffers only, schedule primitive set_scope's.)
      {"compact_buffers",
       [](tir::PrimFunc f) { return tir::compact_buffers(std::move(f), /*local_only=*/true); },
       false, true},
      {"double_buffer", [](tir::PrimFunc f) { return tir::double_buffer(std::move(f)); }, true,
       false},
      {"unroll_loops", [](tir::PrimFunc f) { return tir::unroll_loops(std::move(f), 64); }, false},
      {"vectorize_loops", [](tir::PrimFunc f) { return tir::vectorize_loops(std::move(f)); },
       false},
      {"flatten_buffers", [](tir::PrimFunc f) { return tir::flatten_buffers(std::move(f)); }, true},
      {"simplify", [](tir::PrimFunc f) { return tir::simplify(std::move(f)); }, true},
  };
  return passes;
}

void run_loop_passes(tir::IRModule& mod, bool gpu) {
  for (const LoopPass& p : loop_passes())
    if (gpu ? p.gpu : p.cpu)
      for (tir::PrimFunc& f : mod.kernels) f = p.run(std::move(f));
}

}  // namespace ingot::driver

// Primitive parallel: the loop's iterations run on the runtime thread pool.
#include "schedule/primitives/common.h"

namespace ingot::schedule {

using namespace tir;

class ParallelError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// Preconditions:
// - the loop is serial (or already parallel);
// - no block inside binds a reduction iter var to an expression of the loop variable
//   (iterations would race on the same output).
void Schedule::parallel(LoopRV loop) {
  LoopInfo li = loop_info(*this, loop);
  std::string name = li.node->loop_var.name();
  // 1. Check the kind and that the loop carries no reduction.
  if (li.node->kind != ForKind::kSerial && li.node->kind != ForKind::kParallel)
    fail_schedule<ParallelError>("cannot parallelize loop {}: it is already {}", qname(name),
                                 for_kind_name(li.node->kind));
  if (auto r = reduce_use(li.node->body, li.node->loop_var.node()))
    fail_schedule<ParallelError>("cannot parallelize loop {}: it carries {}", qname(name), *r);
  // 2. Mark it; record.
  set_loop_kind(*this, li, ForKind::kParallel);
  record({"parallel", {rv_name(loop)}, nlohmann::json::object(), {}, {}});
}

}  // namespace ingot::schedule

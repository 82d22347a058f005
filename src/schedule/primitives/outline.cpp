// Primitive outline: the loop is compiled as its own never-inlined function (ForKind::kOutlined).
// A register tile followed by an epilogue with polynomial math (SiLU, GELU) in one function lets
// the backend hoist the epilogue's constants out of every loop, where they take the registers the
// tile's accumulators need and push them onto the stack inside the reduction loop; in a function
// of their own the constants are loaded once per call, after the tile.
#include "schedule/primitives/common.h"
#include "tir/op.h"

namespace ingot::schedule {

using namespace tir;

class OutlineError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// Preconditions: the loop is serial (or already outlined).
void Schedule::outline(LoopRV loop) {
  LoopInfo li = loop_info(*this, loop);
  if (li.node->kind != ForKind::kSerial && li.node->kind != ForKind::kOutlined)
    fail_schedule<OutlineError>("cannot outline loop {}: it is {}", qname(li.node->loop_var.name()),
                                for_kind_name(li.node->kind));
  set_loop_kind(*this, li, ForKind::kOutlined);
  record({"outline", {rv_name(loop)}, nlohmann::json::object(), {}, {}});
}

}  // namespace ingot::schedule

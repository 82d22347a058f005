// Primitive unroll: the loop is fully unrolled by codegen.
#include "schedule/primitives/common.h"
#include "tir/op.h"

namespace ingot::schedule {

using namespace tir;

class UnrollError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// Preconditions: the loop is serial (or already unrolled) with a constant extent.
void Schedule::unroll(LoopRV loop) {
  LoopInfo li = loop_info(*this, loop);
  std::string name = li.node->loop_var.name();
  // 1. Check kind and extent.
  if (li.node->kind != ForKind::kSerial && li.node->kind != ForKind::kUnrolled)
    fail_schedule<UnrollError>("cannot unroll loop {}: it is already {}", qname(name),
                               for_kind_name(li.node->kind));
  if (!is_const_int(li.node->extent))
    fail_schedule<UnrollError>("cannot unroll loop {}: its extent {} is not a constant",
                               qname(name), to_string(li.node->extent));
  // 2. Mark it; record.
  set_loop_kind(*this, li, ForKind::kUnrolled);
  record({"unroll", {rv_name(loop)}, nlohmann::json::object(), {}, {}});
}

}  // namespace ingot::schedule

// Primitive vectorize: the loop's body becomes vector code across its iterations.
#include "schedule/primitives/common.h"
#include "tir/op.h"

namespace ingot::schedule {

using namespace tir;

class VectorizeError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// Preconditions:
// - the loop is serial (or already vectorized); a symbolic extent (a kernel over symbolic dims)
//   is vectorized by the backend's loop vectorizer, with its own remainder loop, rather than
//   into vector IR by vectorize_loops;
// - no block inside binds a reduction iter var to an expression of the loop variable, unless the
//   extent is symbolic: then the backend's loop vectorizer may carry the reduction in vector
//   lanes (partial sums, combined after the loop, as rfactor does for a constant extent), which
//   reorders a floating-point sum.
void Schedule::vectorize(LoopRV loop) {
  LoopInfo li = loop_info(*this, loop);
  std::string name = li.node->loop_var.name();
  // 1. Check kind and reductions.
  if (li.node->kind != ForKind::kSerial && li.node->kind != ForKind::kVectorized)
    fail_schedule<VectorizeError>("cannot vectorize loop {}: it is already {}", qname(name),
                                  for_kind_name(li.node->kind));
  if (auto r = reduce_use(li.node->body, li.node->loop_var.node());
      r && is_const_int(li.node->extent))
    fail_schedule<VectorizeError>("cannot vectorize loop {}: it carries {}", qname(name), *r);
  // 2. Mark it; record.
  set_loop_kind(*this, li, ForKind::kVectorized);
  record({"vectorize", {rv_name(loop)}, nlohmann::json::object(), {}, {}});
}

}  // namespace ingot::schedule

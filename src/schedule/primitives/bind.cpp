// Primitive bind: the loop is mapped to a GPU thread axis (blockIdx.x/y/z, threadIdx.x/y/z).
// Legality is checked here even though only a GPU backend can run the result.
#include "schedule/primitives/common.h"
#include "tir/op.h"
#include "tir/reduction.h"
#include "tir/visitor.h"

namespace ingot::schedule {

using namespace tir;

class BindError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// Preconditions:
// - thread is one of blockIdx.x/y/z, threadIdx.x/y/z;
// - the loop is serial;
// - no block inside binds a reduction iter var to the loop variable, except a cross-thread
//   reduction: a threadIdx axis bound to a loop whose body is one block without init, a plain
//   reduction into a local buffer (out[i] = combine(out[i], value), the combine block rfactor
//   leaves of a row's accumulator), which the GPU lowering turns into a tree across the
//   threads (codegen/gpu/thread_reduction.h);
// - a loop around or inside it bound to the same thread axis has the same constant extent: the
//   inner one is then the same threads again (a cooperative copy into shared memory under a
//   loop of the threads that read it), which in sequential order repeats the inner loop's work.
void Schedule::bind(LoopRV loop, const std::string& thread) {
  static const char* kAxes[] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z",
                                "threadIdx.x", "threadIdx.y", "threadIdx.z"};
  LoopInfo li = loop_info(*this, loop);
  std::string name = li.node->loop_var.name();
  // 1. Check the axis name, the loop kind and reductions.
  bool known = false;
  for (const char* a : kAxes) known = known || thread == a;
  if (!known)
    fail_schedule<BindError>(
        "cannot bind loop {} to {}: not a thread axis (use blockIdx.x/y/z or threadIdx.x/y/z)",
        qname(name), qname(thread));
  if (li.node->kind != ForKind::kSerial)
    fail_schedule<BindError>("cannot bind loop {}: it is already {}", qname(name),
                             for_kind_name(li.node->kind));
  auto cross_thread = [&] {
    const auto* br = li.node->body.as<BlockRealize>();
    if (!thread.starts_with("threadIdx") || br == nullptr) return false;
    const Block* b = br->block_node();
    const auto* st = b->body.as<BufferStore>();
    return !b->init.defined() && st != nullptr && st->buffer->scope == StorageScope::kLocal &&
           match_combining_store(*st).has_value();
  };
  if (auto r = reduce_use(li.node->body, li.node->loop_var.node()); r && !cross_thread())
    fail_schedule<BindError>(
        "cannot bind loop {} to {}: it carries {} (only a threadIdx loop directly around a "
        "block that just combines into a local buffer reduces across threads)",
        qname(name), thread, *r);
  // 2. The same axis may not be bound twice in one nest.
  int64_t extent = 0;
  const bool constant = is_const_int(li.node->extent, &extent);
  struct Tagged : IRVisitor {
    std::string tag, hit;
    int64_t extent = 0;
    bool constant = false;
    void check(const For* op) {
      int64_t e = 0;
      if (op->thread_tag == tag && !(constant && is_const_int(op->extent, &e) && e == extent))
        hit = op->loop_var.name();
    }
    void visit_For(const For* op, const Stmt& s) override {
      check(op);
      IRVisitor::visit_For(op, s);
    }
  } t;
  t.tag = thread;
  t.extent = extent;
  t.constant = constant;
  t.visit(li.node->body);
  for (const Stmt& o : li.outer) t.check(o.as<For>());
  if (!t.hit.empty())
    fail_schedule<BindError>(
        "cannot bind loop {} to {}: loop {} in the same nest is bound to it with another extent",
        qname(name), thread, qname(t.hit));
  // 3. Mark it; record.
  set_loop_kind(*this, li, ForKind::kThreadBinding, thread);
  record({"bind", {rv_name(loop)}, {{"thread", thread}}, {}, {}});
}

}  // namespace ingot::schedule

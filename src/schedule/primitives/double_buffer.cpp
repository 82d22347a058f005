// Primitive double_buffer: a serial loop of constant extent whose body opens with copies into
// shared buffers (cache_read stages computed at it) and then reads them becomes
// ForKind::kDoubleBuffered; the GPU loop passes give each copy a second buffer and run it one
// iteration ahead (tir/transforms/double_buffer.h). The loop's semantics are unchanged, so the
// CPU interpreter may run it as a serial loop.
#include "tir/transforms/double_buffer.h"
#include "schedule/primitives/common.h"
#include "tir/op.h"

namespace ingot::schedule {

using namespace tir;

class DoubleBufferError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// Preconditions: the loop is serial (or already double-buffered) with a constant extent; its
// body splits as split_double_buffered says; the copies' buffers are read and written nowhere
// outside the loop (a second buffer would not hold what they read there).
void Schedule::double_buffer(LoopRV loop) {
  LoopInfo li = loop_info(*this, loop);
  const std::string name = qname(li.node->loop_var.name());
  if (li.node->kind != ForKind::kSerial && li.node->kind != ForKind::kDoubleBuffered)
    fail_schedule<DoubleBufferError>("cannot double-buffer loop {}: it is {}", name,
                                     for_kind_name(li.node->kind));
  if (!is_const_int(li.node->extent))
    fail_schedule<DoubleBufferError>("cannot double-buffer loop {}: its extent is not constant",
                                     name);
  std::string why;
  std::optional<DoubleBufferedBody> parts = split_double_buffered(li.node->body, &why);
  if (!parts) fail_schedule<DoubleBufferError>("cannot double-buffer loop {}: {}", name, why);
  // The accesses outside the loop: the function's, with the loop's body left out.
  struct Outside : IRVisitor {
    const StmtNode* skip = nullptr;
    std::set<const BufferNode*> touched;
    void visit_stmt(const Stmt& s) override {
      if (s.get() != skip) IRVisitor::visit_stmt(s);
    }
    void visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
      touched.insert(op->buffer.get());
      IRVisitor::visit_BufferLoad(op, e);
    }
    void visit_BufferStore(const BufferStore* op, const Stmt& s) override {
      touched.insert(op->buffer.get());
      IRVisitor::visit_BufferStore(op, s);
    }
  } outside;
  outside.skip = li.node->body.get();
  outside.visit(func().body);
  for (const BufferNode* b : parts->buffers)
    if (outside.touched.count(b) > 0)
      fail_schedule<DoubleBufferError>(
          "cannot double-buffer loop {}: shared buffer {} is also accessed outside it", name,
          qname(b->name));
  set_loop_kind(*this, li, ForKind::kDoubleBuffered);
  record({"double_buffer", {rv_name(loop)}, nlohmann::json::object(), {}, {}});
}

}  // namespace ingot::schedule

// Primitive set_scope: a buffer a block writes, allocated in the function or a scratch parameter
// (a kernel's own workspace, PrimFunc::scratch_params), gets another storage scope ("local",
// "shared"), allocated at the root (TVM's set_scope). A local buffer is then the kernel's own
// memory, which the loop pass compact_buffers shrinks to the region each iteration of the loop
// around all its accesses touches (an 8-bit conv's int32 sums: one register tile's, per strip).
#include "schedule/ir_utils.h"
#include "schedule/primitives/common.h"

namespace ingot::schedule {

using namespace tir;

class SetScopeError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// Preconditions:
// - write_buffer_index indexes the block's writes;
// - that buffer is allocated at the root or is a scratch parameter (no other parameter);
// - scope is "local" or "shared".
void Schedule::set_scope(BlockRV block, int write_buffer_index, const std::string& scope) {
  BlockInfo bi = block_info(*this, block);
  std::string what = "set_scope of block " + qname(bi.block->name_hint);
  if (write_buffer_index < 0 || size_t(write_buffer_index) >= bi.block->writes.size())
    fail_schedule<SetScopeError>("cannot {}: write index {} is out of range (it writes {} buffers)",
                                 what, write_buffer_index, bi.block->writes.size());
  const StorageScope sc = cache_scope(scope, what);
  const Buffer src = bi.block->writes[size_t(write_buffer_index)].buffer;
  int param = -1;
  for (size_t k = 0; k < func_.params.size(); ++k)
    if (func_.params[k].get() == src.get()) param = int(k);
  const bool scratch =
      param >= 0 && std::find(func_.scratch_params.begin(), func_.scratch_params.end(), param) !=
                        func_.scratch_params.end();
  if (param >= 0 && !scratch)
    fail_schedule<SetScopeError>("cannot {}: buffer {} is a parameter of the kernel", what,
                                 qname(src->name));
  const Buffer dst =
      Buffer::make(src->name, src->dtype, src->shape, sc, src->strides, src->alignment);
  Stmt body = replace_buffer(func_.body, src, dst);
  const BufferNode* drop = nullptr;
  if (scratch) {
    func_.params.erase(func_.params.begin() + param);
    std::vector<int> kept;
    for (int p : func_.scratch_params)
      if (p != param) kept.push_back(p > param ? p - 1 : p);
    func_.scratch_params = kept;
  } else {
    drop = dst.get();  // (replace_buffer renamed the root's allocation too)
  }
  set_body(rebuild_root(body, root_seq(body), {dst}, drop));
  record({"set_scope",
          {rv_name(block)},
          {{"buffer_index", write_buffer_index}, {"scope", scope}},
          {},
          {}});
}

}  // namespace ingot::schedule

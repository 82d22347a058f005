// Primitive storage_align: pads the stride of one axis of a buffer the block writes so that
// stride % factor == offset (avoids bank conflicts / cache-set aliasing). Outer strides follow.
#include "schedule/primitives/common.h"
#include "tir/op.h"

namespace ingot::schedule {

using namespace tir;

class StorageAlignError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// Preconditions:
// - buffer_index indexes the block's writes; that buffer is allocated in the function (not a
//   parameter) and has a constant shape;
// - 0 <= axis < ndim - 1 is not required: any axis; factor >= 1 and 0 <= offset < factor.
void Schedule::storage_align(BlockRV block, int buffer_index, int axis, int factor, int offset) {
  BlockInfo bi = block_info(*this, block);
  std::string what = "storage_align block " + qname(bi.block->name_hint);
  // 1. Check the arguments.
  if (buffer_index < 0 || size_t(buffer_index) >= bi.block->writes.size())
    fail_schedule<StorageAlignError>("cannot {}: write index {} is out of range", what,
                                     buffer_index);
  Buffer buf = bi.block->writes[size_t(buffer_index)].buffer;
  if (is_param(func_.params, buf.get()))
    fail_schedule<StorageAlignError>("cannot {}: {} is a function parameter", what,
                                     qname(buf->name));
  if (axis < 0 || axis >= buf.ndim() || factor < 1 || offset < 0 || offset >= factor)
    fail_schedule<StorageAlignError>(
        "cannot {}: axis {} / factor {} / offset {} invalid for {}-d buffer {}", what, axis, factor,
        offset, buf.ndim(), qname(buf->name));
  std::vector<int64_t> shape;
  for (const Expr& d : buf->shape) {
    int64_t v = 0;
    if (!is_const_int(d, &v))
      fail_schedule<StorageAlignError>("cannot {}: {} has a symbolic shape", what,
                                       qname(buf->name));
    shape.push_back(v);
  }
  // 2. Strides: dense (or existing) inner ones; the aligned axis padded up; outer ones follow.
  std::vector<int64_t> strides(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    int64_t s = k + 1 == shape.size() ? 1 : strides[k + 1] * shape[k + 1];
    if (!buf->strides.empty()) is_const_int(buf->strides[k], &s);
    if (int(k) == axis)
      while (s % factor != offset) ++s;
    if (int(k) < axis && k + 1 < shape.size()) s = std::max(s, strides[k + 1] * shape[k + 1]);
    strides[k] = s;
  }
  std::vector<Expr> st;
  for (int64_t s : strides) st.push_back(i64(s));
  Buffer nb = Buffer::make(buf->name, buf->dtype, buf->shape, buf->scope, st, buf->alignment);
  // 3. Replace the buffer everywhere (accesses, regions, its allocation).
  set_body(replace_buffer(func_.body, buf, nb));
  // 4. Record.
  record({"storage_align",
          {rv_name(block)},
          {{"buffer_index", buffer_index}, {"axis", axis}, {"factor", factor}, {"offset", offset}},
          {},
          {}});
}

}  // namespace ingot::schedule

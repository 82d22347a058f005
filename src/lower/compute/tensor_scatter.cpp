// Compute rule of TensorScatter in gather form: each cache position p along the axis takes
// update[s] with s = p - write_indices[batch] (modulo the cache length in circular mode) when
// 0 <= s < the update's length, else past_cache[p]. Update indices are clamped so the select
// never reads out of bounds.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

Stmt compute_tensor_scatter(const graph::Node& node, const std::vector<Buffer>& inputs,
                            const std::vector<Buffer>& outputs) {
  const Buffer& past = inputs.at(0);
  const Buffer& upd = inputs.at(1);
  Buffer wi = inputs.size() > 2 ? inputs[2] : Buffer();
  const Buffer& y = outputs.at(0);
  check_dtype(node, past, DTypeClass::kAny);
  int axis = node_axis(node, -2, y.ndim());
  bool circular = node.attrs.get_string("mode", "linear") == "circular";
  int64_t cache_len = const_shape(past)[size_t(axis)];
  int64_t seq = const_shape(upd)[size_t(axis)];
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    if (seq == 0) return BufferStore::make(y, past.load(idx), idx);
    Expr s = idx[size_t(axis)];
    if (wi.defined()) s = s - cast(DataType::i64(), wi.load({idx[0]}));
    if (circular) s = floormod(s, i64(cache_len));
    Expr inside = s < i64(seq);
    if (!circular) inside = (s >= i64(0)) && inside;
    Index ui = idx;
    ui[size_t(axis)] = max(min(s, i64(seq - 1)), i64(0));
    return BufferStore::make(y, select(inside, upd.load(ui), past.load(idx)), idx);
  });
}

}  // namespace ingot::lower

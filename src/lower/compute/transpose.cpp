// Compute rule of Transpose: out[i0, ..., ik] = in[j] with j[perm[d]] = i[d].
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

Stmt compute_transpose(const graph::Node& node, const std::vector<Buffer>& inputs,
                       const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kAny);
  int rank = x.ndim();
  std::vector<int64_t> perm = node.attrs.get_ints("perm");
  if (perm.empty())
    for (int d = rank - 1; d >= 0; --d) perm.push_back(d);
  INGOT_ICHECK(int(perm.size()) == rank, "{}: perm of length {} for rank {}", node_label(node),
               perm.size(), rank);
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    Index xi(rank);
    for (int d = 0; d < rank; ++d) xi[perm[d]] = idx[d];
    return BufferStore::make(y, x.load(xi), idx);
  });
}

}  // namespace ingot::lower

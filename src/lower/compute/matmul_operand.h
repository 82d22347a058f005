// A MatMul operand as the product reads it: through the transposed view `perm_a` / `perm_b` that
// fold_transpose_matmul records, and with numpy-broadcast batch dims. Shared by the row form
// (matmul.cpp) and the block form (matmul_block.cpp) of the products.
#pragma once

#include <cstdint>
#include <vector>

#include "lower/compute/common.h"

namespace ingot::lower {

struct OperandView {
  tir::Buffer buf;
  std::vector<int64_t> perm;  // empty: the buffer itself
  std::vector<int64_t> shape() const {
    std::vector<int64_t> s = const_shape(buf);
    if (perm.empty()) return s;
    std::vector<int64_t> v;
    for (int64_t p : perm) v.push_back(s[size_t(p)]);
    return v;
  }
  tir::Expr load(const Index& idx) const {
    if (perm.empty()) return buf.load(idx);
    Index phys(idx.size());
    for (size_t d = 0; d < perm.size(); ++d) phys[size_t(perm[d])] = idx[d];
    return buf.load(phys);
  }
};

// The batch index of an operand of `shape` (its dims before its `matrix_rank` matrix dims) for
// the output's batch index `batch` (`batch_rank` dims), numpy-broadcast.
inline Index operand_batch_index(const std::vector<int64_t>& shape, int matrix_rank, int batch_rank,
                                 const Index& batch) {
  Index idx;
  int rank = int(shape.size()) - matrix_rank;
  for (int d = 0; d < rank; ++d)
    idx.push_back(shape[size_t(d)] == 1 ? tir::i64(0) : batch[size_t(batch_rank - rank + d)]);
  return idx;
}

}  // namespace ingot::lower

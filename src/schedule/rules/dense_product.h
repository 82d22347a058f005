// The dense product as lowering describes it (lower/compute/matmul_block.cpp), found by its
// pattern for the matmul rules (matmul.h, matmul_symbolic_rows.h), and the operand layouts they
// give it: block "matmul" at the root over its own loops [batch..,] i, j and a reduce k,
// C[[b,] i, j] = C[..] + A[[b,] i, k] * B[[b,] k, j], all float32, A and B each possibly read
// transposed (A[[b,] k, i], B[[b,] j, k]), B batched only when the block is; the init zero or one
// bias row (a load indexed by j or by constants only, maybe scaled).
#pragma once

#include <optional>
#include <string>

#include "schedule/ir_utils.h"
#include "schedule/schedule.h"
#include "tir/prim_func.h"

namespace ingot::schedule {

struct DenseProduct {
  bool batched = false;
  std::string a, b, bias;  // buffer names ("" bias: none to lay out)
  // Per operand, the dims of its buffer that the block's row (A) or column (B) and the depth k
  // index (any other dim is the batch or a constant 0).
  int a_rows = -1, a_depth = -1, b_cols = -1, b_depth = -1;
  bool b_constant = false;
  int bias_axis = -1;  // the bias dim indexed by j
};

// Block `name` ("matmul", or a conv's "conv") at the root of `f` (the function's body before a
// schedule wraps it in the root block), alone of its name, its iter vars [spatial..., one
// reduce] each bound to its own serial loop in that order, these being all the loops around
// it, with an init: the shape every product rule's pattern starts from (match_dense,
// match_dequant_matmul, is_block_product, is_direct_conv).
std::optional<BlockInfo> product_block_info(const tir::PrimFunc& f,
                                            const std::string& name = "matmul");

// A product block [i, j | k] accumulating C[i, j] = C[i, j] + x * y, C of dtype `acc`, j and k
// constant, K a multiple of `k_multiple` (i constant too with `static_rows`), its init zero or a
// constant bias row bias[j] of C's dtype: the iter vars, the product x * y (from which the 8-bit
// and bfloat16 rules read their operands: widened_operand) and the bias ("" when zero).
struct PanelProductBlock {
  tir::Var i, j, k;
  const tir::Mul* product = nullptr;
  std::string bias;
};
std::optional<PanelProductBlock> match_panel_product(const tir::PrimFunc& f, tir::DataType acc,
                                                     int64_t k_multiple, bool static_rows);

// The buffer that `e`, a cast to `to` of a load at indices (p, q) (each a plain var), reads, or
// null.
const tir::BufferLoad* widened_operand(const tir::Expr& e, const tir::Var& p, const tir::Var& q,
                                       tir::DataType to);

// The product of `f`, when it has that form: every loop extent constant, or with
// `symbolic_rows` the row count symbolic (a sequence length; then B is one 2-D constant and
// nothing is batched) and the others constant.
std::optional<DenseProduct> match_dense(const tir::PrimFunc& f, bool symbolic_rows);

// The read index of the buffer named `name` in block "matmul".
int read_index(const Schedule& s, const std::string& name);

// The rank of the buffer named `name` that block "matmul" reads.
int rank_of(const Schedule& s, const std::string& name);

// A matrix operand in panels of `width` along its dim `split` (the rows of A, the columns of
// B), the depth dim `depth` between: [its other dims in order (the batch), panels, depth,
// width]. Its buffer has `rank` dims.
void panel_layout(Schedule& s, BlockRV c, const std::string& name, int rank, int split, int depth,
                  int width);

}  // namespace ingot::schedule

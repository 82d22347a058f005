// Default schedule of a product by bfloat16 weights (rule kBFloat16MatmulRule; --dtype bfloat16,
// docs/bfloat16.md): the block lowering gives MatMul and Gemm with bfloat16 operands and a
// float32 output (lower/compute/matmul_block.cpp)
//   C[i, j] = bias[j] (or 0);  C[i, j] = C[i, j] + float32(A[i, k]) * float32(B[k, j])
// with A bfloat16 [rows, K], B a constant bfloat16 [K, N], K even, C float32. The schedule, as the
// 8-bit rule's (int8_matmul.h) with pairs for its groups:
// - the depth in pairs and B re-laid out at compile time into NR-column panels with each column's
//   pair adjacent, [N/NR, K/2, NR, 2] (the layout VDPBF16PS reads); the bias row padded to whole
//   panels;
// - tiles of MR rows x NR columns over the whole depth by the bfloat16 micro-kernel
//   (intrin/bf16_dot.h), the rows past the last whole tile one at a time;
// - parallel over groups of column panels; the kernel's epilogue pass (bias, activation,
//   residual) right after each tile; other blocks by the injective rule.
// x86 only (AArch64 bfloat16 products keep the row form). Choices (sampling instructions, defaults
// in brackets): the panel width (1 to 3 vectors [2]), the tile's rows and the panels per task.
#pragma once

#include <optional>
#include <string>

#include "schedule/rules/default_rules.h"
#include "schedule/schedule.h"
#include "tir/prim_func.h"

namespace ingot::schedule {

struct BFloat16Product {
  std::string a, b, bias;  // buffer names ("" bias: the init is zero)
};

// The product of `f` in the form above, or nullopt.
std::optional<BFloat16Product> match_bf16_matmul(const tir::PrimFunc& f);
bool is_bf16_matmul(const tir::PrimFunc& f);

void schedule_bf16_matmul(Schedule& s, const RuleTarget& t);

}  // namespace ingot::schedule

// Default schedule of a product by bfloat16 weights (rule kBFloat16MatmulRule; --dtype bfloat16,
// docs/bfloat16.md): the block lowering gives MatMul and Gemm with bfloat16 operands and a
// float32 output (lower/compute/matmul_block.cpp)
//   C[i, j] = bias[j] (or 0);  C[i, j] = C[i, j] + float32(A[i, k]) * float32(B[k, j])
// with A bfloat16 [rows, K], B a constant bfloat16 [K, N], K even, C float32. The schedule is
// the panel products' (rules/panel_product.h) with pairs for its groups: B in [N/NR, K/2, NR, 2]
// panels (the layout VDPBF16PS reads), the bfloat16 micro-kernel (intrin/bf16_dot.h), the
// kernel's epilogue (bias, activation, residual) after each tile. x86 only (AArch64 bfloat16
// products keep the row form).
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

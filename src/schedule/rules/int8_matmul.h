// Default schedule of an 8-bit integer product (rule kInt8MatmulRule): the block lowering gives
// QMatMul and IntMatMul with their zero points folded away (lower/compute/qlinear.cpp),
//   C[i, j] = bias[j] (or 0);  C[i, j] = C[i, j] + int32(A[i, k]) * int32(B[k, j])
// with A uint8 or int8 (a run-time [rows, K], rows possibly symbolic), B a constant int8 [K, N],
// K a multiple of 4, C int32 (the product's accumulator; QMatMul's requantization is the pass
// after it). The schedule is the panel products' (rules/panel_product.h: B in [N/NR, K/G, NR, G]
// panels laid out at compile time, tiles over the whole depth, parallel over panel groups, the
// epilogue after each tile while it is in cache, its sampled panel width, tile rows and panels
// per task) with G = 4 where the target multiplies A's type by int8 in quads
// (RuleTarget::int8_quads: VNNI, AArch64 dotprod or i8mm; int8_signed_quads: AArch64 SDOT),
// else 2 (int16 pairs, VPMADDWD), and the integer micro-kernel (intrin/int8_dot.h).
#pragma once

#include <optional>
#include <string>

#include "schedule/rules/default_rules.h"
#include "schedule/schedule.h"
#include "tir/prim_func.h"

namespace ingot::schedule {

struct Int8Product {
  std::string a, b, bias;  // buffer names ("" bias: the init is zero)
  bool a_signed = false;
};

// The product of `f` in the form above, or nullopt.
std::optional<Int8Product> match_int8_matmul(const tir::PrimFunc& f);
bool is_int8_matmul(const tir::PrimFunc& f);

void schedule_int8_matmul(Schedule& s, const RuleTarget& t);

}  // namespace ingot::schedule

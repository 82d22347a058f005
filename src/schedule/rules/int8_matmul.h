// Default schedule of an 8-bit integer product (rule kInt8MatmulRule): the block lowering gives
// QMatMul and IntMatMul with their zero points folded away (lower/compute/qlinear.cpp),
//   C[i, j] = bias[j] (or 0);  C[i, j] = C[i, j] + int32(A[i, k]) * int32(B[k, j])
// with A uint8 or int8 (a run-time [rows, K], rows possibly symbolic), B a constant int8 [K, N],
// K a multiple of 4, C int32 (the product's accumulator; QMatMul's requantization is the pass
// after it). The schedule:
// - the depth in groups of G and B re-laid out at compile time into NR-column panels with each
//   column's G bytes adjacent, [N/NR, K/G, NR, G]; the bias row padded to whole panels;
//   G = 4 where the target multiplies uint8 x int8 quads (RuleTarget::int8_quads: VNNI), else 2
//   (int16 pairs, VPMADDWD);
// - tiles of MR rows x NR columns over the whole depth by the integer micro-kernel
//   (intrin/int8_dot.h), the rows past the last whole tile one at a time;
// - parallel over groups of column panels (each task streams its panels once for every row);
// - the kernel's epilogue pass (QMatMul's requantization) right after each tile's rows and
//   columns, while they are in cache; other blocks by the injective rule.
// Choices (sampling instructions, defaults in brackets): the panel width (1 or 2 vectors of
// int32 lanes [2]), the tile's rows (1 to the register limit [4]) and the panels per parallel
// task [64 columns' worth].
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

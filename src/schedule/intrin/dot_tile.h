// The implementation shared by the dot-product register tiles (int8_dot.h: dot_i32;
// bf16_dot.h: dot_bf16): acc = C; for k < steps, per column vector v0 and row r,
// acc[r, v0 ..] = dot(acc[r, v0 ..], rows[r], panel(v0)); C = acc. Rows and vectors are written
// out so every accumulator access has a constant offset (SROA keeps the tile in registers).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tir/prim_func.h"

namespace ingot::schedule {

// The most rows a dot tile of nr columns takes: the accumulators, one panel vector and the
// broadcast in the register file (16 registers at 8 lanes, 32 at 16), at most 8.
int dot_tile_max_rows(int lanes, int nr);

// The dot tiles' description, params {A, Bp, C}: for i < mr, j < nr, k < steps, g < group,
//   C[i, j] += c_t(A[i, k * group + g]) * c_t(Bp[0, k, j, g])
// with A [mr, steps * group] of a_t, Bp [1, steps, nr, group] of b_t and C [mr, nr] of c_t.
tir::PrimFunc dot_tile_description(const std::string& name, tir::DataType a_t, tir::DataType b_t,
                                   tir::DataType c_t, int group, int mr, int nr, int64_t steps);

// `rows[r]` is row r's broadcast operand at step `k`; `panel(v0)` the panel's operand of the
// columns v0 .. v0 + lanes at step `k`; A, B, C the intrinsic's parameters (C MR x NR).
tir::PrimFunc dot_tile_impl(const std::string& name, const tir::Buffer& A, const tir::Buffer& B,
                            const tir::Buffer& C, int lanes, int64_t steps, const tir::Var& k,
                            const std::vector<tir::Expr>& rows,
                            const std::function<tir::Expr(int)>& panel, tir::Intrinsic dot);

}  // namespace ingot::schedule

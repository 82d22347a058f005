// bfloat16 register-tile micro-kernels: names, description and implementation (see bf16_dot.h).
#include "schedule/intrin/bf16_dot.h"

#include <fmt/format.h>

#include <cstdio>

#include "schedule/intrin/dot_tile.h"
#include "support/error.h"
#include "tir/op.h"
#include "tir/region_analysis.h"

namespace ingot::schedule {

using namespace tir;

namespace {

// Why a spec cannot be built, or "".
std::string spec_problem(const BFloat16TileSpec& s) {
  if (s.lanes != 16 && s.lanes != 8) return "lanes must be 8 or 16";
  if (s.mr < 1 || s.mr > 16 || s.nr < s.lanes || s.nr % s.lanes != 0 || s.nr > 4 * s.lanes)
    return "tile size out of range";
  if (s.steps < 1) return "no depth";
  return "";
}

}  // namespace

std::string bf16_tile_name(const BFloat16TileSpec& s) {
  return fmt::format("{}_dot_bf16_{}x{}_k{}",
                     CpuVectorIsa::x86(s.lanes == 16 ? 512 : 256).kernel_prefix(), s.mr, s.nr,
                     s.steps);
}

std::optional<BFloat16TileSpec> parse_bf16_tile_name(const std::string& name) {
  char isa[16] = {};
  BFloat16TileSpec s;
  long long steps = 0;
  int used = 0;
  if (std::sscanf(name.c_str(), "x86_%15[a-z0-9]_dot_bf16_%dx%d_k%lld%n", isa, &s.mr, &s.nr, &steps,
                  &used) != 4 ||
      size_t(used) != name.size())
    return std::nullopt;
  const std::string i = isa;
  if (i != "avx512" && i != "avx2") return std::nullopt;
  s.lanes = i == "avx512" ? 16 : 8;
  s.steps = steps;
  if (!spec_problem(s).empty() || bf16_tile_name(s) != name) return std::nullopt;
  return s;
}

TensorIntrin make_bf16_tile_intrin(const BFloat16TileSpec& s) {
  const std::string problem = spec_problem(s);
  INGOT_ICHECK(problem.empty(), "bfloat16 tile spec {}: {}", bf16_tile_name(s), problem);
  TensorIntrin in;
  in.name = bf16_tile_name(s);
  // 1. Description: for i, j, k, g: C[i, j] += float32(A[i, 2k + g]) * float32(Bp[0, k, j, g]).
  in.desc = dot_tile_description(in.name, DataType::bf16(), DataType::bf16(), DataType::f32(), 2,
                                 s.mr, s.nr, s.steps);
  const Buffer A = in.desc.params[0], B = in.desc.params[1], C = in.desc.params[2];
  // 2. Implementation: acc = C; for k: per row, A's pair broadcast over the vector, per column
  //    vector acc = dot_bf16(acc, a, the panel's pairs); C = acc. Rows and vectors are written
  //    out so every accumulator access has a constant offset (SROA keeps the tile in registers).
  {
    const int wide = 2 * s.lanes;  // operand lanes of one dot_bf16
    Var k("k");
    std::vector<int> spread;  // lane t of a dot operand takes element t % 2 of the row's pair
    for (int t = 0; t < wide; ++t) spread.push_back(t % 2);
    std::vector<Expr> rows;
    for (int r = 0; r < s.mr; ++r)
      rows.push_back(Shuffle::make(A.load({i64(r), Ramp::make(k * 2, i64(1), 2)}), spread));
    in.impl = dot_tile_impl(
        in.name, A, B, C, s.lanes, s.steps, k, rows,
        [&](int v0) {
          // The panel's lanes x 2 values of columns v0.. at step k: contiguous (flattened:
          // (k * NR + v0) * 2 + t).
          return B.load({i64(0), k, i64(v0), Ramp::make(i64(0), i64(1), wide)});
        },
        Intrinsic::dot_bf16);
  }
  return in;
}

}  // namespace ingot::schedule

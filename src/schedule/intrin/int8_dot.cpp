// Integer register-tile micro-kernels: names, description and implementation (see int8_dot.h).
#include "schedule/intrin/int8_dot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "schedule/intrin/dot_tile.h"
#include "support/error.h"
#include "tir/op.h"
#include "tir/region_analysis.h"

namespace ingot::schedule {

using namespace tir;

namespace {

const char* prefix(const Int8TileSpec& s) {
  return (s.arch == CpuVectorIsa::kAArch64 ? CpuVectorIsa::aarch64_neon()
                                           : CpuVectorIsa::x86(s.lanes == 16 ? 512 : 256))
      .kernel_prefix();
}

// Why a spec cannot be built, or "".
std::string spec_problem(const Int8TileSpec& s) {
  if (s.arch == CpuVectorIsa::kAArch64 ? s.lanes != 4 : s.lanes != 16 && s.lanes != 8)
    return "lanes do not match the ISA";
  if (s.group != 2 && s.group != 4) return "the group must be 2 or 4";
  if (s.mr < 1 || s.mr > 16 || s.nr < s.lanes || s.nr % s.lanes != 0 || s.nr > 4 * s.lanes)
    return "tile size out of range";
  if (s.steps < 1) return "no depth";
  return "";
}

}  // namespace

std::string int8_tile_name(const Int8TileSpec& s) {
  return fmt::format("{}_dot_{}i8_g{}_{}x{}_k{}", prefix(s), s.a_signed ? "i8" : "u8", s.group,
                     s.mr, s.nr, s.steps);
}

std::optional<Int8TileSpec> parse_int8_tile_name(const std::string& name) {
  char arch[16] = {}, isa[16] = {}, a[4] = {};
  Int8TileSpec s;
  long long steps = 0;
  int used = 0;
  if (std::sscanf(name.c_str(), "%15[a-z0-9]_%15[a-z0-9]_dot_%2[ui8]i8_g%d_%dx%d_k%lld%n", arch,
                  isa, a, &s.group, &s.mr, &s.nr, &steps, &used) != 7 ||
      size_t(used) != name.size())
    return std::nullopt;
  const std::string isa_name = std::string(arch) + "_" + isa;
  if (isa_name == "x86_avx512") {
    s.lanes = 16;
  } else if (isa_name == "x86_avx2") {
    s.lanes = 8;
  } else if (isa_name == "aarch64_neon") {
    s.arch = CpuVectorIsa::kAArch64, s.lanes = 4;
  } else {
    return std::nullopt;
  }
  s.a_signed = std::string(a) == "i8";
  s.steps = steps;
  if (!spec_problem(s).empty() || int8_tile_name(s) != name) return std::nullopt;
  return s;
}

TensorIntrin make_int8_tile_intrin(const Int8TileSpec& s) {
  const std::string problem = spec_problem(s);
  INGOT_ICHECK(problem.empty(), "int8 tile spec {}: {}", int8_tile_name(s), problem);
  const int g = s.group;
  const DataType a_t = s.a_signed ? DataType::i8() : DataType::u8(), i32 = DataType::i32();
  TensorIntrin in;
  in.name = int8_tile_name(s);
  // 1. Description: for i, j, k, g: C[i, j] += int32(A[i, k * G + g]) * int32(Bp[0, k, j, g]).
  in.desc = dot_tile_description(in.name, a_t, DataType::i8(), i32, g, s.mr, s.nr, s.steps);
  const Buffer A = in.desc.params[0], B = in.desc.params[1], C = in.desc.params[2];
  // 2. Implementation: acc = C; for k: per row, A's G bytes broadcast over the vector (as int16
  //    pairs when G = 2), per column vector acc = dot_i32(acc, a, the panel's bytes); C = acc.
  //    Rows and vectors are written out so every accumulator access has a constant offset (SROA
  //    keeps the tile in registers).
  {
    const int wide = s.lanes * g;  // operand lanes of one dot_i32
    const DataType operand = g == 2 ? DataType::i16() : a_t;
    Var k("k");
    std::vector<int> spread;  // lane t of a dot operand takes byte t % G of the row's group
    for (int t = 0; t < wide; ++t) spread.push_back(t % g);
    std::vector<Expr> rows;
    for (int r = 0; r < s.mr; ++r) {
      // (Spread first, widened after: a 16-bit broadcast and one zero-extension on AVX2, where
      // widening the two bytes first took a scalar load, a move, an extension and a broadcast.)
      Expr spread_bytes = Shuffle::make(A.load({i64(r), Ramp::make(k * g, i64(1), g)}), spread);
      rows.push_back(g == 2 ? cast(operand.with_lanes(wide), spread_bytes) : spread_bytes);
    }
    in.impl = dot_tile_impl(
        in.name, A, B, C, s.lanes, s.steps, k, rows,
        [&](int v0) {
          // The panel's lanes x G bytes of columns v0.. at step k: contiguous, so one ramp along
          // the group's dim covers them (flattened: (k * NR + v0) * G + t).
          Expr b = B.load({i64(0), k, i64(v0), Ramp::make(i64(0), i64(1), wide)});
          return g == 2 ? cast(operand.with_lanes(wide), b) : b;
        },
        Intrinsic::dot_i32);
  }
  return in;
}

}  // namespace ingot::schedule

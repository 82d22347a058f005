// FP32 FMA register-tile micro-kernels (x86 AVX-512 and AVX2, AArch64 NEON), and their 8-bit
// forms (dot tiles, widened products): names, description and implementation, for any operand
// layout an FmaTileSpec describes.
#include "schedule/intrin/x86_fma.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <sstream>

#include "schedule/intrin/amx_tile.h"
#include "schedule/intrin/neon_fma.h"
#include "support/error.h"
#include "tir/op.h"
#include "tir/region_analysis.h"

namespace ingot::schedule {

using namespace tir;

namespace {

// "x86_avx512", "x86_avx2", "aarch64_neon" or (AMX tiles) "x86_amx".
const char* isa_prefix(CpuVectorIsa::Arch arch, int lanes, bool amx = false) {
  if (amx) return "x86_amx";
  if (arch == CpuVectorIsa::kAArch64) return "aarch64_neon";
  return lanes == 16 ? "x86_avx512" : "x86_avx2";
}

std::string dims_str(const FmaOperand& o) {
  std::vector<std::string> dims;
  for (const auto& d : o.dims) dims.push_back(fmt::format("{}", fmt::join(d, ".")));
  return fmt::format("{}", fmt::join(dims, ","));
}

std::vector<std::string> split_on(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  if (!s.empty() && s.back() == sep) out.push_back("");
  return out;
}

bool parse_int(const std::string& s, int64_t* v) {
  if (s.empty()) return false;
  size_t pos = 0;
  try {
    *v = std::stoll(s, &pos);
  } catch (...) {
    return false;
  }
  return pos == s.size();
}

std::optional<FmaOperand> parse_dims(const std::string& s, size_t nvars) {
  FmaOperand o;
  for (const std::string& d : split_on(s, ',')) {
    std::vector<int64_t> coeff;
    for (const std::string& c : split_on(d, '.')) {
      int64_t v = 0;
      if (!parse_int(c, &v)) return std::nullopt;
      coeff.push_back(v);
    }
    if (coeff.size() != nvars) return std::nullopt;
    o.dims.push_back(coeff);
  }
  if (o.dims.empty()) return std::nullopt;
  return o;
}

// Why an 8-bit dot tile's spec (FmaTileSpec::group) cannot be built, or "" (spec_problem has
// checked the sizes and the coefficient counts); nk: the variables i, j, k... (g the last k).
std::string dot_problem(const FmaTileSpec& s, size_t nk) {
  if (s.group != 2 && s.group != 4) return "the dot group must be 2 or 4";
  if (s.bf16 && (s.group != 2 || s.a_signed)) return "a bfloat16 dot tile takes pairs";
  if (s.a_group != 0 || s.prefetch != 0) return "a dot tile takes no lane groups or prefetch";
  if (s.nr % s.lanes != 0) return "a dot tile's columns are whole vectors";
  if (s.k.back() != s.group) return "the last reduction variable is the dot group";
  const size_t g = nk - 1;
  const bool blocks = s.col_blocks > 1;
  for (const FmaOperand* o : {&s.a, &s.b, &s.c}) {
    if (o->dims.empty()) return "an operand has no dimensions";
    for (const auto& c : o->dims) {
      if (c.size() != nk + (blocks ? 1 : 0))
        return "coefficient count differs from the variable count";
      for (int64_t v : c)
        if (v < 0) return "negative coefficient";
    }
  }
  // A: i and the k's, g in its last dimension with coefficient 1 (beside others), no j or jb.
  for (size_t d = 0; d < s.a.dims.size(); ++d) {
    const auto& c = s.a.dims[d];
    if (c[1] != 0 || (blocks && c[nk] != 0)) return "A uses j";
    if (c[g] != (d + 1 == s.a.dims.size() ? 1 : 0))
      return "the group is A's last dimension, with coefficient 1";
  }
  // B: no i; its last dimension g alone (extent G), j the one before with coefficient 1; jb
  // outside those two.
  const size_t nb = s.b.dims.size();
  if (nb < 2) return "B has too few dimensions";
  for (size_t d = 0; d < nb; ++d) {
    const auto& c = s.b.dims[d];
    if (c[0] != 0) return "B uses i";
    if (d + 1 == nb) {
      for (size_t v = 0; v < c.size(); ++v)
        if (c[v] != (v == g ? 1 : 0)) return "B's last dimension is the group alone";
      continue;
    }
    if (c[g] != 0) return "B uses the group outside its last dimension";
    if (c[1] != (d + 2 == nb ? 1 : 0)) return "j is B's next-to-last dimension, coefficient 1";
    if (blocks && d + 2 == nb && c[nk] != 0) return "B uses the column block beside j";
  }
  // C: i and j (j last with coefficient 1), jb outside its last dimension, no k.
  for (size_t d = 0; d < s.c.dims.size(); ++d) {
    const auto& c = s.c.dims[d];
    const bool last = d + 1 == s.c.dims.size();
    for (size_t k = 2; k < nk; ++k)
      if (c[k] != 0) return "C uses a reduction variable";
    if (c[1] != (last ? 1 : 0)) return "j is C's last dimension, coefficient 1";
    if (blocks && last && c[nk] != 0) return "C uses the column block in its last dimension";
  }
  return "";
}

// Why a spec cannot be built, or "".
std::string spec_problem(const FmaTileSpec& s) {
  bool blocks = s.col_blocks > 1;
  size_t nvars = 2 + s.k.size() + (blocks ? 1 : 0);
  if (s.arch == CpuVectorIsa::kAArch64 && s.lanes != kNeonLanes) return "NEON lanes must be 4";
  if (s.arch == CpuVectorIsa::kX86 && s.lanes != 16 && s.lanes != 8)
    return "x86 lanes must be 8 or 16";
  if (s.mr < 1 || s.mr > (s.amx ? 32 : 16) || s.nr < 1 || s.nr > 4 * s.lanes)
    return "tile size out of range";
  if (s.amx && s.group == 0) return "an AMX tile is a dot tile";
  if (s.col_blocks < 1 || s.col_blocks * ((s.nr + s.lanes - 1) / s.lanes) > 4)
    return "column blocks out of range";
  if (s.k.empty()) return "no reduction loop";
  if (s.prefetch < 0 || s.prefetch % 64 != 0 || (s.prefetch > 0 && blocks))
    return "prefetch out of range";
  for (int64_t e : s.k)
    if (e < 1) return "empty reduction loop";
  // uses_j: the operand may use j (then in its last dimension with coefficient 1);
  // j_required: it must. With column blocks the last variable is jb, which only B and C
  // (uses_j) use, outside their last dimension.
  size_t nk = 2 + s.k.size();
  auto check = [&](const FmaOperand& o, bool uses_i, bool uses_j, bool uses_k,
                   bool j_required) -> std::string {
    if (o.dims.empty()) return "an operand has no dimensions";
    for (size_t d = 0; d < o.dims.size(); ++d) {
      const auto& c = o.dims[d];
      if (c.size() != nvars) return "coefficient count differs from the variable count";
      for (int64_t v : c)
        if (v < 0) return "negative coefficient";
      if (!uses_i && c[0] != 0) return "operand uses i";
      if (c[1] != 0 && (!uses_j || d + 1 != o.dims.size() || c[1] != 1))
        return "j must be the last dimension with coefficient 1";
      for (size_t k = 2; k < nk; ++k)
        if (!uses_k && c[k] != 0) return "operand uses a reduction variable";
      if (blocks && c[nk] != 0 && (!uses_j || d + 1 == o.dims.size()))
        return "only B and C use the column block, outside their last dimension";
    }
    if (j_required && o.dims.back()[1] != 1) return "j must be the last dimension";
    return "";
  };
  if (s.group != 0 && s.int8_products) return "a tile is a dot tile or 8-bit products, not both";
  if (s.bf16 && s.group == 0) return "bfloat16 products are a dot tile's";
  if (s.group != 0) {
    std::string problem = dot_problem(s, nk);
    return !problem.empty() || !s.amx ? problem : amx_dot_tile_problem(s);
  }
  if (s.int8_products && (s.a_group != 0 || s.prefetch != 0))
    return "8-bit products take no lane groups or prefetch";
  for (auto p : {check(s.a, true, s.a_group == 0 && !blocks, true, false),
                 check(s.b, false, true, true, true), check(s.c, true, true, false, true)})
    if (!p.empty()) return p;
  if (s.a_group != 0) {
    if (s.a_group < 1 || s.a_group > s.lanes || s.lanes % s.a_group != 0 || s.nr % s.lanes != 0)
      return "lane groups must divide the lanes and the columns be whole vectors";
    if (blocks) return "lane groups take one column block";
    const auto& last = s.a.dims.back();
    int uses = 0;
    for (size_t k = 2; k < nk; ++k)
      if (last[k] != 0) uses += last[k] == 1 && s.k[k - 2] == s.a_group ? 1 : 2;
    if (last[0] != 0 || uses != 1)
      return "with lane groups, A's last dimension is one reduction variable of the group's "
             "extent";
  }
  return "";
}

// The reduction variable of A's last dimension with lane groups (its position among k...).
size_t group_reduction(const FmaTileSpec& s) {
  const auto& last = s.a.dims.back();
  for (size_t k = 2; k < last.size(); ++k)
    if (last[k] != 0) return k - 2;
  return 0;
}

// The index of an operand at tile variable values `vars` (i, j, k...); vector_j replaces
// j's term in the last dimension (a Ramp) when set.
std::vector<Expr> operand_index(const FmaOperand& o, const std::vector<Expr>& vars,
                                const Expr& vector_j = Expr()) {
  std::vector<Expr> idx;
  for (const auto& c : o.dims) {
    Expr e;
    for (size_t v = 0; v < c.size(); ++v) {
      if (c[v] == 0 || (v == 1 && vector_j.defined())) continue;
      Expr term = c[v] == 1 ? vars[v] : vars[v] * c[v];
      e = e.defined() ? e + term : term;
    }
    if (!e.defined()) e = i64(0);
    if (c[1] != 0 && vector_j.defined()) {
      auto* r = vector_j.as<Ramp>();
      e = Ramp::make(e + r->base, r->stride, r->lanes);
    }
    idx.push_back(e);
  }
  return idx;
}

// Extent of each dimension of an operand over the tile's variable ranges.
std::vector<int64_t> operand_shape(const FmaOperand& o, const std::vector<int64_t>& extents) {
  std::vector<int64_t> shape;
  for (const auto& c : o.dims) {
    int64_t e = 1;
    for (size_t v = 0; v < c.size(); ++v) e += c[v] * (extents[v] - 1);
    shape.push_back(e);
  }
  return shape;
}

}  // namespace

std::string fma_tile_problem(const FmaTileSpec& s) {
  return spec_problem(s);
}

std::vector<Expr> fma_operand_index(const FmaOperand& o, const std::vector<Expr>& vars) {
  return operand_index(o, vars);
}

bool parse_isa(const std::string& arch, const std::string& isa, CpuVectorIsa::Arch* a, int* lanes) {
  if (arch == "x86" && (isa == "avx512" || isa == "avx2")) {
    *a = CpuVectorIsa::kX86, *lanes = isa == "avx512" ? 16 : 8;
    return true;
  }
  if (arch == "aarch64" && isa == "neon") {
    *a = CpuVectorIsa::kAArch64, *lanes = kNeonLanes;
    return true;
  }
  return false;
}

FmaTileSpec gemm_tile_spec(const FmaTileShape& s) {
  FmaTileSpec g;
  g.lanes = s.lanes, g.mr = s.mr, g.nr = s.nr, g.k = {s.kc}, g.arch = s.arch;
  g.a.dims = {{1, 0, 0}, {0, 0, 1}};             // A[i, k]
  g.b.dims = {{0, 0, 0}, {0, 0, 1}, {0, 1, 0}};  // Bp[0, k, j]
  g.c.dims = {{1, 0, 0}, {0, 1, 0}};             // C[i, j]
  return g;
}

std::string fma_tile_name(const FmaTileShape& s) {
  return fmt::format("{}_fma_f32_{}x{}x{}", isa_prefix(s.arch, s.lanes), s.mr, s.nr, s.kc);
}

std::string fma_tile_name(const FmaTileSpec& s) {
  if (s.group == 0 && !s.int8_products && s.k.size() == 1 && s.nr % s.lanes == 0 &&
      s.a_group == 0 && s.col_blocks == 1 && s.prefetch == 0) {
    FmaTileShape g{s.lanes, s.mr, s.nr, int(s.k[0]), s.arch};
    FmaTileSpec std_layout = gemm_tile_spec(g);
    if (s.a.dims == std_layout.a.dims && s.b.dims == std_layout.b.dims &&
        s.c.dims == std_layout.c.dims)
      return fma_tile_name(g);
  }
  const char* a_name = s.a_signed ? "i8" : "u8";
  const std::string kind = s.bf16            ? fmt::format("dot_bf16g{}", s.group)
                           : s.group != 0    ? fmt::format("dot_{}i8g{}", a_name, s.group)
                           : s.int8_products ? fmt::format("mul_{}i8", a_name)
                                             : std::string("fma_f32");
  std::string name =
      fmt::format("{}_{}_{}x{}_k{}_a{}_b{}_c{}", isa_prefix(s.arch, s.lanes, s.amx), kind, s.mr,
                  s.nr, fmt::join(s.k, "x"), dims_str(s.a), dims_str(s.b), dims_str(s.c));
  if (s.a_group) name += fmt::format("_g{}", s.a_group);
  if (s.col_blocks > 1) name += fmt::format("_j{}", s.col_blocks);
  if (s.prefetch > 0) name += fmt::format("_p{}", s.prefetch);
  return name;
}

std::optional<FmaTileShape> parse_fma_tile_name(const std::string& name) {
  char arch[16] = {}, isa[16] = {};
  FmaTileShape s;
  int used = 0;
  if (std::sscanf(name.c_str(), "%15[a-z0-9]_%15[a-z0-9]_fma_f32_%dx%dx%d%n", arch, isa, &s.mr,
                  &s.nr, &s.kc, &used) != 5 ||
      size_t(used) != name.size())
    return std::nullopt;
  if (!parse_isa(arch, isa, &s.arch, &s.lanes)) return std::nullopt;
  if (s.mr < 1 || s.mr > 16 || s.nr < s.lanes || s.nr % s.lanes != 0 || s.kc < 1)
    return std::nullopt;
  if (fma_tile_name(s) != name) return std::nullopt;
  return s;
}

std::optional<FmaTileSpec> parse_fma_tile_spec(const std::string& name) {
  if (auto g = parse_fma_tile_name(name)) return gemm_tile_spec(*g);
  // <arch>_<isa>_fma_f32_<mr>x<nr>_k<k...>_a<dims>_b<dims>_c<dims>
  std::vector<std::string> parts = split_on(name, '_');
  if (parts.size() < 9 || parts.size() > 12) return std::nullopt;
  FmaTileSpec s;
  if (parts[2] == "dot") {  // <A's type>i8g<G>
    const std::string& t = parts[3];
    if (t.size() != 6 ||
        (t.rfind("u8i8g", 0) != 0 && t.rfind("i8i8g", 0) != 0 && t.rfind("bf16g", 0) != 0))
      return std::nullopt;
    s.bf16 = t[0] == 'b';
    s.a_signed = t[0] == 'i';
    s.group = t[5] - '0';
  } else if (parts[2] == "mul") {  // <A's type>i8: 8-bit products, elementwise or broadcast
    if (parts[3] != "u8i8" && parts[3] != "i8i8") return std::nullopt;
    s.a_signed = parts[3][0] == 'i';
    s.int8_products = true;
  } else if (parts[2] != "fma" || parts[3] != "f32") {
    return std::nullopt;
  }
  // Suffixes: _g<width>, _j<blocks>, _p<bytes> (the name check below rejects other orders).
  for (size_t p = 9; p < parts.size(); ++p) {
    int64_t v = 0;
    if (parts[p].size() < 2 || !parse_int(parts[p].substr(1), &v) || v < 1) return std::nullopt;
    if (parts[p][0] == 'g') {
      s.a_group = int(v);
    } else if (parts[p][0] == 'j' && v > 1) {
      s.col_blocks = int(v);
    } else if (parts[p][0] == 'p') {
      s.prefetch = int(v);
    } else {
      return std::nullopt;
    }
  }
  s.amx = parts[0] == "x86" && parts[1] == "amx";
  if (!parse_isa(parts[0], s.amx ? "avx512" : parts[1], &s.arch, &s.lanes)) return std::nullopt;
  std::vector<std::string> tile = split_on(parts[4], 'x');
  int64_t mr = 0, nr = 0;
  if (tile.size() != 2 || !parse_int(tile[0], &mr) || !parse_int(tile[1], &nr)) return std::nullopt;
  s.mr = int(mr), s.nr = int(nr);
  if (parts[5].size() < 2 || parts[5][0] != 'k') return std::nullopt;
  for (const std::string& e : split_on(parts[5].substr(1), 'x')) {
    int64_t v = 0;
    if (!parse_int(e, &v)) return std::nullopt;
    s.k.push_back(v);
  }
  size_t nvars = 2 + s.k.size() + (s.col_blocks > 1 ? 1 : 0);
  FmaOperand* ops[3] = {&s.a, &s.b, &s.c};
  const char tags[3] = {'a', 'b', 'c'};
  for (int o = 0; o < 3; ++o) {
    const std::string& p = parts[size_t(6 + o)];
    if (p.empty() || p[0] != tags[o]) return std::nullopt;
    auto dims = parse_dims(p.substr(1), nvars);
    if (!dims) return std::nullopt;
    *ops[o] = *dims;
  }
  if (!spec_problem(s).empty() || fma_tile_name(s) != name) return std::nullopt;
  return s;
}

FmaTileShape default_fma_tile(int vector_bits, int kc) {
  // AVX-512: 8 rows x 2 zmm = 16 accumulators + 2 B vectors + 1 broadcast of 32 registers.
  // AVX2: 6 rows x 2 ymm = 12 accumulators + 2 B + 1 broadcast of 16 registers.
  if (vector_bits >= 512) return {16, 8, 32, kc};
  return {8, 6, 16, kc};
}

FmaTileShape default_fma_tile(const CpuVectorIsa& isa, int kc) {
  if (isa.arch == CpuVectorIsa::kAArch64) return neon_fma_tile(kc);
  return default_fma_tile(isa.vector_bits, kc);
}

int fma_max_tile_rows(const CpuVectorIsa& isa, int nr) {
  if (isa.arch == CpuVectorIsa::kAArch64) return std::min(8, neon_max_tile_rows(nr));
  // The accumulators, one B vector per column vector and the broadcast stay in registers:
  // 16 ymm (AVX2; 6 rows of 2 vectors) or 32 zmm (AVX-512; 8 rows kept, the rate is at peak).
  // One-vector rows: 8 accumulators only just cover the FMA latency (4 cycles on 2 ports), so
  // with 32 registers such tiles take up to 12 rows (one core, AVX-512: 1x1 480->80 @14x14
  // 172 -> 191-200 GFLOP/s, 1x1 16->48 @56x56 143 -> 159-178, 3x3 40->40 @28x28 112-128 ->
  // 127-147).
  int lanes = isa.tile_lanes(), vecs = std::max(1, (nr + lanes - 1) / lanes);
  int regs = lanes == 16 ? 32 : 16;
  return std::clamp((regs - vecs - 1) / vecs, 1, vecs == 1 && regs == 32 ? 12 : 8);
}

int fma_register_tile_rows(const CpuVectorIsa& isa, int nr) {
  const int lanes = isa.tile_lanes(), vecs = std::max(1, (nr + lanes - 1) / lanes);
  const int regs = isa.arch == CpuVectorIsa::kX86 && lanes == 8 ? 16 : 32;
  return std::max(fma_max_tile_rows(isa, nr), std::clamp((regs - 1 - vecs) / vecs, 1, 14));
}

namespace {

// The reduction loop that runs several steps per iteration, and how many: among the first
// `loops` extents of `k` not `unrolled` (written out), the innermost of extent > 1 (`loop`,
// `loops` where there is none), its steps the largest power of two up to
// kTileStepsPerIteration dividing its extent. The steps' A and B addresses are constant offsets
// from one base, so the loop's address arithmetic and branch are paid once per `steps`: one step
// per iteration, LLVM kept 4 scalar address ops per step beside 16 FMAs (an 8x32 tile) and
// MatMul 1024^3 took 6.62 ms against 6.35 on Sapphire Rapids; 4 steps against 8: ResNet-50
// 28.30 -> 27.71 ms there (docs/perf.md, session 50).
struct SteppedLoop {
  size_t loop = 0;
  int64_t steps = 1;
};

SteppedLoop stepped_loop(const std::vector<int64_t>& k, size_t loops,
                         const std::vector<bool>& unrolled) {
  SteppedLoop l{loops, 1};
  for (size_t i = loops; i-- > 0 && l.loop == loops;)
    if (!unrolled[i] && k[i] > 1) l.loop = i;
  for (int64_t u = kTileStepsPerIteration; l.loop < loops && u > 1 && l.steps == 1; u /= 2)
    if (k[l.loop] % u == 0) l.steps = u;
  return l;
}

// The implementation of a dot tile (FmaTileSpec::group): acc = C; for the k's but g: per row,
// A's G values (g = 0 ..) spread over the vector (8-bit pairs widened to int16); per cell acc =
// dot_i32 (bfloat16: dot_bf16)(acc, row, B's lanes x G values at j = v0, g = 0 ..); C = acc.
// Cells and rows written out (constant accumulator offsets: SROA keeps the tile in registers).
PrimFunc dot_tile_impl(const FmaTileSpec& s, const Buffer& A, const Buffer& B, const Buffer& C) {
  const bool blocks = s.col_blocks > 1, widen = s.group == 2 && !s.bf16;
  const int g = s.group, wide = s.lanes * g;
  const DataType pair = DataType::i16();
  const Intrinsic dot = s.bf16 ? Intrinsic::dot_bf16 : Intrinsic::dot_i32;
  Buffer acc = Buffer::make("acc", C->dtype, std::vector<int64_t>{s.mr, s.col_blocks * s.nr},
                            StorageScope::kLocal);
  std::vector<Var> kv;
  for (size_t k = 0; k + 1 < s.k.size(); ++k) kv.emplace_back(fmt::format("k{}", k));
  std::vector<Expr> vars = {i64(0), i64(0)};
  vars.insert(vars.end(), kv.begin(), kv.end());
  vars.push_back(i64(0));  // g
  if (blocks) vars.push_back(i64(0));
  std::vector<int> spread;  // lane t of a dot operand takes byte t % G of the row's group
  for (int t = 0; t < wide; ++t) spread.push_back(t % g);
  std::vector<Stmt> load, step, store;
  // One step at the reduction values in `vars`, every cell; with_io: also the C load / store.
  auto add_dot_steps = [&](bool with_io) {
    for (int r = 0; r < s.mr; ++r) {
      vars[0] = i64(r);
      std::vector<Expr> ai = operand_index(s.a, vars);
      ai.back() = Ramp::make(ai.back(), i64(1), g);
      Expr row = Shuffle::make(A.load(ai), spread);
      if (widen) row = cast(pair.with_lanes(wide), row);
      for (int jb = 0; jb < s.col_blocks; ++jb)
        for (int v0 = 0; v0 < s.nr; v0 += s.lanes) {
          std::vector<Expr> at = vars;
          at[1] = i64(v0);
          if (blocks) at.back() = i64(jb);
          std::vector<Expr> bi = operand_index(s.b, at);
          bi.back() = Ramp::make(bi.back(), i64(1), wide);  // j's lanes x G bytes, contiguous
          Expr b = B.load(bi);
          if (widen) b = cast(pair.with_lanes(wide), b);
          std::vector<Expr> cell = {i64(r),
                                    Ramp::make(i64(int64_t(jb) * s.nr + v0), i64(1), s.lanes)};
          step.push_back(BufferStore::make(acc, call(dot, {acc.load(cell), row, b}), cell));
          if (!with_io) continue;
          std::vector<Expr> zero = {i64(r), i64(0)};
          zero.resize(vars.size(), i64(0));
          if (blocks) zero.back() = i64(jb);
          std::vector<Expr> ci = operand_index(s.c, zero, Ramp::make(i64(v0), i64(1), s.lanes));
          load.push_back(BufferStore::make(acc, C.load(ci), cell));
          store.push_back(BufferStore::make(C, acc.load(cell), ci));
        }
    }
  };
  // Several steps per iteration of the innermost reduction loop of extent > 1 (stepped_loop; a
  // 1x1 conv's channel groups, not its 1-wide window); the C load and store come with the first.
  const SteppedLoop stepped = stepped_loop(s.k, kv.size(), std::vector<bool>(kv.size(), false));
  for (int64_t u = 0; u < stepped.steps; ++u) {
    if (stepped.steps > 1)
      vars[2 + stepped.loop] = Expr(kv[stepped.loop]) * i64(stepped.steps) + i64(u);
    add_dot_steps(u == 0);
  }
  Stmt loop = SeqStmt::make(step);
  for (size_t k = kv.size(); k-- > 0;) {
    const int64_t extent = k == stepped.loop ? s.k[k] / stepped.steps : s.k[k];
    loop = For::make(kv[k], i64(0), i64(extent), ForKind::kSerial, loop);
  }
  Stmt body = Allocate::make(acc, SeqStmt::make({SeqStmt::make(load), loop, SeqStmt::make(store)}));
  return PrimFunc{fma_tile_name(s) + "_impl", {A, B, C}, body};
}

}  // namespace

TensorIntrin make_fma_tile_intrin(const FmaTileShape& s) {
  INGOT_ICHECK(s.nr % s.lanes == 0, "fma tile: NR {} is not a multiple of {} lanes", s.nr, s.lanes);
  return make_fma_tile_intrin(gemm_tile_spec(s));
}

TensorIntrin make_fma_tile_intrin(const FmaTileSpec& s) {
  std::string problem = spec_problem(s);
  INGOT_ICHECK(problem.empty(), "fma tile spec: {}", problem);
  const bool dot = s.group != 0, int8 = (dot && !s.bf16) || s.int8_products;
  const DataType f = DataType::f32(), i32 = DataType::i32(), bf = DataType::bf16();
  const DataType a_t = s.bf16 ? bf : !int8 ? f : s.a_signed ? DataType::i8() : DataType::u8();
  const DataType b_t = s.bf16 ? bf : int8 ? DataType::i8() : f, c_t = int8 ? i32 : f;
  bool blocks = s.col_blocks > 1;
  // In the coefficient rows' order: i, j, k..., [jb].
  std::vector<int64_t> extents = {s.mr, s.nr};
  extents.insert(extents.end(), s.k.begin(), s.k.end());
  if (blocks) extents.push_back(s.col_blocks);
  bool gemm = s.k.size() == 1 && fma_tile_name(s).find("_k") == std::string::npos;
  std::vector<int64_t> a_shape = operand_shape(s.a, extents);
  if (s.a_group) a_shape.back() += (s.nr - 1) / s.a_group * s.a_group;
  Buffer A = Buffer::make("A", a_t, a_shape);
  Buffer B = Buffer::make(gemm ? "Bp" : "B", b_t, operand_shape(s.b, extents));
  Buffer C = Buffer::make("C", c_t, operand_shape(s.c, extents));
  TensorIntrin in;
  in.name = fma_tile_name(s);
  // 1. Description: for i, [jb,] j, k...: C[c(i, j)] += A[a(i, k...)] * B[b(k..., j)].
  {
    std::vector<Var> iv = {Var("vi"), Var("vj")}, lv = {Var("i"), Var("j")};
    for (size_t k = 0; k < s.k.size(); ++k) {
      iv.emplace_back(s.k.size() == 1 ? "vk" : fmt::format("vk{}", k));
      lv.emplace_back(s.k.size() == 1 ? "k" : fmt::format("k{}", k));
    }
    if (blocks) iv.emplace_back("vjb"), lv.emplace_back("jb");
    std::vector<Expr> vars(iv.begin(), iv.end());
    std::vector<Expr> ci = operand_index(s.c, vars), ai = operand_index(s.a, vars);
    if (s.a_group) ai.back() = floordiv(Expr(iv[1]), i64(s.a_group)) * s.a_group + ai.back();
    Expr a = A.load(ai), b = B.load(operand_index(s.b, vars));
    if (int8) a = cast(i32, a), b = cast(i32, b);
    if (s.bf16) a = cast(f, a), b = cast(f, b);
    Stmt body = BufferStore::make(C, C.load(ci) + a * b, ci);
    // Loops (and iter vars) in the tile's order: i, [jb,] j, k...
    std::vector<size_t> order = {0};
    if (blocks) order.push_back(iv.size() - 1);
    for (size_t v = 1; v < iv.size() - (blocks ? 1 : 0); ++v) order.push_back(v);
    std::vector<IterVar> ivs;
    std::vector<Expr> values;
    for (size_t v : order) {
      bool spatial = v < 2 || (blocks && v + 1 == iv.size());
      ivs.push_back(
          {iv[v], i64(0), i64(extents[v]), spatial ? IterKind::kSpatial : IterKind::kReduce});
      values.push_back(lv[v]);
    }
    Stmt st = BlockRealize::make(values, IntImm::make(DataType::boolean(), 1),
                                 make_block("fma_tile", ivs, body));
    for (size_t o = order.size(); o-- > 0;)
      st = For::make(lv[order[o]], i64(0), i64(extents[order[o]]), ForKind::kSerial, st);
    in.desc = PrimFunc{in.name + "_desc", {A, B, C}, st};
  }
  if (dot) {
    in.impl = s.amx ? amx_dot_tile_impl(s, in.name + "_impl", A, B, C) : dot_tile_impl(s, A, B, C);
    return in;
  }
  // 2. Implementation: acc = C; for k...: acc[r, v] += broadcast(A[r, k...]) * B[k..., v];
  //    C = acc. The row / vector steps are written out (not loops) so every accumulator access
  //    has a constant offset and SROA keeps the tile in registers across the reduction loops.
  {
    bool a_vector = std::any_of(s.a.dims.begin(), s.a.dims.end(),
                                [](const std::vector<int64_t>& c) { return c[1] != 0; });
    Buffer acc = Buffer::make("acc", c_t, std::vector<int64_t>{s.mr, s.col_blocks * s.nr},
                              StorageScope::kLocal);
    std::vector<Var> kv;
    for (size_t k = 0; k < s.k.size(); ++k)
      kv.emplace_back(s.k.size() == 1 ? "k" : fmt::format("k{}", k));
    // With lane groups the group's reduction variable is unrolled (shuffle indices are
    // constants). With lane groups or an elementwise A, so are the loops inside the outermost
    // other one of extent > 1: neighbouring rows then read the same A vectors at constant
    // offsets (a convolution's columns and kernel columns), loaded once (LLVM CSE).
    std::vector<bool> unrolled(s.k.size(), false);
    if (s.a_group || a_vector) {
      size_t g = s.a_group ? group_reduction(s) : s.k.size();
      bool inner = false;
      for (size_t k = 0; k < s.k.size(); ++k) {
        unrolled[k] = k == g || inner;
        inner = inner || (k != g && s.k[k] > 1);
      }
    }
    std::vector<Stmt> load, step, store;
    // The (row, column vector) cells of a step: row-major when a row's broadcast A element is
    // shared by its vectors; column-vector-major when each cell loads its own A vector
    // (elementwise or lane groups), so a vector's rows run together and fewer A vectors are
    // live at once (16 AVX2 registers: the depthwise 7x7 tile spilled row-major).
    // Cells are (row, column block, first column of the vector); a row's broadcast feeds the
    // vectors of every column block.
    struct Cell {
      int r, jb, v0;
    };
    std::vector<Cell> cells;
    bool own_a = a_vector || s.a_group;
    for (int outer = 0; outer < (own_a ? s.nr : s.mr); outer += own_a ? s.lanes : 1)
      for (int jb = 0; jb < s.col_blocks; ++jb)
        for (int inner = 0; inner < (own_a ? s.mr : s.nr); inner += own_a ? 1 : s.lanes)
          cells.push_back(own_a ? Cell{inner, jb, outer} : Cell{outer, jb, inner});
    // One step at reduction values `kvals` (loop variables or unrolled constants).
    auto add_step = [&](const std::vector<Expr>& kvals, bool with_io) {
      // The B row `prefetch` bytes ahead, one cache line per 64 bytes of the row: the last
      // index moved along B's flat stream (past the dim's extent is an address, not a read).
      for (int line = 0; s.prefetch > 0 && line * 64 < s.nr * 4; ++line) {
        std::vector<Expr> vars = {i64(0), i64(0)};
        vars.insert(vars.end(), kvals.begin(), kvals.end());
        std::vector<Expr> bi = operand_index(s.b, vars);
        bi.back() = bi.back() + i64((s.prefetch + line * 64) / 4);
        step.push_back(Evaluate::make(call(Intrinsic::prefetch, {B.load(bi)})));
      }
      for (auto [r, jb, v0] : cells) {
        std::vector<Expr> vars = {i64(r), i64(0)};
        vars.insert(vars.end(), kvals.begin(), kvals.end());
        if (blocks) vars.push_back(i64(jb));
        int w = std::min(s.lanes, s.nr - v0);
        Expr lanes = Ramp::make(i64(v0), i64(1), w);
        std::vector<Expr> ai = {i64(r), Ramp::make(i64(int64_t(jb) * s.nr + v0), i64(1), w)};
        Expr a;
        if (a_vector) {
          // A with j: a vector per cell (elementwise).
          a = A.load(operand_index(s.a, vars, lanes));
        } else if (s.a_group) {
          // The tile's lanes of A (group reduction at 0), each group's element kg picked.
          std::vector<Expr> at = vars;
          at[2 + group_reduction(s)] = i64(0);
          std::vector<Expr> idx = operand_index(s.a, at);
          idx.back() = Ramp::make(idx.back() + v0, i64(1), w);
          int64_t kg = 0;
          is_const_int(vars[2 + group_reduction(s)], &kg);
          std::vector<int> pick;
          for (int t = 0; t < w; ++t) pick.push_back(t / s.a_group * s.a_group + int(kg));
          a = Shuffle::make(A.load(idx), pick);
        } else {
          // A without j: one element per row, broadcast (the same load for the row's vectors).
          a = Broadcast::make(A.load(operand_index(s.a, vars)), w);
        }
        Expr b = B.load(operand_index(s.b, vars, lanes));
        if (s.int8_products) a = cast(i32.with_lanes(w), a), b = cast(i32.with_lanes(w), b);
        step.push_back(BufferStore::make(acc, acc.load(ai) + a * b, ai));
        if (!with_io) continue;
        std::vector<Expr> zero_k = {i64(r), i64(0)};
        zero_k.resize(vars.size(), i64(0));
        if (blocks) zero_k.back() = i64(jb);
        std::vector<Expr> ci = operand_index(s.c, zero_k, lanes);
        load.push_back(BufferStore::make(acc, C.load(ci), ai));
        store.push_back(BufferStore::make(C, acc.load(ai), ci));
      }
    };
    // Every combination of the unrolled variables' values, the first with the C load / store.
    // The group's variable outermost: the shuffles of one group element stay live across the
    // other unrolled loops (KW of them share each), not those of all of them.
    std::vector<size_t> order;
    if (s.a_group) order.push_back(group_reduction(s));
    for (size_t k = 0; k < s.k.size(); ++k)
      if (unrolled[k] && (order.empty() || k != order[0])) order.push_back(k);
    std::vector<Expr> kvals(kv.begin(), kv.end());
    // Without unrolled variables, several steps per iteration of the innermost reduction loop
    // (stepped_loop).
    const SteppedLoop stepped =
        order.empty() ? stepped_loop(s.k, kv.size(), unrolled) : SteppedLoop{kv.size(), 1};
    bool first = true;
    std::function<void(size_t)> combos = [&](size_t o) {
      if (o == order.size()) {
        add_step(kvals, first);
        first = false;
        return;
      }
      for (int64_t v = 0; v < s.k[order[o]]; ++v) {
        kvals[order[o]] = i64(v);
        combos(o + 1);
      }
    };
    for (int64_t u = 0; u < stepped.steps; ++u) {
      if (stepped.steps > 1)
        kvals[stepped.loop] = Expr(kv[stepped.loop]) * i64(stepped.steps) + i64(u);
      combos(0);
    }
    Stmt loop = SeqStmt::make(step);
    for (size_t k = kv.size(); k-- > 0;) {
      const int64_t extent = k == stepped.loop ? s.k[k] / stepped.steps : s.k[k];
      if (!unrolled[k]) loop = For::make(kv[k], i64(0), i64(extent), ForKind::kSerial, loop);
    }
    Stmt body =
        Allocate::make(acc, SeqStmt::make({SeqStmt::make(load), loop, SeqStmt::make(store)}));
    in.impl = PrimFunc{in.name + "_impl", {A, B, C}, body};
  }
  return in;
}

}  // namespace ingot::schedule

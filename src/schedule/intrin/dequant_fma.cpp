// Dequantizing FP32 register-tile micro-kernels: names, description and implementation (see
// dequant_fma.h).
#include "schedule/intrin/dequant_fma.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "schedule/intrin/x86_fma.h"
#include "support/error.h"
#include "tir/dequantize.h"
#include "tir/op.h"
#include "tir/region_analysis.h"

namespace ingot::schedule {

using namespace tir;

namespace {

// The ISA's kernel name prefix ("x86_avx512", "x86_avx2", "aarch64_neon").
const char* prefix(const DequantTileSpec& s) {
  return (s.arch == CpuVectorIsa::kAArch64 ? CpuVectorIsa::aarch64_neon()
                                           : CpuVectorIsa::x86(s.lanes == 16 ? 512 : 256))
      .kernel_prefix();
}

// Why a spec cannot be built, or "".
std::string spec_problem(const DequantTileSpec& s) {
  if (s.arch == CpuVectorIsa::kAArch64 ? s.lanes != 4 : s.lanes != 16 && s.lanes != 8)
    return "lanes do not match the ISA";
  if (s.bits != 8 && s.bits != 4) return "bits must be 8 or 4";
  if (s.mr < 1 || s.mr > 16 || s.nr < 1 || s.nr > 4 * s.lanes) return "tile size out of range";
  if (s.group < 2 || s.group % 2 != 0 || s.depth < s.group || s.depth % s.group != 0)
    return "the depth must be whole groups of an even size";
  if (s.prefetch < 0 || s.prefetch % 64 != 0) return "prefetch out of range";
  return "";
}

// k per inner step: one 64-byte line of the panel where the group allows (at least 2, so an
// int4 step reads whole bytes).
int64_t k_per_step(const DequantTileSpec& s) {
  const int64_t bits_per_k = int64_t(s.nr) * s.bits;  // one k row of the panel
  int64_t step = std::max<int64_t>(2, 512 / std::max<int64_t>(bits_per_k, 1));
  while (step > 2 && s.group % step != 0) step /= 2;
  return s.group % step == 0 ? step : 2;
}

}  // namespace

std::string dequant_tile_name(const DequantTileSpec& s) {
  std::string name = fmt::format("{}_dequant_i{}_f32_{}x{}_k{}_g{}", prefix(s), s.bits, s.mr, s.nr,
                                 s.depth, s.group);
  if (s.prefetch > 0) name += fmt::format("_p{}", s.prefetch);
  return name;
}

std::optional<DequantTileSpec> parse_dequant_tile_name(const std::string& name) {
  char arch[16] = {}, isa[16] = {};
  DequantTileSpec s;
  long long depth = 0, group = 0;
  int used = 0;
  if (std::sscanf(name.c_str(), "%15[a-z0-9]_%15[a-z0-9]_dequant_i%d_f32_%dx%d_k%lld_g%lld%n", arch,
                  isa, &s.bits, &s.mr, &s.nr, &depth, &group, &used) != 7)
    return std::nullopt;
  s.depth = depth, s.group = group;
  if (!parse_isa(arch, isa, &s.arch, &s.lanes)) return std::nullopt;
  std::string rest = name.substr(size_t(used));
  if (!rest.empty()) {
    int p = 0, n = 0;
    if (std::sscanf(rest.c_str(), "_p%d%n", &p, &n) != 1 || size_t(n) != rest.size() || p < 1)
      return std::nullopt;
    s.prefetch = p;
  }
  if (!spec_problem(s).empty() || dequant_tile_name(s) != name) return std::nullopt;
  return s;
}

TensorIntrin make_dequant_tile_intrin(const DequantTileSpec& s) {
  const std::string problem = spec_problem(s);
  INGOT_ICHECK(problem.empty(), "dequant tile spec {}: {}", dequant_tile_name(s), problem);
  const DataType f = DataType::f32();
  const int64_t rows_q = s.bits == 8 ? s.depth : s.depth / 2, groups = s.depth / s.group;
  Buffer A = Buffer::make("A", f, std::vector<int64_t>{s.mr, s.depth});
  Buffer Q = Buffer::make("Q", s.bits == 8 ? DataType::i8() : DataType::u8(),
                          std::vector<int64_t>{rows_q, s.nr});
  Buffer S = Buffer::make("S", f, std::vector<int64_t>{groups, s.nr});
  Buffer C = Buffer::make("C", f, std::vector<int64_t>{s.mr, s.nr});
  TensorIntrin in;
  in.name = dequant_tile_name(s);
  // 1. Description: for i, j, k: C[i, j] += A[i, k] * dequant(k, j).
  {
    Var vi("vi"), vj("vj"), vk("vk"), li("i"), lj("j"), lk("k");
    Stmt body = BufferStore::make(
        C, C.load({vi, vj}) + A.load({vi, vk}) * dequantized_weight(s.bits, s.group, Q, S, vk, vj),
        {vi, vj});
    std::vector<IterVar> ivs = {{vi, i64(0), i64(s.mr), IterKind::kSpatial},
                                {vj, i64(0), i64(s.nr), IterKind::kSpatial},
                                {vk, i64(0), i64(s.depth), IterKind::kReduce}};
    Stmt st = BlockRealize::make({li, lj, lk}, IntImm::make(DataType::boolean(), 1),
                                 make_block("dequant_tile", ivs, body));
    st = For::make(lk, i64(0), i64(s.depth), ForKind::kSerial, st);
    st = For::make(lj, i64(0), i64(s.nr), ForKind::kSerial, st);
    st = For::make(li, i64(0), i64(s.mr), ForKind::kSerial, st);
    in.desc = PrimFunc{in.name + "_desc", {A, Q, S, C}, st};
  }
  // 2. Implementation: per group g, part = sum over the group of A[r, k] * int(k, j) (and, int4,
  //    asum[r] = sum of A[r, k]); then C[r, j] += (part - 8 * asum[r]) * S[g, j]. The row and
  //    vector cells are written out (constant offsets, so SROA keeps part in registers).
  {
    Buffer part = Buffer::make("part", f, std::vector<int64_t>{s.mr, s.nr}, StorageScope::kLocal);
    // int4: each row's sum of A over the group, kept as one vector of the step's k (contiguous
    // loads of A; summing the rows' scalars instead, LLVM's SLP vectorizer gathered A across the
    // rows, and the kernel ran at half speed), reduced across its lanes once per group.
    const int64_t step = k_per_step(s);
    const int step_lanes = int(step);
    Buffer asum = Buffer::make("asum", f, std::vector<int64_t>{s.mr, step}, StorageScope::kLocal);
    auto step_ramp = [&](Expr base) { return Ramp::make(base, i64(1), step_lanes); };
    const bool int4 = s.bits == 4;
    struct Vec {
      int v0, w;
    };
    std::vector<Vec> vecs;
    for (int v0 = 0; v0 < s.nr; v0 += s.lanes) vecs.push_back({v0, std::min(s.lanes, s.nr - v0)});
    Var g("g"), kk("kk");
    std::vector<Stmt> zero, steps, update;
    for (int r = 0; r < s.mr; ++r) {
      for (const Vec& v : vecs)
        zero.push_back(BufferStore::make(part, Broadcast::make(make_const(f, 0), v.w),
                                         {i64(r), Ramp::make(i64(v.v0), i64(1), v.w)}));
      if (int4)
        zero.push_back(BufferStore::make(asum, Broadcast::make(make_const(f, 0), step_lanes),
                                         {i64(r), step_ramp(i64(0))}));
    }
    // One step: k0 .. k0 + step - 1, k0 = g * G + kk * step.
    Expr k0 = g * i64(s.group) + kk * i64(step);
    const int64_t step_bytes = (int4 ? step / 2 : step) * s.nr;  // Q rows of nr bytes
    Expr q_row0 = int4 ? floordiv(k0, i64(2)) : k0;
    for (int64_t line = 0; s.prefetch > 0 && line * 64 < step_bytes; ++line)
      steps.push_back(Evaluate::make(
          call(Intrinsic::prefetch, {Q.load({q_row0, i64(s.prefetch + line * 64)})})));
    for (const Vec& v : vecs) {
      Expr lanes = Ramp::make(i64(v.v0), i64(1), v.w);
      // The step's integers of this vector, as float32 vectors (converted once, for every row).
      std::vector<Expr> ints;
      for (int64_t t = 0; t < step; t += int4 ? 2 : 1) {
        Expr row = int4 ? floordiv(k0, i64(2)) + i64(t / 2) : k0 + i64(t);
        Expr loaded = Q.load({row, lanes});
        if (!int4) {
          ints.push_back(cast(f.with_lanes(v.w), loaded));
          continue;
        }
        DataType u32{DataType::kUInt, 32, uint16_t(v.w)};
        Expr byte = cast(u32, loaded);
        Expr sixteen = Broadcast::make(make_const(DataType{DataType::kUInt, 32, 1}, 16), v.w);
        ints.push_back(cast(f.with_lanes(v.w), floormod(byte, sixteen)));
        ints.push_back(cast(f.with_lanes(v.w), floordiv(byte, sixteen)));
      }
      for (int r = 0; r < s.mr; ++r) {
        std::vector<Expr> pi = {i64(r), lanes};
        Expr sum = part.load(pi);
        for (int64_t t = 0; t < step; ++t)
          sum = sum + Broadcast::make(A.load({i64(r), k0 + i64(t)}), v.w) * ints[size_t(t)];
        steps.push_back(BufferStore::make(part, sum, pi));
      }
    }
    if (int4)
      for (int r = 0; r < s.mr; ++r) {
        std::vector<Expr> at = {i64(r), step_ramp(i64(0))};
        steps.push_back(
            BufferStore::make(asum, asum.load(at) + A.load({i64(r), step_ramp(k0)}), at));
      }
    for (int r = 0; r < s.mr; ++r) {
      Expr total;  // int4: the row's sum of A over the group
      for (int t = 0; int4 && t < step_lanes; ++t) {
        Expr lane = asum.load({i64(r), i64(t)});
        total = total.defined() ? total + lane : lane;
      }
      for (const Vec& v : vecs) {
        std::vector<Expr> ci = {i64(r), Ramp::make(i64(v.v0), i64(1), v.w)};
        Expr partial = part.load(ci);
        if (int4)
          partial = partial - Broadcast::make(make_const(f, double(kInt4ZeroPoint)) * total, v.w);
        Expr scale = S.load({g, Ramp::make(i64(v.v0), i64(1), v.w)});
        update.push_back(BufferStore::make(C, C.load(ci) + partial * scale, ci));
      }
    }
    Stmt group_body = SeqStmt::make(
        {SeqStmt::make(zero),
         For::make(kk, i64(0), i64(s.group / step), ForKind::kSerial, SeqStmt::make(steps)),
         SeqStmt::make(update)});
    Stmt body = For::make(g, i64(0), i64(groups), ForKind::kSerial, group_body);
    body = Allocate::make(part, int4 ? Allocate::make(asum, body) : body);
    in.impl = PrimFunc{in.name + "_impl", {A, Q, S, C}, body};
  }
  return in;
}

}  // namespace ingot::schedule

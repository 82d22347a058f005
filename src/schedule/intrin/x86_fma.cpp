// x86 FP32 FMA register-tile micro-kernels (AVX-512 and AVX2): description and implementation.
#include "schedule/intrin/x86_fma.h"

#include <fmt/format.h>

#include <cstdio>

#include "support/error.h"
#include "tir/op.h"
#include "tir/region_analysis.h"

namespace ingot::schedule {

using namespace tir;

std::string fma_tile_name(const FmaTileShape& s) {
  return fmt::format("x86_{}_fma_f32_{}x{}x{}", s.lanes == 16 ? "avx512" : "avx2", s.mr, s.nr,
                     s.kc);
}

std::optional<FmaTileShape> parse_fma_tile_name(const std::string& name) {
  char isa[16] = {};
  FmaTileShape s;
  int used = 0;
  if (std::sscanf(name.c_str(), "x86_%15[a-z0-9]_fma_f32_%dx%dx%d%n", isa, &s.mr, &s.nr, &s.kc,
                  &used) != 4 ||
      size_t(used) != name.size())
    return std::nullopt;
  std::string i = isa;
  if (i != "avx512" && i != "avx2") return std::nullopt;
  s.lanes = i == "avx512" ? 16 : 8;
  if (s.mr < 1 || s.mr > 16 || s.nr < s.lanes || s.nr % s.lanes != 0 || s.kc < 1)
    return std::nullopt;
  if (fma_tile_name(s) != name) return std::nullopt;
  return s;
}

FmaTileShape default_fma_tile(int vector_bits, int kc) {
  // AVX-512: 8 rows x 2 zmm = 16 accumulators + 2 B vectors + 1 broadcast of 32 registers.
  // AVX2: 6 rows x 2 ymm = 12 accumulators + 2 B + 1 broadcast of 16 registers.
  if (vector_bits >= 512) return {16, 8, 32, kc};
  return {8, 6, 16, kc};
}

TensorIntrin make_fma_tile_intrin(const FmaTileShape& s) {
  INGOT_ICHECK(s.nr % s.lanes == 0, "fma tile: NR {} is not a multiple of {} lanes", s.nr, s.lanes);
  DataType f = DataType::f32();
  Buffer A = Buffer::make("A", f, std::vector<int64_t>{s.mr, s.kc});
  Buffer B = Buffer::make("Bp", f, std::vector<int64_t>{1, s.kc, s.nr});
  Buffer C = Buffer::make("C", f, std::vector<int64_t>{s.mr, s.nr});
  TensorIntrin in;
  in.name = fma_tile_name(s);
  // 1. Description: for i, j, k: C[i, j] += A[i, k] * Bp[0, k, j].
  {
    Var vi("vi"), vj("vj"), vk("vk"), i("i"), j("j"), k("k");
    Stmt body = BufferStore::make(C, C(vi, vj) + A(vi, vk) * B(i64(0), vk, vj), {vi, vj});
    Stmt blk = make_block("fma_tile",
                          {{vi, i64(0), i64(s.mr), IterKind::kSpatial},
                           {vj, i64(0), i64(s.nr), IterKind::kSpatial},
                           {vk, i64(0), i64(s.kc), IterKind::kReduce}},
                          body);
    Stmt st = BlockRealize::make({i, j, k}, IntImm::make(DataType::boolean(), 1), blk);
    st = For::make(k, i64(0), i64(s.kc), ForKind::kSerial, st);
    st = For::make(j, i64(0), i64(s.nr), ForKind::kSerial, st);
    st = For::make(i, i64(0), i64(s.mr), ForKind::kSerial, st);
    in.desc = PrimFunc{in.name + "_desc", {A, B, C}, st};
  }
  // 2. Implementation: acc = C; for k: acc[r, v] += broadcast(A[r, k]) * Bp[0, k, v]; C = acc.
  //    The row / vector steps are written out (not loops) so every accumulator access has a
  //    constant offset and SROA keeps the tile in registers across the k loop.
  {
    Buffer acc = Buffer::make("acc", f, std::vector<int64_t>{s.mr, s.nr}, StorageScope::kLocal);
    Var k("k");
    int nv = s.nr / s.lanes;
    auto lanes_at = [&](int v) { return Ramp::make(i64(int64_t(v) * s.lanes), i64(1), s.lanes); };
    std::vector<Stmt> load, step, store;
    for (int r = 0; r < s.mr; ++r) {
      Expr a = Broadcast::make(A(i64(r), k), s.lanes);
      for (int v = 0; v < nv; ++v) {
        load.push_back(BufferStore::make(acc, C(i64(r), lanes_at(v)), {i64(r), lanes_at(v)}));
        step.push_back(BufferStore::make(
            acc, acc(i64(r), lanes_at(v)) + a * B(i64(0), k, lanes_at(v)), {i64(r), lanes_at(v)}));
        store.push_back(BufferStore::make(C, acc(i64(r), lanes_at(v)), {i64(r), lanes_at(v)}));
      }
    }
    Stmt loop = For::make(k, i64(0), i64(s.kc), ForKind::kSerial, SeqStmt::make(step));
    Stmt body =
        Allocate::make(acc, SeqStmt::make({SeqStmt::make(load), loop, SeqStmt::make(store)}));
    in.impl = PrimFunc{in.name + "_impl", {A, B, C}, body};
  }
  return in;
}

}  // namespace ingot::schedule

// Test fixture (tests and bench/gemm_schedule): the matmul in the block form the packed schedule
// takes (schedule::schedule_packed_matmul), built directly with B already in NR-wide panels,
// Bp[ceil(N / NR), K, NR], and optionally A packed in MR-row panels by a block "A_pack" or a
// run-time B packed by "B_pack". The compiler itself never builds this form: lowering describes
// the plain product and the dense matmul rule brings it here with transform_layout, cache_read
// and split_block_iter (schedule/rules/matmul.h); this fixture pins the schedule's own tests to
// the form it schedules, with the host packings to feed it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "schedule/rules/matmul.h"
#include "tir/op.h"
#include "tir/region_analysis.h"
#include "tir/substitute.h"

namespace ingot::schedule {

struct PackedMatmul {
  tir::Buffer A, Bp, C;  // and bias[ceil(N / NR) * NR] when built with_bias
  tir::Buffer bias;
  tir::Buffer Ap;  // with packed A: the scratch buffer of the panels
  tir::Buffer B;   // with pack_b: the run-time B[(batch,) K, N] (Bp is then its scratch)
  bool pack_b = false;
  int64_t batch = 0, M = 0, N = 0, K = 0;
  int nr = 0;
  int mr_packed_a = 0;  // > 0: A comes packed as Ap[(batch,) ceil(M / MR), K, MR]
  tir::PrimFunc func;   // params A, [Ap,] [B,] Bp, [bias,] C; block "C"
};

namespace packed_matmul_detail {
using namespace tir;
inline Expr yes() {
  return IntImm::make(DataType::boolean(), 1);
}
inline int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
}  // namespace packed_matmul_detail

// Block "C" with iter vars (vb,) vi, vjb, vjr, vk (or (vb,) vib, vjb, vir, vjr, vk with packed
// A): C[(vb,) row, vjb * NR + vjr] += A[..] * Bp[vjb, vk, vjr], init 0 or bias[col], masked past
// M and N.
using namespace tir;
using packed_matmul_detail::ceil_div;
using packed_matmul_detail::yes;

inline PackedMatmul make_packed_matmul(int64_t M, int64_t N, int64_t K, int nr, int64_t batch = 0,
                                       bool with_bias = false, int mr_packed_a = 0,
                                       bool pack_b = false) {
  PackedMatmul m;
  m.batch = batch, m.M = M, m.N = N, m.K = K, m.nr = nr, m.mr_packed_a = mr_packed_a;
  m.pack_b = pack_b;
  int64_t nb = ceil_div(N, nr);
  int mr = mr_packed_a;
  DataType f = DataType::f32();
  auto shape = [&](std::vector<int64_t> dims) {
    if (batch) dims.insert(dims.begin(), batch);
    return dims;
  };
  m.A = Buffer::make("A", f, shape({M, K}));
  if (mr) m.Ap = Buffer::make("Ap", f, shape({ceil_div(M, mr), K, mr}));
  // A constant B comes packed (one B for every batch); a run-time B is packed per batch.
  if (pack_b) m.B = Buffer::make("B", f, shape({K, N}));
  m.Bp = Buffer::make("Bp", f, pack_b ? shape({nb, K, nr}) : std::vector<int64_t>{nb, K, nr});
  m.C = Buffer::make("C", f, shape({M, N}));
  if (with_bias) m.bias = Buffer::make("bias", f, std::vector<int64_t>{nb * nr});
  auto sp = [](Var v, int64_t e) { return IterVar{v, i64(0), i64(e), IterKind::kSpatial}; };
  // A nest of loops (one per iter var, same order) around a block.
  auto nest = [&](const std::vector<IterVar>& ivs, const Expr& pred_of_iters, const Stmt& blk) {
    std::vector<Var> loops;
    std::vector<Expr> values;
    VarMap to_loop;
    for (const IterVar& iv : ivs) {
      Var l(iv.var.name().substr(1));
      loops.push_back(l);
      values.push_back(l);
      to_loop[iv.var.node()] = l;
    }
    Stmt st = BlockRealize::make(values, substitute(pred_of_iters, to_loop), blk);
    for (size_t l = loops.size(); l-- > 0;)
      st = For::make(loops[l], i64(0), ivs[l].extent, ForKind::kSerial, st);
    return st;
  };
  std::vector<Stmt> stmts;
  // 1. With packed A: block "A_pack", Ap[(b,) ib, k, r] = A[(b,) ib * MR + r, k], 0 past M.
  if (mr) {
    Var vb("vb"), vib("vib"), vk("vk"), vr("vr");
    Expr row = Expr(vib) * int64_t(mr) + vr;
    std::vector<Expr> pi = {vib, vk, vr}, ai = {min(row, i64(M - 1)), vk};
    if (batch) pi.insert(pi.begin(), vb), ai.insert(ai.begin(), vb);
    Expr v = m.A.load(ai);
    if (ceil_div(M, mr) * mr != M) v = select(row < M, v, f32(0));
    std::vector<IterVar> ivs = {sp(vib, ceil_div(M, mr)), sp(vk, K), sp(vr, mr)};
    if (batch) ivs.insert(ivs.begin(), sp(vb, batch));
    Stmt blk = make_block("A_pack", ivs, BufferStore::make(m.Ap, v, pi));
    stmts.push_back(nest(ivs, yes(), blk));
  }
  // 1b. With a run-time B: block "B_pack", Bp[(b,) jb, k, r] = B[(b,) k, jb * NR + r], 0 past N.
  if (pack_b) {
    Var vb("vb"), vjb("vjb"), vk("vk"), vr("vr");
    Expr col = Expr(vjb) * int64_t(nr) + vr;
    std::vector<Expr> pi = {vjb, vk, vr}, bi = {vk, min(col, i64(N - 1))};
    if (batch) pi.insert(pi.begin(), vb), bi.insert(bi.begin(), vb);
    Expr v = m.B.load(bi);
    if (nb * nr != N) v = select(col < N, v, f32(0));
    std::vector<IterVar> ivs = {sp(vjb, nb), sp(vk, K), sp(vr, nr)};
    if (batch) ivs.insert(ivs.begin(), sp(vb, batch));
    stmts.push_back(nest(ivs, yes(), make_block("B_pack", ivs, BufferStore::make(m.Bp, v, pi))));
  }
  // 2. Block "C". Iter vars: (vb,) [vib,] vjb, vi or vir, vjr, vk; rows vib * MR + vir when
  //    A is packed.
  Var vb("vb"), vib("vib"), vi(mr ? "vir" : "vi"), vjb("vjb"), vjr("vjr"), vk("vk");
  Expr row = mr ? Expr(vib) * int64_t(mr) + vi : Expr(vi);
  Expr col = Expr(vjb) * int64_t(nr) + vjr;
  std::vector<Expr> ci = {row, col};
  std::vector<Expr> ai = mr ? std::vector<Expr>{vib, vk, vi} : std::vector<Expr>{vi, vk};
  if (batch) ci.insert(ci.begin(), vb), ai.insert(ai.begin(), vb);
  const Buffer& a_in = mr ? m.Ap : m.A;
  std::vector<Expr> bpi = {vjb, vk, vjr};
  if (pack_b && batch) bpi.insert(bpi.begin(), vb);
  Stmt body = BufferStore::make(m.C, m.C.load(ci) + a_in.load(ai) * m.Bp.load(bpi), ci);
  std::vector<IterVar> ivs;
  if (batch) ivs.push_back(sp(vb, batch));
  if (mr) {
    ivs.insert(ivs.end(), {sp(vib, ceil_div(M, mr)), sp(vjb, nb), sp(vi, mr)});
  } else {
    ivs.insert(ivs.end(), {sp(vi, M), sp(vjb, nb)});
  }
  ivs.push_back(sp(vjr, nr));
  ivs.push_back({vk, i64(0), i64(K), IterKind::kReduce});
  Expr init = with_bias ? m.bias.load({col}) : f32(0);
  Stmt blk = make_block("C", ivs, body, BufferStore::make(m.C, init, ci));
  // Masks for the rows past M (packed A) and the columns past N.
  Expr pred = yes();
  if (mr && ceil_div(M, mr) * mr != M) pred = row < M;
  if (nb * nr != N) pred = is_const_int(pred) ? Expr(col < N) : Expr(pred && col < N);
  stmts.push_back(nest(ivs, pred, blk));
  std::vector<Buffer> params = {m.A};
  if (mr) params.push_back(m.Ap);
  if (pack_b) params.push_back(m.B);
  params.push_back(m.Bp);
  if (with_bias) params.push_back(m.bias);
  params.push_back(m.C);
  m.func = PrimFunc{"matmul_packed", params, SeqStmt::make(stmts)};
  m.func.flops = 2.0 * double(std::max<int64_t>(batch, 1)) * double(M) * double(N) * double(K);
  return m;
}

inline std::vector<float> pack_a_panels(const float* A, int64_t M, int64_t K, int mr) {
  int64_t mb = ceil_div(M, mr);
  std::vector<float> out(size_t(mb * K * mr), 0.0f);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k) out[size_t(((i / mr) * K + k) * mr + i % mr)] = A[i * K + k];
  return out;
}

inline PrimFunc make_pack_b(int64_t K, int64_t N, int nr) {
  int64_t nb = ceil_div(N, nr);
  DataType f = DataType::f32();
  Buffer B = Buffer::make("B", f, std::vector<int64_t>{K, N});
  Buffer Bp = Buffer::make("Bp", f, std::vector<int64_t>{nb, K, nr});
  Var vjb("vjb"), vk("vk"), vr("vr"), jb("jb"), k("k"), r("r");
  Expr col = Expr(vjb) * int64_t(nr) + vr;
  // The clamped load stays in bounds; the select zeroes the padding columns.
  Expr v = select(col < N, B(vk, min(col, i64(N - 1))), f32(0));
  Stmt blk = make_block("pack_b",
                        {{vjb, i64(0), i64(nb), IterKind::kSpatial},
                         {vk, i64(0), i64(K), IterKind::kSpatial},
                         {vr, i64(0), i64(nr), IterKind::kSpatial}},
                        BufferStore::make(Bp, v, {vjb, vk, vr}));
  Stmt s = BlockRealize::make({jb, k, r}, yes(), blk);
  s = For::make(r, i64(0), i64(nr), ForKind::kSerial, s);
  s = For::make(k, i64(0), i64(K), ForKind::kSerial, s);
  s = For::make(jb, i64(0), i64(nb), ForKind::kSerial, s);
  return PrimFunc{"pack_b", {B, Bp}, s};
}

inline std::vector<float> pack_b_panels(const float* B, int64_t K, int64_t N, int nr) {
  int64_t nb = ceil_div(N, nr);
  std::vector<float> out(size_t(nb * K * nr), 0.0f);
  for (int64_t jb = 0; jb < nb; ++jb)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t r = 0; r < nr && jb * nr + r < N; ++r)
        out[size_t((jb * K + k) * nr + r)] = B[k * N + jb * nr + r];
  return out;
}

}  // namespace ingot::schedule

// Default matmul schedule rule (see matmul.h) and the packed-B layout helpers.
#include "schedule/rules/matmul.h"

#include <algorithm>

#include "schedule/intrin/x86_fma.h"
#include "schedule/ir_utils.h"
#include "tir/op.h"
#include "tir/region_analysis.h"

namespace ingot::schedule {

using namespace tir;

namespace {

Expr yes() {
  return IntImm::make(DataType::boolean(), 1);
}

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

PackedMatmul make_packed_matmul(int64_t M, int64_t N, int64_t K, int nr, int64_t batch,
                                bool with_bias) {
  PackedMatmul m;
  m.batch = batch, m.M = M, m.N = N, m.K = K, m.nr = nr;
  int64_t nb = ceil_div(N, nr);
  DataType f = DataType::f32();
  auto shape = [&](int64_t a, int64_t b) {
    return batch ? std::vector<int64_t>{batch, a, b} : std::vector<int64_t>{a, b};
  };
  m.A = Buffer::make("A", f, shape(M, K));
  m.Bp = Buffer::make("Bp", f, std::vector<int64_t>{nb, K, nr});
  m.C = Buffer::make("C", f, shape(M, N));
  if (with_bias) m.bias = Buffer::make("bias", f, std::vector<int64_t>{nb * nr});
  Var vb("vb"), vi("vi"), vjb("vjb"), vjr("vjr"), vk("vk");
  Expr col = Expr(vjb) * int64_t(nr) + vjr;
  std::vector<Expr> ci = {vi, col}, ai = {vi, vk};
  if (batch) ci.insert(ci.begin(), vb), ai.insert(ai.begin(), vb);
  Stmt body = BufferStore::make(m.C, m.C.load(ci) + m.A.load(ai) * m.Bp(vjb, vk, vjr), ci);
  std::vector<IterVar> ivs = {{vi, i64(0), i64(M), IterKind::kSpatial},
                              {vjb, i64(0), i64(nb), IterKind::kSpatial},
                              {vjr, i64(0), i64(nr), IterKind::kSpatial},
                              {vk, i64(0), i64(K), IterKind::kReduce}};
  if (batch) ivs.insert(ivs.begin(), {vb, i64(0), i64(batch), IterKind::kSpatial});
  Expr init = with_bias ? m.bias.load({col}) : f32(0);
  Stmt blk = make_block("C", ivs, body, BufferStore::make(m.C, init, ci));
  Var b("b"), i("i"), jb("jb"), jr("jr"), k("k");
  Expr pred = nb * nr == N ? yes() : Expr(jb) * int64_t(nr) + jr < N;
  std::vector<Expr> values = {i, jb, jr, k};
  std::vector<std::pair<Var, int64_t>> loops = {{i, M}, {jb, nb}, {jr, nr}, {k, K}};
  if (batch) values.insert(values.begin(), b), loops.insert(loops.begin(), {b, batch});
  Stmt s = BlockRealize::make(values, pred, blk);
  for (size_t l = loops.size(); l-- > 0;)
    s = For::make(loops[l].first, i64(0), i64(loops[l].second), ForKind::kSerial, s);
  std::vector<Buffer> params = {m.A, m.Bp, m.C};
  if (with_bias) params.insert(params.begin() + 2, m.bias);
  m.func = PrimFunc{"matmul_packed", params, s};
  m.func.flops = 2.0 * double(std::max<int64_t>(batch, 1)) * double(M) * double(N) * double(K);
  return m;
}

PrimFunc make_pack_b(int64_t K, int64_t N, int nr) {
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

std::vector<float> pack_b_panels(const float* B, int64_t K, int64_t N, int nr) {
  int64_t nb = ceil_div(N, nr);
  std::vector<float> out(size_t(nb * K * nr), 0.0f);
  for (int64_t jb = 0; jb < nb; ++jb)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t r = 0; r < nr && jb * nr + r < N; ++r)
        out[size_t((jb * K + k) * nr + r)] = B[k * N + jb * nr + r];
  return out;
}

int64_t matmul_k_block(int64_t K, int64_t kc) {
  if (K <= kc + kc / 4) return K;
  for (int64_t n = (K + kc - 1) / kc; n <= (K + kc - 1) / kc + 2; ++n)
    if (K % n == 0) return K / n;
  return kc;  // the last slice is masked
}

int matmul_panel_width(const MatmulConfig& cfg) {
  return default_fma_tile(cfg.vector_bits, int(cfg.kc)).nr;
}

void schedule_packed_matmul(Schedule& s, const std::string& block, const MatmulConfig& cfg) {
  BlockRV c = s.get_block(block);
  std::vector<LoopRV> l = s.get_loops(c);  // (b,) i, jb, jr, k
  bool batched = l.size() == 5;
  size_t o = batched ? 1 : 0;
  int64_t M = 0, NB = 0, K = 0;
  auto extent = [&](LoopRV r) {
    int64_t e = 0;
    is_const_int(find_loop(s.func().body, s.loop_var(r).node())->node->extent, &e);
    return e;
  };
  M = extent(l[o]), NB = extent(l[o + 1]), K = extent(l[o + 3]);
  // 1. Tile sizes: the micro-kernel's MR x NR, blocks no larger than the problem.
  FmaTileShape t = default_fma_tile(cfg.vector_bits, int(matmul_k_block(K, cfg.kc)));
  if (M < t.mr) t.mr = int(M);
  int64_t mr = t.mr, mc = std::min(cfg.mc, ceil_div(M, mr) * mr);
  int64_t ncb = std::max<int64_t>(1, std::min(cfg.nc / t.nr, NB));
  mc = std::max(mr, mc / mr * mr);
  // 2. Split and order: (b,) io | jo | ko | jn | im | ii, jr, ki.
  auto i = s.split(l[o], {std::nullopt, mc / mr, mr});
  auto j = s.split(l[o + 1], {std::nullopt, ncb});
  auto k = s.split(l[o + 3], {std::nullopt, int64_t(t.kc)});
  s.reorder({i[0], j[0], k[0], j[1], i[1], i[2], l[o + 2], k[1]});
  // 3. Zero C before the K loop; the update accumulates into it.
  BlockRV init = s.decompose_reduction(c, k[0]);
  std::vector<LoopRV> il = s.get_loops(init);
  s.vectorize(il.back());
  // 4. The MR x NR x KC tile becomes one block, computed by the micro-kernel.
  FmaTileShape intrin = t;
  register_tensor_intrin(make_fma_tile_intrin(intrin));
  BlockRV tile = s.blockize(i[2]);
  s.tensorize(tile, fma_tile_name(intrin));
  // 5. Row blocks in parallel (fused with the batch).
  if (cfg.parallel) s.parallel(batched ? s.fuse({l[0], i[0]}) : i[0]);
}

}  // namespace ingot::schedule

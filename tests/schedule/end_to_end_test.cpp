// Hand-built block-form matmul and conv2d, scheduled like a CPU default rule would (tile,
// reorder, cache_write local + reverse_compute_at, decompose_reduction, vectorize the inner
// loop, parallel the outer), lowered with lower_blocks and checked against plain reference loops.
#include "sched_test_util.h"

namespace ingot::schedule::testing {
namespace {

void schedule_tiled(Schedule& s, const std::string& block) {
  BlockRV c = s.get_block(block);
  auto l = s.get_loops(c);  // i, j, k
  auto i = s.split(l[0], {std::nullopt, 8});
  auto j = s.split(l[1], {std::nullopt, 8});
  auto k = s.split(l[2], {std::nullopt, 4});
  s.reorder({i[0], j[0], k[0], i[1], k[1], j[1]});
  BlockRV wb = s.cache_write(c, 0, "local");
  s.reverse_compute_at(wb, j[0]);
  s.decompose_reduction(c, k[0]);
  s.vectorize(j[1]);
  s.parallel(i[0]);
}

TEST(EndToEnd, TiledMatmulMatchesReference) {
  Matmul m = make_matmul(32, 24, 20);
  Schedule s(m.func);
  schedule_tiled(s, "C");
  expect_matmul_numbers(s.func(), 32, 24, 20);
  EXPECT_TRUE(replays(s, m.func));
  // The loop kinds landed where asked.
  auto info = find_block(s.func().body, "C", nullptr);
  ASSERT_TRUE(info.has_value());
  ASSERT_EQ(info->loops.size(), 6u);
  EXPECT_EQ(info->loops[0].as<For>()->kind, ForKind::kParallel);
  EXPECT_EQ(info->loops[5].as<For>()->kind, ForKind::kVectorized);
  EXPECT_EQ(info->loops[5].as<For>()->loop_var.name(), "j_1");
}

TEST(EndToEnd, NonDivisibleTiledMatmulMatchesReference) {
  Matmul m = make_matmul(30, 21, 18);  // every split leaves a masked tail
  Schedule s(m.func);
  schedule_tiled(s, "C");
  expect_matmul_numbers(s.func(), 30, 21, 18);
  EXPECT_TRUE(replays(s, m.func));
}

// conv2d NCHW, stride 1, no padding: O[n, f, y, x] += I[n, c, y + r, x + q] * W[f, c, r, q].
struct Conv {
  int64_t N = 1, C = 3, H = 9, W = 9, F = 8, R = 3, S = 3;
  int64_t OH() const { return H - R + 1; }
  int64_t OW() const { return W - S + 1; }
  Buffer I = Buffer::make("I", DataType::f32(), {N, C, H, W});
  Buffer Wt = Buffer::make("W", DataType::f32(), {F, C, R, S});
  Buffer O = Buffer::make("O", DataType::f32(), {N, F, OH(), OW()});
  PrimFunc func() const {
    Var vn("vn"), vf("vf"), vy("vy"), vx("vx"), vc("vc"), vr("vr"), vs("vs");
    auto sp = [](Var v, int64_t e) { return IterVar{v, i64(0), i64(e), IterKind::kSpatial}; };
    auto rd = [](Var v, int64_t e) { return IterVar{v, i64(0), i64(e), IterKind::kReduce}; };
    std::vector<Expr> out = {vn, vf, vy, vx};
    Stmt body =
        BufferStore::make(O, O.load(out) + I(vn, vc, vy + vr, vx + vs) * Wt(vf, vc, vr, vs), out);
    Stmt b = make_block(
        "conv", {sp(vn, N), sp(vf, F), sp(vy, OH()), sp(vx, OW()), rd(vc, C), rd(vr, R), rd(vs, S)},
        body, BufferStore::make(O, f32(0), out));
    Var n("n"), f("f"), y("y"), x("x"), c("c"), r("r"), q("s");
    Stmt realize = BlockRealize::make({n, f, y, x, c, r, q}, yes(), b);
    return PrimFunc{"conv2d",
                    {I, Wt, O},
                    nest({{n, N}, {f, F}, {y, OH()}, {x, OW()}, {c, C}, {r, R}, {q, S}}, realize)};
  }
};

TEST(EndToEnd, TiledConv2dMatchesReference) {
  Conv cv;
  PrimFunc f = cv.func();
  Schedule s(f);
  BlockRV conv = s.get_block("conv");
  auto l = s.get_loops(conv);  // n, f, y, x, c, r, s
  auto fo = s.split(l[1], {std::nullopt, 4});
  auto xo = s.split(l[3], {std::nullopt, 4});  // 7 = 2 x 4, masked tail
  s.reorder({fo[0], l[2], xo[0], l[4], l[5], l[6], xo[1], fo[1]});
  BlockRV wb = s.cache_write(conv, 0, "local");
  s.reverse_compute_at(wb, xo[0]);
  s.decompose_reduction(conv, l[4]);
  s.vectorize(fo[1]);
  s.parallel(fo[0]);
  EXPECT_TRUE(replays(s, f));

  HostTensor in(DataType::f32(), {cv.N, cv.C, cv.H, cv.W},
                random_values(cv.N * cv.C * cv.H * cv.W, 5));
  HostTensor w(DataType::f32(), {cv.F, cv.C, cv.R, cv.S},
               random_values(cv.F * cv.C * cv.R * cv.S, 6));
  HostTensor out(DataType::f32(), {cv.N, cv.F, cv.OH(), cv.OW()});
  run(s.func(), {&in, &w, &out});
  for (int64_t n = 0; n < cv.N; ++n)
    for (int64_t fo2 = 0; fo2 < cv.F; ++fo2)
      for (int64_t y = 0; y < cv.OH(); ++y)
        for (int64_t x = 0; x < cv.OW(); ++x) {
          float acc = 0;
          for (int64_t c = 0; c < cv.C; ++c)
            for (int64_t r = 0; r < cv.R; ++r)
              for (int64_t q = 0; q < cv.S; ++q)
                acc += float(in.get(((n * cv.C + c) * cv.H + y + r) * cv.W + x + q)) *
                       float(w.get(((fo2 * cv.C + c) * cv.R + r) * cv.S + q));
          int64_t o = ((n * cv.F + fo2) * cv.OH() + y) * cv.OW() + x;
          ASSERT_NEAR(out.get(o), acc, 1e-4) << "at " << o;
        }
}

}  // namespace
}  // namespace ingot::schedule::testing

// Builders shared by the schedule tests: block-form matmul / elementwise / conv2d PrimFuncs,
// hand-built expected IR pieces, and numeric checks through lower_blocks + the interpreter.
#pragma once

#include <gtest/gtest.h>

#include <random>

#include "common/tir_interpreter.h"
#include "schedule/ir_utils.h"
#include "schedule/schedule.h"
#include "tir/op.h"
#include "tir/printer.h"
#include "tir/region_analysis.h"
#include "tir/structural_equal.h"
#include "tir/transforms/lower_blocks.h"
#include "tir/verify.h"

namespace ingot::schedule::testing {

using namespace tir;
using ingot::testing::HostTensor;

inline Expr yes() {
  return IntImm::make(DataType::boolean(), 1);
}

// Loops around a statement, outermost first: nest({{i, 64}, {j, 32}}, body).
inline Stmt nest(std::vector<std::pair<Var, int64_t>> loops, Stmt body,
                 std::vector<ForKind> kinds = {}) {
  for (size_t k = loops.size(); k-- > 0;)
    body = For::make(loops[k].first, i64(0), i64(loops[k].second),
                     k < kinds.size() ? kinds[k] : ForKind::kSerial, body);
  return body;
}

struct Matmul {
  Buffer A, B, C;
  int64_t M, N, K;
  PrimFunc func;
  // The "C" block realized at the given bindings: C[i, j] += A[i, k] * B[k, j] (init 0).
  Stmt realize(Expr i, Expr j, Expr k, Expr pred = yes(), bool with_init = true) const {
    Var vi("vi"), vj("vj"), vk("vk");
    Stmt body = BufferStore::make(C, C(vi, vj) + A(vi, vk) * B(vk, vj), {vi, vj});
    Stmt init = with_init ? BufferStore::make(C, f32(0), {vi, vj}) : Stmt();
    Stmt b = make_block("C",
                        {{vi, i64(0), i64(M), IterKind::kSpatial},
                         {vj, i64(0), i64(N), IterKind::kSpatial},
                         {vk, i64(0), i64(K), IterKind::kReduce}},
                        body, init);
    return BlockRealize::make({i, j, k}, pred, b);
  }
};

inline Matmul make_matmul(int64_t M, int64_t N, int64_t K) {
  Matmul m;
  m.M = M, m.N = N, m.K = K;
  m.A = Buffer::make("A", DataType::f32(), {M, K});
  m.B = Buffer::make("B", DataType::f32(), {K, N});
  m.C = Buffer::make("C", DataType::f32(), {M, N});
  Var i("i"), j("j"), k("k");
  m.func.name = "matmul";
  m.func.params = {m.A, m.B, m.C};
  m.func.body = nest({{i, M}, {j, N}, {k, K}}, m.realize(i, j, k));
  return m;
}

// A[n] -> B[i] = A[i] * 2 (local intermediate) -> C[i] = B[i] + 1.
struct Chain {
  Buffer A, B, C;
  int64_t n;
  PrimFunc func;
  Stmt produce(Expr i) const {
    Var v("vi");
    return BlockRealize::make({i}, yes(),
                              make_block("B", {{v, i64(0), i64(n), IterKind::kSpatial}},
                                         BufferStore::make(B, A(v) * 2.0f, {v})));
  }
  Stmt consume(Expr i) const {
    Var v("vi");
    return BlockRealize::make({i}, yes(),
                              make_block("C", {{v, i64(0), i64(n), IterKind::kSpatial}},
                                         BufferStore::make(C, B(v) + 1.0f, {v})));
  }
};

inline Chain make_chain(int64_t n) {
  Chain c;
  c.n = n;
  c.A = Buffer::make("A", DataType::f32(), std::vector<int64_t>{n});
  c.B = Buffer::make("B", DataType::f32(), std::vector<int64_t>{n}, StorageScope::kLocal);
  c.C = Buffer::make("C", DataType::f32(), std::vector<int64_t>{n});
  Var i("i"), j("j");
  c.func.name = "chain";
  c.func.params = {c.A, c.C};
  Stmt body = SeqStmt::make({nest({{i, n}}, c.produce(i)), nest({{j, n}}, c.consume(j))});
  c.func.body = BlockRealize::make({}, yes(), Block::make("root", {}, {}, {}, body, Stmt(), {c.B}));
  return c;
}

// The function with body replaced (same name and params), for expected IR.
inline PrimFunc with_body(const PrimFunc& f, Stmt body) {
  PrimFunc g = f;
  g.body = std::move(body);
  return g;
}

// The root block around body, as Schedule adds it.
inline Stmt root(Stmt body, std::vector<Buffer> alloc = {}) {
  return BlockRealize::make({}, yes(),
                            Block::make("root", {}, {}, {}, std::move(body), Stmt(), alloc));
}

inline std::vector<double> random_values(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = d(rng);
  return v;
}

// Runs a block-form function (lowered with lower_blocks) on the given tensors.
inline void run(const PrimFunc& f, const std::vector<HostTensor*>& args) {
  PrimFunc lowered = lower_blocks(f);
  verify_prim_func(lowered);
  ingot::testing::run_prim_func(lowered, args);
}

inline std::vector<double> matmul_reference(const std::vector<double>& a,
                                            const std::vector<double>& b, int64_t M, int64_t N,
                                            int64_t K) {
  std::vector<double> c(size_t(M * N), 0.0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float acc = 0;
      for (int64_t k = 0; k < K; ++k)
        acc += float(a[size_t(i * K + k)]) * float(b[size_t(k * N + j)]);
      c[size_t(i * N + j)] = acc;
    }
  return c;
}

// Runs a matmul-shaped function on random inputs and compares with the plain reference.
inline void expect_matmul_numbers(const PrimFunc& f, int64_t M, int64_t N, int64_t K) {
  HostTensor a(DataType::f32(), {M, K}, random_values(M * K, 1));
  HostTensor b(DataType::f32(), {K, N}, random_values(K * N, 2));
  HostTensor c(DataType::f32(), {M, N});
  run(f, {&a, &b, &c});
  std::vector<double> want = matmul_reference(a.values(), b.values(), M, N, K);
  std::vector<double> got = c.values();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-4) << "at " << i;
}

inline void expect_chain_numbers(const PrimFunc& f, int64_t n) {
  HostTensor a(DataType::f32(), std::vector<int64_t>{n}, random_values(n, 3));
  HostTensor c(DataType::f32(), std::vector<int64_t>{n});
  run(f, {&a, &c});
  for (int64_t i = 0; i < n; ++i) ASSERT_NEAR(c.get(i), float(float(a.get(i)) * 2.0f) + 1.0f, 1e-6);
}

// Structural comparison with the printed IR of both sides on failure.
inline ::testing::AssertionResult same_ir(const PrimFunc& got, const PrimFunc& want) {
  if (structural_equal(got, want)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got:\n"
                                       << to_string(got) << "want:\n"
                                       << to_string(want);
}

// The trace round trip: JSON text -> Trace -> replay on the original equals the schedule.
inline ::testing::AssertionResult replays(const Schedule& s, const PrimFunc& original) {
  verify_prim_func(s.func());  // the scheduled block form is well formed
  std::string text = s.trace().to_json().dump();
  Trace t = Trace::from_json(nlohmann::json::parse(text));
  Schedule r = t.replay(original);
  if (!structural_equal(r.func(), s.func()))
    return ::testing::AssertionFailure() << "replayed:\n"
                                         << to_string(r.func()) << "scheduled:\n"
                                         << to_string(s.func());
  if (r.trace().to_json() != s.trace().to_json())
    return ::testing::AssertionFailure() << "trace differs after replay";
  return ::testing::AssertionSuccess();
}

// The message of the ScheduleError that f throws ("" if none).
template <typename F>
std::string schedule_error(F f) {
  try {
    f();
  } catch (const ScheduleError& e) {
    return e.what();
  }
  return "";
}

}  // namespace ingot::schedule::testing

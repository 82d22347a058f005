// Compute rules of Swish/SwiGLU (closed form), CausalConvWithState (a plain reference loop over
// the padded sequence), LinearAttention (the ONNX recurrence written out per head: decay, delta
// correction, write, grouped read) and TensorScatter (hand-computed caches).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "lower/compute/compute.h"
#include "rule_test_util.h"
#include "tir/printer.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;

double sigmoid(double x) {
  return 1 / (1 + std::exp(-x));
}

TEST(SwishRules, SwishAndSwiGLU) {
  HostTensor a = random_f32({3, 5}, 1, -4, 4), b = random_f32({3, 5}, 2);
  graph::Attrs attrs;
  attrs.set("alpha", 0.5);
  HostTensor s = run_rule1(make_node(OpKind::Swish, attrs), {&a}, DataType::f32(), {3, 5});
  HostTensor g = run_rule1(make_node(OpKind::SwiGLU, attrs), {&a, &b}, DataType::f32(), {3, 5});
  std::vector<double> ws, wg;
  for (int64_t i = 0; i < a.size(); ++i) {
    double x = a.get(i);
    ws.push_back(x * sigmoid(0.5 * x));
    wg.push_back(x * sigmoid(0.5 * x) * b.get(i));
  }
  expect_near_all(s.values(), ws);
  expect_near_all(g.values(), wg);
  // alpha = 1 (SiLU): the rule writes x * sigmoid(x), no multiply by 1.
  HostTensor big = random_f32({3, 5}, 3, -30, 30);
  HostTensor silu = run_rule1(make_node(OpKind::Swish), {&big}, DataType::f32(), {3, 5});
  std::vector<double> want;
  for (int64_t i = 0; i < big.size(); ++i) want.push_back(big.get(i) * sigmoid(big.get(i)));
  expect_near_all(silu.values(), want);
  std::vector<tir::Buffer> in = {tir::Buffer::make("X", DataType::f32(), std::vector<int64_t>{4})};
  std::vector<tir::Buffer> out = {tir::Buffer::make("Y", DataType::f32(), std::vector<int64_t>{4})};
  std::string ir = tir::to_string(lower::compute_swish(make_node(OpKind::Swish), in, out));
  EXPECT_EQ(ir.find("1.0"), std::string::npos) << ir;
}

// out[b, c, l] = bias[c] + sum_j w[c, j] * padded[b, c, l + j]; padded = past (or 0) ++ x.
struct CausalCase {
  int64_t batch = 2, ch = 3, len = 5, k = 3;
  bool bias = true, past = true, silu = false;
};

void check_causal_conv(const CausalCase& cc) {
  int64_t B = cc.batch, C = cc.ch, L = cc.len, K = cc.k, P = L + K - 1;
  HostTensor x = random_f32({B, C, L}, 3), w = random_f32({C, 1, K}, 4);
  HostTensor bias = random_f32({C}, 5), past = random_f32({B, C, K - 1}, 6);
  auto padded = [&](int64_t b, int64_t c, int64_t p) {
    if (p >= K - 1) return x.get((b * C + c) * L + p - (K - 1));
    return cc.past ? past.get((b * C + c) * (K - 1) + p) : 0.0;
  };
  std::vector<double> want_y, want_s;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t c = 0; c < C; ++c) {
      for (int64_t l = 0; l < L; ++l) {
        double v = cc.bias ? bias.get(c) : 0.0;
        for (int64_t j = 0; j < K; ++j) v += w.get(c * K + j) * padded(b, c, l + j);
        want_y.push_back(cc.silu ? v * sigmoid(v) : v);
      }
      for (int64_t j = 0; j < K - 1; ++j) want_s.push_back(padded(b, c, P - (K - 1) + j));
    }
  graph::Attrs a;
  a.set("activation", std::string(cc.silu ? "silu" : "none"));
  std::vector<const HostTensor*> ins = {&x, &w, cc.bias ? &bias : nullptr};
  if (cc.past) ins.push_back(&past);
  std::vector<HostTensor> outs = {HostTensor(DataType::f32(), {B, C, L})};
  if (K > 1) outs.push_back(HostTensor(DataType::f32(), {B, C, K - 1}));
  outs = run_rule(make_node(OpKind::CausalConvWithState, a), ins, outs);
  expect_near_all(outs[0].values(), want_y);
  if (K > 1) expect_near_all(outs[1].values(), want_s);
}

TEST(CausalConvRules, BiasPastAndSilu) {
  CausalCase c;
  check_causal_conv(c);
  c.silu = true;
  check_causal_conv(c);
  c.bias = c.past = c.silu = false;
  check_causal_conv(c);
  c.len = 2;  // input shorter than the state: the new state holds zeros and the input
  c.k = 5;
  check_causal_conv(c);
  c.past = true;  // ... or the old state's tail and the input
  check_causal_conv(c);
  c.k = 1;  // no state
  c.past = false;
  c.silu = true;
  check_causal_conv(c);
}

// The ONNX recurrence, per batch and KV head, in double.
struct LinearCase {
  std::string rule = "gated_delta";
  int64_t batch = 2, seq = 3, hq = 4, hkv = 2, dk = 3, dv = 2;
  bool past = true, decay_per_head = false, beta_shared = false;
  double scale = 0.7;
};

void check_linear_attention(const LinearCase& lc) {
  int64_t B = lc.batch, T = lc.seq, HQ = lc.hq, HK = lc.hkv, DK = lc.dk, DV = lc.dv;
  bool gated = lc.rule == "gated" || lc.rule == "gated_delta";
  bool delta = lc.rule == "delta" || lc.rule == "gated_delta";
  HostTensor q = random_f32({B, T, HQ * DK}, 11), k = random_f32({B, T, HK * DK}, 12);
  HostTensor v = random_f32({B, T, HK * DV}, 13), past = random_f32({B, HK, DK, DV}, 14);
  HostTensor decay = random_f32({B, T, lc.decay_per_head ? HK : HK * DK}, 15, -0.5, 0);
  HostTensor beta = random_f32({B, T, lc.beta_shared ? 1 : HK}, 16, 0, 1);
  int64_t group = HQ / HK;
  std::vector<double> want_o(size_t(B * T * HQ * DV)), want_s;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < HK; ++h) {
      std::vector<double> S(size_t(DK * DV), 0.0);
      if (lc.past)
        for (int64_t i = 0; i < DK * DV; ++i) S[size_t(i)] = past.get((b * HK + h) * DK * DV + i);
      for (int64_t t = 0; t < T; ++t) {
        auto kk = [&](int64_t d) { return k.get((b * T + t) * HK * DK + h * DK + d); };
        if (gated)
          for (int64_t d = 0; d < DK; ++d) {
            int64_t gi = lc.decay_per_head ? h : h * DK + d;
            double f = std::exp(decay.get((b * T + t) * decay.shape[2] + gi));
            for (int64_t m = 0; m < DV; ++m) S[size_t(d * DV + m)] *= f;
          }
        std::vector<double> u(static_cast<size_t>(DV));
        for (int64_t m = 0; m < DV; ++m) {
          u[size_t(m)] = v.get((b * T + t) * HK * DV + h * DV + m);
          if (!delta) continue;
          double r = 0;
          for (int64_t d = 0; d < DK; ++d) r += S[size_t(d * DV + m)] * kk(d);
          double bt = beta.get((b * T + t) * beta.shape[2] + (lc.beta_shared ? 0 : h));
          u[size_t(m)] = bt * (u[size_t(m)] - r);
        }
        for (int64_t d = 0; d < DK; ++d)
          for (int64_t m = 0; m < DV; ++m) S[size_t(d * DV + m)] += kk(d) * u[size_t(m)];
        for (int64_t g = 0; g < group; ++g) {
          int64_t qh = h * group + g;
          for (int64_t m = 0; m < DV; ++m) {
            double o = 0;
            for (int64_t d = 0; d < DK; ++d)
              o += q.get((b * T + t) * HQ * DK + qh * DK + d) * S[size_t(d * DV + m)];
            want_o[size_t((b * T + t) * HQ * DV + qh * DV + m)] = lc.scale * o;
          }
        }
      }
      want_s.insert(want_s.end(), S.begin(), S.end());
    }
  graph::Attrs a;
  a.set("update_rule", lc.rule);
  a.set("scale", lc.scale);
  a.set("q_num_heads", HQ);
  a.set("kv_num_heads", HK);
  std::vector<const HostTensor*> ins = {&q, &k, &v, lc.past ? &past : nullptr,
                                        gated ? &decay : nullptr};
  if (delta) ins.push_back(&beta);
  std::vector<HostTensor> outs = run_rule(
      make_node(OpKind::LinearAttention, a), ins,
      {HostTensor(DataType::f32(), {B, T, HQ * DV}), HostTensor(DataType::f32(), {B, HK, DK, DV})});
  expect_near_all(outs[0].values(), want_o);
  expect_near_all(outs[1].values(), want_s);
}

TEST(LinearAttentionRules, EveryRuleGroupedAndShared) {
  LinearCase c;  // gated_delta, grouped heads, past state, decay per key dim, beta per head
  check_linear_attention(c);
  c.past = false;
  c.decay_per_head = c.beta_shared = true;
  check_linear_attention(c);
  c.rule = "gated";
  c.hq = 2;
  check_linear_attention(c);
  c.rule = "linear";
  c.past = true;
  check_linear_attention(c);
  c.rule = "delta";  // multi-query: one KV head for four query heads
  c.batch = 1;
  c.seq = 4;
  c.hq = 4;
  c.hkv = 1;
  check_linear_attention(c);
}

TEST(TensorScatterRules, LinearCircularAndDefaultIndices) {
  // cache (2, 4, 2) along axis 1; update (2, 2, 2).
  HostTensor cache(DataType::f32(), {2, 4, 2}, {0, 0, 1, 1, 2, 2, 3, 3, 0, 0, 1, 1, 2, 2, 3, 3});
  HostTensor upd(DataType::f32(), {2, 2, 2}, {7, 7, 8, 8, 5, 5, 6, 6});
  HostTensor wi(DataType::i64(), {2}, {1, 3});
  graph::Attrs a;
  a.set("axis", int64_t(1));
  a.set("mode", std::string("circular"));
  HostTensor y = run_rule1(make_node(OpKind::TensorScatter, a), {&cache, &upd, &wi},
                           DataType::f32(), {2, 4, 2});
  expect_near_all(y.values(), {0, 0, 7, 7, 8, 8, 3, 3, 6, 6, 1, 1, 2, 2, 5, 5});
  HostTensor wl(DataType::i64(), {2}, {2, 0});
  a.set("mode", std::string("linear"));
  y = run_rule1(make_node(OpKind::TensorScatter, a), {&cache, &upd, &wl}, DataType::f32(),
                {2, 4, 2});
  expect_near_all(y.values(), {0, 0, 1, 1, 7, 7, 8, 8, 5, 5, 6, 6, 2, 2, 3, 3});
  y = run_rule1(make_node(OpKind::TensorScatter, a), {&cache, &upd}, DataType::f32(), {2, 4, 2});
  expect_near_all(y.values(), {7, 7, 8, 8, 2, 2, 3, 3, 5, 5, 6, 6, 2, 2, 3, 3});
}

}  // namespace
}  // namespace ingot::testing

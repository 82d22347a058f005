// Compute rule of Attention against a plain reference written from the ONNX specification:
// grouped heads with a past cache and a boolean causal mask, 3-D inputs with a padded additive
// mask and softcap, and the external-cache (nonpad_kv_seqlen) sliding window; RotaryEmbedding.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "rule_test_util.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

struct Case {
  int64_t B = 1, Hq = 1, Hkv = 1, Sq = 1, S = 1, P = 0, dk = 1, dv = 1;
  bool rank3 = false;
  const HostTensor* mask = nullptr;
  const HostTensor* nonpad = nullptr;
  bool causal = false;
  double scale = 0, softcap = 0;
  int64_t mode = 0, left = -1, right = -1;
};

struct Result {
  std::vector<double> y, present_k, present_v, qk;
};

// Element (b, h, s, d) of Q/K/V in the 4-D or the 3-D (batch, seq, heads * size) layout.
double at(const HostTensor& t, bool rank3, int64_t heads, int64_t size, int64_t b, int64_t h,
          int64_t s, int64_t d) {
  if (!rank3) return t.get(flat_index(t.shape, {b, h, s, d}));
  return t.get(flat_index(t.shape, {b, s, h * size + d}));
}

Result reference(const Case& c, const HostTensor& q, const HostTensor& k, const HostTensor& v,
                 const HostTensor* pk, const HostTensor* pv) {
  int64_t T = c.P + c.S;
  Result r;
  r.y.assign(size_t(c.B * c.Hq * c.Sq * c.dv), 0);
  r.qk.assign(size_t(c.B * c.Hq * c.Sq * T), 0);
  auto key = [&](const HostTensor& now, const HostTensor* past, int64_t size, int64_t b, int64_t h,
                 int64_t j, int64_t d) {
    return j < c.P ? past->get(flat_index(past->shape, {b, h, j, d}))
                   : at(now, c.rank3, c.Hkv, size, b, h, j - c.P, d);
  };
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t hk = 0; hk < c.Hkv; ++hk)
      for (int64_t j = 0; j < T; ++j) {
        for (int64_t d = 0; d < c.dk; ++d) r.present_k.push_back(key(k, pk, c.dk, b, hk, j, d));
      }
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t hk = 0; hk < c.Hkv; ++hk)
      for (int64_t j = 0; j < T; ++j)
        for (int64_t d = 0; d < c.dv; ++d) r.present_v.push_back(key(v, pv, c.dv, b, hk, j, d));
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t h = 0; h < c.Hq; ++h)
      for (int64_t i = 0; i < c.Sq; ++i) {
        int64_t hk = h / (c.Hq / c.Hkv);
        int64_t offset = c.nonpad ? int64_t(c.nonpad->get(b)) - c.Sq : c.P;
        std::vector<double> score(static_cast<size_t>(T)), bias(static_cast<size_t>(T));
        for (int64_t j = 0; j < T; ++j) {
          double s = 0;
          for (int64_t d = 0; d < c.dk; ++d)
            s += at(q, c.rank3, c.Hq, c.dk, b, h, i, d) * key(k, pk, c.dk, b, hk, j, d);
          s *= c.scale;
          if (c.softcap > 0) s = c.softcap * std::tanh(s / c.softcap);
          bool allowed = true;
          double add = 0;
          if (c.mask) {
            const std::vector<int64_t>& ms = c.mask->shape;
            if (j >= ms.back()) {
              allowed = false;
            } else {
              std::vector<int64_t> full = {b, h, i, j}, mi;
              for (size_t d = 0; d < ms.size(); ++d) {
                int64_t idx = full[4 - ms.size() + d];
                mi.push_back(ms[d] == 1 ? 0 : idx);
              }
              double m = c.mask->get(flat_index(ms, mi));
              if (c.mask->dtype.is_bool())
                allowed = allowed && m != 0;
              else
                add = m;
            }
          }
          int64_t p = i + offset;
          if (c.causal && j > p) allowed = false;
          if (c.left >= 0 && p - j > c.left) allowed = false;
          if (c.right >= 0 && j - p > c.right) allowed = false;
          if (c.nonpad && j >= int64_t(c.nonpad->get(b))) allowed = false;
          score[size_t(j)] = s;
          bias[size_t(j)] = allowed ? add : kNegInf;
        }
        double mx = kNegInf, bmax = kNegInf;
        for (int64_t j = 0; j < T; ++j) {
          mx = std::max(mx, score[size_t(j)] + bias[size_t(j)]);
          bmax = std::max(bmax, bias[size_t(j)]);
        }
        std::vector<double> p(static_cast<size_t>(T), 0.0);
        if (bmax != kNegInf) {
          double sum = 0;
          for (int64_t j = 0; j < T; ++j)
            sum += p[size_t(j)] = std::exp(score[size_t(j)] + bias[size_t(j)] - mx);
          for (double& x : p) x /= sum;
        }
        for (int64_t j = 0; j < T; ++j) {
          double out = c.mode == 3   ? p[size_t(j)]
                       : c.mode == 2 ? score[size_t(j)] + bias[size_t(j)]
                                     : score[size_t(j)];
          r.qk[size_t(flat_index({c.B, c.Hq, c.Sq, T}, {b, h, i, j}))] = out;
        }
        for (int64_t e = 0; e < c.dv; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < T; ++j) acc += p[size_t(j)] * key(v, pv, c.dv, b, hk, j, e);
          int64_t yi = c.rank3 ? flat_index({c.B, c.Sq, c.Hq * c.dv}, {b, i, h * c.dv + e})
                               : flat_index({c.B, c.Hq, c.Sq, c.dv}, {b, h, i, e});
          r.y[size_t(yi)] = acc;
        }
      }
  return r;
}

// Masked mode-2 scores are -inf: compared as a finite sentinel so positions must agree.
std::vector<double> finite(std::vector<double> v) {
  for (double& x : v)
    if (x == kNegInf) x = -1e30;
  return v;
}

void check(const Case& c, const std::vector<bool>& want_outputs) {
  int64_t T = c.P + c.S;
  auto shape = [&](int64_t h, int64_t s, int64_t size) {
    return c.rank3 ? std::vector<int64_t>{c.B, s, h * size} : std::vector<int64_t>{c.B, h, s, size};
  };
  HostTensor q = random_f32(shape(c.Hq, c.Sq, c.dk), 31, -2, 2);
  HostTensor k = random_f32(shape(c.Hkv, c.S, c.dk), 32, -2, 2);
  HostTensor v = random_f32(shape(c.Hkv, c.S, c.dv), 33);
  HostTensor pk = random_f32({c.B, c.Hkv, c.P, c.dk}, 34, -2, 2);
  HostTensor pv = random_f32({c.B, c.Hkv, c.P, c.dv}, 35);
  graph::Attrs a;
  a.set("scale", c.scale);
  a.set("is_causal", int64_t(c.causal));
  a.set("q_num_heads", c.Hq);
  a.set("kv_num_heads", c.Hkv);
  a.set("softcap", c.softcap);
  a.set("qk_matmul_output_mode", c.mode);
  a.set("left_window_size", c.left);
  a.set("right_window_size", c.right);
  bool past = c.P > 0;
  std::vector<const HostTensor*> ins = {
      &q, &k, &v, c.mask, past ? &pk : nullptr, past ? &pv : nullptr, c.nonpad};
  std::vector<HostTensor> outs = {
      HostTensor(DataType::f32(), c.rank3 ? std::vector<int64_t>{c.B, c.Sq, c.Hq * c.dv}
                                          : std::vector<int64_t>{c.B, c.Hq, c.Sq, c.dv})};
  if (want_outputs.size() > 0) outs.emplace_back(DataType::f32(), std::vector{c.B, c.Hkv, T, c.dk});
  if (want_outputs.size() > 1) outs.emplace_back(DataType::f32(), std::vector{c.B, c.Hkv, T, c.dv});
  if (want_outputs.size() > 2) outs.emplace_back(DataType::f32(), std::vector{c.B, c.Hq, c.Sq, T});
  std::vector<HostTensor> got = run_rule(make_node(OpKind::Attention, a), ins, outs);
  Result want = reference(c, q, k, v, past ? &pk : nullptr, past ? &pv : nullptr);
  expect_near_all(got[0].values(), want.y, 1e-5);
  if (got.size() > 1) expect_near_all(got[1].values(), want.present_k, 0);
  if (got.size() > 2) expect_near_all(got[2].values(), want.present_v, 0);
  if (got.size() > 3) expect_near_all(finite(got[3].values()), finite(want.qk), 1e-5);
}

// GQA (4 query heads on 2 kv heads) with a past cache, causal masking offset by the past and a
// boolean mask whose row 1 masks every key: that row's output and probabilities are zero.
TEST(AttentionRules, GroupedHeadsPastCausalBoolMask) {
  Case c{.B = 2, .Hq = 4, .Hkv = 2, .Sq = 3, .S = 3, .P = 2, .dk = 4, .dv = 5};
  HostTensor mask(DataType::boolean(), {3, 5});
  for (int64_t i = 0; i < mask.size(); ++i) mask.set(i, (i % 4 != 1) && (i / 5 != 1));
  c.mask = &mask;
  c.causal = true;
  c.scale = 0.5;
  c.mode = 3;
  check(c, {true, true, true});
}

// 3-D inputs (heads split from the hidden dim), an additive mask shorter than the keys (the
// rest is masked), softcap, and qk_matmul_output after the bias (mode 2) and before it (mode 0).
TEST(AttentionRules, ThreeDimensionalPaddedFloatMaskSoftcap) {
  for (int64_t mode : {0, 2}) {
    SCOPED_TRACE(mode);
    Case c{.B = 2, .Hq = 2, .Hkv = 2, .Sq = 3, .S = 4, .dk = 3, .dv = 2, .rank3 = true};
    HostTensor mask = random_f32({2, 1, 3}, 36, -1, 0);
    c.mask = &mask;
    c.scale = 0.7;
    c.softcap = 1.5;
    c.mode = mode;
    check(c, {true, true, true});
  }
}

// External cache: keys past nonpad_kv_seqlen[b] are ignored and the window [p - 1, p] is
// placed at p = i + nonpad - q_seq; batch 0's first query sees no key (negative offset).
TEST(AttentionRules, NonPaddedKeysAndSlidingWindow) {
  Case c{.B = 2, .Hq = 1, .Hkv = 1, .Sq = 3, .S = 5, .dk = 2, .dv = 3};
  HostTensor nonpad(DataType::i64(), {2}, {2, 5});
  c.nonpad = &nonpad;
  c.scale = 1.0;
  c.left = 1;
  c.right = 0;
  check(c, {});
}

// RotaryEmbedding on 4-D X (interleaved, caches indexed by position_ids) and 3-D X (halves,
// per-(batch, seq) caches) rotating the first `rot` of 6 head elements, the rest copied.
TEST(RotaryRules, HalvesAndInterleavedPairs) {
  const int64_t B = 2, H = 2, S = 3, D = 6, rot = 4, half = 2, P = 5;
  for (bool rank4 : {true, false}) {
    SCOPED_TRACE(rank4);
    bool interleaved = rank4;
    HostTensor x =
        random_f32(rank4 ? std::vector<int64_t>{B, H, S, D} : std::vector{B, S, H * D}, 41);
    std::vector<int64_t> cache_shape =
        rank4 ? std::vector<int64_t>{P, half} : std::vector<int64_t>{B, S, half};
    HostTensor cos = random_f32(cache_shape, 42), sin = random_f32(cache_shape, 43);
    HostTensor ids(DataType::i64(), {B, S}, {4, 0, 2, 1, 3, 3});
    graph::Attrs a;
    a.set("num_heads", H);
    a.set("rotary_embedding_dim", rot);
    a.set("interleaved", int64_t(interleaved));
    HostTensor y = run_rule1(make_node(OpKind::RotaryEmbedding, a),
                             {&x, &cos, &sin, rank4 ? &ids : nullptr}, DataType::f32(), x.shape);
    std::vector<double> want(size_t(x.size()));
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t s = 0; s < S; ++s) {
          auto xi = [&](int64_t d) {
            return rank4 ? flat_index(x.shape, {b, h, s, d})
                         : flat_index(x.shape, {b, s, h * D + d});
          };
          for (int64_t d = rot; d < D; ++d) want[size_t(xi(d))] = x.get(xi(d));
          for (int64_t k = 0; k < half; ++k) {
            int64_t c = rank4 ? flat_index(cache_shape, {int64_t(ids.get(b * S + s)), k})
                              : flat_index(cache_shape, {b, s, k});
            int64_t d1 = interleaved ? 2 * k : k, d2 = interleaved ? 2 * k + 1 : k + half;
            double x1 = x.get(xi(d1)), x2 = x.get(xi(d2));
            want[size_t(xi(d1))] = cos.get(c) * x1 - sin.get(c) * x2;
            want[size_t(xi(d2))] = sin.get(c) * x1 + cos.get(c) * x2;
          }
        }
    expect_near_all(y.values(), want, 1e-6);
  }
}

}  // namespace
}  // namespace ingot::testing

// Compute rules of RNN, GRU and LSTM against a hand-computed RNN and a plain reference of the
// ONNX equations written here (default activations, biases, initial states, peepholes, clip,
// sequence_lens, reverse / bidirectional, linear_before_reset, batch-major layout).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "rule_test_util.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;
using F = std::vector<double>;
using V = std::vector<int64_t>;

struct Cfg {
  OpKind kind;
  int64_t seq, batch, in, hs;
  std::string direction = "forward";
  bool bias = false, init = false, peep = false, lbr = false;
  double clip = 0;  // 0: none
  std::vector<double> lens = {};
};

double sigm(double v) {
  return 1 / (1 + std::exp(-v));
}

struct Ref {
  F y, yh, yc;  // layout 0
};

// The ONNX equations, one direction at a time, on layout-0 data.
Ref reference(const Cfg& c, const HostTensor& x, const HostTensor& w, const HostTensor& r,
              const HostTensor& b, const HostTensor& ih, const HostTensor& ic,
              const HostTensor& p) {
  int64_t g = c.kind == OpKind::LSTM ? 4 : c.kind == OpKind::GRU ? 3 : 1, H = c.hs;
  int64_t dirs = c.direction == "bidirectional" ? 2 : 1;
  Ref out{F(size_t(c.seq * dirs * c.batch * H), 0), F(size_t(dirs * c.batch * H)),
          F(size_t(dirs * c.batch * H))};
  auto cl = [&](double v) { return c.clip > 0 ? std::min(std::max(v, -c.clip), c.clip) : v; };
  for (int64_t d = 0; d < dirs; ++d) {
    bool rev = c.direction == "reverse" || d == 1;
    for (int64_t bt = 0; bt < c.batch; ++bt) {
      F h(static_cast<size_t>(H), 0.0), cs(static_cast<size_t>(H), 0.0);
      for (int64_t j = 0; j < H; ++j) {
        h[size_t(j)] = c.init ? ih.get((d * c.batch + bt) * H + j) : 0;
        cs[size_t(j)] = c.init && c.kind == OpKind::LSTM ? ic.get((d * c.batch + bt) * H + j) : 0;
      }
      int64_t len = c.lens.empty() ? c.seq : int64_t(c.lens[size_t(bt)]);
      for (int64_t s = 0; s < c.seq; ++s) {
        int64_t t = rev ? c.seq - 1 - s : s;
        if (t >= len) continue;  // Y stays 0, state kept
        // xw[k] = X_t W_k^T + Wb_k, hr[k] = H R_k^T + Rb_k for gate row k.
        auto xw = [&](int64_t row) {
          double a = c.bias ? b.get(d * 2 * g * H + row) : 0;
          for (int64_t i = 0; i < c.in; ++i)
            a += x.get((t * c.batch + bt) * c.in + i) * w.get((d * g * H + row) * c.in + i);
          return a;
        };
        auto hr = [&](int64_t row, const F& hv) {
          double a = c.bias ? b.get(d * 2 * g * H + g * H + row) : 0;
          for (int64_t k = 0; k < H; ++k) a += hv[size_t(k)] * r.get((d * g * H + row) * H + k);
          return a;
        };
        F hn(static_cast<size_t>(H), 0.0), cn(static_cast<size_t>(H), 0.0);
        if (c.kind == OpKind::RNN) {
          for (int64_t j = 0; j < H; ++j) hn[size_t(j)] = std::tanh(cl(xw(j) + hr(j, h)));
        } else if (c.kind == OpKind::GRU) {
          F z(static_cast<size_t>(H), 0.0), rg(static_cast<size_t>(H), 0.0),
              rh(static_cast<size_t>(H), 0.0);
          for (int64_t j = 0; j < H; ++j) {
            z[size_t(j)] = sigm(cl(xw(j) + hr(j, h)));
            rg[size_t(j)] = sigm(cl(xw(H + j) + hr(H + j, h)));
            rh[size_t(j)] = rg[size_t(j)] * h[size_t(j)];
          }
          for (int64_t j = 0; j < H; ++j) {
            double rec = c.lbr ? rg[size_t(j)] * hr(2 * H + j, h) : hr(2 * H + j, rh);
            double cand = std::tanh(cl(xw(2 * H + j) + rec));
            hn[size_t(j)] = (1 - z[size_t(j)]) * cand + z[size_t(j)] * h[size_t(j)];
          }
        } else {
          for (int64_t j = 0; j < H; ++j) {
            auto pp = [&](int64_t k) { return c.peep ? p.get(d * 3 * H + k * H + j) : 0.0; };
            double co = cs[size_t(j)];
            double ig = sigm(cl(xw(j) + hr(j, h) + pp(0) * co));
            double fg = sigm(cl(xw(2 * H + j) + hr(2 * H + j, h) + pp(2) * co));
            double cc = std::tanh(cl(xw(3 * H + j) + hr(3 * H + j, h)));
            cn[size_t(j)] = fg * co + ig * cc;
            double og = sigm(cl(xw(H + j) + hr(H + j, h) + pp(1) * cn[size_t(j)]));
            hn[size_t(j)] = og * std::tanh(cn[size_t(j)]);
          }
          cs = cn;
        }
        h = hn;
        for (int64_t j = 0; j < H; ++j)
          out.y[size_t(((t * dirs + d) * c.batch + bt) * H + j)] = h[size_t(j)];
      }
      for (int64_t j = 0; j < H; ++j) {
        out.yh[size_t((d * c.batch + bt) * H + j)] = h[size_t(j)];
        out.yc[size_t((d * c.batch + bt) * H + j)] = cs[size_t(j)];
      }
    }
  }
  return out;
}

graph::Attrs canonical_attrs(const Cfg& c) {
  int64_t dirs = c.direction == "bidirectional" ? 2 : 1;
  std::vector<std::string> per = c.kind == OpKind::RNN ? std::vector<std::string>{"Tanh"}
                                 : c.kind == OpKind::GRU
                                     ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                     : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  std::vector<std::string> acts;
  for (int64_t d = 0; d < dirs; ++d) acts.insert(acts.end(), per.begin(), per.end());
  graph::Attrs a;
  a.set("activations", acts);
  a.set("activation_alpha", F(acts.size(), 0));
  a.set("activation_beta", F(acts.size(), 0));
  a.set("hidden_size", c.hs);
  a.set("direction", c.direction);
  a.set("layout", int64_t(0));
  if (c.kind == OpKind::GRU) a.set("linear_before_reset", int64_t(c.lbr));
  if (c.clip > 0) a.set("clip", c.clip);
  return a;
}

void check(const Cfg& c) {
  int64_t g = c.kind == OpKind::LSTM ? 4 : c.kind == OpKind::GRU ? 3 : 1, H = c.hs;
  int64_t dirs = c.direction == "bidirectional" ? 2 : 1;
  HostTensor x = random_f32({c.seq, c.batch, c.in}, 1, -2, 2);
  HostTensor w = random_f32({dirs, g * H, c.in}, 2);
  HostTensor r = random_f32({dirs, g * H, H}, 3);
  HostTensor b = random_f32({dirs, 2 * g * H}, 4);
  HostTensor ih = random_f32({dirs, c.batch, H}, 5);
  HostTensor ic = random_f32({dirs, c.batch, H}, 6);
  HostTensor p = random_f32({dirs, 3 * H}, 7);
  HostTensor lens(DataType::i32(), {c.batch}, c.lens.empty() ? F(size_t(c.batch), 0) : c.lens);
  bool lstm = c.kind == OpKind::LSTM;
  std::vector<const HostTensor*> ins = {
      &x, &w, &r, c.bias ? &b : nullptr, c.lens.empty() ? nullptr : &lens, c.init ? &ih : nullptr};
  if (lstm) {
    ins.push_back(c.init ? &ic : nullptr);
    ins.push_back(c.peep ? &p : nullptr);
  }
  std::vector<HostTensor> outs = {HostTensor(DataType::f32(), {c.seq, dirs, c.batch, H}),
                                  HostTensor(DataType::f32(), {dirs, c.batch, H})};
  if (lstm) outs.push_back(HostTensor(DataType::f32(), {dirs, c.batch, H}));
  std::vector<HostTensor> got = run_rule(make_node(c.kind, canonical_attrs(c)), ins, outs);
  Ref want = reference(c, x, w, r, b, ih, ic, p);
  expect_near_all(got[0].values(), want.y, 1e-5);
  expect_near_all(got[1].values(), want.yh, 1e-5);
  if (lstm) expect_near_all(got[2].values(), want.yc, 1e-5);
}

TEST(RecurrentRule, HandComputedRnn) {
  // seq 2, batch 1, input 1, hidden 1: W = 0.5, R = 2, Wb + Rb = 0.3.
  HostTensor x(DataType::f32(), {2, 1, 1}, {1, -1});
  HostTensor w(DataType::f32(), {1, 1, 1}, {0.5});
  HostTensor r(DataType::f32(), {1, 1, 1}, {2});
  HostTensor b(DataType::f32(), {1, 2}, {0.1, 0.2});
  Cfg c{OpKind::RNN, 2, 1, 1, 1};
  std::vector<HostTensor> got =
      run_rule(make_node(OpKind::RNN, canonical_attrs(c)), {&x, &w, &r, &b},
               {HostTensor(DataType::f32(), {2, 1, 1, 1}), HostTensor(DataType::f32(), {1, 1, 1})});
  double h1 = std::tanh(0.5 + 0.3), h2 = std::tanh(-0.5 + 2 * h1 + 0.3);
  expect_near_all(got[0].values(), {h1, h2});
  expect_near_all(got[1].values(), {h2});
  // Relu and Affine(alpha 2, beta 1) instead of Tanh.
  graph::Attrs a = canonical_attrs(c);
  a.set("activations", std::vector<std::string>{"Affine"});
  a.set("activation_alpha", F{2});
  a.set("activation_beta", F{1});
  std::vector<HostTensor> aff =
      run_rule(make_node(OpKind::RNN, a), {&x, &w, &r, &b},
               {HostTensor(DataType::f32(), {2, 1, 1, 1}), HostTensor(DataType::f32(), {1, 1, 1})});
  double a1 = 2 * 0.8 + 1, a2 = 2 * (-0.5 + 2 * a1 + 0.3) + 1;
  expect_near_all(aff[0].values(), {a1, a2});
}

TEST(RecurrentRule, RnnBidirectionalWithInitialState) {
  check({.kind = OpKind::RNN,
         .seq = 4,
         .batch = 2,
         .in = 3,
         .hs = 5,
         .direction = "bidirectional",
         .bias = true,
         .init = true});
}

TEST(RecurrentRule, GruReverseAndLinearBeforeReset) {
  check({.kind = OpKind::GRU,
         .seq = 3,
         .batch = 2,
         .in = 3,
         .hs = 4,
         .direction = "reverse",
         .bias = true,
         .init = true});
  check({.kind = OpKind::GRU,
         .seq = 3,
         .batch = 2,
         .in = 3,
         .hs = 4,
         .direction = "bidirectional",
         .bias = true,
         .lbr = true});
}

TEST(RecurrentRule, GruSequenceLensAndClip) {
  check({.kind = OpKind::GRU,
         .seq = 4,
         .batch = 3,
         .in = 2,
         .hs = 3,
         .direction = "bidirectional",
         .bias = true,
         .init = true,
         .clip = 0.5,
         .lens = {4, 2, 1}});
}

TEST(RecurrentRule, LstmPeepholesInitialStatesAndSequenceLens) {
  check({.kind = OpKind::LSTM,
         .seq = 3,
         .batch = 2,
         .in = 4,
         .hs = 3,
         .bias = true,
         .init = true,
         .peep = true});
  check({.kind = OpKind::LSTM,
         .seq = 4,
         .batch = 2,
         .in = 2,
         .hs = 3,
         .direction = "bidirectional",
         .bias = true,
         .init = true,
         .peep = true,
         .clip = 1.0,
         .lens = {2, 4}});
}

TEST(RecurrentRule, LstmBatchMajorLayout) {
  // layout 1: X [batch, seq, in], Y [batch, seq, dirs, H], Y_h / Y_c [batch, dirs, H].
  Cfg c{.kind = OpKind::LSTM, .seq = 3, .batch = 2, .in = 2, .hs = 2, .bias = true};
  HostTensor x = random_f32({c.seq, c.batch, c.in}, 1, -2, 2);
  HostTensor w = random_f32({1, 8, 2}, 2), r = random_f32({1, 8, 2}, 3), b = random_f32({1, 16}, 4);
  HostTensor xb(DataType::f32(), {c.batch, c.seq, c.in});
  for (int64_t t = 0; t < c.seq; ++t)
    for (int64_t bt = 0; bt < c.batch; ++bt)
      for (int64_t i = 0; i < c.in; ++i)
        xb.set((bt * c.seq + t) * c.in + i, x.get((t * c.batch + bt) * c.in + i));
  graph::Attrs a = canonical_attrs(c);
  a.set("layout", int64_t(1));
  std::vector<HostTensor> got =
      run_rule(make_node(OpKind::LSTM, a), {&xb, &w, &r, &b},
               {HostTensor(DataType::f32(), {2, 3, 1, 2}), HostTensor(DataType::f32(), {2, 1, 2}),
                HostTensor(DataType::f32(), {2, 1, 2})});
  HostTensor none;
  Ref want = reference(c, x, w, r, b, none, none, none);
  F y_bm;
  for (int64_t bt = 0; bt < c.batch; ++bt)
    for (int64_t t = 0; t < c.seq; ++t)
      for (int64_t j = 0; j < c.hs; ++j) y_bm.push_back(want.y[size_t((t * c.batch + bt) * 2 + j)]);
  expect_near_all(got[0].values(), y_bm, 1e-5);
  expect_near_all(got[1].values(), want.yh, 1e-5);  // one direction: same order
  expect_near_all(got[2].values(), want.yc, 1e-5);
}

}  // namespace
}  // namespace ingot::testing

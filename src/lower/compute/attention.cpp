// Compute rule of Attention: per query row (batch, head, position) the scaled, soft-capped
// scores against every key (past cache then new keys) go to a local row with the mask bias
// (boolean / additive mask, causal, sliding window, non-padded key count), are soft-maxed with
// fully masked rows yielding zeros, and weight the values. The present key / value outputs are
// the concatenated caches; qk_matmul_output is the row at the stage the mode selects.
#include <cmath>

#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

namespace {

// Q, K or V viewed as (batch, heads, seq, size) whatever its layout: 4-D as is, 3-D
// (batch, seq, heads * size).
struct HeadView {
  Buffer buf;
  int64_t size = 0;
  Expr load(Expr b, Expr h, Expr s, Expr d) const {
    if (buf.ndim() == 4) return buf.load({b, h, s, d});
    return buf.load({b, s, h * size + d});
  }
  int64_t seq() const { return const_shape(buf)[buf.ndim() == 4 ? 2 : 1]; }
};

HeadView head_view(const Buffer& b, int64_t heads) {
  std::vector<int64_t> s = const_shape(b);
  return {b, b.ndim() == 4 ? s[3] : s[2] / heads};
}

// Key or value j of the concatenation past ++ new (past may be absent). Both loads are clamped
// into bounds so the select never reads outside either buffer.
struct KeyView {
  HeadView now;
  Buffer past;
  int64_t past_len = 0;
  Expr load(Expr b, Expr h, Expr j, Expr d) const {
    if (past_len == 0) return now.load(b, h, j, d);
    Expr from_past = past.load({b, h, min(j, i64(past_len - 1)), d});
    return select(j < i64(past_len), from_past, now.load(b, h, max(j - past_len, i64(0)), d));
  }
};

struct Setup {
  DataType dt, acc;
  int64_t batch, q_heads, kv_heads, q_seq, total, past_len, dk, dv;
  HeadView q;
  KeyView k, v;
};

// present_key / present_value: the whole key or value sequence in (batch, heads, seq, size).
Stmt write_present(const Buffer& out, const KeyView& src) {
  return loop_nest(out->shape, "p", [&](const Index& i) {
    return BufferStore::make(out, src.load(i[0], i[1], i[2], i[3]), i);
  });
}

}  // namespace

Stmt compute_attention(const graph::Node& node, const std::vector<Buffer>& inputs,
                       const std::vector<Buffer>& outputs) {
  check_dtype(node, inputs.at(0), DTypeClass::kFloat);
  auto in = [&](size_t i) { return i < inputs.size() ? inputs[i] : Buffer(); };
  auto out = [&](size_t i) { return i < outputs.size() ? outputs[i] : Buffer(); };
  const Buffer mask = in(3), past_k = in(4), past_v = in(5), nonpad = in(6);
  const Buffer& y = outputs.at(0);

  Setup s;
  s.dt = y->dtype;
  s.acc = s.dt.bits < 32 ? DataType::f32() : s.dt;
  s.q_heads = node.attrs.get_int("q_num_heads", 0);
  s.kv_heads = node.attrs.get_int("kv_num_heads", 0);
  INGOT_ICHECK(s.q_heads > 0 && s.kv_heads > 0 && s.q_heads % s.kv_heads == 0,
               "{}: bad head counts", node_label(node));
  s.q = head_view(inputs.at(0), s.q_heads);
  HeadView k_now = head_view(inputs.at(1), s.kv_heads);
  HeadView v_now = head_view(inputs.at(2), s.kv_heads);
  s.past_len = past_k.defined() ? const_shape(past_k)[2] : 0;
  s.k = {k_now, past_k, s.past_len};
  s.v = {v_now, past_v, s.past_len};
  s.batch = const_shape(inputs.at(0))[0];
  s.q_seq = s.q.seq();
  s.total = s.past_len + k_now.seq();
  s.dk = s.q.size;
  s.dv = v_now.size;
  int64_t group = s.q_heads / s.kv_heads;

  DataType acc = s.acc;
  Expr zero = make_const(acc, 0), neg_inf = min_value(acc);
  // Q and K are each scaled by sqrt(scale), rounded to the input dtype (as ONNX specifies).
  Expr sqrt_scale = cast(acc, make_const(s.dt, std::sqrt(node.attrs.get_float("scale", 1.0))));
  double softcap = node.attrs.get_float("softcap", 0.0);
  bool causal = node.attrs.get_int("is_causal", 0) != 0;
  int64_t left = node.attrs.get_int("left_window_size", -1);
  int64_t right = node.attrs.get_int("right_window_size", -1);
  int64_t mode = node.attrs.get_int("qk_matmul_output_mode", 0);
  Buffer qk_out = out(3);
  std::vector<int64_t> mask_shape = mask.defined() ? const_shape(mask) : std::vector<int64_t>{};
  int64_t mask_len = mask.defined() ? mask_shape.back() : 0;

  Stmt rows = loop_nest({s.batch, s.q_heads, s.q_seq}, "q", [&](const Index& o) {
    Expr b = o[0], h = o[1], i = o[2];
    Expr hk = group == 1 ? h : floordiv(h, i64(group));
    // Keys precede the query block by `offset`: the past length, or with a non-padded key
    // count n (external cache) n - q_seq.
    Expr offset = i64(s.past_len);
    if (nonpad.defined()) offset = cast(DataType::i64(), nonpad.load({b})) - s.q_seq;
    Buffer row = Buffer::make("row", acc, std::vector<int64_t>{s.total}, StorageScope::kLocal);
    Accumulator dot("dot", acc), xmax("xmax", acc), bmax("bmax", acc), sum("sum", acc);

    auto bias_at = [&](Expr j) {
      Expr allowed = Expr();
      auto both = [&](Expr c) { allowed = allowed.defined() ? (allowed && c) : c; };
      Expr add = zero;
      if (mask.defined()) {
        Index full = {b, h, i, min(j, i64(mask_len - 1))};
        Index mi(full.end() - mask.ndim(), full.end());
        for (int d = 0; d + 1 < mask.ndim(); ++d)
          if (mask_shape[size_t(d)] == 1) mi[size_t(d)] = i64(0);
        Expr m = mask.load(mi);
        if (mask_len < s.total) both(j < i64(mask_len));  // padded keys are masked
        if (m.dtype().is_bool())
          both(m != make_const(m.dtype(), 0));
        else
          add = cast(acc, m);
      }
      if (causal) both(j <= i + offset);
      if (left >= 0) both(i + offset - j <= i64(left));
      if (right >= 0) both(j - (i + offset) <= i64(right));
      if (nonpad.defined()) both(j < cast(DataType::i64(), nonpad.load({b})));
      return allowed.defined() ? select(allowed, add, neg_inf) : add;
    };

    Stmt scores = serial_loop("j", i64(0), s.total, [&](Expr j) {
      Stmt dots = serial_loop("d", i64(0), s.dk, [&](Expr d) {
        Expr qv = cast(acc, s.q.load(b, h, i, d)) * sqrt_scale;
        Expr kv = cast(acc, s.k.load(b, hk, j, d)) * sqrt_scale;
        return dot.set(dot.get() + qv * kv);
      });
      Expr score = dot.get();
      if (softcap > 0) score = tanh(score / make_const(acc, softcap)) * make_const(acc, softcap);
      Expr bias = bias_at(j);
      std::vector<Stmt> seq = {dot.set(zero),
                               dots,
                               dot.set(score),
                               BufferStore::make(row, dot.get() + bias, {j}),
                               bmax.set(max(bmax.get(), bias)),
                               xmax.set(max(xmax.get(), row.load({j})))};
      if (qk_out.defined() && mode < 3) {
        Expr v = mode == 2 ? row.load({j}) : dot.get();
        seq.push_back(BufferStore::make(qk_out, cast(s.dt, v), {b, h, i, j}));
      }
      return SeqStmt::make(seq);
    });
    // exp(x - max) with a fully masked row's max (-inf) taken as 0.
    Expr safe_max = select(xmax.get() == neg_inf, zero, xmax.get());
    Stmt exps = serial_loop("j", i64(0), s.total, [&](Expr j) {
      return SeqStmt::make({BufferStore::make(row, exp(row.load({j}) - safe_max), {j}),
                            sum.set(sum.get() + row.load({j}))});
    });
    // Probabilities; a row whose bias is -inf everywhere attends nothing and gives zeros.
    Expr masked = bmax.get() == neg_inf;
    Expr inv = make_const(acc, 1) / select(sum.get() == zero, make_const(acc, 1), sum.get());
    Stmt probs = serial_loop("j", i64(0), s.total, [&](Expr j) {
      Stmt st = BufferStore::make(row, select(masked, zero, row.load({j}) * inv), {j});
      if (qk_out.defined() && mode == 3)
        st =
            SeqStmt::make({st, BufferStore::make(qk_out, cast(s.dt, row.load({j})), {b, h, i, j})});
      return st;
    });
    Stmt weighted = serial_loop("e", i64(0), s.dv, [&](Expr e) {
      Stmt acc_v = serial_loop("j", i64(0), s.total, [&](Expr j) {
        return dot.set(dot.get() + row.load({j}) * cast(acc, s.v.load(b, hk, j, e)));
      });
      Index yi = y.ndim() == 4 ? Index{b, h, i, e} : Index{b, i, h * s.dv + e};
      return SeqStmt::make({dot.set(zero), acc_v, BufferStore::make(y, cast(s.dt, dot.get()), yi)});
    });
    Stmt body = SeqStmt::make(
        {xmax.set(neg_inf), bmax.set(neg_inf), scores, sum.set(zero), exps, probs, weighted});
    return Allocate::make(row, dot.scope(xmax.scope(bmax.scope(sum.scope(body)))));
  });

  std::vector<Stmt> all = {rows};
  if (out(1).defined()) all.push_back(write_present(out(1), s.k));
  if (out(2).defined()) all.push_back(write_present(out(2), s.v));
  return SeqStmt::make(all);
}

}  // namespace ingot::lower

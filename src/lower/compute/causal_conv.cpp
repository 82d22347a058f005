// Compute rule of CausalConvWithState. The padded sequence is past_state (or zeros) followed by
// the input: position p < k - 1 reads the state, the rest input[p - (k - 1)] (both loads
// clamped into bounds under a select). Output l is bias + sum over taps j of
// weight[c, 0, j] * padded[l + j], accumulated in float32 for float16 and rounded to the input
// dtype before the optional SiLU (evaluated in float32); present_state is padded[L .. L + k - 1).
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

Stmt compute_causal_conv(const graph::Node& node, const std::vector<Buffer>& inputs,
                         const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& w = inputs.at(1);
  Buffer bias = inputs.size() > 2 ? inputs[2] : Buffer();
  Buffer past = inputs.size() > 3 ? inputs[3] : Buffer();
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kFloat);
  std::vector<int64_t> xs = const_shape(x);
  int64_t len = xs[2], k = const_shape(w)[2];
  bool silu = node.attrs.get_string("activation", "none") == "silu";
  DataType dt = y->dtype, acc = accum_dtype(dt);

  auto padded = [&](Expr b, Expr c, Expr p) -> Expr {
    if (k == 1) return x.load({b, c, p});
    Expr now = x.load({b, c, max(p - i64(k - 1), i64(0))});
    Expr before = past.defined() ? past.load({b, c, min(p, i64(k - 2))}) : make_const(dt, 0);
    return select(p < i64(k - 1), before, now);
  };

  Stmt conv = loop_nest(xs, "o", [&](const Index& o) {
    Expr b = o[0], c = o[1], l = o[2];
    Accumulator sum("sum", acc);
    Stmt taps = serial_loop("j", i64(0), k, [&](Expr j) {
      return sum.set(sum.get() + widen(w.load({c, i64(0), j})) * widen(padded(b, c, l + j)));
    });
    Expr init = bias.defined() ? widen(bias.load({c})) : make_const(acc, 0);
    Expr v = widen(cast(dt, sum.get()));
    if (silu) v = v * sigmoid(v);
    return sum.scope(SeqStmt::make({sum.set(init), taps, BufferStore::make(y, cast(dt, v), o)}));
  });
  if (k == 1 || outputs.size() < 2 || !outputs[1].defined()) return conv;

  const Buffer& state = outputs[1];
  Stmt carry = loop_nest(state->shape, "s", [&](const Index& s) {
    return BufferStore::make(state, padded(s[0], s[1], s[2] + i64(len)), s);
  });
  return SeqStmt::make({conv, carry});
}

}  // namespace ingot::lower

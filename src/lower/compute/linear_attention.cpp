// Compute rule of LinearAttention: per (batch, KV head), in parallel, a local (d_k, d_v) state in
// float32 (float64 for float64 inputs) starts from past_state or zeros and runs serially over the
// sequence. Each step decays it by exp(decay) (gated rules), replaces v by
// beta * (v - S^T k) (delta rules), adds k v^T, and writes scale * q^T S for every query head of
// the group (query head h reads KV head h / group). The final state is present_state.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

Stmt compute_linear_attention(const graph::Node& node, const std::vector<Buffer>& inputs,
                              const std::vector<Buffer>& outputs) {
  auto in = [&](size_t i) { return i < inputs.size() ? inputs[i] : Buffer(); };
  const Buffer &q = inputs.at(0), &k = inputs.at(1), &v = inputs.at(2);
  const Buffer past = in(3), decay = in(4), beta = in(5);
  const Buffer& y = outputs.at(0);
  const Buffer& present = outputs.at(1);
  check_dtype(node, q, DTypeClass::kFloat);
  int64_t hq = node.attrs.get_int("q_num_heads", 0), hkv = node.attrs.get_int("kv_num_heads", 0);
  INGOT_ICHECK(hq > 0 && hkv > 0 && hq % hkv == 0, "{}: bad head counts", node_label(node));
  std::vector<int64_t> ps = const_shape(present);
  int64_t batch = ps[0], dk = ps[2], dv = ps[3];
  int64_t seq = const_shape(q)[1];
  int64_t group = hq / hkv;
  std::string rule = node.attrs.get_string("update_rule", "gated_delta");
  bool gated = rule == "gated" || rule == "gated_delta";
  bool delta = rule == "delta" || rule == "gated_delta";
  INGOT_ICHECK(gated == decay.defined() && delta == beta.defined(),
               "{}: inputs do not match update_rule '{}'", node_label(node), rule);
  // Per-head decay (batch, seq, kv_heads) or per key dim (batch, seq, kv_heads * d_k); beta per
  // head or one per step.
  bool decay_per_head = gated && const_shape(decay)[2] == hkv;
  bool beta_shared = delta && const_shape(beta)[2] == 1;
  DataType dt = y->dtype;
  DataType acc = q->dtype.bits == 64 ? DataType::f64() : DataType::f32();
  Expr scale = make_const(acc, node.attrs.get_float("scale", 1.0));
  Expr zero = make_const(acc, 0);

  return loop_nest({batch, hkv}, "bh", [&](const Index& o) {
    Expr b = o[0], h = o[1];
    Buffer st = Buffer::make("state", acc, std::vector<int64_t>{dk, dv}, StorageScope::kLocal);
    Buffer row = Buffer::make("write", acc, std::vector<int64_t>{dv}, StorageScope::kLocal);
    Accumulator dot("dot", acc);
    auto each = [&](const std::function<Stmt(Expr, Expr)>& body) {
      return serial_loop("d", i64(0), dk, [&](Expr d) {
        return serial_loop("m", i64(0), dv, [&](Expr m) { return body(d, m); });
      });
    };
    Stmt init = each([&](Expr d, Expr m) {
      Expr s0 = past.defined() ? cast(acc, past.load({b, h, d, m})) : zero;
      return BufferStore::make(st, s0, {d, m});
    });
    Stmt steps = serial_loop("t", i64(0), seq, [&](Expr t) {
      auto key = [&](Expr d) { return cast(acc, k.load({b, t, h * dk + d})); };
      std::vector<Stmt> step;
      if (gated) {
        step.push_back(serial_loop("d", i64(0), dk, [&](Expr d) {
          Expr g = decay.load({b, t, decay_per_head ? h : h * dk + d});
          Expr f = exp(cast(acc, g));
          return serial_loop("m", i64(0), dv, [&](Expr m) {
            return BufferStore::make(st, st.load({d, m}) * f, {d, m});
          });
        }));
      }
      // The row written into the state: v, or beta * (v - S^T k) for the delta rules.
      step.push_back(serial_loop("m", i64(0), dv, [&](Expr m) {
        Expr val = cast(acc, v.load({b, t, h * dv + m}));
        if (!delta) return BufferStore::make(row, val, {m});
        Stmt retrieve = serial_loop("d", i64(0), dk, [&](Expr d) {
          return dot.set(dot.get() + st.load({d, m}) * key(d));
        });
        Expr bt = cast(acc, beta.load({b, t, beta_shared ? i64(0) : h}));
        return SeqStmt::make(
            {dot.set(zero), retrieve, BufferStore::make(row, bt * (val - dot.get()), {m})});
      }));
      step.push_back(each([&](Expr d, Expr m) {
        return BufferStore::make(st, st.load({d, m}) + key(d) * row.load({m}), {d, m});
      }));
      // Read for each query head of the group.
      step.push_back(serial_loop("g", i64(0), group, [&](Expr g) {
        Expr qh = h * group + g;
        return serial_loop("m", i64(0), dv, [&](Expr m) {
          Stmt read = serial_loop("d", i64(0), dk, [&](Expr d) {
            return dot.set(dot.get() + cast(acc, q.load({b, t, qh * dk + d})) * st.load({d, m}));
          });
          return SeqStmt::make(
              {dot.set(zero), read,
               BufferStore::make(y, cast(dt, scale * dot.get()), {b, t, qh * dv + m})});
        });
      }));
      return SeqStmt::make(step);
    });
    Stmt save = each([&](Expr d, Expr m) {
      return BufferStore::make(present, cast(present->dtype, st.load({d, m})), {b, h, d, m});
    });
    return Allocate::make(st, Allocate::make(row, dot.scope(SeqStmt::make({init, steps, save}))));
  });
}

}  // namespace ingot::lower

// Compute rules of RNN, GRU and LSTM (inference). Per direction, the hidden (and cell) state
// lives in local [batch, hidden] buffers; a serial loop over the time steps computes the gate
// pre-activations (X_t W^T + H_{t-1} R^T + biases) into a local gate buffer, then updates the
// state elementwise and writes the step's row of Y. Steps at or past a batch entry's
// sequence_lens keep its state and write zeros. Float16 is computed in float32.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

namespace {

struct Activation {
  std::string name;
  double alpha, beta;
};

Expr apply_activation(const Activation& a, Expr x) {
  DataType dt = x.dtype();
  Expr zero = make_const(dt, 0), one = make_const(dt, 1);
  Expr alpha = make_const(dt, a.alpha), beta = make_const(dt, a.beta);
  if (a.name == "Relu") return max(x, zero);
  if (a.name == "Tanh") return tanh(x);
  if (a.name == "Sigmoid") return sigmoid(x);
  if (a.name == "Affine") return alpha * x + beta;
  if (a.name == "LeakyRelu") return select(x >= zero, x, alpha * x);
  if (a.name == "ThresholdedRelu") return select(x > alpha, x, zero);
  if (a.name == "ScaledTanh") return alpha * tanh(beta * x);
  if (a.name == "HardSigmoid") return min(max(alpha * x + beta, zero), one);
  if (a.name == "Elu") return select(x >= zero, x, alpha * (exp(x) - one));
  if (a.name == "Softsign") return x / (one + fabs(x));
  if (a.name == "Softplus") return log(one + exp(x));
  INGOT_ICHECK(false, "unknown recurrent activation {}", a.name);
  return x;
}

std::vector<std::string> strings_attr(const graph::Node& node, const char* name) {
  auto it = node.attrs.all().find(name);
  INGOT_ICHECK(it != node.attrs.all().end(), "{}: attribute '{}' missing", node_label(node), name);
  return std::get<std::vector<std::string>>(it->second);
}

}  // namespace

Stmt compute_recurrent(const graph::Node& node, const std::vector<Buffer>& inputs,
                       const std::vector<Buffer>& outputs) {
  using ops::OpKind;
  auto in = [&](size_t i) { return i < inputs.size() ? inputs[i] : Buffer(); };
  auto out = [&](size_t i) { return i < outputs.size() ? outputs[i] : Buffer(); };
  const Buffer x = in(0), w = in(1), r = in(2), bias = in(3), seq_lens = in(4), init_h = in(5);
  const bool lstm = node.op == OpKind::LSTM, gru = node.op == OpKind::GRU;
  const Buffer init_c = lstm ? in(6) : Buffer(), peep = lstm ? in(7) : Buffer();
  const Buffer y = out(0), y_h = out(1), y_c = lstm ? out(2) : Buffer();
  check_dtype(node, x, DTypeClass::kFloat);
  std::vector<int64_t> xs = const_shape(x);
  const bool batch_major = node.attrs.get_int("layout", 0) == 1;
  const int64_t seq = batch_major ? xs[1] : xs[0], batch = batch_major ? xs[0] : xs[1];
  const int64_t in_size = xs[2];
  const int64_t hs = node.attrs.get_int("hidden_size", 0);
  const int64_t gates = lstm ? 4 : gru ? 3 : 1;
  const std::string direction = node.attrs.get_string("direction", "forward");
  const int64_t dirs = direction == "bidirectional" ? 2 : 1;
  const bool lbr = gru && node.attrs.get_int("linear_before_reset", 0) != 0;
  const bool has_clip = node.attrs.has("clip");
  const double clip = node.attrs.get_float("clip", 0);
  std::vector<std::string> names = strings_attr(node, "activations");
  std::vector<double> alphas = node.attrs.get_floats("activation_alpha");
  std::vector<double> betas = node.attrs.get_floats("activation_beta");
  const size_t per_dir = names.size() / size_t(dirs);
  INGOT_ICHECK(hs > 0 && alphas.size() == names.size() && betas.size() == names.size() &&
                   per_dir * size_t(dirs) == names.size(),
               "{}: recurrent attributes not canonical", node_label(node));
  const DataType dt = accum_dtype(x->dtype);

  auto x_at = [&](Expr t, Expr b, Expr i) {
    return widen(batch_major ? x.load({b, t, i}) : x.load({t, b, i}));
  };
  // [dirs, batch, H] tensors (initial states, Y_h, Y_c) in either layout.
  auto state_index = [&](int64_t d, Expr b, Expr j) {
    return batch_major ? Index{b, i64(d), j} : Index{i64(d), b, j};
  };
  auto clipped = [&](Expr v) {
    return has_clip ? min(max(v, make_const(dt, -clip)), make_const(dt, clip)) : v;
  };

  std::vector<Stmt> per_direction;
  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    // Activation k of this direction; the clip applies to gate pre-activations only.
    auto act = [&](size_t k, Expr v, bool clip_input = true) {
      size_t a = size_t(d) * per_dir + k;
      return apply_activation({names[a], alphas[a], betas[a]}, clip_input ? clipped(v) : v);
    };
    std::string sfx = "_d" + std::to_string(d);
    Buffer h =
        Buffer::make("h_state" + sfx, dt, std::vector<int64_t>{batch, hs}, StorageScope::kLocal);
    Buffer c = lstm ? Buffer::make("c_state" + sfx, dt, std::vector<int64_t>{batch, hs},
                                   StorageScope::kLocal)
                    : Buffer();
    Buffer g = Buffer::make("gates" + sfx, dt, std::vector<int64_t>{batch, gates * hs},
                            StorageScope::kLocal);
    Buffer hr = gru ? Buffer::make("gru_rh" + sfx, dt, std::vector<int64_t>{batch, hs},
                                   StorageScope::kLocal)
                    : Buffer();

    std::vector<Stmt> body;
    // Initial state.
    body.push_back(serial_nest({batch, hs}, "i", [&](const Index& bj) {
      std::vector<Stmt> s;
      s.push_back(BufferStore::make(
          h,
          init_h.defined() ? widen(init_h.load(state_index(d, bj[0], bj[1]))) : make_const(dt, 0),
          bj));
      if (lstm)
        s.push_back(BufferStore::make(
            c,
            init_c.defined() ? widen(init_c.load(state_index(d, bj[0], bj[1]))) : make_const(dt, 0),
            bj));
      return SeqStmt::make(s);
    }));

    Stmt steps = serial_loop("s", i64(0), seq, [&](Expr s) {
      Expr t = reverse ? i64(seq - 1) - s : s;
      std::vector<Stmt> step;
      // Gate rows [offset, offset + rows): X_t W^T + Wb (+ H R^T + Rb when with_r); stored raw,
      // or through activation 0 when `activate`.
      auto gate_pass = [&](int64_t offset, int64_t rows, bool with_r, bool activate) {
        return serial_nest({batch, rows}, "g", [&](const Index& bj) {
          Expr b = bj[0], j = bj[1] + i64(offset);
          Accumulator acc("acc", dt);
          Expr init = make_const(dt, 0);
          if (bias.defined()) {
            init = widen(bias.load({i64(d), j}));
            if (with_r) init = init + widen(bias.load({i64(d), j + i64(gates * hs)}));
          }
          std::vector<Stmt> s = {acc.set(init)};
          s.push_back(serial_loop("k", i64(0), in_size, [&](Expr k) {
            return acc.set(acc.get() + x_at(t, b, k) * widen(w.load({i64(d), j, k})));
          }));
          if (with_r)
            s.push_back(serial_loop("k", i64(0), hs, [&](Expr k) {
              return acc.set(acc.get() + h.load({b, k}) * widen(r.load({i64(d), j, k})));
            }));
          s.push_back(BufferStore::make(g, activate ? act(0, acc.get()) : acc.get(), {b, j}));
          return acc.scope(SeqStmt::make(s));
        });
      };
      if (gru) {
        step.push_back(gate_pass(0, 2 * hs, true, true));     // z and r, activated
        step.push_back(gate_pass(2 * hs, hs, false, false));  // X part of the hidden gate
        // The recurrent part of the hidden gate: (r . H) Rh^T + Rbh, or r . (H Rh^T + Rbh).
        step.push_back(serial_nest({batch, hs}, "j", [&](const Index& bj) {
          Expr b = bj[0], j = bj[1];
          Accumulator acc("acc", dt);
          Expr init =
              bias.defined() ? widen(bias.load({i64(d), j + i64(5 * hs)})) : make_const(dt, 0);
          Stmt sum = serial_loop("k", i64(0), hs, [&](Expr k) {
            Expr hk = h.load({b, k});
            if (!lbr) hk = g.load({b, k + i64(hs)}) * hk;
            return acc.set(acc.get() + hk * widen(r.load({i64(d), j + i64(2 * hs), k})));
          });
          Expr v = lbr ? acc.get() * g.load({b, j + i64(hs)}) : acc.get();
          return acc.scope(SeqStmt::make({acc.set(init), sum, BufferStore::make(hr, v, {b, j})}));
        }));
      } else {
        step.push_back(gate_pass(0, gates * hs, true, false));
      }
      // Elementwise state update and the step's row of Y.
      step.push_back(serial_nest({batch, hs}, "u", [&](const Index& bj) {
        Expr b = bj[0], j = bj[1];
        auto gate = [&](int64_t k) { return g.load({b, j + i64(k * hs)}); };
        Expr h_old = h.load({b, j});
        Expr h_new, c_new;
        if (gru) {
          Expr z = gate(0);
          Expr cand = act(1, gate(2) + hr.load({b, j}));
          h_new = (make_const(dt, 1) - z) * cand + z * h_old;
        } else if (lstm) {
          Expr c_old = c.load({b, j});
          auto peephole = [&](int64_t k, Expr cell) {
            return peep.defined() ? widen(peep.load({i64(d), j + i64(k * hs)})) * cell
                                  : make_const(dt, 0);
          };
          Expr i_gate = act(0, gate(0) + peephole(0, c_old));
          Expr f_gate = act(0, gate(2) + peephole(2, c_old));
          c_new = f_gate * c_old + i_gate * act(1, gate(3));
          Expr o_gate = act(0, gate(1) + peephole(1, c_new));
          h_new = o_gate * act(2, c_new, false);
        } else {
          h_new = act(0, gate(0));
        }
        Expr valid;
        if (seq_lens.defined()) {
          valid = t < cast(DataType::i64(), seq_lens.load({b}));
          h_new = select(valid, h_new, h_old);
          if (lstm) c_new = select(valid, c_new, c.load({b, j}));
        }
        // h first: h_new reads the old cell state.
        std::vector<Stmt> s = {BufferStore::make(h, h_new, {b, j})};
        if (lstm) s.push_back(BufferStore::make(c, c_new, {b, j}));
        if (y.defined()) {
          Expr v = h.load({b, j});
          if (valid.defined()) v = select(valid, v, make_const(dt, 0));
          Index yi = batch_major ? Index{b, t, i64(d), j} : Index{t, i64(d), b, j};
          s.push_back(BufferStore::make(y, cast(y->dtype, v), yi));
        }
        return SeqStmt::make(s);
      }));
      return SeqStmt::make(step);
    });
    body.push_back(steps);

    // Final states.
    if (y_h.defined() || y_c.defined())
      body.push_back(serial_nest({batch, hs}, "f", [&](const Index& bj) {
        std::vector<Stmt> s;
        if (y_h.defined())
          s.push_back(
              BufferStore::make(y_h, cast(y_h->dtype, h.load(bj)), state_index(d, bj[0], bj[1])));
        if (y_c.defined())
          s.push_back(
              BufferStore::make(y_c, cast(y_c->dtype, c.load(bj)), state_index(d, bj[0], bj[1])));
        return SeqStmt::make(s);
      }));

    Stmt all = SeqStmt::make(body);
    if (hr.defined()) all = Allocate::make(hr, all);
    all = Allocate::make(g, all);
    if (c.defined()) all = Allocate::make(c, all);
    per_direction.push_back(Allocate::make(h, all));
  }
  return SeqStmt::make(per_direction);
}

}  // namespace ingot::lower

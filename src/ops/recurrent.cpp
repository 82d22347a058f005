// Recurrent ops for inference: RNN, GRU and LSTM (forward / reverse / bidirectional, layout 0
// or 1). Type inference fills the canonical attributes: hidden_size, direction, layout, one
// activation name per direction and function with its alpha and beta (activation_alpha /
// activation_beta then have one value per activation), linear_before_reset for GRU.
#include <algorithm>
#include <cctype>
#include <variant>

#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

struct ActivationSpec {
  const char* name;
  bool uses_alpha, uses_beta;
  double alpha, beta;  // ONNX Runtime's defaults
};

const ActivationSpec kActivations[] = {
    {"Relu", false, false, 0, 0},         {"Tanh", false, false, 0, 0},
    {"Sigmoid", false, false, 0, 0},      {"Affine", true, true, 1.0, 0.0},
    {"LeakyRelu", true, false, 0.01, 0},  {"ThresholdedRelu", true, false, 1.0, 0},
    {"ScaledTanh", true, true, 1.0, 1.0}, {"HardSigmoid", true, true, 0.2, 0.5},
    {"Elu", true, false, 1.0, 0},         {"Softsign", false, false, 0, 0},
    {"Softplus", false, false, 0, 0},
};

std::string lower(std::string s) {
  for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

const ActivationSpec& find_activation(const Node& n, const std::string& name) {
  for (const ActivationSpec& a : kActivations)
    if (lower(a.name) == lower(name)) return a;
  fail_user(
      "{}: activation \"{}\" is not supported (valid: Relu, Tanh, Sigmoid, Affine, LeakyRelu, "
      "ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus)",
      n.describe(), name);
}

// Number of gates and the default activations of one direction.
int num_gates(OpKind k) {
  return k == OpKind::RNN ? 1 : k == OpKind::GRU ? 3 : 4;
}
std::vector<std::string> default_activations(OpKind k) {
  if (k == OpKind::RNN) return {"Tanh"};
  if (k == OpKind::GRU) return {"Sigmoid", "Tanh"};
  return {"Sigmoid", "Tanh", "Tanh"};
}

void check_dim(const Node& n, const TensorType& t, int axis, const Dim& want, const char* what,
               const char* meaning) {
  const Dim& d = t.shape[size_t(axis)];
  if (d.is_static() && want.is_static() && d.value != want.value)
    fail_user("{}: input '{}' {} has {} {}, expected {}", n.describe(), what, t.str(), d.value,
              meaning, want.value);
}

std::vector<std::string> get_strings(const Node& n, const char* name) {
  auto it = n.attrs.all().find(name);
  if (it == n.attrs.all().end()) return {};
  if (auto* v = std::get_if<std::vector<std::string>>(&it->second)) return *v;
  fail_user("{}: attribute '{}' must be a list of strings", n.describe(), name);
}

const TensorType* optional_type(const Node& n, int i) {
  return has_input(n, i) ? &n.inputs[size_t(i)]->type : nullptr;
}

// Inputs: X, W, R, B?, sequence_lens?, initial_h?, and for LSTM initial_c?, P?.
// Outputs: Y [seq, dirs, batch, H] (layout 1: [batch, seq, dirs, H]), Y_h and Y_c
// [dirs, batch, H] (layout 1: [batch, dirs, H]).
std::vector<TensorType> infer_recurrent(Node& n) {
  OpKind kind = n.op;
  int g = num_gates(kind);
  const TensorType& x = input_type(n, 0, "X");
  const TensorType& w = input_type(n, 1, "W");
  const TensorType& r = input_type(n, 2, "R");
  require_same_dtype(n, x, w, "X", "W");
  require_same_dtype(n, x, r, "X", "R");
  if (!is_float_dtype(x.dtype))
    fail_user("{}: input X {} must be a float tensor", n.describe(), x.str());
  for (auto [t, what] : {std::pair{&x, "X"}, {&w, "W"}, {&r, "R"}})
    if (t->rank() != 3) fail_user("{}: input '{}' {} must be 3-D", n.describe(), what, t->str());
  int64_t layout = n.attrs.get_int("layout", 0);
  if (layout != 0 && layout != 1)
    fail_user("{}: attribute 'layout' must be 0 or 1, got {}", n.describe(), layout);
  std::string direction = n.attrs.get_string("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    fail_user(
        "{}: attribute 'direction' has invalid value \"{}\" (valid: forward, reverse, "
        "bidirectional)",
        n.describe(), direction);
  int64_t dirs = direction == "bidirectional" ? 2 : 1;
  Dim seq = x.shape[layout == 0 ? 0 : 1], batch = x.shape[layout == 0 ? 1 : 0];
  Dim hidden = r.shape[2];
  if (n.attrs.has("hidden_size")) {
    int64_t hs = n.attrs.get_int("hidden_size", 0);
    if (hs < 1) fail_user("{}: attribute 'hidden_size' must be >= 1, got {}", n.describe(), hs);
    check_dim(n, r, 2, Dim::fixed(hs), "R", "columns (hidden_size)");
    hidden = Dim::fixed(hs);
  }
  if (!hidden.is_static())
    fail_user("{}: the hidden size is unknown (set 'hidden_size' or give R a static shape)",
              n.describe());
  int64_t h = hidden.value;
  Dim gh = Dim::fixed(g * h), d_dirs = Dim::fixed(dirs);
  check_dim(n, w, 0, d_dirs, "W", "directions");
  check_dim(n, r, 0, d_dirs, "R", "directions");
  check_dim(n, w, 1, gh, "W", "rows");
  check_dim(n, r, 1, gh, "R", "rows");
  check_dim(n, w, 2, x.shape[2], "W", "columns");
  if (const TensorType* b = optional_type(n, 3)) {
    require_same_dtype(n, x, *b, "X", "B");
    if (b->rank() != 2) fail_user("{}: input 'B' {} must be 2-D", n.describe(), b->str());
    check_dim(n, *b, 0, d_dirs, "B", "directions");
    check_dim(n, *b, 1, Dim::fixed(2 * g * h), "B", "columns");
  }
  if (const TensorType* sl = optional_type(n, 4)) {
    if (sl->dtype != DType::kI32 && sl->dtype != DType::kI64)
      fail_user("{}: input 'sequence_lens' {} must be int32", n.describe(), sl->str());
    if (sl->rank() != 1)
      fail_user("{}: input 'sequence_lens' {} must be 1-D", n.describe(), sl->str());
    check_dim(n, *sl, 0, batch, "sequence_lens", "entries (batch)");
  }
  bool lstm = kind == OpKind::LSTM;
  std::vector<std::pair<int, const char*>> states = {{5, "initial_h"}};
  if (lstm) states.push_back({6, "initial_c"});
  for (auto [i, what] : states)
    if (const TensorType* s = optional_type(n, i)) {
      require_same_dtype(n, x, *s, "X", what);
      if (s->rank() != 3) fail_user("{}: input '{}' {} must be 3-D", n.describe(), what, s->str());
      check_dim(n, *s, layout == 0 ? 0 : 1, d_dirs, what, "directions");
      check_dim(n, *s, layout == 0 ? 1 : 0, batch, what, "batch entries");
      check_dim(n, *s, 2, hidden, what, "columns (hidden_size)");
    }
  if (lstm)
    if (const TensorType* p = optional_type(n, 7)) {
      require_same_dtype(n, x, *p, "X", "P");
      if (p->rank() != 2) fail_user("{}: input 'P' {} must be 2-D", n.describe(), p->str());
      check_dim(n, *p, 0, d_dirs, "P", "directions");
      check_dim(n, *p, 1, Dim::fixed(3 * h), "P", "columns");
    }
  if (lstm && n.attrs.get_int("input_forget", 0) != 0)
    fail_user("{}: attribute 'input_forget' = 1 (coupled input and forget gates) is not supported",
              n.describe());
  if (n.attrs.has("clip") && !(n.attrs.get_float("clip", 0) > 0))
    fail_user("{}: attribute 'clip' must be positive, got {}", n.describe(),
              n.attrs.get_float("clip", 0));

  // Activations: one list per direction; alpha / beta per activation.
  std::vector<std::string> acts = get_strings(n, "activations");
  std::vector<std::string> defaults = default_activations(kind);
  size_t per_dir = defaults.size(), total = per_dir * size_t(dirs);
  if (acts.empty())
    for (int64_t d = 0; d < dirs; ++d) acts.insert(acts.end(), defaults.begin(), defaults.end());
  if (acts.size() != total)
    fail_user("{}: attribute 'activations' has {} values, expected {} ({} per direction)",
              n.describe(), acts.size(), total, per_dir);
  std::vector<double> alphas = n.attrs.get_floats("activation_alpha", {});
  std::vector<double> betas = n.attrs.get_floats("activation_beta", {});
  // One value per activation (the canonical form) or, as ONNX Runtime reads them, consumed in
  // order by the activations that take one.
  bool per_activation = alphas.size() == total && betas.size() == total;
  std::vector<double> full_alpha, full_beta;
  size_t ai = 0, bi = 0;
  for (std::string& a : acts) {
    const ActivationSpec& spec = find_activation(n, a);
    a = spec.name;
    double alpha = spec.alpha, beta = spec.beta;
    if (per_activation) {
      alpha = alphas[full_alpha.size()];
      beta = betas[full_beta.size()];
    } else {
      if (spec.uses_alpha && ai < alphas.size()) alpha = alphas[ai++];
      if (spec.uses_beta && bi < betas.size()) beta = betas[bi++];
    }
    full_alpha.push_back(alpha);
    full_beta.push_back(beta);
  }
  if (!per_activation && (ai < alphas.size() || bi < betas.size()))
    fail_user(
        "{}: attributes 'activation_alpha' / 'activation_beta' have more values than the "
        "activations use",
        n.describe());
  n.attrs.set("activations", acts);
  n.attrs.set("activation_alpha", full_alpha);
  n.attrs.set("activation_beta", full_beta);
  n.attrs.set("hidden_size", h);
  n.attrs.set("direction", direction);
  n.attrs.set("layout", layout);
  n.attrs.erase("input_forget");
  if (kind == OpKind::GRU)
    n.attrs.set("linear_before_reset", n.attrs.get_int("linear_before_reset", 0));

  TensorType y{x.dtype, layout == 0 ? std::vector<Dim>{seq, d_dirs, batch, hidden}
                                    : std::vector<Dim>{batch, seq, d_dirs, hidden}};
  TensorType yh{x.dtype, layout == 0 ? std::vector<Dim>{d_dirs, batch, hidden}
                                     : std::vector<Dim>{batch, d_dirs, hidden}};
  size_t max_out = lstm ? 3 : 2;
  if (n.outputs.size() > max_out)
    fail_user("{}: has {} outputs, at most {}", n.describe(), n.outputs.size(), max_out);
  std::vector<TensorType> out = {y};
  for (size_t i = 1; i < n.outputs.size(); ++i) out.push_back(yh);
  return out;
}

double recurrent_flops(const Node& n) {
  const TensorType& y = n.outputs[0]->type;
  const TensorType& w = n.inputs[1]->type;
  const TensorType& r = n.inputs[2]->type;
  // Per output element (one direction, step, batch row, hidden unit): the gate rows of W and R.
  double per = 0;
  if (w.shape[2].is_static()) per += double(w.shape[2].value);
  if (r.shape[2].is_static()) per += double(r.shape[2].value);
  return approx_elements(y) * (2 * per * num_gates(n.op) + 10.0 * num_gates(n.op));
}

}  // namespace

void add_recurrent_ops(std::vector<OpInfo>& t) {
  for (OpKind k : {OpKind::RNN, OpKind::GRU, OpKind::LSTM}) {
    std::vector<AttrSpec> attrs = {{"activations", AttrType::kStrings},
                                   {"activation_alpha", AttrType::kFloats},
                                   {"activation_beta", AttrType::kFloats},
                                   {"clip", AttrType::kFloat},
                                   {"direction", AttrType::kString},
                                   {"hidden_size", AttrType::kInt},
                                   {"layout", AttrType::kInt}};
    if (k == OpKind::GRU) attrs.push_back({"linear_before_reset", AttrType::kInt});
    if (k == OpKind::LSTM) attrs.push_back({"input_forget", AttrType::kInt});
    OpInfo op{k,
              k == OpKind::RNN   ? "RNN"
              : k == OpKind::GRU ? "GRU"
                                 : "LSTM",
              PatternKind::kOpaque, attrs};
    op.min_inputs = 3;
    op.max_inputs = k == OpKind::LSTM ? 8 : 6;
    op.num_outputs = -1;  // Y, Y_h (, Y_c)
    op.infer_fn = infer_recurrent;
    op.flops_fn = recurrent_flops;
    t.push_back(op);
  }
}

}  // namespace ingot::ops::detail

// fuse_qdq (see fuse_qdq.h).
#include "graph/transforms/fuse_qdq.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "graph/transforms/layout_nchwc.h"
#include "graph/transforms/rewrite_util.h"

namespace ingot::graph {

namespace {

using ops::OpKind;

bool int8_family(DType d) {
  return d == DType::kU8 || d == DType::kI8;
}

bool all_constant(const Node& n) {
  for (const Value* v : n.inputs)
    if (v != nullptr && !v->is_constant()) return false;
  return true;
}

// The scales and zero points of a (de)quantization node with constant parameters: one entry
// (per-tensor) or one per element along `axis` (per-axis); block-wise quantization is not taken.
struct QParams {
  std::vector<double> scales;
  std::vector<int64_t> zero_points;
  int64_t axis = -1;  // -1: per-tensor
  double scale(size_t c) const { return scales[scales.size() == 1 ? 0 : c]; }
  int64_t zero_point(size_t c) const { return zero_points[zero_points.size() == 1 ? 0 : c]; }
};

std::optional<QParams> qparams(const Node& n) {
  if (n.attrs.get_int("block_size", 0) != 0) return std::nullopt;
  const Value* s = n.inputs.size() > 1 ? n.inputs[1] : nullptr;
  const Value* z = n.inputs.size() > 2 ? n.inputs[2] : nullptr;
  if (s == nullptr || !s->is_constant() || (z != nullptr && !z->is_constant())) return std::nullopt;
  QParams q;
  for (int64_t i = 0; i < s->constant->num_elements(); ++i) {
    double v = s->constant->get_f64(i);
    if (!(v > 0) || !std::isfinite(v)) return std::nullopt;
    q.scales.push_back(v);
  }
  for (int64_t i = 0; z != nullptr && i < z->constant->num_elements(); ++i)
    q.zero_points.push_back(z->constant->get_i64(i));
  if (q.zero_points.empty()) q.zero_points.push_back(0);
  if (q.scales.empty()) return std::nullopt;
  if (n.attrs.has("axis")) q.axis = n.attrs.get_int("axis", 1);
  return q;
}

bool per_tensor(const QParams& q) {
  return q.scales.size() == 1 && q.zero_points.size() == 1;
}

// The DequantizeLinear producing `v`, or null.
Node* dequantize_of(const Value* v) {
  return v != nullptr && v->producer != nullptr && v->producer->op == OpKind::DequantizeLinear &&
                 v->producer->attrs.get_int("to", int64_t(DType::kF32)) == int64_t(DType::kF32)
             ? v->producer
             : nullptr;
}

// A dequantized activation: x = DequantizeLinear(x_q) per tensor, uint8 / int8.
struct Activation {
  Value* q = nullptr;
  double scale = 0;
  int64_t zero_point = 0;
};
std::optional<Activation> dequantized_activation(const Value* v) {
  Node* dq = dequantize_of(v);
  if (dq == nullptr || !int8_family(dq->inputs[0]->type.dtype)) return std::nullopt;
  std::optional<QParams> p = qparams(*dq);
  if (!p || !per_tensor(*p)) return std::nullopt;
  return Activation{dq->inputs[0], p->scales[0], p->zero_points[0]};
}

// Constant quantized weights W = DequantizeLinear(W_q), per tensor or per `channel_axis` with
// `channels` entries, with one zero point.
struct Weights {
  const Value* q = nullptr;
  std::vector<double> scales;  // one per channel
  int64_t zero_point = 0;
};
std::optional<Weights> dequantized_weights(const Value* v, int64_t channel_axis, int64_t channels) {
  Node* dq = dequantize_of(v);
  if (dq == nullptr || !dq->inputs[0]->is_constant() || !int8_family(dq->inputs[0]->type.dtype))
    return std::nullopt;
  std::optional<QParams> p = qparams(*dq);
  if (!p) return std::nullopt;
  if (!per_tensor(*p) && (p->axis != channel_axis || int64_t(p->scales.size()) != channels))
    return std::nullopt;
  for (int64_t z : p->zero_points)
    if (z != p->zero_points[0]) return std::nullopt;
  Weights w{dq->inputs[0], {}, p->zero_points[0]};
  for (int64_t c = 0; c < channels; ++c) w.scales.push_back(p->scale(size_t(c)));
  return w;
}

// The bias as float values per channel: a float32 constant or a dequantized int32 constant.
std::optional<std::vector<double>> bias_values(const Value* v, int64_t channels) {
  if (v == nullptr) return std::vector<double>(size_t(channels), 0.0);
  if (v->type.num_elements() != channels) return std::nullopt;
  if (v->is_constant() && v->type.dtype == DType::kF32) {
    std::vector<double> b;
    for (int64_t c = 0; c < channels; ++c) b.push_back(v->constant->get_f64(c));
    return b;
  }
  Node* dq = dequantize_of(v);
  if (dq == nullptr || !dq->inputs[0]->is_constant()) return std::nullopt;
  std::optional<QParams> p = qparams(*dq);
  if (!p || (!per_tensor(*p) && int64_t(p->scales.size()) != channels)) return std::nullopt;
  std::vector<double> b;
  for (int64_t c = 0; c < channels; ++c)
    b.push_back(double(dq->inputs[0]->constant->get_i64(c) - p->zero_point(size_t(c))) *
                p->scale(size_t(c)));
  return b;
}

// The QuantizeLinear ending the pattern: the op's output read only by it (or by a Relu read
// only by it). `relu` is set when a Relu sits between.
struct Output {
  Node* quantize = nullptr;
  Node* relu = nullptr;
  double scale = 0;
  int64_t zero_point = 0;
  DType dtype = DType::kI8;
};
std::optional<Output> quantized_output(const Graph& g, const Node& op) {
  Output out;
  Node* next = single_user(g, op.outputs[0]);
  if (next != nullptr && next->op == OpKind::Relu) {
    out.relu = next;
    next = single_user(g, next->outputs[0]);
  }
  if (next == nullptr || next->op != OpKind::QuantizeLinear) return std::nullopt;
  std::optional<QParams> p = qparams(*next);
  auto to = DType(next->attrs.get_int("to", int64_t(DType::kU8)));
  if (!p || !per_tensor(*p) || !int8_family(to)) return std::nullopt;
  out.quantize = next;
  out.scale = p->scales[0];
  out.zero_point = p->zero_points[0];
  out.dtype = to;
  return out;
}

TensorPtr int32_tensor(const std::vector<int32_t>& v) {
  return tensor_from_bytes(DType::kI32, {int64_t(v.size())}, v.data(), v.size() * 4);
}

// The requantization attributes and the bias / multiplier constants of a fused node, or false
// when the numbers do not fit (then nothing changes).
bool add_requantization(Graph& g, Node* fused, const Activation& x, const Weights& w,
                        const std::vector<double>& bias, const Output& out) {
  const size_t channels = w.scales.size();
  std::vector<double> real;
  std::vector<int32_t> qbias;
  for (size_t c = 0; c < channels; ++c) {
    real.push_back(x.scale * w.scales[c] / out.scale);
    double b = std::nearbyint(bias[c] / (x.scale * w.scales[c]));
    if (!(std::fabs(b) < 2147483647.0)) return false;
    qbias.push_back(int32_t(b));
  }
  std::optional<FixedPointMultipliers> fp = fixed_point_multipliers(real);
  if (!fp) return false;
  int64_t qmin = out.dtype == DType::kU8 ? 0 : -128, qmax = out.dtype == DType::kU8 ? 255 : 127;
  if (out.relu != nullptr) qmin = std::max(qmin, out.zero_point);
  fused->attrs.set("x_zero_point", x.zero_point);
  fused->attrs.set("w_zero_point", w.zero_point);
  fused->attrs.set("y_zero_point", out.zero_point);
  fused->attrs.set("shift", int64_t(fp->shift));
  fused->attrs.set("qmin", qmin);
  fused->attrs.set("qmax", qmax);
  fused->attrs.set("to", int64_t(out.dtype));
  const std::string base = out.quantize->outputs[0]->name;
  fused->inputs.push_back(g.add_constant(base + "_qbias", int32_tensor(qbias)));
  fused->inputs.push_back(g.add_constant(base + "_qmultiplier", int32_tensor(fp->multipliers)));
  return true;
}

void finish_fusion(Graph& g, Node* op, const Output& out, Node* fused) {
  std::vector<Node*> matched = {op};
  if (out.relu != nullptr) matched.push_back(out.relu);
  matched.push_back(out.quantize);
  fused->outputs[0]->type = out.quantize->outputs[0]->type;
  replace_pattern(g, matched, out.quantize, fused);
}

// The product with symmetric int8 weights `weights` [K, N] as IntMatMul (A's zero point folded
// into the int32 bias: sum (a - za) w = sum a w - za * sum w) and Requantize, or false when the
// folded bias leaves int32 (then nothing changes).
bool split_product(Graph& g, Node* mm, const Activation& x, const Weights& w, Value* weights,
                   const std::vector<double>& bias, const Output& out) {
  Node* product = g.add_node(OpKind::IntMatMul, mm->name + "_int8", {x.q, weights},
                             {mm->outputs[0]->name + "_acc"});
  Node* requant = g.add_node(OpKind::Requantize, mm->name + "_requantize", {product->outputs[0]},
                             {mm->outputs[0]->name + "_int8"});
  product->opset = requant->opset = mm->opset;
  product->outputs[0]->type = TensorType{DType::kI32, mm->outputs[0]->type.shape};
  auto undo = [&] {
    g.remove_node(requant);
    g.remove_node(product);
    return false;
  };
  // (add_requantization fills the requantization's attributes and its bias and multiplier
  // inputs; the bias moves to the product, folded.)
  if (!add_requantization(g, requant, x, w, bias, out)) return undo();
  const Tensor& q = *weights->constant;
  const int64_t k = q.shape()[0], n = q.shape()[1];
  const Tensor& qbias = *requant->inputs[1]->constant;
  std::vector<int32_t> folded(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    int64_t sum = 0;
    for (int64_t r = 0; r < k; ++r) sum += q.get_i64(r * n + j);
    const int64_t v = qbias.get_i64(j) - x.zero_point * sum;
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
      return undo();
    folded[size_t(j)] = int32_t(v);
  }
  product->inputs.push_back(
      g.add_constant(requant->inputs[1]->name + "_folded", int32_tensor(folded)));
  requant->inputs.erase(requant->inputs.begin() + 1);  // (the bias) -> acc, multiplier
  for (const char* a : {"x_zero_point", "w_zero_point"}) requant->attrs.erase(a);
  finish_fusion(g, mm, out, requant);
  return true;
}

bool try_fuse_conv(Graph& g, Node* conv, bool blocked_int8_convs) {
  if (conv->inputs.size() > 3 || conv->attrs.has("activation")) return false;
  std::optional<Activation> x = dequantized_activation(conv->inputs[0]);
  const Value* wv = conv->inputs[1];
  if (!x || wv->type.rank() < 3 || !wv->type.shape[0].is_static()) return false;
  int64_t channels = wv->type.shape[0].value;
  std::optional<Weights> w = dequantized_weights(wv, 0, channels);
  std::optional<std::vector<double>> bias =
      bias_values(conv->inputs.size() > 2 ? conv->inputs[2] : nullptr, channels);
  std::optional<Output> out = quantized_output(g, *conv);
  // Mixed families only where the blocked 8-bit kernels take the conv (fuse_qdq.h).
  const bool blocked_form = blocked_int8_convs && w && w->zero_point == 0 &&
                            w->q->type.dtype == DType::kI8 && wv->type.rank() == 4 &&
                            (conv->attrs.get_int("group", 1) == 1 || depthwise_conv(*conv));
  if (!w || !bias || !out || (x->q->type.dtype != w->q->type.dtype && !blocked_form)) return false;
  Node* fused = g.add_node(OpKind::QConv, conv->name + "_int8", {x->q, const_cast<Value*>(w->q)},
                           {conv->outputs[0]->name + "_int8"});
  fused->opset = conv->opset;
  for (const char* a : {"kernel_shape", "strides", "dilations", "pads"})
    if (conv->attrs.has(a)) fused->attrs.set(a, conv->attrs.get_ints(a, {}));
  if (conv->attrs.has("group")) fused->attrs.set("group", conv->attrs.get_int("group", 1));
  if (!add_requantization(g, fused, *x, *w, *bias, *out)) {
    g.remove_node(fused);
    return false;
  }
  finish_fusion(g, conv, *out, fused);
  return true;
}

bool try_fuse_matmul(Graph& g, Node* mm) {
  const bool gemm = mm->op == OpKind::Gemm;
  if (gemm && (mm->attrs.get_float("alpha", 1.0) != 1.0 ||
               mm->attrs.get_float("beta", 1.0) != 1.0 || mm->attrs.get_int("transA", 0) != 0))
    return false;
  const bool trans_b = gemm && mm->attrs.get_int("transB", 0) != 0;
  std::optional<Activation> a = dequantized_activation(mm->inputs[0]);
  const Value* bv = mm->inputs[1];
  if (!a || bv->type.rank() != 2 || !bv->type.is_static()) return false;
  const int64_t k = bv->type.shape[trans_b ? 1 : 0].value,
                n = bv->type.shape[trans_b ? 0 : 1].value;
  std::optional<Weights> b = dequantized_weights(bv, trans_b ? 0 : 1, n);
  std::optional<std::vector<double>> bias =
      bias_values(gemm && mm->inputs.size() > 2 ? mm->inputs[2] : nullptr, n);
  std::optional<Output> out = quantized_output(g, *mm);
  // Symmetric int8 weights (ONNX Runtime's default) with uint8 or int8 activations take the
  // 8-bit kernels' form (split_product); other forms need one 8-bit family.
  const bool symmetric_i8 = b && b->zero_point == 0 && b->q->type.dtype == DType::kI8;
  if (!b || !bias || !out || (a->q->type.dtype != b->q->type.dtype && !symmetric_i8)) return false;
  Value* weights = const_cast<Value*>(b->q);
  if (trans_b) {  // [N, K] -> [K, N]
    const uint8_t* src = b->q->constant->data();
    std::vector<uint8_t> t(size_t(k * n));
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < k; ++c) t[size_t(c * n + r)] = src[r * k + c];
    weights = g.add_constant(
        b->q->name + "_kn",
        std::make_shared<Tensor>(b->q->type.dtype, std::vector<int64_t>{k, n}, std::move(t)));
  }
  if (symmetric_i8) return split_product(g, mm, *a, *b, weights, *bias, *out);
  if (a->q->type.dtype != b->q->type.dtype) return false;
  Node* fused = g.add_node(OpKind::QMatMul, mm->name + "_int8", {a->q, weights},
                           {mm->outputs[0]->name + "_int8"});
  fused->opset = mm->opset;
  if (!add_requantization(g, fused, *a, *b, *bias, *out)) {
    g.remove_node(fused);
    return false;
  }
  finish_fusion(g, mm, *out, fused);
  return true;
}

// A DequantizeLinear of constants as a float32 constant (per-tensor or per-axis).
bool fold_dequantize(Graph& g, Node* dq) {
  if (!all_constant(*dq) || dq->outputs[0]->type.dtype != DType::kF32 ||
      !dq->outputs[0]->type.is_static())
    return false;
  std::optional<QParams> p = qparams(*dq);
  if (!p) return false;
  const Tensor& x = *dq->inputs[0]->constant;
  const std::vector<int64_t>& shape = x.shape();
  int64_t inner = 1;  // elements per step along the axis
  if (p->axis >= 0) {
    if (p->axis >= int64_t(shape.size())) return false;
    for (size_t d = size_t(p->axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  }
  const int64_t along = p->axis >= 0 ? shape[size_t(p->axis)] : 1;
  std::vector<float> out(size_t(x.num_elements()));
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    size_t c = p->axis >= 0 ? size_t((i / inner) % along) : 0;
    // float32 arithmetic, as the compute rule and the ONNX reference dequantize.
    out[size_t(i)] = float(x.get_i64(i) - p->zero_point(c)) * float(p->scale(c));
  }
  Value* old = dq->outputs[0];
  g.replace_all_uses(old, g.add_constant(old->name, f32_constant(shape, out)));
  g.remove_node(dq);
  return true;
}

}  // namespace

std::optional<FixedPointMultipliers> fixed_point_multipliers(const std::vector<double>& m) {
  double largest = 0;
  for (double v : m) {
    if (!(v > 0) || !std::isfinite(v)) return std::nullopt;
    largest = std::max(largest, v);
  }
  if (m.empty() || largest >= 2147483648.0) return std::nullopt;
  // The largest shift with round(largest * 2^shift) <= 2^31 - 1, within 1..62.
  int shift = int(std::floor(std::log2(2147483647.0 / largest)));
  shift = std::clamp(shift, 1, 62);
  while (shift > 1 && std::nearbyint(std::ldexp(largest, shift)) > 2147483647.0) --shift;
  if (std::nearbyint(std::ldexp(largest, shift)) > 2147483647.0) return std::nullopt;
  FixedPointMultipliers f;
  f.shift = shift;
  for (double v : m) f.multipliers.push_back(int32_t(std::nearbyint(std::ldexp(v, shift))));
  return f;
}

bool keep_for_fuse_qdq(const Graph& g, const Node& n) {
  if (n.op != OpKind::DequantizeLinear || n.inputs.empty() || n.inputs[0] == nullptr) return false;
  DType d = n.inputs[0]->type.dtype;
  if (!int8_family(d) && d != DType::kI32) return false;
  std::vector<Node*> users = g.users(n.outputs[0]);
  if (users.empty()) return false;
  for (const Node* u : users)
    if (u->op != OpKind::Conv && u->op != OpKind::MatMul && u->op != OpKind::Gemm) return false;
  return true;
}

void fuse_qdq(Graph& g, bool blocked_int8_convs) {
  rewrite_to_fixpoint(g, OpKind::Conv,
                      [&](Graph& gr, Node* n) { return try_fuse_conv(gr, n, blocked_int8_convs); });
  rewrite_to_fixpoint(g, OpKind::MatMul, try_fuse_matmul);
  rewrite_to_fixpoint(g, OpKind::Gemm, try_fuse_matmul);
  g.remove_dead();
  std::vector<Node*> dqs;
  for (const auto& n : g.nodes())
    if (n->op == OpKind::DequantizeLinear) dqs.push_back(n.get());
  for (Node* dq : dqs) fold_dequantize(g, dq);
}

}  // namespace ingot::graph

// winograd_conv (see winograd_conv.h).
#include "graph/transforms/winograd_conv.h"

#include <algorithm>

#include "graph/transforms/rewrite_util.h"
#include "ops/op.h"
#include "support/error.h"
#include "support/winograd.h"

namespace ingot::graph {

namespace {

// default_winograd_tile's thresholds (measured by bench/winograd_bench.py:
// docs/perf-runs/winograd_bench-20261206T111549Z.json, and T123729Z.json with AVX2 code).
constexpr int64_t kMinChannels = 32;
constexpr int64_t kMaxWeightBytesPerTile = int64_t(4) << 20;

bool all_equal(const std::vector<int64_t>& v, int64_t x) {
  return std::all_of(v.begin(), v.end(), [x](int64_t e) { return e == x; });
}

// A ConvNCHWc the transforms implement: 2-D, groups = 1, 3x3, 1x3 or 3x1, stride 1, no
// dilation, constant float32 weights and bias.
bool eligible(const Node& n) {
  if (n.op != ops::OpKind::ConvNCHWc || n.attrs.get_int("group", 1) != 1) return false;
  const Value* w = n.inputs[1];
  const Value* b = n.inputs.size() > 2 ? n.inputs[2] : nullptr;
  if (!w->is_constant() || w->type.rank() != 4 || (b && !b->is_constant())) return false;
  std::vector<int64_t> ws = w->type.static_shape();
  if (!winograd::supported_kernel(ws[2], ws[3])) return false;
  std::vector<int64_t> pads = n.attrs.get_ints("pads", {0, 0, 0, 0});
  return n.inputs[0]->type.rank() == 5 && all_equal(n.attrs.get_ints("strides", {1, 1}), 1) &&
         all_equal(n.attrs.get_ints("dilations", {1, 1}), 1) && pads.size() == 4 &&
         std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p >= 0; });
}

// The conv's unpadded input and its pads (top, left, bottom, right): the input of the constant
// zero Pad of H and W that layout_nchwc put before it, else X and the conv's own pads.
std::pair<Value*, std::vector<int64_t>> unpadded_input(const Node& conv) {
  Value* x = conv.inputs[0];
  std::vector<int64_t> own = conv.attrs.get_ints("pads", {0, 0, 0, 0});
  const Node* pad = x->producer;
  if (!all_equal(own, 0) || pad == nullptr || pad->op != ops::OpKind::Pad ||
      pad->attrs.get_string("mode", "constant") != "constant" ||
      pad->attrs.get_float("value", 0.0) != 0.0 || pad->inputs.size() != 1)
    return {x, own};
  std::vector<int64_t> p = pad->attrs.get_ints("pads", {});
  if (p.size() != 10 || pad->attrs.has("axes")) return {x, own};
  for (int d : {0, 1, 4})
    if (p[size_t(d)] != 0 || p[size_t(5 + d)] != 0) return {x, own};
  std::vector<int64_t> pads = {p[2], p[3], p[7], p[8]};
  if (std::any_of(pads.begin(), pads.end(), [](int64_t e) { return e < 0; })) return {x, own};
  return {pad->inputs[0], pads};
}

// U[a * alpha_w + b, ic, oc] = (G_h W[oc, ic] G_w^T)[a, b] for the real channels, 0 in the
// padding (G of a 1-tap axis: [1]).
TensorPtr transformed_weights(const Tensor& w, int m, int64_t icp, int64_t ocp) {
  const std::vector<int64_t>& ws = w.shape();
  const int64_t oc = ws[0], ic = ws[1], kh = ws[2], kw = ws[3];
  const auto [th, tw] = winograd::transforms(m, kh, kw);
  const float* wd = w.data_as<float>();
  std::vector<float> u(size_t(th.a * tw.a * icp * ocp), 0.0f);
  std::vector<double> gg(size_t(th.a * kw));  // G_h g
  for (int64_t o = 0; o < oc; ++o)
    for (int64_t i = 0; i < ic; ++i) {
      const float* g = wd + (o * ic + i) * kh * kw;
      std::fill(gg.begin(), gg.end(), 0.0);
      for (int r = 0; r < th.a; ++r)
        for (int64_t c = 0; c < kw; ++c)
          for (int64_t k = 0; k < kh; ++k)
            gg[size_t(r * kw + c)] += th.g_(r, int(k)) * double(g[k * kw + c]);
      for (int r = 0; r < th.a; ++r)
        for (int s = 0; s < tw.a; ++s) {
          double v = 0;
          for (int64_t k = 0; k < kw; ++k) v += gg[size_t(r * kw + k)] * tw.g_(s, int(k));
          u[size_t(((r * tw.a + s) * icp + i) * ocp + o)] = float(v);
        }
    }
  return f32_constant({th.a * tw.a, icp, ocp}, u);
}

void rewrite(Graph& g, Node& conv, int m) {
  auto [x, pads] = unpadded_input(conv);
  Value* y = conv.outputs[0];
  const std::vector<int64_t> xs = x->type.static_shape(), ys = y->type.static_shape();
  const std::vector<int64_t> ws = conv.inputs[1]->type.static_shape();
  const std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  const int64_t icp = xs[1] * xs[4], ocp = ys[1] * ys[4];
  auto add = [&](ops::OpKind op, const char* suffix, std::vector<Value*> inputs, Attrs attrs) {
    Node* n = g.add_node(op, conv.name + suffix, std::move(inputs), {conv.name + suffix}, attrs);
    n->opset = conv.opset;
    n->outputs[0]->type = ops::op_info(op).infer(*n).at(0);
    return n;
  };

  Attrs in_attrs;
  in_attrs.set("tile", int64_t(m));
  in_attrs.set("kernel_shape", kernel);
  in_attrs.set("pads", pads);
  Node* in = add(ops::OpKind::WinogradInputTransform, kWinogradInputSuffix, {x}, in_attrs);
  Value* u = g.add_constant(conv.name + "_winograd_weights",
                            transformed_weights(*conv.inputs[1]->constant, m, icp, ocp));
  Node* mm = add(ops::OpKind::MatMul, kWinogradProductSuffix, {in->outputs[0], u}, {});

  Attrs out_attrs;
  out_attrs.set("tile", int64_t(m));
  out_attrs.set("kernel_shape", kernel);
  out_attrs.set("output_shape", ys);
  for (const auto& [name, value] : conv.attrs.all())  // the fused epilogue
    if (name.starts_with("activation")) out_attrs.set(name, value);
  Value* bias = conv.inputs.size() > 2 ? conv.inputs[2] : nullptr;
  Value* z = conv.inputs.size() > 3 ? conv.inputs[3] : nullptr;
  std::vector<Value*> out_inputs = {mm->outputs[0], bias, z};
  while (out_inputs.back() == nullptr) out_inputs.pop_back();
  Node* out =
      add(ops::OpKind::WinogradOutputTransform, kWinogradOutputSuffix, out_inputs, out_attrs);
  INGOT_ICHECK(out->outputs[0]->type == y->type,
               "{}: Winograd output {} differs from the conv's {}", conv.describe(),
               out->outputs[0]->type.str(), y->type.str());
  // The output transform takes over the conv's output value (its readers, its name).
  replace_pattern(g, {&conv}, &conv, out);
}

}  // namespace

int default_winograd_tile(const WinogradConvShape& s) {
  // Few channels: the transforms' fixed work per channel outweighs the product (16 -> 16 at
  // 56x56: F(4x4) 1.27x slower than direct; 32 -> 32: 0.56 of its time; 64 -> 64: 0.45).
  if (s.ic < kMinChannels || s.oc < kMinChannels) return 0;
  // The product streams alpha^2 x IC x OC weights once per run for T tiles: with too few tiles
  // per weight byte it is bound by that stream (512 -> 512 at 7x7: F(4x4) 0.81 of the direct
  // time, F(2x2) 0.64).
  for (int m : {4, 2}) {
    const winograd::Transforms2d t = winograd::transforms(m, s.kh, s.kw);
    const int64_t tiles = winograd::tile_count(t, s.n, s.oh, s.ow);
    const int64_t weight_bytes = int64_t(t.h.a) * t.w.a * s.ic * s.oc * int64_t(sizeof(float));
    if (weight_bytes <= kMaxWeightBytesPerTile * tiles) return m;
  }
  return 0;
}

void check_conv_algorithm(const std::string& a) {
  if (a != "auto" && a != "direct" && a != "winograd_f2" && a != "winograd_f4")
    fail_user(
        "--conv-algorithm: unknown value '{}' (valid: auto, direct, winograd_f2, winograd_f4)", a);
}

WinogradPolicy winograd_policy(const std::string& a) {
  check_conv_algorithm(a);
  if (a == "direct") return [](const WinogradConvShape&) { return 0; };
  if (a == "winograd_f2") return [](const WinogradConvShape&) { return 2; };
  if (a == "winograd_f4") return [](const WinogradConvShape&) { return 4; };
  return default_winograd_tile;
}

void convert_winograd_conv(Graph& g, const WinogradPolicy& policy) {
  std::vector<Node*> convs;
  for (const auto& n : g.nodes())
    if (eligible(*n)) convs.push_back(n.get());
  bool changed = false;
  for (Node* conv : convs) {
    const std::vector<int64_t> xs = conv->inputs[0]->type.static_shape();
    const std::vector<int64_t> ys = conv->outputs[0]->type.static_shape();
    const std::vector<int64_t> ws = conv->inputs[1]->type.static_shape();
    WinogradConvShape s{ys[0], xs[1] * xs[4], ys[1] * ys[4], ys[2],
                        ys[3], conv->name,    ws[2],         ws[3]};
    int m = policy(s);
    if (m == 0) continue;
    INGOT_ICHECK(winograd::supported_tile(m), "Winograd policy chose tile {}", m);
    rewrite(g, *conv, m);
    changed = true;
  }
  if (changed) g.remove_dead();  // (a Pad the input transforms now bypass)
}

}  // namespace ingot::graph

// ConvTranspose (1-D, 2-D, 3-D; grouped): output shape and the canonical window attributes
// (auto_pad, output_padding and output_shape resolved to begin pads and an explicit output
// shape), FLOPs.
#include "ops/conv_geometry.h"
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

int64_t floor_div(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// X [N, C, in...], W [C, M/group, k...]: Y [N, M, out...] with
// out = stride * (in - 1) + output_padding + (k - 1) * dilation + 1 - pad_begin - pad_end, or
// output_shape when given (pads then follow auto_pad; NOTSET keeps the begin pads).
std::vector<TensorType> infer_conv_transpose(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  const TensorType& w = input_type(n, 1, "W");
  int64_t group = check_conv_operands(n, x, w);
  size_t sr = size_t(w.rank() - 2);
  std::vector<int64_t> kernel;
  for (size_t i = 0; i < sr; ++i) {
    const Dim& kd = w.shape[2 + i];
    if (!kd.is_static())
      fail_user("{}: weight W {} must have a static kernel shape", n.describe(), w.str());
    kernel.push_back(kd.value);
  }
  if (n.attrs.has("kernel_shape") && n.attrs.get_ints("kernel_shape") != kernel)
    fail_user("{}: attribute 'kernel_shape' does not match weight W {}", n.describe(), w.str());
  const Dim& c = x.shape[1];
  const Dim& wc = w.shape[0];
  if (c.is_static() && wc.is_static() && c.value != wc.value)
    fail_user("{}: input X has {} channels but W {} expects {}", n.describe(), c.value, w.str(),
              wc.value);
  if (c.is_static() && c.value % group != 0)
    fail_user("{}: {} input channels are not divisible by group={}", n.describe(), c.value, group);
  Dim m = Dim::of(w.shape[1].sym() * group);
  if (has_input(n, 2)) {
    const TensorType& b = n.inputs[2]->type;
    require_same_dtype(n, x, b, "X", "B");
    if (b.rank() != 1 || (b.shape[0].is_static() && m.is_static() && b.shape[0] != m))
      fail_user("{}: bias B {} must have shape [{}]", n.describe(), b.str(), m.str());
  }
  std::vector<int64_t> strides = ints_of_rank(n, "strides", sr, 1, 1);
  std::vector<int64_t> dilations = ints_of_rank(n, "dilations", sr, 1, 1);
  std::vector<int64_t> out_pad = ints_of_rank(n, "output_padding", sr, 0, 0);
  for (size_t i = 0; i < sr; ++i)
    if (out_pad[i] >= std::max(strides[i], dilations[i]))
      fail_user(
          "{}: attribute 'output_padding' value {} must be less than stride {} or dilation {}",
          n.describe(), out_pad[i], strides[i], dilations[i]);
  std::string auto_pad = n.attrs.get_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" &&
      auto_pad != "SAME_LOWER")
    fail_user(
        "{}: attribute 'auto_pad' has invalid value \"{}\" (valid: NOTSET, SAME_UPPER, "
        "SAME_LOWER, VALID)",
        n.describe(), auto_pad);
  bool has_out_shape = n.attrs.has("output_shape");
  std::vector<int64_t> out_shape;
  if (has_out_shape) {
    out_shape = n.attrs.get_ints("output_shape");
    // ONNX allows the full output shape [N, M, spatial...]; keep the spatial part.
    if (out_shape.size() == sr + 2) out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
    if (out_shape.size() != sr)
      fail_user("{}: attribute 'output_shape' has {} values, expected {} (one per spatial dim)",
                n.describe(), out_shape.size(), sr);
    for (int64_t e : out_shape)
      if (e < 1) fail_user("{}: attribute 'output_shape' has invalid value {}", n.describe(), e);
  }
  std::vector<int64_t> pads(2 * sr, 0);
  bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  if (auto_pad == "NOTSET") {
    pads = n.attrs.get_ints("pads", pads);
    if (pads.size() != 2 * sr)
      fail_user("{}: attribute 'pads' has {} values, expected {} (begin and end per spatial dim)",
                n.describe(), pads.size(), 2 * sr);
    for (size_t i = 0; i < (has_out_shape ? sr : 2 * sr); ++i)
      if (pads[i] < 0)
        fail_user("{}: attribute 'pads' has invalid value {}", n.describe(), pads[i]);
  }
  std::vector<Dim> spatial(sr);
  for (size_t i = 0; i < sr; ++i) {
    const Dim& in = x.shape[2 + i];
    if (!in.is_static())
      fail_user("{}: spatial dim {} of X {} must be static (bind it with --input-shapes)",
                n.describe(), 2 + i, x.str());
    int64_t full = strides[i] * (in.value - 1) + out_pad[i] + (kernel[i] - 1) * dilations[i] + 1;
    int64_t o = 0;
    if (same) {
      o = has_out_shape ? out_shape[i] : in.value * strides[i];
      int64_t total = full - o;
      int64_t half = floor_div(total, 2);
      pads[i] = auto_pad == "SAME_UPPER" ? half : total - half;
    } else {
      o = has_out_shape ? out_shape[i] : full - pads[i] - pads[sr + i];
    }
    if (o < 1)
      fail_user("{}: output spatial dim {} would have size {} (input {}, pads {}+{})", n.describe(),
                i, o, in.value, pads[i], pads[sr + i]);
    // The end pad against the extent without output_padding (which is folded into output_shape):
    // negative for extra outputs at the end, which hold the bias only.
    pads[sr + i] = full - out_pad[i] - o - pads[i];
    out_shape.resize(sr);
    out_shape[i] = o;
    spatial[i] = Dim::fixed(o);
  }
  n.attrs.erase("auto_pad");
  n.attrs.erase("output_padding");
  n.attrs.set("group", group);
  n.attrs.set("kernel_shape", kernel);
  n.attrs.set("strides", strides);
  n.attrs.set("dilations", dilations);
  n.attrs.set("pads", pads);
  n.attrs.set("output_shape", out_shape);
  TensorType out{x.dtype, {x.shape[0], m}};
  out.shape.insert(out.shape.end(), spatial.begin(), spatial.end());
  return {out};
}

double conv_transpose_flops(const Node& n) {
  const TensorType& w = n.inputs[1]->type;
  double macs = 1;  // multiply-adds per input element: M/group * prod(kernel)
  for (int i = 1; i < w.rank(); ++i)
    if (w.shape[i].is_static()) macs *= double(w.shape[i].value);
  double outs = approx_elements(n.outputs[0]->type);
  return 2 * macs * approx_elements(n.inputs[0]->type) + (has_input(n, 2) ? outs : 0);
}

}  // namespace

void add_conv_transpose_ops(std::vector<OpInfo>& t) {
  OpInfo ct{OpKind::ConvTranspose,
            "ConvTranspose",
            PatternKind::kOutEWiseFusable,
            {{"group", AttrType::kInt},
             {"kernel_shape", AttrType::kInts},
             {"strides", AttrType::kInts},
             {"dilations", AttrType::kInts},
             {"pads", AttrType::kInts},
             {"auto_pad", AttrType::kString},
             {"output_padding", AttrType::kInts},
             {"output_shape", AttrType::kInts}}};
  ct.min_inputs = 2;
  ct.max_inputs = 3;
  ct.infer_fn = infer_conv_transpose;
  ct.flops_fn = conv_transpose_flops;
  t.push_back(ct);
}

}  // namespace ingot::ops::detail

// Sliding-window geometry for Conv and pools: explicit pads from auto_pad, output dims.
#include "ops/conv_geometry.h"

#include "support/error.h"

namespace ingot::ops::detail {

std::vector<int64_t> ints_of_rank(const Node& n, const char* name, size_t rank, int64_t def,
                                  int64_t min_value) {
  std::vector<int64_t> v = n.attrs.get_ints(name, std::vector<int64_t>(rank, def));
  if (v.size() != rank)
    fail_user("{}: attribute '{}' has {} values, expected {} (one per spatial dim)", n.describe(),
              name, v.size(), rank);
  for (int64_t e : v)
    if (e < min_value) fail_user("{}: attribute '{}' has invalid value {}", n.describe(), name, e);
  return v;
}

namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

std::vector<Dim> window_output_dims(Node& n, const TensorType& x,
                                    const std::vector<int64_t>& kernel, bool ceil_mode) {
  size_t sr = kernel.size();
  if (size_t(x.rank()) != sr + 2)
    fail_user("{}: input X {} must have rank {} for a {}-D kernel", n.describe(), x.str(), sr + 2,
              sr);
  std::vector<int64_t> strides = ints_of_rank(n, "strides", sr, 1, 1);
  std::vector<int64_t> dilations = ints_of_rank(n, "dilations", sr, 1, 1);
  std::string auto_pad = n.attrs.get_string("auto_pad", "NOTSET");
  std::vector<int64_t> pads;
  std::vector<Dim> out(sr);
  if (auto_pad == "NOTSET" || auto_pad == "VALID") {
    pads = auto_pad == "VALID" ? std::vector<int64_t>(2 * sr, 0)
                               : ints_of_rank(n, "pads", 2 * sr, 0, 0);
    for (size_t i = 0; i < sr; ++i) {
      const Dim& in = x.shape[2 + i];
      if (!in.is_static()) {
        // The same rule in closed form; a window that does not fit is the run time's check.
        const int64_t s = strides[i];
        SymExpr span = in.sym() + (pads[i] + pads[sr + i] - ((kernel[i] - 1) * dilations[i] + 1));
        SymExpr o = (ceil_mode ? SymExpr::ceildiv(span, s) : SymExpr::floordiv(span, s)) + 1;
        if (ceil_mode) o = SymExpr::min(o, SymExpr::floordiv(in.sym() + (pads[i] - 1), s) + 1);
        out[i] = Dim::of(o);
        continue;
      }
      int64_t span = in.value + pads[i] + pads[sr + i] - ((kernel[i] - 1) * dilations[i] + 1);
      if (span < 0)
        fail_user(
            "{}: window of extent {} (dilated) does not fit spatial dim {} of size {} "
            "with pads {}+{}",
            n.describe(), (kernel[i] - 1) * dilations[i] + 1, i, in.value, pads[i], pads[sr + i]);
      int64_t o = (ceil_mode ? ceil_div(span, strides[i]) : span / strides[i]) + 1;
      // A window must start inside the input or the left padding (ONNX / PyTorch rule).
      if (ceil_mode && (o - 1) * strides[i] >= in.value + pads[i]) --o;
      out[i] = Dim::fixed(o);
    }
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    pads.assign(2 * sr, 0);
    for (size_t i = 0; i < sr; ++i) {
      const Dim& in = x.shape[2 + i];
      if (!in.is_static())
        fail_user(
            "{}: auto_pad {} needs static spatial dims, but dim {} is '{}' (bind it with "
            "--input-shapes)",
            n.describe(), auto_pad, 2 + i, in.str());
      int64_t o = ceil_div(in.value, strides[i]);
      int64_t total = std::max<int64_t>(
          0, (o - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - in.value);
      int64_t small = total / 2, big = total - small;
      pads[i] = auto_pad == "SAME_UPPER" ? small : big;
      pads[sr + i] = total - pads[i];
      out[i] = Dim::fixed(o);
    }
  } else {
    fail_user(
        "{}: attribute 'auto_pad' has invalid value \"{}\" (valid: NOTSET, SAME_UPPER, "
        "SAME_LOWER, VALID)",
        n.describe(), auto_pad);
  }
  n.attrs.erase("auto_pad");
  n.attrs.set("kernel_shape", kernel);
  n.attrs.set("strides", strides);
  n.attrs.set("dilations", dilations);
  n.attrs.set("pads", pads);
  return out;
}

std::vector<AttrSpec> conv_attr_specs(std::vector<AttrSpec> extra) {
  std::vector<AttrSpec> specs = {{"group", AttrType::kInt},    {"kernel_shape", AttrType::kInts},
                                 {"strides", AttrType::kInts}, {"dilations", AttrType::kInts},
                                 {"pads", AttrType::kInts},    {"auto_pad", AttrType::kString}};
  for (AttrSpec& a : epilogue_attr_specs()) specs.push_back(a);
  specs.insert(specs.end(), extra.begin(), extra.end());
  return specs;
}

int64_t check_conv_operands(const Node& n, const TensorType& x, const TensorType& w) {
  require_same_dtype(n, x, w, "X", "W");
  if (w.rank() < 3 || w.rank() > 5)
    fail_user("{}: weight W {} must have rank 3, 4 or 5", n.describe(), w.str());
  if (x.rank() != w.rank())
    fail_user("{}: input X {} and weight W {} must have the same rank", n.describe(), x.str(),
              w.str());
  int64_t group = n.attrs.get_int("group", 1);
  if (group < 1) fail_user("{}: attribute 'group' must be >= 1, got {}", n.describe(), group);
  return group;
}

}  // namespace ingot::ops::detail

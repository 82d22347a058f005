// Resize (and Upsample, imported as a Resize): nearest / linear / cubic interpolation of a
// tensor to a static output shape, or to one that run-time roi / scales / sizes decide. Inference
// resolves `scales` or `sizes` (with `axes` and `keep_aspect_ratio_policy`) to the canonical
// full-rank `scales` + `sizes` (and `roi` for tf_crop_and_resize) of docs/graph-forms.md, so the
// compute rule needs no ONNX opset rules.
#include <algorithm>
#include <cmath>
#include <string_view>

#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "ops/value_symbols.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

bool one_of(const std::string& v, std::initializer_list<std::string_view> allowed) {
  return std::find(allowed.begin(), allowed.end(), v) != allowed.end();
}

void check_choice(const Node& n, const char* attr, const std::string& v,
                  std::initializer_list<std::string_view> allowed) {
  if (one_of(v, allowed)) return;
  std::string valid;
  for (std::string_view a : allowed) valid += (valid.empty() ? "" : ", ") + std::string(a);
  fail_user("{}: attribute '{}' = '{}' is not supported (valid: {})", n.describe(), attr, v, valid);
}

// Sets every interpolation attribute to its value or ONNX default and validates it.
void normalize_modes(Node& n) {
  auto& a = n.attrs;
  std::string mode = a.get_string("mode", "nearest");
  std::string ctm = a.get_string("coordinate_transformation_mode", "half_pixel");
  std::string nearest = a.get_string("nearest_mode", "round_prefer_floor");
  check_choice(n, "mode", mode, {"nearest", "linear", "cubic"});
  check_choice(n, "coordinate_transformation_mode", ctm,
               {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
                "asymmetric", "tf_crop_and_resize"});
  check_choice(n, "nearest_mode", nearest,
               {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"});
  int64_t antialias = a.get_int("antialias", 0), exclude = a.get_int("exclude_outside", 0);
  if (antialias != 0 && antialias != 1)
    fail_user("{}: attribute 'antialias' must be 0 or 1, got {}", n.describe(), antialias);
  if (exclude != 0 && exclude != 1)
    fail_user("{}: attribute 'exclude_outside' must be 0 or 1, got {}", n.describe(), exclude);
  if (antialias && mode == "nearest")
    fail_user("{}: attribute 'antialias' = 1 needs mode 'linear' or 'cubic'", n.describe());
  a.set("mode", mode);
  a.set("coordinate_transformation_mode", ctm);
  a.set("nearest_mode", nearest);
  a.set("cubic_coeff_a", a.get_float("cubic_coeff_a", -0.75));
  a.set("exclude_outside", exclude);
  a.set("extrapolation_value", a.get_float("extrapolation_value", 0.0));
  a.set("antialias", antialias);
}

int64_t static_dim(const Node& n, const TensorType& x, int64_t d, const char* why) {
  if (!x.shape[size_t(d)].is_static())
    fail_user("{}: cannot resize symbolic dim '{}' (axis {}) {}", n.describe(),
              x.shape[size_t(d)].str(), d, why);
  return x.shape[size_t(d)].value;
}

// A 1-D static input of `want` values of a float (or, for sizes, int64) dtype.
void check_values_input(const Node& n, const graph::Value* v, const char* what, bool is_float,
                        int64_t want) {
  const DType t = v->type.dtype;
  const bool dtype_ok = is_float ? is_float_dtype(t) : t == DType::kI64;
  if (!dtype_ok || v->type.rank() != 1 || !v->type.is_static() || v->type.shape[0].value != want)
    fail_user("{}: input '{}' must be a 1-D {} tensor of {} values, got {}", n.describe(), what,
              is_float ? "float" : "int64", want, v->type.str());
}

// roi, scales or sizes read at run time (resize_reads_values): `axes` is kept (all dims when
// absent) and the constant ones stay per axis, for the kernel; the dims `axes` names are value
// symbols the artifact computes before each run (lower/compute/resize_params.h).
std::vector<TensorType> infer_resize_values(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  auto& a = n.attrs;
  std::vector<int64_t> axes;
  if (a.has("axes")) {
    axes = normalize_axes(n, a.get_ints("axes"), x.rank(), "axes");
  } else {
    for (int64_t d = 0; d < x.rank(); ++d) axes.push_back(d);
  }
  a.set("axes", axes);
  const int64_t k = int64_t(axes.size());
  auto input = [&](size_t slot) -> const graph::Value* {
    return slot < n.inputs.size() ? n.inputs[slot] : nullptr;
  };
  const bool scales = input(2) != nullptr || a.has("scales");
  const bool sizes = input(3) != nullptr || a.has("sizes");
  if (scales == sizes)
    fail_user("{}: {} of 'scales' and 'sizes' must be given", n.describe(),
              scales ? "only one" : "one");
  if (const graph::Value* v = input(2)) check_values_input(n, v, "scales", true, k);
  if (const graph::Value* v = input(3)) check_values_input(n, v, "sizes", false, k);
  const char* given = scales ? "scales" : "sizes";
  if (size_t count = scales ? a.get_floats("scales").size() : a.get_ints("sizes").size();
      !input(scales ? 2 : 3) && int64_t(count) != k)
    fail_user("{}: '{}' has {} values for {} resized axes", n.describe(), given, count, k);
  std::string policy = a.get_string("keep_aspect_ratio_policy", "stretch");
  check_choice(n, "keep_aspect_ratio_policy", policy, {"stretch", "not_larger", "not_smaller"});
  if (a.get_string("coordinate_transformation_mode", "") == "tf_crop_and_resize") {
    if (const graph::Value* v = input(1)) {
      check_values_input(n, v, "roi", true, 2 * k);
    } else if (int64_t(a.get_floats("roi").size()) != 2 * k) {
      fail_user("{}: 'roi' has {} values, tf_crop_and_resize needs 2 x {} (starts, ends)",
                n.describe(), a.get_floats("roi").size(), k);
    }
  }
  TensorType out = x;
  for (int64_t d : axes) out.shape[size_t(d)] = value_dim(n, 0, int(d));
  return {out};
}

std::vector<TensorType> infer_resize(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  normalize_modes(n);
  if (resize_reads_values(n)) return infer_resize_values(n);
  auto& a = n.attrs;
  int64_t r = x.rank();
  std::vector<double> scales = a.get_floats("scales");
  std::vector<int64_t> sizes = a.get_ints("sizes");
  bool canonical = !scales.empty() && !sizes.empty() && !a.has("axes");
  if (!canonical) {
    if (!scales.empty() && !sizes.empty())
      fail_user("{}: only one of 'scales' and 'sizes' may be given", n.describe());
    if (scales.empty() && sizes.empty())
      fail_user("{}: one of 'scales' and 'sizes' is required", n.describe());
    std::vector<int64_t> axes;
    if (a.has("axes")) {
      axes = normalize_axes(n, a.get_ints("axes"), r, "axes");
    } else {
      for (int64_t d = 0; d < r; ++d) axes.push_back(d);
    }
    const char* given = scales.empty() ? "sizes" : "scales";
    size_t count = scales.empty() ? sizes.size() : scales.size();
    if (count != axes.size())
      fail_user("{}: '{}' has {} values for {} resized axes", n.describe(), given, count,
                axes.size());
    std::vector<double> full_scales(size_t(r), 1.0);
    std::vector<int64_t> full_sizes(size_t(r), -1);
    for (int64_t d = 0; d < r; ++d)
      if (x.shape[size_t(d)].is_static()) full_sizes[size_t(d)] = x.shape[size_t(d)].value;
    if (!scales.empty()) {
      for (size_t i = 0; i < axes.size(); ++i) {
        int64_t d = axes[i];
        double s = scales[i];
        if (!(s > 0)) fail_user("{}: 'scales' has a non-positive value {}", n.describe(), s);
        full_scales[size_t(d)] = s;
        if (s == 1.0 && !x.shape[size_t(d)].is_static()) continue;
        int64_t in = static_dim(n, x, d, "with a scale other than 1");
        full_sizes[size_t(d)] = int64_t(std::floor(s * double(in)));
      }
    } else {
      std::string policy = a.get_string("keep_aspect_ratio_policy", "stretch");
      check_choice(n, "keep_aspect_ratio_policy", policy, {"stretch", "not_larger", "not_smaller"});
      for (size_t i = 0; i < axes.size(); ++i) {
        int64_t d = axes[i];
        if (sizes[i] < 0) fail_user("{}: 'sizes' has a negative value {}", n.describe(), sizes[i]);
        int64_t in = static_dim(n, x, d, "to a given size");
        if (in == 0) fail_user("{}: cannot resize the empty axis {} to a size", n.describe(), d);
        full_sizes[size_t(d)] = sizes[i];
        full_scales[size_t(d)] = double(sizes[i]) / double(in);
      }
      if (policy != "stretch") {
        double s = full_scales[size_t(axes[0])];
        for (int64_t d : axes)
          s = policy == "not_larger" ? std::min(s, full_scales[size_t(d)])
                                     : std::max(s, full_scales[size_t(d)]);
        for (int64_t d : axes) {
          full_scales[size_t(d)] = s;
          full_sizes[size_t(d)] = int64_t(s * double(x.shape[size_t(d)].value) + 0.5);
        }
      }
    }
    if (a.get_string("coordinate_transformation_mode", "") == "tf_crop_and_resize") {
      std::vector<double> roi = a.get_floats("roi");
      if (roi.size() != 2 * axes.size())
        fail_user("{}: 'roi' has {} values, tf_crop_and_resize needs 2 x {} (starts, ends)",
                  n.describe(), roi.size(), axes.size());
      std::vector<double> full_roi(size_t(r), 0.0);
      full_roi.resize(size_t(2 * r), 1.0);
      for (size_t i = 0; i < axes.size(); ++i) {
        full_roi[size_t(axes[i])] = roi[i];
        full_roi[size_t(r + axes[i])] = roi[axes.size() + i];
      }
      a.set("roi", full_roi);
    } else {
      a.erase("roi");  // only tf_crop_and_resize reads it
    }
    a.set("scales", full_scales);
    a.set("sizes", full_sizes);
    a.erase("axes");
    a.erase("keep_aspect_ratio_policy");
  }
  if (canonical && int64_t(scales.size()) != r)
    fail_user("{}: 'scales' has {} values for an input of rank {}", n.describe(), scales.size(), r);
  std::vector<int64_t> out_sizes = a.get_ints("sizes");
  if (int64_t(out_sizes.size()) != r)
    fail_user("{}: 'sizes' has {} values for an input of rank {}", n.describe(), out_sizes.size(),
              r);
  TensorType out = x;
  for (int64_t d = 0; d < r; ++d)
    if (out_sizes[size_t(d)] >= 0) out.shape[size_t(d)] = Dim::fixed(out_sizes[size_t(d)]);
  return {out};
}

// Per output element: one read for nearest; 2 (linear) or 4 (cubic) taps per resized axis,
// a multiply-add each (antialias widens the taps; counted as the plain kernel).
double resize_flops(const Node& n) {
  std::string mode = n.attrs.get_string("mode", "nearest");
  if (mode == "nearest") return 0;
  double taps = 1;
  for (double s : n.attrs.get_floats("scales"))
    if (s != 1.0) taps *= mode == "linear" ? 2 : 4;
  if (resize_reads_values(n))  // every named axis, whatever the values
    for (size_t i = 0; i < n.attrs.get_ints("axes").size(); ++i) taps *= mode == "linear" ? 2 : 4;
  return 2 * taps * approx_elements(n.outputs.at(0)->type);
}

}  // namespace

void add_resize_ops(std::vector<OpInfo>& t) {
  OpInfo rs{OpKind::Resize,
            "Resize",
            PatternKind::kInjective,
            {{"mode", AttrType::kString},
             {"coordinate_transformation_mode", AttrType::kString},
             {"nearest_mode", AttrType::kString},
             {"cubic_coeff_a", AttrType::kFloat},
             {"exclude_outside", AttrType::kInt},
             {"extrapolation_value", AttrType::kFloat},
             {"antialias", AttrType::kInt},
             {"axes", AttrType::kInts},
             {"keep_aspect_ratio_policy", AttrType::kString},
             {"roi", AttrType::kFloats},
             {"scales", AttrType::kFloats},
             {"sizes", AttrType::kInts}}};
  rs.min_inputs = 1;
  rs.max_inputs = 4;  // X, then roi, scales, sizes until type inference resolves them
  rs.const_inputs = {{1, "roi", "roi", false, true},
                     {2, "scales", "scales", false, true},
                     {3, "sizes", "sizes", false, true}};
  rs.infer_fn = infer_resize;
  rs.flops_fn = resize_flops;
  t.push_back(rs);
}

}  // namespace ingot::ops::detail

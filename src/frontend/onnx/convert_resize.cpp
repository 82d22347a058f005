// Converters for Resize (opsets 10 to 19) and the deprecated Upsample (opsets 7 and 9). Both
// become one Resize node: the interpolation attributes as given (opset 10 Resize and Upsample
// get the asymmetric transform with floor rounding they were defined with), and roi / scales /
// sizes as attributes when constant at import, else as node inputs 1 / 2 / 3 until type
// inference resolves them or, given by the caller, for the kernel to read at run time (an empty
// tensor means "not given").
#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;
constexpr int kMax = kMaxOnnxOpset;

// ONNX input `onnx_slot` (named `what`) -> attribute `attr`, or node input `slot` when other
// nodes compute it or the caller gives it (read at run time; an empty graph input is "not
// given").
void const_input(NodeConverter& c, int onnx_slot, int slot, const char* what, const char* attr,
                 bool is_float, graph::Attrs& attrs, std::vector<graph::Value*>& inputs) {
  graph::Value* deferred = nullptr;
  if (graph::TensorPtr t = c.value_input(onnx_slot, what, &deferred)) {
    if (t->num_elements() == 0) return;
    if (is_float) {
      std::vector<double> v;
      for (int64_t i = 0; i < t->num_elements(); ++i) v.push_back(t->get_f64(i));
      attrs.set(attr, v);
    } else {
      attrs.set(attr, tensor_to_i64s(*t));
    }
  }
  if (!deferred) return;
  if (!deferred->producer && deferred->type.is_static() && deferred->type.num_elements() == 0)
    return;
  inputs.resize(size_t(slot), nullptr);
  inputs.push_back(deferred);
}

void emit_resize(NodeConverter& c, graph::Attrs attrs, int roi_slot, int scales_slot,
                 int sizes_slot) {
  std::vector<graph::Value*> inputs{c.input(0, "X")};
  // roi is read only by tf_crop_and_resize; other modes ignore it, whatever computes it.
  if (roi_slot >= 0 &&
      attrs.get_string("coordinate_transformation_mode", "") == "tf_crop_and_resize")
    const_input(c, roi_slot, 1, "roi", "roi", true, attrs, inputs);
  const_input(c, scales_slot, 2, "scales", "scales", true, attrs, inputs);
  if (sizes_slot >= 0) const_input(c, sizes_slot, 3, "sizes", "sizes", false, attrs, inputs);
  if (attrs.has("scales") && attrs.has("sizes"))
    c.fail("only one of 'scales' and 'sizes' may be given");
  c.emit(OpKind::Resize, inputs, attrs);
}

// Resize-10 and Upsample: nearest (floor of x / scale) or linear, asymmetric coordinates.
graph::Attrs legacy_attrs(NodeConverter& c) {
  graph::Attrs attrs;
  std::string mode = c.attr_string("mode").value_or("nearest");
  if (mode != "nearest" && mode != "linear")
    c.fail("attribute 'mode' = '{}' is not supported (valid: nearest, linear)", mode);
  attrs.set("mode", mode);
  attrs.set("coordinate_transformation_mode", std::string("asymmetric"));
  attrs.set("nearest_mode", std::string("floor"));
  return attrs;
}

void convert_upsample_7(NodeConverter& c) {
  graph::Attrs attrs = legacy_attrs(c);
  auto scales = c.attr_floats("scales");
  if (!scales) c.fail("required attribute 'scales' is missing");
  attrs.set("scales", *scales);
  c.emit(OpKind::Resize, {c.input(0, "X")}, attrs);
}

void convert_resize_legacy(NodeConverter& c) {  // Upsample-9, Resize-10: (X, scales)
  c.input(1, "scales");
  emit_resize(c, legacy_attrs(c), -1, 1, -1);
}

void convert_resize_11(NodeConverter& c) {  // (X, roi, scales, sizes)
  graph::Attrs attrs;
  for (const char* a :
       {"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a",
        "exclude_outside", "extrapolation_value", "antialias", "axes", "keep_aspect_ratio_policy"})
    c.copy_attr(a, attrs);
  emit_resize(c, attrs, 1, 2, 3);
}

const ConverterEntry kTable[] = {
    {"Upsample", 7, 8, convert_upsample_7},
    {"Upsample", 9, 9, convert_resize_legacy},
    {"Resize", 10, 10, convert_resize_legacy},
    {"Resize", 11, kMax, convert_resize_11},
};

}  // namespace

std::span<const ConverterEntry> resize_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail

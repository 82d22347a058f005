// Converters for the spatial sampling ops: GridSample (16: bilinear / bicubic, renamed to the
// opset-20 linear / cubic; 20, 22: N-d), AffineGrid (20; size as an attribute), Col2Im (18;
// image_shape and block_shape as attributes when constant, else read at run time), RoiAlign (10:
// output_half_pixel coordinates; 16, 22: coordinate_transformation_mode) and DeformConv (19, 22).
#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;
constexpr int kMax = kMaxOnnxOpset;

// An int64 tensor input `slot` whose canonical place is the ints attribute `attr`: set when
// constant at import, else passed as node input `slot` for type inference to resolve (a graph
// input's values are read at run time: value symbols).
void ints_input(NodeConverter& c, int slot, const char* what, const char* attr, graph::Attrs& attrs,
                std::vector<graph::Value*>& inputs) {
  c.input(slot, what);
  graph::Value* deferred = nullptr;
  if (graph::TensorPtr t = c.value_input(slot, what, &deferred))
    attrs.set(attr, tensor_to_i64s(*t));
  if (!deferred) return;
  inputs.resize(size_t(slot), nullptr);
  inputs.push_back(deferred);
}

void convert_grid_sample(NodeConverter& c) {
  graph::Attrs attrs;
  std::string mode = c.attr_string("mode").value_or(c.opset() < 20 ? "bilinear" : "linear");
  if (c.opset() < 20) {
    if (mode == "bilinear")
      mode = "linear";
    else if (mode == "bicubic")
      mode = "cubic";
    else if (mode != "nearest")
      c.fail("attribute 'mode' = '{}' is not supported (valid: bilinear, nearest, bicubic)", mode);
  }
  attrs.set("mode", mode);
  attrs.set("padding_mode", c.attr_string("padding_mode").value_or("zeros"));
  attrs.set("align_corners", c.attr_int("align_corners").value_or(0));
  c.emit(OpKind::GridSample, {c.input(0, "X"), c.input(1, "grid")}, attrs);
}

void convert_affine_grid(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("align_corners", c.attr_int("align_corners").value_or(0));
  std::vector<graph::Value*> inputs{c.input(0, "theta")};
  c.input(1, "size");
  graph::Value* deferred = nullptr;  // the caller's size is read at run time (value symbols)
  if (graph::TensorPtr t = c.value_input(1, "size", &deferred))
    attrs.set("size", tensor_to_i64s(*t));
  if (deferred) inputs.push_back(deferred);
  c.emit(OpKind::AffineGrid, inputs, attrs);
}

void convert_col2im(NodeConverter& c) {
  graph::Attrs attrs;
  for (const char* a : {"dilations", "pads", "strides"}) c.copy_attr(a, attrs);
  std::vector<graph::Value*> inputs{c.input(0, "input")};
  ints_input(c, 1, "image_shape", "image_shape", attrs, inputs);
  ints_input(c, 2, "block_shape", "block_shape", attrs, inputs);
  if (inputs.size() > 1) inputs.resize(3, nullptr);  // either may be the caller's
  c.emit(OpKind::Col2Im, inputs, attrs);
}

void convert_roi_align(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("mode", c.attr_string("mode").value_or("avg"));
  attrs.set("output_height", c.attr_int("output_height").value_or(1));
  attrs.set("output_width", c.attr_int("output_width").value_or(1));
  attrs.set("sampling_ratio", c.attr_int("sampling_ratio").value_or(0));
  attrs.set("spatial_scale", c.attr_float("spatial_scale").value_or(1.0));
  attrs.set("coordinate_transformation_mode",
            c.opset() < 16
                ? std::string("output_half_pixel")
                : c.attr_string("coordinate_transformation_mode").value_or("half_pixel"));
  c.emit(OpKind::RoiAlign, {c.input(0, "X"), c.input(1, "rois"), c.input(2, "batch_indices")},
         attrs);
}

void convert_deform_conv(NodeConverter& c) {
  graph::Attrs attrs;
  for (const char* a : {"dilations", "group", "kernel_shape", "offset_group", "pads", "strides"})
    c.copy_attr(a, attrs);
  std::vector<graph::Value*> inputs{c.input(0, "X"), c.input(1, "W"), c.input(2, "offset")};
  graph::Value* b = c.optional_input(3);
  graph::Value* mask = c.optional_input(4);
  if (b || mask) inputs.push_back(b);
  if (mask) inputs.push_back(mask);
  c.emit(OpKind::DeformConv, inputs, attrs);
}

const ConverterEntry kTable[] = {
    {"GridSample", 16, kMax, convert_grid_sample}, {"AffineGrid", 20, kMax, convert_affine_grid},
    {"Col2Im", 18, kMax, convert_col2im},          {"RoiAlign", 10, kMax, convert_roi_align},
    {"DeformConv", 19, kMax, convert_deform_conv},
};

}  // namespace

std::span<const ConverterEntry> sampling_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail

// Converters for generators and index-mapping ops: ConstantOfShape, Size, Range, Slice
// (attributes before opset 10, inputs after), Expand, Tile, Trilu, EyeLike (dtype as a graph
// DType), DepthToSpace/SpaceToDepth, GatherElements and ReverseSequence. Inputs whose canonical
// place is an attribute stay node inputs when other nodes compute them, until type inference
// resolves them.
#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"
#include "frontend/onnx/tensor_proto.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;
constexpr int kMax = kMaxOnnxOpset;

// Sets attribute `attr` from input i when it is constant, or appends the computing value to
// `inputs` at slot i (padding omitted slots with nullptr).
// `runtime`: a graph input is read at run time (value symbols), so it stays an input too.
void static_attr_input(NodeConverter& c, int i, const char* what, const char* attr,
                       graph::Attrs& attrs, std::vector<graph::Value*>& inputs,
                       bool runtime = false) {
  graph::Value* deferred = nullptr;
  graph::TensorPtr t =
      runtime ? c.value_input(i, what, &deferred) : c.static_input(i, what, &deferred);
  if (t) attrs.set(attr, tensor_to_i64s(*t));
  if (!deferred) return;
  inputs.resize(size_t(i), nullptr);
  inputs.push_back(deferred);
}

void convert_constant_of_shape(NodeConverter& c) {
  graph::Attrs attrs;
  std::vector<graph::Value*> inputs;
  c.input(0, "input");
  static_attr_input(c, 0, "input", "shape", attrs, inputs, /*runtime=*/true);
  graph::DType dtype = graph::DType::kF32;
  double value = 0.0;
  if (const onnx::TensorProto* t = c.attr_tensor("value")) {
    graph::TensorPtr v = tensor_from_proto(*t, "attribute 'value'", c.model_dir());
    if (v->num_elements() != 1) c.fail("attribute 'value' must hold one element");
    dtype = v->dtype();
    value = v->get_f64(0);
  }
  attrs.set("dtype", int64_t(dtype));
  attrs.set("value", value);
  c.emit(OpKind::ConstantOfShape, inputs, attrs);
}

void convert_size(NodeConverter& c) {
  c.emit(OpKind::Size, {c.input(0, "data")});
}

void convert_range(NodeConverter& c) {
  c.emit(OpKind::Range, {c.input(0, "start"), c.input(1, "limit"), c.input(2, "delta")});
}

void convert_slice_1(NodeConverter& c) {
  graph::Attrs attrs;
  auto starts = c.attr_ints("starts");
  auto ends = c.attr_ints("ends");
  if (!starts || !ends) c.fail("required attribute '{}' is missing", starts ? "ends" : "starts");
  attrs.set("starts", *starts);
  attrs.set("ends", *ends);
  c.copy_attr("axes", attrs);
  c.emit(OpKind::Slice, {c.input(0, "data")}, attrs);
}

void convert_slice_10(NodeConverter& c) {
  graph::Attrs attrs;
  std::vector<graph::Value*> inputs{c.input(0, "data")};
  c.input(1, "starts");
  c.input(2, "ends");
  static_attr_input(c, 1, "starts", "starts", attrs, inputs, /*runtime=*/true);
  static_attr_input(c, 2, "ends", "ends", attrs, inputs, /*runtime=*/true);
  static_attr_input(c, 3, "axes", "axes", attrs, inputs, /*runtime=*/true);
  static_attr_input(c, 4, "steps", "steps", attrs, inputs, /*runtime=*/true);
  c.emit(OpKind::Slice, inputs, attrs);
}

template <OpKind K>
void convert_shape_input(NodeConverter& c) {
  const char* what = K == OpKind::Expand ? "shape" : "repeats";
  graph::Attrs attrs;
  std::vector<graph::Value*> inputs{c.input(0, "input")};
  c.input(1, what);
  static_attr_input(c, 1, what, what, attrs, inputs, /*runtime=*/true);
  c.emit(K, inputs, attrs);
}

void convert_trilu(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("upper", c.attr_int("upper").value_or(1));
  std::vector<graph::Value*> inputs{c.input(0, "input")};
  if (graph::Value* k = c.optional_input(1)) inputs.push_back(k);  // a run-time value is fine
  c.emit(OpKind::Trilu, inputs, attrs);
}

template <OpKind K>
void convert_depth_space(NodeConverter& c) {
  graph::Attrs attrs;
  auto b = c.attr_int("blocksize");
  if (!b) c.fail("required attribute 'blocksize' is missing");
  attrs.set("blocksize", *b);
  attrs.set("mode", c.attr_string("mode").value_or("DCR"));  // SpaceToDepth: opset 28+
  c.emit(K, {c.input(0, "input")}, attrs);
}

void convert_gather_elements(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("axis", c.attr_int("axis").value_or(0));
  c.emit(OpKind::GatherElements, {c.input(0, "data"), c.input(1, "indices")}, attrs);
}

void convert_eye_like(NodeConverter& c) {
  graph::Attrs attrs;
  if (auto code = c.attr_int("dtype")) {
    auto dtype = dtype_from_onnx(int32_t(*code));
    if (!dtype)
      c.fail("attribute 'dtype' value {} ({}) is not supported", *code,
             onnx_dtype_name(int32_t(*code)));
    attrs.set("dtype", int64_t(*dtype));
  }
  attrs.set("k", c.attr_int("k").value_or(0));
  c.emit(OpKind::EyeLike, {c.input(0, "input")}, attrs);
}

void convert_reverse_sequence(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("batch_axis", c.attr_int("batch_axis").value_or(1));
  attrs.set("time_axis", c.attr_int("time_axis").value_or(0));
  c.emit(OpKind::ReverseSequence, {c.input(0, "input"), c.input(1, "sequence_lens")}, attrs);
}

const ConverterEntry kTable[] = {
    {"Trilu", 14, kMax, convert_trilu},
    {"EyeLike", 9, kMax, convert_eye_like},
    {"ReverseSequence", 10, kMax, convert_reverse_sequence},
    {"DepthToSpace", 7, kMax, convert_depth_space<OpKind::DepthToSpace>},
    {"SpaceToDepth", 7, kMax, convert_depth_space<OpKind::SpaceToDepth>},
    {"GatherElements", 11, kMax, convert_gather_elements},
    {"ConstantOfShape", 9, kMax, convert_constant_of_shape},
    {"Size", 7, kMax, convert_size},
    {"Range", 11, kMax, convert_range},
    {"Slice", 7, 9, convert_slice_1},
    {"Slice", 10, kMax, convert_slice_10},
    {"Expand", 8, kMax, convert_shape_input<OpKind::Expand>},
    {"Tile", 7, kMax, convert_shape_input<OpKind::Tile>},
};

}  // namespace

std::span<const ConverterEntry> slice_tile_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail

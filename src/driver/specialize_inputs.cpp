// Guarded input specialization: reading the values from .npz, binding the shapes they fix, and
// recording them for the run-time guard (the importer makes the inputs' readers see constants).
#include "driver/specialize_inputs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <optional>

#include "support/error.h"
#include "support/npz.h"

namespace ingot::driver {
namespace {

std::optional<graph::DType> graph_dtype(NpyElementType t) {
  using graph::DType;
  switch (t.code) {
    case 0:
      if (t.bits == 8) return DType::kI8;
      if (t.bits == 16) return DType::kI16;
      if (t.bits == 32) return DType::kI32;
      if (t.bits == 64) return DType::kI64;
      break;
    case 1:
      if (t.bits == 8) return DType::kU8;
      if (t.bits == 16) return DType::kU16;
      if (t.bits == 32) return DType::kU32;
      if (t.bits == 64) return DType::kU64;
      break;
    case 2:
      if (t.bits == 16) return DType::kF16;
      if (t.bits == 32) return DType::kF32;
      if (t.bits == 64) return DType::kF64;
      break;
    case 4:
      if (t.bits == 16) return DType::kBF16;
      break;
    case 6:
      return DType::kBool;
    default:
      break;
  }
  return std::nullopt;
}

}  // namespace

SpecializedInputs read_specialized_inputs(const std::string& npz_path) {
  SpecializedInputs s;
  s.source = fmt::format("--specialize-inputs '{}'", npz_path);
  for (NpyArray& a : read_npz(npz_path)) {
    auto type = npy_element_type(a.dtype);
    std::optional<graph::DType> dtype = type ? graph_dtype(*type) : std::nullopt;
    if (!dtype)
      fail_user("{}: array '{}' has dtype {}, which no ONNX model input of ingot has", s.source,
                a.name, npy_dtype_name(a.dtype));
    if (s.values.count(a.name)) fail_user("{}: array '{}' appears twice", s.source, a.name);
    s.values[a.name] =
        std::make_shared<graph::Tensor>(*dtype, std::move(a.shape), std::move(a.data));
  }
  return s;
}

void bind_specialized_shapes(const graph::Graph& g, const SpecializedInputs& s,
                             InputShapes& shapes) {
  for (const graph::Value* in : g.inputs) {
    auto it = s.values.find(in->name);
    if (it == s.values.end()) continue;
    const std::vector<int64_t>& shape = it->second->shape();
    auto bound = shapes.find(in->name);
    if (bound != shapes.end()) {
      if (bound->second != shape)
        fail_user("--input-shapes binds input '{}' to [{}], but its value in {} has shape [{}]",
                  in->name, fmt::join(bound->second, ","), s.source, fmt::join(shape, ","));
    } else if (!in->type.is_static()) {
      shapes[in->name] = shape;
    }
  }
}

void record_specialized_inputs(tir::IRModule& mod, const SpecializedInputs& s) {
  for (tir::TensorDesc& d : mod.inputs) {
    auto it = s.values.find(d.name);
    if (it == s.values.end()) continue;
    const graph::Tensor& t = *it->second;
    INGOT_ICHECK(t.shape() == d.shape, "specialised input '{}' has shape [{}], the artifact [{}]",
                 d.name, fmt::join(t.shape(), ","), fmt::join(d.shape, ","));
    d.specialized_value = std::vector<uint8_t>(t.data(), t.data() + t.nbytes());
  }
}

}  // namespace ingot::driver

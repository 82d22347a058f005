// Per-axis scale, output length and roi of a Resize read at run time (see resize_params.h).
#include "lower/compute/resize_params.h"

#include <string_view>

#include "support/error.h"
#include "tir/op.h"

namespace ingot::lower {

using namespace tir;

namespace {

Expr f64c(double v) {
  return FloatImm::make(DataType::f64(), v);
}

// Element j of input `slot`, or of the per-axis attribute `attr` when the input is a constant.
Expr operand(const graph::Node& n, int slot, const char* attr, int64_t j, const ResizeLoad& load) {
  if (size_t(slot) < n.inputs.size() && n.inputs[size_t(slot)] != nullptr) return load(slot, j);
  if (std::string_view(attr) == "sizes") return f64c(double(n.attrs.get_ints(attr).at(size_t(j))));
  return f64c(n.attrs.get_floats(attr).at(size_t(j)));
}

bool given(const graph::Node& n, int slot, const char* attr) {
  return (size_t(slot) < n.inputs.size() && n.inputs[size_t(slot)] != nullptr) || n.attrs.has(attr);
}

}  // namespace

std::vector<ResizeAxis> resize_axes(const graph::Node& n, const std::vector<Expr>& in,
                                    const ResizeLoad& load) {
  const size_t k = n.attrs.get_ints("axes").size();
  INGOT_ICHECK(in.size() == k, "{}: {} input lengths for {} axes", n.describe(), in.size(), k);
  std::vector<ResizeAxis> out;
  if (given(n, 2, "scales")) {  // length floor(scale * in), in float64 as the reference
    for (size_t j = 0; j < k; ++j) {
      Expr s = operand(n, 2, "scales", int64_t(j), load);
      Expr len = cast(DataType::i64(), call(Intrinsic::floor, {s * cast(DataType::f64(), in[j])}));
      out.push_back({s, len, s > f64c(0)});
    }
    return out;
  }
  INGOT_ICHECK(given(n, 3, "sizes"), "{}: neither scales nor sizes", n.describe());
  const std::string policy = n.attrs.get_string("keep_aspect_ratio_policy", "stretch");
  Expr valid = make_const(DataType::boolean(), 1), shared;
  std::vector<Expr> sizes, scales;
  for (size_t j = 0; j < k; ++j) {
    sizes.push_back(operand(n, 3, "sizes", int64_t(j), load));
    valid = valid && sizes.back() >= f64c(0) && in[j] > i64(0);
    // (an empty axis has no scale: the guard keeps the division finite; `valid` refuses it)
    scales.push_back(sizes.back() / cast(DataType::f64(), max(in[j], i64(1))));
    if (policy == "not_larger")
      shared = shared.defined() ? min(shared, scales.back()) : scales.back();
    if (policy == "not_smaller")
      shared = shared.defined() ? max(shared, scales.back()) : scales.back();
  }
  for (size_t j = 0; j < k; ++j) {
    if (!shared.defined()) {  // stretch: the sizes as given
      out.push_back({scales[j], cast(DataType::i64(), sizes[j]), valid});
      continue;
    }
    // One scale for every axis; lengths rounded half up.
    Expr len = cast(DataType::i64(),
                    call(Intrinsic::floor, {shared * cast(DataType::f64(), in[j]) + f64c(0.5)}));
    out.push_back({shared, len, valid});
  }
  return out;
}

std::pair<Expr, Expr> resize_roi(const graph::Node& n, int64_t j, const ResizeLoad& load) {
  const int64_t k = int64_t(n.attrs.get_ints("axes").size());
  return {cast(DataType::f32(), operand(n, 1, "roi", j, load)),
          cast(DataType::f32(), operand(n, 1, "roi", k + j, load))};
}

}  // namespace ingot::lower

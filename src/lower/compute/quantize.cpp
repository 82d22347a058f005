// Compute rules of QuantizeLinear, DequantizeLinear (per-tensor, per-axis and blocked scales and
// zero points) and DynamicQuantizeLinear, with the ONNX reference's arithmetic: x / scale in the
// input's float type, rounding ties to even, saturation to the quantized range; dequantization
// in float32 (float64 for a float64 scale) rounded once to the output type.
#include <cmath>
#include <utility>

#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

namespace {

// Index into `param` (the scale or the zero point) for element `idx` of the (de)quantized tensor.
// A per-tensor scale and zero point may differ in rank (ONNX Runtime's quantizer writes a [1]
// scale with a scalar zero point), so each is indexed by its own shape.
Index param_index(const graph::Node& node, const Buffer& param, const Index& idx) {
  if (!node.attrs.has("axis")) return scalar_index(param);
  int64_t axis = node.attrs.get_int("axis", 1);
  int64_t block = node.attrs.get_int("block_size", 0);
  if (block == 0) return {idx[axis]};
  Index p = idx;
  p[axis] = floordiv(idx[axis], i64(block));
  return p;
}

// The saturation range of a quantized integer dtype.
std::pair<double, double> quant_range(DataType d) {
  if (d.is_uint()) return {0.0, std::ldexp(1.0, d.bits) - 1};
  return {-std::ldexp(1.0, d.bits - 1), std::ldexp(1.0, d.bits - 1) - 1};
}

Expr saturate(Expr v, DataType to) {
  auto [lo, hi] = quant_range(to);
  return cast(to, min(max(v, make_const(v.dtype(), lo)), make_const(v.dtype(), hi)));
}

Expr round_even(Expr v) {
  return call(Intrinsic::round, {std::move(v)});
}

}  // namespace

Stmt compute_quantize_linear(const graph::Node& node, const std::vector<Buffer>& inputs,
                             const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& scale = inputs.at(1);
  Buffer zp = inputs.size() > 2 ? inputs[2] : Buffer();
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kNumeric);
  check_dtype(node, scale, DTypeClass::kFloat);
  // numpy's x / scale: the wider float of the two; int32 x divides in float64.
  DataType ct = !x->dtype.is_float()                 ? DataType::f64()
                : x->dtype.bits >= scale->dtype.bits ? x->dtype
                                                     : scale->dtype;
  // The zero point's add and the saturation: in float64, or in float32 where that is the same
  // (a float32 quotient, an output of at most 16 bits: the rounded quotient plus the zero point
  // is exact below 2^24, and saturates alike above), which halves the vectors it takes.
  const DataType at = ct == DataType::f32() && y->dtype.bits <= 16 ? ct : DataType::f64();
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    Expr v = cast(at, round_even(cast(ct, x.load(idx)) /
                                 cast(ct, scale.load(param_index(node, scale, idx)))));
    if (zp.defined()) v = v + cast(at, zp.load(param_index(node, zp, idx)));
    return BufferStore::make(y, saturate(v, y->dtype), idx);
  });
}

Stmt compute_dequantize_linear(const graph::Node& node, const std::vector<Buffer>& inputs,
                               const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& scale = inputs.at(1);
  Buffer zp = inputs.size() > 2 ? inputs[2] : Buffer();
  const Buffer& y = outputs.at(0);
  check_dtype(node, scale, DTypeClass::kFloat);
  check_dtype(node, y, DTypeClass::kFloat);
  DataType ct = scale->dtype.bits == 64 ? DataType::f64() : DataType::f32();
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    Expr v = cast(ct, x.load(idx));
    if (zp.defined()) v = v - cast(ct, zp.load(param_index(node, zp, idx)));
    Expr s = cast(ct, scale.load(param_index(node, scale, idx)));
    return BufferStore::make(y, cast(y->dtype, v * s), idx);
  });
}

// uint8 quantization of x over [min(0, min x), max(0, max x)]: one pass for the range, the
// scale and zero point, then a quantizing pass (all in float32).
Stmt compute_dynamic_quantize_linear(const graph::Node& node, const std::vector<Buffer>& inputs,
                                     const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  const Buffer& y_scale = outputs.at(1);
  const Buffer& y_zp = outputs.at(2);
  check_dtype(node, x, DTypeClass::kFloat);
  DataType f = DataType::f32();
  auto fc = [&](double v) { return make_const(f, v); };
  Accumulator hi("max", f), lo("min", f), sc("scale", f), zpa("zero_point", f);
  std::vector<int64_t> shape = const_shape(x);
  // The range [min(x, 0), max(x, 0)]: two reduction blocks (the row-reduction rule splits them
  // into vector partials), then the parameters, then one lane pass that quantizes.
  Stmt range = SeqStmt::make(
      {hi.reduce(shape, "r", [&](const Index& idx) { return max(hi.get(), cast(f, x.load(idx))); }),
       lo.reduce(shape, "s",
                 [&](const Index& idx) { return min(lo.get(), cast(f, x.load(idx))); })});
  Expr width = select(hi.get() == lo.get(), fc(1), hi.get() - lo.get());
  Stmt params = SeqStmt::make({
      sc.set(width / fc(255)),
      zpa.set(round_even(min(max(fc(0) - lo.get() / sc.get(), fc(0)), fc(255)))),
      BufferStore::make(y_scale, cast(y_scale->dtype, sc.get()), scalar_index(y_scale)),
      BufferStore::make(y_zp, cast(y_zp->dtype, zpa.get()), scalar_index(y_zp)),
  });
  Stmt quantize = lane_nest(x->shape, "i", [&](const Index& idx) {
    Expr q = round_even(cast(f, x.load(idx)) / sc.get()) + zpa.get();
    return BufferStore::make(y, saturate(q, y->dtype), idx);
  });
  Stmt body = SeqStmt::make({hi.set(fc(0)), lo.set(fc(0)), range, params, quantize});
  return hi.scope(lo.scope(sc.scope(zpa.scope(body))));
}

}  // namespace ingot::lower

// Internal integer contractions with fixed-point requantization, made by the graph pass fuse_qdq
// from QuantizeLinear(Conv / MatMul / Gemm(DequantizeLinear(...))) patterns (a quantized model's
// QDQ form): the quantized input and constant weights multiply in int32, a constant int32 bias is
// added, and each output channel's accumulator is scaled by multiplier[c] / 2^shift (rounding
// half up), offset by y_zero_point and saturated to [qmin, qmax] (which also applies a fused
// ReLU). Neither has an ONNX form: an ONNX file naming them is refused by the importer's op table.
//   QConv(X, W, bias, multiplier): X [N, C, spatial...] uint8 / int8, W [M, C/group, kernel...]
//     of the same family, bias and multiplier [M] int32; Conv's window attributes.
//   QMatMul(A, B, bias, multiplier): A [..., K], B [K, N] constant, bias and multiplier [N].
// Attributes of both: x_zero_point (A's), w_zero_point (B's), y_zero_point, shift, qmin, qmax,
// `to` (the output dtype).
// The same product in two steps, where the weights' zero point is 0 (fuse_qdq; and
// MatMulInteger's form, fuse_integer_matmul), so the 8-bit kernels (rules/int8_matmul.h) take it:
//   IntMatMul(A, B[, bias]): A [..., K] uint8 / int8, B [K, N] int8, bias [N] int32 (A's zero
//     point folded into it); Y [..., N] int32 = bias + A @ B, exact.
//   Requantize(acc, multiplier): acc int32 [..., N], multiplier int32 [N]; QMatMul's output
//     arithmetic per element (shift, y_zero_point, qmin, qmax, `to`).
#include "ops/conv_geometry.h"
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

bool is_int8_family(DType d) {
  return d == DType::kU8 || d == DType::kI8;
}

// The bias and multiplier inputs: int32 vectors of `m` elements.
void check_requant_inputs(const Node& n, const Dim& m) {
  for (int i : {2, 3}) {
    const TensorType& t = input_type(n, i, i == 2 ? "bias" : "multiplier");
    if (t.dtype != DType::kI32 || t.rank() != 1 || !(t.shape[0] == m))
      fail_user("{}: input {} must be int32 [{}], got {}", n.describe(),
                i == 2 ? "bias" : "multiplier", m.str(), t.str());
  }
  int64_t shift = n.attrs.get_int("shift", 0);
  if (shift < 1 || shift > 62)
    fail_user("{}: attribute 'shift' must be 1..62, got {}", n.describe(), shift);
  if (n.attrs.get_int("qmin", 0) > n.attrs.get_int("qmax", 0))
    fail_user("{}: qmin is above qmax", n.describe());
}

DType output_dtype(const Node& n) {
  auto to = DType(n.attrs.get_int("to", int64_t(DType::kI8)));
  if (!is_int8_family(to))
    fail_user("{}: output dtype {} is not uint8 or int8", n.describe(), dtype_name(to));
  return to;
}

std::vector<TensorType> infer_qconv(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  const TensorType& w = input_type(n, 1, "W");
  if (!is_int8_family(x.dtype) || !is_int8_family(w.dtype))
    fail_user("{}: X {} and W {} must be uint8 or int8", n.describe(), x.str(), w.str());
  if (w.rank() < 3 || w.rank() > 5 || x.rank() != w.rank())
    fail_user("{}: X {} and W {} must have the same rank, 3 to 5", n.describe(), x.str(), w.str());
  int64_t group = n.attrs.get_int("group", 1);
  std::vector<int64_t> kernel;
  for (int i = 2; i < w.rank(); ++i) {
    if (!w.shape[i].is_static())
      fail_user("{}: weight W {} must have a static kernel shape", n.describe(), w.str());
    kernel.push_back(w.shape[i].value);
  }
  if (x.shape[1].is_static() && w.shape[1].is_static() &&
      x.shape[1].value != w.shape[1].value * group)
    fail_user("{}: input X {} does not have the channels W {} with group={} expects", n.describe(),
              x.str(), w.str(), group);
  check_requant_inputs(n, w.shape[0]);
  std::vector<Dim> spatial = window_output_dims(n, x, kernel, /*ceil_mode=*/false);
  TensorType out{output_dtype(n), {x.shape[0], w.shape[0]}};
  out.shape.insert(out.shape.end(), spatial.begin(), spatial.end());
  return {out};
}

double qconv_ops(const Node& n) {
  const TensorType& w = n.inputs[1]->type;
  double per_output = 1;
  for (int i = 1; i < w.rank(); ++i)
    if (w.shape[i].is_static()) per_output *= double(w.shape[i].value);
  return 2 * per_output * approx_elements(n.outputs[0]->type);
}

std::vector<TensorType> infer_qmatmul(Node& n) {
  const TensorType& a = input_type(n, 0, "A");
  const TensorType& b = input_type(n, 1, "B");
  if (!is_int8_family(a.dtype) || !is_int8_family(b.dtype) || a.rank() < 1 || b.rank() != 2)
    fail_user("{}: A {} must be uint8 / int8 of rank >= 1 and B {} of rank 2", n.describe(),
              a.str(), b.str());
  if (!(a.shape.back() == b.shape[0]))
    fail_user("{}: A {} and B {} disagree on the reduced dim", n.describe(), a.str(), b.str());
  check_requant_inputs(n, b.shape[1]);
  TensorType out{output_dtype(n), a.shape};
  out.shape.back() = b.shape[1];
  return {out};
}

double qmatmul_ops(const Node& n) {
  return 2 * approx_elements(n.outputs[0]->type) *
         double(std::max<int64_t>(1, n.inputs[1]->type.shape[0].value));
}

std::vector<TensorType> infer_int_matmul(Node& n) {
  const TensorType& a = input_type(n, 0, "A");
  const TensorType& b = input_type(n, 1, "B");
  if (!is_int8_family(a.dtype) || b.dtype != DType::kI8 || a.rank() < 1 || b.rank() != 2)
    fail_user("{}: A {} must be uint8 / int8 of rank >= 1 and B {} int8 of rank 2", n.describe(),
              a.str(), b.str());
  if (!(a.shape.back() == b.shape[0]))
    fail_user("{}: A {} and B {} disagree on the reduced dim", n.describe(), a.str(), b.str());
  if (has_input(n, 2)) {
    const TensorType& bias = input_type(n, 2, "bias");
    if (bias.dtype != DType::kI32 || bias.rank() != 1 || !(bias.shape[0] == b.shape[1]))
      fail_user("{}: bias must be int32 [{}], got {}", n.describe(), b.shape[1].str(), bias.str());
  }
  TensorType out{DType::kI32, a.shape};
  out.shape.back() = b.shape[1];
  return {out};
}

std::vector<TensorType> infer_requantize(Node& n) {
  const TensorType& acc = input_type(n, 0, "acc");
  const TensorType& m = input_type(n, 1, "multiplier");
  if (acc.dtype != DType::kI32 || acc.rank() < 1 || m.dtype != DType::kI32 || m.rank() != 1 ||
      !(m.shape[0] == acc.shape.back()))
    fail_user("{}: acc {} must be int32 and multiplier {} int32 [its last dim]", n.describe(),
              acc.str(), m.str());
  int64_t shift = n.attrs.get_int("shift", 0);
  if (shift < 1 || shift > 62)
    fail_user("{}: attribute 'shift' must be 1..62, got {}", n.describe(), shift);
  if (n.attrs.get_int("qmin", 0) > n.attrs.get_int("qmax", 0))
    fail_user("{}: qmin is above qmax", n.describe());
  return {TensorType{output_dtype(n), acc.shape}};
}

std::vector<AttrSpec> requant_attrs(std::vector<AttrSpec> extra) {
  for (const char* a :
       {"x_zero_point", "w_zero_point", "y_zero_point", "shift", "qmin", "qmax", "to"})
    extra.push_back({a, AttrType::kInt});
  return extra;
}

}  // namespace

void add_qlinear_ops(std::vector<OpInfo>& t) {
  OpInfo conv{OpKind::QConv, "QConv", PatternKind::kOpaque, requant_attrs(conv_attr_specs())};
  conv.min_inputs = 4;
  conv.max_inputs = 4;
  conv.infer_fn = infer_qconv;
  conv.flops_fn = qconv_ops;
  t.push_back(conv);
  OpInfo mm{OpKind::QMatMul, "QMatMul", PatternKind::kOpaque, requant_attrs({})};
  mm.min_inputs = 4;
  mm.max_inputs = 4;
  mm.infer_fn = infer_qmatmul;
  mm.flops_fn = qmatmul_ops;
  t.push_back(mm);
  OpInfo imm{OpKind::IntMatMul, "IntMatMul", PatternKind::kOpaque, {}};
  imm.min_inputs = 2;
  imm.max_inputs = 3;
  imm.infer_fn = infer_int_matmul;
  imm.flops_fn = qmatmul_ops;
  t.push_back(imm);
  OpInfo rq{OpKind::Requantize,
            "Requantize",
            PatternKind::kBroadcast,
            {{"y_zero_point", AttrType::kInt},
             {"shift", AttrType::kInt},
             {"qmin", AttrType::kInt},
             {"qmax", AttrType::kInt},
             {"to", AttrType::kInt}}};
  rq.min_inputs = 2;
  rq.max_inputs = 2;
  rq.infer_fn = infer_requantize;
  rq.flops_fn = [](const Node& n) { return 4 * approx_elements(n.outputs[0]->type); };
  t.push_back(rq);
}

}  // namespace ingot::ops::detail

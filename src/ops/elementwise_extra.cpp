// More elementwise ops: the variadic Max, Min, Sum, Mean (numpy broadcasting over N inputs), Mod
// (`fmod`), BitShift (`direction`), BitwiseAnd/Or/Xor/Not (integers), Sign, rounding (Ceil, Floor,
// Round) and trigonometric and hyperbolic functions (Sin ... Atanh).
#include "graph/types.h"
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

double output_elements(const Node& n) {
  return approx_elements(n.outputs[0]->type);
}

bool is_float(DType d) {
  return is_float_dtype(d);
}

std::vector<TensorType> infer_variadic(Node& n) {
  const TensorType& first = input_type(n, 0, "data_0");
  TensorType out = first;
  for (size_t i = 1; i < n.inputs.size(); ++i) {
    std::string what = fmt::format("data_{}", i);
    const TensorType& t = input_type(n, int(i), what.c_str());
    require_same_dtype(n, first, t, "data_0", what.c_str());
    out.shape = broadcast_shapes(n, out.shape, t.shape);
  }
  return {out};
}

std::vector<TensorType> infer_mod(Node& n) {
  const TensorType& a = input_type(n, 0, "A");
  const TensorType& b = input_type(n, 1, "B");
  require_same_dtype(n, a, b, "A", "B");
  int64_t fmod = n.attrs.get_int("fmod", 0);
  if (fmod != 0 && fmod != 1)
    fail_user("{}: attribute 'fmod' must be 0 or 1, got {}", n.describe(), fmod);
  n.attrs.set("fmod", fmod);
  return {TensorType{a.dtype, broadcast_shapes(n, a.shape, b.shape)}};
}

std::vector<TensorType> infer_bitshift(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  const TensorType& y = input_type(n, 1, "Y");
  require_same_dtype(n, x, y, "X", "Y");
  if (is_float(x.dtype) || x.dtype == DType::kBool)
    fail_user("{}: inputs must be integers, got {}", n.describe(), dtype_name(x.dtype));
  std::string dir = n.attrs.get_string("direction", "");
  if (dir != "LEFT" && dir != "RIGHT")
    fail_user("{}: attribute 'direction' must be \"LEFT\" or \"RIGHT\", got \"{}\"", n.describe(),
              dir);
  return {TensorType{x.dtype, broadcast_shapes(n, x.shape, y.shape)}};
}

// BitwiseAnd/Or/Xor (broadcasting) and BitwiseNot (one input): integer tensors only.
std::vector<TensorType> infer_bitwise(Node& n) {
  const TensorType& a = input_type(n, 0, "A");
  if (is_float(a.dtype) || a.dtype == DType::kBool)
    fail_user("{}: inputs must be integers, got {}", n.describe(), dtype_name(a.dtype));
  if (n.inputs.size() == 1) return {a};
  const TensorType& b = input_type(n, 1, "B");
  require_same_dtype(n, a, b, "A", "B");
  return {TensorType{a.dtype, broadcast_shapes(n, a.shape, b.shape)}};
}

std::vector<TensorType> infer_float_unary(Node& n) {
  const TensorType& x = input_type(n, 0, "input");
  if (!is_float(x.dtype))
    fail_user("{}: input must be a float tensor, got {}", n.describe(), dtype_name(x.dtype));
  return {x};
}

std::vector<TensorType> infer_sign(Node& n) {
  const TensorType& x = input_type(n, 0, "input");
  if (x.dtype == DType::kBool) fail_user("{}: input must be numeric, got bool", n.describe());
  return {x};
}

OpInfo make(OpKind k, const char* name, PatternKind p, int min_in, int max_in,
            std::vector<TensorType> (*infer)(Node&)) {
  OpInfo i{};
  i.kind = k;
  i.name = name;
  i.pattern = p;
  i.min_inputs = min_in;
  i.max_inputs = max_in;
  i.infer_fn = infer;
  i.flops_fn = output_elements;
  return i;
}

}  // namespace

void add_elementwise_extra_ops(std::vector<OpInfo>& t) {
  constexpr PatternKind kB = PatternKind::kBroadcast;
  constexpr PatternKind kE = PatternKind::kElementwise;
  t.push_back(make(OpKind::Max, "Max", kB, 1, -1, infer_variadic));
  t.push_back(make(OpKind::Min, "Min", kB, 1, -1, infer_variadic));
  t.push_back(make(OpKind::Sum, "Sum", kB, 1, -1, infer_variadic));
  t.push_back(make(OpKind::Mean, "Mean", kB, 1, -1, infer_variadic));
  OpInfo mod = make(OpKind::Mod, "Mod", kB, 2, 2, infer_mod);
  mod.attrs = {{"fmod", AttrType::kInt}};
  t.push_back(mod);
  OpInfo shift = make(OpKind::BitShift, "BitShift", kB, 2, 2, infer_bitshift);
  shift.attrs = {{"direction", AttrType::kString, true}};
  t.push_back(shift);
  t.push_back(make(OpKind::BitwiseAnd, "BitwiseAnd", kB, 2, 2, infer_bitwise));
  t.push_back(make(OpKind::BitwiseOr, "BitwiseOr", kB, 2, 2, infer_bitwise));
  t.push_back(make(OpKind::BitwiseXor, "BitwiseXor", kB, 2, 2, infer_bitwise));
  t.push_back(make(OpKind::BitwiseNot, "BitwiseNot", kE, 1, 1, infer_bitwise));
  t.push_back(make(OpKind::Sign, "Sign", kE, 1, 1, infer_sign));
#define FLOAT_UNARY(N) t.push_back(make(OpKind::N, #N, kE, 1, 1, infer_float_unary));
  FLOAT_UNARY(Ceil)
  FLOAT_UNARY(Floor)
  FLOAT_UNARY(Round)
  FLOAT_UNARY(Sin)
  FLOAT_UNARY(Cos)
  FLOAT_UNARY(Tan)
  FLOAT_UNARY(Asin)
  FLOAT_UNARY(Acos)
  FLOAT_UNARY(Atan)
  FLOAT_UNARY(Sinh)
  FLOAT_UNARY(Cosh)
  FLOAT_UNARY(Asinh)
  FLOAT_UNARY(Acosh)
  FLOAT_UNARY(Atanh)
#undef FLOAT_UNARY
}

}  // namespace ingot::ops::detail

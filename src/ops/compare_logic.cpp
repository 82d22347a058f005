// Comparison and logic ops: Equal, Less, LessOrEqual, Greater, GreaterOrEqual (numpy broadcasting,
// bool output), Not, And, Or, Xor (bool), Where (3-way broadcasting), IsNaN and IsInf.
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

double output_elements(const Node& n) {
  return approx_elements(n.outputs[0]->type);
}

void require_bool(const Node& n, const TensorType& t, const char* what) {
  if (t.dtype != DType::kBool)
    fail_user("{}: input '{}' must be bool, got {}", n.describe(), what, dtype_name(t.dtype));
}

std::vector<TensorType> infer_compare(Node& n) {
  const TensorType& a = input_type(n, 0, "A");
  const TensorType& b = input_type(n, 1, "B");
  require_same_dtype(n, a, b, "A", "B");
  return {TensorType{DType::kBool, broadcast_shapes(n, a.shape, b.shape)}};
}

std::vector<TensorType> infer_logic_binary(Node& n) {
  const TensorType& a = input_type(n, 0, "A");
  const TensorType& b = input_type(n, 1, "B");
  require_bool(n, a, "A");
  require_bool(n, b, "B");
  return {TensorType{DType::kBool, broadcast_shapes(n, a.shape, b.shape)}};
}

std::vector<TensorType> infer_not(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  require_bool(n, x, "X");
  return {x};
}

std::vector<TensorType> infer_where(Node& n) {
  const TensorType& c = input_type(n, 0, "condition");
  const TensorType& x = input_type(n, 1, "X");
  const TensorType& y = input_type(n, 2, "Y");
  require_bool(n, c, "condition");
  require_same_dtype(n, x, y, "X", "Y");
  return {TensorType{x.dtype, broadcast_shapes(n, broadcast_shapes(n, c.shape, x.shape), y.shape)}};
}

std::vector<TensorType> infer_float_test(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  if (!is_float_dtype(x.dtype))
    fail_user("{}: input 'X' must be a float tensor, got {}", n.describe(), dtype_name(x.dtype));
  if (n.op == OpKind::IsInf) {
    n.attrs.set("detect_negative", int64_t(n.attrs.get_int("detect_negative", 1) != 0));
    n.attrs.set("detect_positive", int64_t(n.attrs.get_int("detect_positive", 1) != 0));
  }
  return {TensorType{DType::kBool, x.shape}};
}

OpInfo make(OpKind k, const char* name, PatternKind p, int inputs,
            std::vector<TensorType> (*infer)(Node&)) {
  OpInfo i{};
  i.kind = k;
  i.name = name;
  i.pattern = p;
  i.min_inputs = i.max_inputs = inputs;
  i.infer_fn = infer;
  i.flops_fn = output_elements;
  return i;
}

}  // namespace

void add_compare_logic_ops(std::vector<OpInfo>& t) {
  constexpr PatternKind kB = PatternKind::kBroadcast;
  t.push_back(make(OpKind::Equal, "Equal", kB, 2, infer_compare));
  t.push_back(make(OpKind::Less, "Less", kB, 2, infer_compare));
  t.push_back(make(OpKind::LessOrEqual, "LessOrEqual", kB, 2, infer_compare));
  t.push_back(make(OpKind::Greater, "Greater", kB, 2, infer_compare));
  t.push_back(make(OpKind::GreaterOrEqual, "GreaterOrEqual", kB, 2, infer_compare));
  t.push_back(make(OpKind::And, "And", kB, 2, infer_logic_binary));
  t.push_back(make(OpKind::Or, "Or", kB, 2, infer_logic_binary));
  t.push_back(make(OpKind::Xor, "Xor", kB, 2, infer_logic_binary));
  t.push_back(make(OpKind::Not, "Not", PatternKind::kElementwise, 1, infer_not));
  t.push_back(make(OpKind::Where, "Where", kB, 3, infer_where));
  t.push_back(make(OpKind::IsNaN, "IsNaN", PatternKind::kElementwise, 1, infer_float_test));
  OpInfo isinf = make(OpKind::IsInf, "IsInf", PatternKind::kElementwise, 1, infer_float_test);
  isinf.attrs = {{"detect_negative", AttrType::kInt}, {"detect_positive", AttrType::kInt}};
  t.push_back(isinf);
}

}  // namespace ingot::ops::detail

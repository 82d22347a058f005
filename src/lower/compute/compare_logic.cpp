// Compute rule of the comparison and logic ops (Equal ... GreaterOrEqual, Not, And, Or, Xor),
// Where (3-way broadcasting select), IsNaN and IsInf: one store per output element; bool results
// are stored one byte per element.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;
using ops::OpKind;

namespace {

Expr is_inf(const graph::Node& node, Expr x) {
  bool neg = node.attrs.get_int("detect_negative", 1) != 0;
  bool pos = node.attrs.get_int("detect_positive", 1) != 0;
  DataType d = x.dtype();
  Expr is_pos = x == max_value(d);
  Expr is_neg = x == min_value(d);
  if (pos && neg) return is_pos || is_neg;
  if (pos) return is_pos;
  if (neg) return is_neg;
  return make_const(DataType::boolean(), 0);
}

Expr apply_op(const graph::Node& node, const std::vector<Expr>& v) {
  switch (node.op) {
    case OpKind::Equal:
      return v[0] == v[1];
    case OpKind::Less:
      return v[0] < v[1];
    case OpKind::LessOrEqual:
      return v[0] <= v[1];
    case OpKind::Greater:
      return v[0] > v[1];
    case OpKind::GreaterOrEqual:
      return v[0] >= v[1];
    case OpKind::And:
      return v[0] && v[1];
    case OpKind::Or:
      return v[0] || v[1];
    case OpKind::Xor:
      return v[0] != v[1];
    case OpKind::Not:
      return !v[0];
    case OpKind::Where:
      return select(v[0], v[1], v[2]);
    case OpKind::IsNaN:
      return v[0] != v[0];
    case OpKind::IsInf:
      return is_inf(node, v[0]);
    default:
      fail_internal("{} is not a comparison or logic op", node_label(node));
  }
}

void check_dtypes(const graph::Node& node, const std::vector<Buffer>& in) {
  switch (node.op) {
    case OpKind::Less:
    case OpKind::LessOrEqual:
    case OpKind::Greater:
    case OpKind::GreaterOrEqual:
      for (const Buffer& b : in) check_dtype(node, b, DTypeClass::kNumeric);
      break;
    case OpKind::IsNaN:
    case OpKind::IsInf:
      check_dtype(node, in[0], DTypeClass::kFloat);
      break;
    default:
      for (const Buffer& b : in) check_dtype(node, b, DTypeClass::kAny);
  }
  if (node.op != OpKind::Where && in.size() == 2 && in[0]->dtype != in[1]->dtype)
    fail_user("{}: operand dtypes differ ({} vs {})", node_label(node), in[0]->dtype.str(),
              in[1]->dtype.str());
}

}  // namespace

Stmt compute_compare_logic(const graph::Node& node, const std::vector<Buffer>& inputs,
                           const std::vector<Buffer>& outputs) {
  const Buffer& y = outputs.at(0);
  check_dtypes(node, inputs);
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    std::vector<Expr> v;
    for (const Buffer& b : inputs) v.push_back(b.load(broadcast_index(b, idx)));
    return BufferStore::make(y, apply_op(node, v), idx);
  });
}

}  // namespace ingot::lower

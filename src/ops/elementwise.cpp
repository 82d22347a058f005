// Elementwise ops: unary math (Relu, Sigmoid, ..., Gelu, Identity), Clip, Cast, BitCast and the
// broadcasting binary ops (Add, Sub, Mul, Div, Pow).
#include "graph/types.h"
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

double output_elements(const Node& n) {
  return approx_elements(n.outputs[0]->type);
}

std::vector<TensorType> infer_unary(Node& n) {
  return {input_type(n, 0, "X")};
}

std::vector<TensorType> infer_gelu(Node& n) {
  std::string a = n.attrs.get_string("approximate", "none");
  if (a != "none" && a != "tanh")
    fail_user("{}: attribute 'approximate' must be \"none\" or \"tanh\", got \"{}\"", n.describe(),
              a);
  return {input_type(n, 0, "X")};
}

std::vector<TensorType> infer_clip(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  const char* names[] = {"X", "min", "max"};
  for (int i = 1; i <= 2; ++i) {
    if (!has_input(n, i)) continue;
    const TensorType& t = n.inputs[i]->type;
    require_same_dtype(n, x, t, "X", names[i]);
    if (!(t.rank() == 0 || (t.is_static() && t.num_elements() == 1)))
      fail_user("{}: input '{}' must be a scalar, got {}", n.describe(), names[i], t.str());
  }
  return {x};
}

// Cast: X; CastLike imports as Cast with its `target_type` input 1 when that dtype was unknown at
// import: inference takes `to` from it and drops the input (canonical form: X with `to`).
std::vector<TensorType> infer_cast(Node& n) {
  if (has_input(n, 1)) {
    n.attrs.set("to", int64_t(n.inputs[1]->type.dtype));
    n.inputs.pop_back();
  }
  if (!n.attrs.has("to")) fail_user("{}: missing required attribute 'to'", n.describe());
  int64_t to = n.attrs.get_int("to", -1);
  if (!graph::is_dtype_code(to))
    fail_user("{}: attribute 'to' = {} is not a valid dtype", n.describe(), to);
  TensorType t = input_type(n, 0, "input");
  t.dtype = DType(to);
  return {t};
}

// BitCast: the same bytes read as dtype `to` (a graph::DType) of the same width.
std::vector<TensorType> infer_bitcast(Node& n) {
  int64_t to = n.attrs.get_int("to", -1);
  if (!graph::is_dtype_code(to))
    fail_user("{}: attribute 'to' = {} is not a valid dtype", n.describe(), to);
  TensorType t = input_type(n, 0, "input");
  if (dtype_bytes(t.dtype) != dtype_bytes(DType(to)))
    fail_user("{}: cannot reinterpret {} ({} bits) as {} ({} bits)", n.describe(),
              dtype_name(t.dtype), 8 * dtype_bytes(t.dtype), dtype_name(DType(to)),
              8 * dtype_bytes(DType(to)));
  t.dtype = DType(to);
  return {t};
}

std::vector<TensorType> infer_binary(Node& n) {
  const TensorType& a = input_type(n, 0, "A");
  const TensorType& b = input_type(n, 1, "B");
  if (n.op != OpKind::Pow) require_same_dtype(n, a, b, "A", "B");
  return {TensorType{a.dtype, broadcast_shapes(n, a.shape, b.shape)}};
}

OpInfo unary(OpKind k, const char* name) {
  OpInfo i{k, name, PatternKind::kElementwise, {}};
  i.infer_fn = infer_unary;
  i.flops_fn = output_elements;
  return i;
}

OpInfo binary(OpKind k, const char* name) {
  OpInfo i{k, name, PatternKind::kBroadcast, {}};
  i.min_inputs = i.max_inputs = 2;
  i.infer_fn = infer_binary;
  i.flops_fn = output_elements;
  return i;
}

}  // namespace

void add_elementwise_ops(std::vector<OpInfo>& t) {
#define UNARY(N) t.push_back(unary(OpKind::N, #N));
  UNARY(Relu)
  UNARY(Sigmoid)
  UNARY(Tanh)
  UNARY(Erf)
  UNARY(Exp)
  UNARY(Log)
  UNARY(Sqrt)
  UNARY(Reciprocal)
  UNARY(Neg)
  UNARY(Abs)
  UNARY(Identity)
#undef UNARY

  OpInfo gelu = unary(OpKind::Gelu, "Gelu");
  gelu.attrs = {{"approximate", AttrType::kString}};
  gelu.infer_fn = infer_gelu;
  t.push_back(gelu);

  OpInfo clip = unary(OpKind::Clip, "Clip");
  clip.max_inputs = 3;
  clip.infer_fn = infer_clip;
  t.push_back(clip);

  OpInfo cast = unary(OpKind::Cast, "Cast");
  cast.attrs = {{"to", AttrType::kInt}};  // required unless input 1 gives it (infer_cast)
  cast.max_inputs = 2;
  cast.infer_fn = infer_cast;
  cast.flops_fn = [](const Node&) { return 0.0; };
  t.push_back(cast);

  OpInfo bitcast = make_data_movement_op(OpKind::BitCast, "BitCast", {{"to", AttrType::kInt, true}},
                                         infer_bitcast);
  bitcast.pattern = PatternKind::kOpaque;  // its kernel reads the input as the output's dtype
  t.push_back(bitcast);

#define BINARY(N) t.push_back(binary(OpKind::N, #N));
  BINARY(Add) BINARY(Sub) BINARY(Mul) BINARY(Div) BINARY(Pow)
#undef BINARY
}

}  // namespace ingot::ops::detail

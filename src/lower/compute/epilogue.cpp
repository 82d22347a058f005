// Fused conv epilogue (see epilogue.h).
#include "lower/compute/epilogue.h"

#include <cmath>

#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "lower/fuse_group.h"
#include "ops/op.h"
#include "support/error.h"
#include "tir/op.h"

namespace ingot::lower {

using namespace tir;

namespace {

// The activation op's own compute rule applied to one value: the rule runs on one-element
// buffers and its stored expression is taken with the input load replaced by `value`, so the
// epilogue does not restate the op's semantics.
Expr activation_by_rule(const graph::Node& node, const std::string& act, Expr value) {
  auto kind = ops::op_from_name(act);
  INGOT_ICHECK(kind && ops::is_epilogue_activation(*kind), "{}: unknown fused activation '{}'",
               node_label(node), act);
  graph::Node a;
  a.op = *kind;
  a.name = node.name + "_" + act;
  for (const char* attr : {"alpha", "beta", "gamma"}) {
    std::string key = std::string("activation_") + attr;
    if (node.attrs.has(key)) a.attrs.set(attr, node.attrs.get_float(key, 0.0));
  }
  Buffer x = Buffer::make("x", value.dtype(), std::vector<int64_t>{1});
  Buffer y = Buffer::make("y", value.dtype(), std::vector<int64_t>{1});
  auto store = match_elementwise_store(compute_rule(*kind)(a, {x}, {y}), y);
  INGOT_ICHECK(store.has_value(), "{}: the rule of {} is not one elementwise store",
               node_label(node), act);
  return inline_loads(store->value, x, ElementwiseStore{{i64(0)}, value});
}

}  // namespace

bool has_epilogue(const graph::Node& node) {
  return (node.inputs.size() > 3 && node.inputs[3] != nullptr) || node.attrs.has("activation");
}

Expr apply_epilogue(const graph::Node& node, Expr value, Expr z) {
  if (z.defined()) value = value + z;
  std::string act = node.attrs.get_string("activation", "");
  DataType dt = value.dtype();
  if (act == "Relu") return max(value, make_const(dt, 0));
  if (act == "Clip") {
    std::vector<double> p = node.attrs.get_floats("activation_params", {});
    INGOT_ICHECK(p.size() == 2, "{}: fused Clip without bounds", node_label(node));
    return min(max(value, make_const(dt, p[0])), make_const(dt, p[1]));
  }
  if (act == "Gelu")
    return value * make_const(dt, 0.5) *
           (erf(value * make_const(dt, M_SQRT1_2)) + make_const(dt, 1.0));
  if (act.empty()) return value;
  return activation_by_rule(node, act, value);
}

Stmt epilogue_pass(const graph::Node& node, const Buffer& y, const Buffer& bias, const Buffer& z,
                   const Buffer& from) {
  return loop_nest(y->shape, "e", [&](const Index& i) {
    Expr v = from.defined() ? from.load(i) : y.load(i);
    DataType t = v.dtype();
    if (bias.defined()) v = v + cast(t, bias.load({i.back()}));
    Expr zv = z.defined() ? cast(t, z.load(i)) : Expr();
    return BufferStore::make(y, cast(y->dtype, apply_epilogue(node, v, zv)), i);
  });
}

}  // namespace ingot::lower

// fuse_qconv_residual (see fuse_qconv_residual.h).
#include "graph/transforms/fuse_qconv_residual.h"

#include "graph/transforms/layout_nchwc.h"
#include "graph/transforms/rewrite_util.h"
#include "ops/op.h"

namespace ingot::graph {

namespace {

// A per-tensor DequantizeLinear / QuantizeLinear's scale and zero point (a zero point 0 when
// absent), constant; false otherwise.
bool per_tensor(const Node* n, double* scale, double* zero_point) {
  if (n->attrs.get_int("block_size", 0) != 0 || n->inputs.size() < 2 ||
      n->inputs[1]->type.dtype != DType::kF32 || !scalar_value(n->inputs[1], scale))
    return false;
  *zero_point = 0;
  return n->inputs.size() < 3 || n->inputs[2] == nullptr || scalar_value(n->inputs[2], zero_point);
}

bool eight_bit(const Value* v) {
  return v->type.dtype == DType::kU8 || v->type.dtype == DType::kI8;
}

// One fusion at the QuantizeLinear `q`; true when done.
bool fuse_at(Graph& g, Node* q) {
  double out_scale = 0, out_zp = 0;
  if (q->op != ops::OpKind::QuantizeLinear || !eight_bit(q->outputs[0]) ||
      !per_tensor(q, &out_scale, &out_zp))
    return false;
  Node* add = q->inputs[0]->producer;
  if (add == nullptr || add->op != ops::OpKind::Add || single_user(g, add->outputs[0]) != q ||
      add->outputs[0]->type.dtype != DType::kF32)
    return false;
  for (int side = 0; side < 2; ++side) {
    Node* dq_y = add->inputs[side]->producer;
    Node* dq_z = add->inputs[1 - side]->producer;
    if (dq_y == nullptr || dq_z == nullptr || dq_y == dq_z ||
        dq_y->op != ops::OpKind::DequantizeLinear || dq_z->op != ops::OpKind::DequantizeLinear ||
        single_user(g, dq_y->outputs[0]) != add)
      continue;
    Node* conv = dq_y->inputs[0]->producer;
    double y_scale = 0, y_zp = 0, z_scale = 0, z_zp = 0;
    if (conv == nullptr || conv->op != ops::OpKind::QConvNCHWc || conv->inputs.size() != 4 ||
        depthwise_conv_nchwc(*conv) || single_user(g, conv->outputs[0]) != dq_y ||
        !per_tensor(dq_y, &y_scale, &y_zp) || !per_tensor(dq_z, &z_scale, &z_zp))
      continue;
    Value* z = dq_z->inputs[0];
    if (!eight_bit(z) || z->type.shape != conv->outputs[0]->type.shape) continue;
    conv->inputs.push_back(z);
    conv->attrs.set("y_scale", y_scale);
    conv->attrs.set("y_dequant_zero_point", int64_t(y_zp));
    conv->attrs.set("z_scale", z_scale);
    conv->attrs.set("z_zero_point", int64_t(z_zp));
    conv->attrs.set("out_scale", out_scale);
    conv->attrs.set("out_zero_point", int64_t(out_zp));
    conv->attrs.set("out_to", int64_t(q->outputs[0]->type.dtype));
    // The conv takes over the QuantizeLinear's output (its name, readers, graph-output place).
    Value* result = q->outputs[0];
    Value* inner = conv->outputs[0];
    conv->outputs[0] = result;
    result->producer = conv;
    result->output_index = 0;
    q->outputs[0] = inner;
    inner->producer = q;
    return true;
  }
  return false;
}

}  // namespace

int fuse_qconv_residual(Graph& g) {
  g.remove_dead();  // (layout_nchwc's unused LayoutFromBlocked nodes are not readers)
  std::vector<Node*> quantizes;
  for (const auto& n : g.nodes())
    if (n->op == ops::OpKind::QuantizeLinear) quantizes.push_back(n.get());
  int fused = 0;
  for (Node* q : quantizes) fused += fuse_at(g, q) ? 1 : 0;
  if (fused > 0) {
    g.remove_dead();
    g.topo_sort();
  }
  return fused;
}

}  // namespace ingot::graph

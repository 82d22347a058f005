// layout_nchwc (see layout_nchwc.h).
#include "graph/transforms/layout_nchwc.h"

#include <map>

#include "ops/op.h"
#include "support/channel_block.h"
#include "support/error.h"

namespace ingot::graph {

namespace {

bool f32(const Value* v) {
  return v != nullptr && v->type.dtype == DType::kF32;
}

bool static_type(const Value* v) {
  for (const Dim& d : v->type.shape)
    if (!d.is_static()) return false;
  return true;
}

// A 2-D f32 Conv the blocked kernels implement: constant weights / bias, groups = 1 or
// depthwise (one output channel per input channel), non-negative pads, static shapes.
bool convertible(const Node& n) {
  if (n.op != ops::OpKind::Conv || n.outputs.size() != 1) return false;
  const Value* x = n.inputs[0];
  const Value* w = n.inputs[1];
  const Value* b = n.inputs.size() > 2 ? n.inputs[2] : nullptr;
  if (!f32(x) || !f32(w) || !f32(n.outputs[0]) || x->type.rank() != 4 || !w->is_constant() ||
      !static_type(x) || !static_type(n.outputs[0]))
    return false;
  if (b && (!f32(b) || !b->is_constant())) return false;
  for (int64_t p : n.attrs.get_ints("pads", {0, 0, 0, 0}))
    if (p < 0) return false;
  std::vector<int64_t> ws = w->type.static_shape();
  int64_t group = n.attrs.get_int("group", 1);
  int64_t c = x->type.shape[1].value;
  return group == 1 || (group == c && ws[0] == c && ws[1] == 1);
}

class LayoutRewriter {
 public:
  LayoutRewriter(Graph& g, int vector_bits) : g_(g), vector_bits_(vector_bits) {}

  void run() {
    std::vector<Node*> convs;
    for (const auto& n : g_.nodes())
      if (convertible(*n)) convs.push_back(n.get());
    for (Node* n : convs) convert(*n);
    g_.topo_sort();
  }

 private:
  void set_types(Node& n) {
    std::vector<TensorType> types = ops::op_info(n.op).infer(n);
    for (size_t i = 0; i < types.size(); ++i) n.outputs[i]->type = types[i];
  }

  static int64_t block_of(const Value* blocked) { return blocked->type.shape.back().value; }

  // The blocked form of an NCHW value, in block `want` (0: any): the input of the
  // LayoutFromBlocked that produced it when its block fits, else a new (memoised)
  // LayoutToBlocked, by default with the conv tile's block, or with block = C when there are
  // fewer channels than vector lanes (an image's 3 channels: NHWC, no padding lanes to copy or
  // to multiply by zero weights).
  Value* blocked(Value* v, int64_t want, const Node& at) {
    if (v->producer && v->producer->op == ops::OpKind::LayoutFromBlocked) {
      Value* vb = v->producer->inputs[0];
      if (want == 0 || block_of(vb) == want) return vb;
    }
    int64_t c = v->type.shape[1].value;
    int lanes = vector_bits_ >= 512 ? 16 : 8;
    int64_t block = want ? want : c < lanes ? c : channel_block(c, vector_bits_);
    auto it = to_blocked_.find({v, block});
    if (it != to_blocked_.end()) return it->second;
    Attrs attrs;
    attrs.set("block", block);
    Node* t = g_.add_node(ops::OpKind::LayoutToBlocked, v->name + "_to_nchwc", {v},
                          {v->name + "_nchwc"}, attrs);
    t->opset = at.opset;
    set_types(*t);
    to_blocked_[{v, block}] = t->outputs[0];
    return t->outputs[0];
  }

  void convert(Node& n) {
    Value* y = n.outputs[0];
    // A groups = 1 conv reads any input block and writes its tile's; a depthwise conv keeps the
    // block of its input. The summand has the output's block.
    n.inputs[0] = blocked(n.inputs[0], 0, n);
    int64_t block = n.attrs.get_int("group", 1) == 1
                        ? int64_t(channel_block(y->type.shape[1].value, vector_bits_))
                        : block_of(n.inputs[0]);
    if (n.inputs.size() > 3 && n.inputs[3]) n.inputs[3] = blocked(n.inputs[3], block, n);
    n.op = ops::OpKind::ConvNCHWc;
    n.attrs.set("block", block);
    // The conv now writes a fresh blocked value; a LayoutFromBlocked takes over y (its name,
    // its readers, its place among the graph outputs).
    Value* yb = g_.add_value(y->name + "_nchwc", TensorType{});
    yb->producer = &n;
    n.outputs[0] = yb;
    set_types(n);
    Attrs attrs;
    attrs.set("channels", y->type.shape[1].value);
    Node* back =
        g_.add_node(ops::OpKind::LayoutFromBlocked, y->name + "_from_nchwc", {yb}, {}, attrs);
    back->opset = n.opset;
    back->outputs.push_back(y);
    y->producer = back;
    y->output_index = 0;
    set_types(*back);
  }

  Graph& g_;
  int vector_bits_;
  std::map<std::pair<Value*, int64_t>, Value*> to_blocked_;
};

}  // namespace

void convert_layout_nchwc(Graph& g, int vector_bits) {
  if (vector_bits <= 0) return;
  LayoutRewriter(g, vector_bits).run();
}

}  // namespace ingot::graph

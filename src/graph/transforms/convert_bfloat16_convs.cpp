// convert_bfloat16_convs (see convert_bfloat16_convs.h).
#include "graph/transforms/convert_bfloat16_convs.h"

#include <cstring>
#include <map>
#include <string>
#include <tuple>

#include "graph/tensor.h"
#include "graph/transforms/layout_nchwc.h"
#include "graph/transforms/rewrite_util.h"
#include "ops/op.h"
#include "support/bfloat16.h"

namespace ingot::graph {

namespace {

bool has_dtype(const Value* v, DType t) {
  return v != nullptr && v->type.dtype == t;
}

// A constant-zero Pad (layout_nchwc's explicit padding of a direct conv's input).
bool zero_pad(const Node* p) {
  return p != nullptr && p->op == ops::OpKind::Pad && p->inputs.size() == 1 &&
         p->attrs.get_string("mode", "constant") == "constant" &&
         p->attrs.get_float("value", 0.0) == 0.0 && has_dtype(p->inputs[0], DType::kF32);
}

// The LayoutToBlocked of an NCHW image of an odd channel count C into one block of C lanes
// (layout_nchwc's form of an image of fewer channels than the lanes: a stem's 3) that a conv
// reads, directly or through a zero Pad; null otherwise.
const Node* odd_channel_image(const Node& conv) {
  const Node* p = conv.inputs[0]->producer;
  if (zero_pad(p)) p = p->inputs[0]->producer;
  if (p == nullptr || p->op != ops::OpKind::LayoutToBlocked ||
      !has_dtype(p->inputs[0], DType::kF32))
    return nullptr;
  const int64_t c = p->inputs[0]->type.shape[1].value;
  return c % 2 == 1 && p->attrs.get_int("block", 0) == c ? p : nullptr;
}

// A float32 ConvNCHWc of groups = 1 over a constant weight W [OC, IC, k...] with an even input
// block (or an odd-channel image's: odd_channel_image), writing float32.
bool convertible_conv(const Node& n) {
  if (n.op != ops::OpKind::ConvNCHWc || n.inputs.size() < 2 || n.outputs.size() != 1) return false;
  const Value* x = n.inputs[0];
  const Value* w = n.inputs[1];
  if (!has_dtype(x, DType::kF32) || !has_dtype(w, DType::kF32) || !w->is_constant() ||
      !has_dtype(n.outputs[0], DType::kF32) || n.attrs.get_int("group", 1) != 1 ||
      w->type.rank() < 3 || x->type.shape.empty())
    return false;
  return x->type.shape.back().value % 2 == 0 || odd_channel_image(n) != nullptr;
}

// The input channels the converted conv's weights cover: IC rounded up to a pair within one
// block, to whole blocks beyond (ops/layout.cpp's contract for the dot tile; the lanes past IC,
// which a blocked producer leaves finite, meet zero weights), IC + 1 for an odd-channel image.
int64_t covered_input_channels(const Node& n, bool image) {
  const int64_t ic = n.inputs[1]->type.shape[1].value, block = n.inputs[0]->type.shape.back().value;
  if (image) return ic + 1;
  return ic <= block ? (ic + 1) / 2 * 2 : (ic + block - 1) / block * block;
}

// W [OC, C, k...] of 16-bit elements as [OC, `wide`, k...], zeros in the new input channels.
TensorPtr more_input_channels(const Tensor& w, int64_t wide) {
  std::vector<int64_t> shape = w.shape();
  const int64_t oc = shape[0], c = shape[1], taps = w.num_elements() / (oc * c);
  shape[1] = wide;
  std::vector<uint8_t> out(size_t(oc * wide * taps * 2), 0);
  for (int64_t o = 0; o < oc; ++o)
    std::memcpy(out.data() + o * wide * taps * 2, w.data() + o * c * taps * 2,
                size_t(c * taps * 2));
  return std::make_shared<Tensor>(w.dtype(), shape, std::move(out));
}

class Converter {
 public:
  explicit Converter(Graph& g) : g_(g) {}

  BFloat16Stats run() {
    g_.remove_dead();  // (layout_nchwc's unused LayoutFromBlocked nodes are not readers)
    std::vector<Node*> convs;
    for (const auto& n : g_.nodes())
      if (convertible_conv(*n)) convs.push_back(n.get());
    for (Node* n : convs) convert(*n);
    g_.remove_dead();  // (the float32 Pads the converted convs read before)
    for (const auto& n : g_.nodes())
      if (n->op == ops::OpKind::ConvNCHWc) write_bfloat16(*n);
    g_.remove_dead();
    g_.topo_sort();
    return stats_;
  }

 private:
  void convert(Node& n) {
    Value* w = n.inputs[1];
    // An image of an odd channel count C (a stem's 3): bfloat16 before its conversion to
    // blocks, in one block of C + 1 lanes, the last zero (LayoutToBlocked's padding lanes), and
    // W given a zero input channel: the pairs of the dot tile.
    const Node* image = odd_channel_image(n);
    const int64_t wide = covered_input_channels(n, image != nullptr);
    auto it = weights_.find({w, wide});
    if (it == weights_.end()) {
      TensorPtr half = half_width_constant(*w->constant, DType::kBF16, double_to_bfloat16_bits);
      if (wide != half->shape()[1]) half = more_input_channels(*half, wide);
      stats_.constant_bytes_saved += w->constant->nbytes() - half->nbytes();
      ++stats_.constants;
      it = weights_
               .emplace(std::pair{w, wide},
                        g_.add_constant(fresh_value_name(g_, w->name + "_bfloat16"), half))
               .first;
    }
    n.inputs[1] = it->second;
    Value* x = n.inputs[0];
    const bool pads = zero_pad(x->producer);
    Value* unpadded = pads ? x->producer->inputs[0] : x;
    Value* blocked = image ? to_blocked(cast(image->inputs[0]), *image) : cast(unpadded);
    n.inputs[0] = pads ? padded(blocked, *x->producer) : blocked;
    ++stats_.products;
  }

  // The bfloat16 NCHW image `v` of C channels in one block of C + 1 lanes, once per value.
  Value* to_blocked(Value* v, const Node& like) {
    auto it = blocked_.find(v);
    if (it != blocked_.end()) return it->second;
    Attrs attrs;
    attrs.set("block", v->type.shape[1].value + 1);
    const std::string name = fresh_value_name(g_, v->name + "_nchwc");
    Node* t = g_.add_node(ops::OpKind::LayoutToBlocked, name, {v}, {name}, attrs);
    t->opset = like.opset;
    set_output_types(*t);
    return blocked_[v] = t->outputs[0];
  }

  // `v` cast to bfloat16, one Cast per value.
  Value* cast(Value* v) {
    auto it = casts_.find(v);
    if (it != casts_.end()) return it->second;
    Attrs attrs;
    attrs.set("to", int64_t(DType::kBF16));
    const std::string name = fresh_value_name(g_, v->name + "_bfloat16");
    Node* c = g_.add_node(ops::OpKind::Cast, name, {v}, {name}, attrs);
    set_output_types(*c);
    return casts_[v] = c->outputs[0];
  }

  // `v` padded as `pad` pads its float32 input, one Pad per value and pads.
  Value* padded(Value* v, const Node& pad) {
    const std::vector<int64_t> pads = pad.attrs.get_ints("pads", {});
    auto [it, fresh] = pads_.try_emplace({v, pads}, nullptr);
    if (!fresh) return it->second;
    const std::string name = fresh_value_name(g_, v->name + "_padded");
    Node* p = g_.add_node(ops::OpKind::Pad, name, {v}, {name}, pad.attrs);
    p->opset = pad.opset;
    set_output_types(*p);
    return it->second = p->outputs[0];
  }

  // A float32 ConvNCHWc read only by Casts to bfloat16 writes bfloat16; its readers read it.
  void write_bfloat16(Node& n) {
    Value* y = n.outputs[0];
    // (groups = 1 or depthwise: a grouped conv's lowering writes float32.)
    if (!has_dtype(y, DType::kF32) || n.attrs.has("out_dtype") ||
        (n.attrs.get_int("group", 1) != 1 && !depthwise_conv_nchwc(n)))
      return;
    for (const Value* out : g_.outputs)
      if (out == y) return;
    std::vector<Node*> readers = g_.users(y);
    if (readers.empty()) return;
    for (const Node* r : readers)
      if (r->op != ops::OpKind::Cast || r->attrs.get_int("to", 0) != int64_t(DType::kBF16)) return;
    n.attrs.set("out_dtype", int64_t(DType::kBF16));
    set_output_types(n);
    for (Node* r : readers) g_.replace_all_uses(r->outputs[0], y);
  }

  Graph& g_;
  BFloat16Stats stats_;
  // (float32 constant, input channels covered) -> its bfloat16 copy
  std::map<std::pair<const Value*, int64_t>, Value*> weights_;
  std::map<const Value*, Value*> casts_;    // float32 value -> its Cast to bfloat16
  std::map<const Value*, Value*> blocked_;  // bfloat16 odd-channel image -> one block of C + 1
  std::map<std::tuple<const Value*, std::vector<int64_t>>, Value*> pads_;
};

}  // namespace

BFloat16Stats convert_bfloat16_convs(Graph& g) {
  return Converter(g).run();
}

}  // namespace ingot::graph

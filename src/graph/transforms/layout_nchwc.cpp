// layout_nchwc (see layout_nchwc.h).
#include "graph/transforms/layout_nchwc.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <map>
#include <tuple>

#include "graph/transforms/rewrite_util.h"
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

// Images the blocked kernels handle: [N, C, W] to [N, C, D, H, W].
bool image_rank(int rank) {
  return rank >= 3 && rank <= 5;
}

}  // namespace

bool depthwise_conv(const Node& n) {
  int64_t group = n.attrs.get_int("group", 1);
  const auto& ws = n.inputs[1]->type.shape;
  return group > 1 && n.inputs[0]->type.shape[1].value == group && ws[0].value == group &&
         ws[1].value == 1;
}

bool depthwise_conv_nchwc(const Node& n) {
  const std::vector<int64_t> ws = n.inputs[1]->type.static_shape();
  const int64_t group = n.attrs.get_int("group", 1);
  return group > 1 && ws.size() >= 2 && ws[1] == 1 && ws[0] == group;
}

// A 1-D to 3-D f32 Conv the blocked kernels implement: constant weights / bias, groups = 1,
// (2-D only) depthwise (one output channel per input channel) or grouped in whole blocks,
// non-negative pads, static shapes.
bool blockable_conv(const Node& n, const ChannelBlockPolicy& blocks) {
  if (n.op != ops::OpKind::Conv || n.outputs.size() != 1) return false;
  const Value* x = n.inputs[0];
  const Value* w = n.inputs[1];
  const Value* b = n.inputs.size() > 2 ? n.inputs[2] : nullptr;
  if (!f32(x) || !f32(w) || !f32(n.outputs[0]) || !image_rank(x->type.rank()) ||
      !w->is_constant() || !static_type(x) || !static_type(n.outputs[0]))
    return false;
  if (b && (!f32(b) || !b->is_constant())) return false;
  for (int64_t p : n.attrs.get_ints("pads", {}))
    if (p < 0) return false;
  int64_t group = n.attrs.get_int("group", 1);
  if (group == 1) return true;
  if (depthwise_conv(n)) return x->type.rank() == 4;
  return blocks.grouped(x->type.shape[1].value, w->type.shape[0].value, group, 0).has_value();
}

// A 2-D QConv (fuse_qdq) the 8-bit blocked conv takes: groups = 1 or depthwise, uint8 / int8
// input, constant
// symmetric int8 weights (zero point 0), constant bias and multipliers, non-negative pads,
// static shapes.
bool blockable_qconv(const Node& n) {
  if (n.op != ops::OpKind::QConv || n.outputs.size() != 1 || n.inputs.size() != 4) return false;
  const Value* x = n.inputs[0];
  const Value* w = n.inputs[1];
  if (x->type.rank() != 4 || (x->type.dtype != DType::kU8 && x->type.dtype != DType::kI8) ||
      w->type.dtype != DType::kI8 || !w->is_constant() || !n.inputs[2]->is_constant() ||
      !n.inputs[3]->is_constant() || !static_type(x) || !static_type(n.outputs[0]) ||
      (n.attrs.get_int("group", 1) != 1 && !depthwise_conv(n)) ||
      n.attrs.get_int("w_zero_point", 0) != 0)
    return false;
  for (int64_t p : n.attrs.get_ints("pads", {}))
    if (p < 0) return false;
  return true;
}

// Per-tensor QuantizeLinear / DequantizeLinear (scalar scale and zero point), which run on
// blocked tensors as any elementwise op.
bool per_tensor_quantization(const Node& n) {
  if (n.op != ops::OpKind::QuantizeLinear && n.op != ops::OpKind::DequantizeLinear) return false;
  for (size_t i = 1; i < n.inputs.size(); ++i)
    if (n.inputs[i] != nullptr &&
        (!static_type(n.inputs[i]) || n.inputs[i]->type.num_elements() != 1))
      return false;
  return n.attrs.get_int("block_size", 0) == 0;
}

bool int8_family(const Value* v) {
  return v != nullptr && (v->type.dtype == DType::kU8 || v->type.dtype == DType::kI8);
}

// Elementwise ops that run on blocked tensors between convolutions: finite at 0, so the zero
// padding lanes stay finite (a conv multiplies them by zero weights).
bool blockable_elementwise(const Node& n) {
  if (per_tensor_quantization(n))
    return n.outputs.size() == 1 && image_rank(n.outputs[0]->type.rank()) &&
           static_type(n.outputs[0]);
  switch (n.op) {
    case ops::OpKind::Add:
    case ops::OpKind::Sub:
    case ops::OpKind::Mul:
    case ops::OpKind::Max:
    case ops::OpKind::Min:
    case ops::OpKind::Relu:
    case ops::OpKind::Neg:
    case ops::OpKind::Abs:
    case ops::OpKind::Clip:
      break;
    default:
      if (!ops::is_epilogue_activation(n.op)) return false;
  }
  if (n.outputs.size() != 1 || !f32(n.outputs[0]) || !image_rank(n.outputs[0]->type.rank()) ||
      !static_type(n.outputs[0]))
    return false;
  return true;
}

namespace {

class LayoutRewriter {
 public:
  LayoutRewriter(Graph& g, const ChannelBlockPolicy& blocks) : g_(g), blocks_(blocks) {}

  void run() {
    std::vector<Node*> nodes;
    for (const auto& n : g_.nodes()) nodes.push_back(n.get());
    for (Node* n : nodes) {  // graph order: producers first
      if (blockable_conv(*n, blocks_)) {
        convert(*n);
      } else if (blockable_qconv(*n)) {
        convert_qconv(*n);
      } else if (blockable_elementwise(*n)) {
        convert_elementwise(*n);
      } else if (n->op == ops::OpKind::GlobalAveragePool || n->op == ops::OpKind::GlobalMaxPool ||
                 n->op == ops::OpKind::ReduceMean || n->op == ops::OpKind::ReduceMax) {
        convert_global_pool(*n);
      } else if (n->op == ops::OpKind::MaxPool || n->op == ops::OpKind::AveragePool) {
        convert_pool(*n);
      } else if (n->op == ops::OpKind::Concat) {
        convert_concat(*n);
      }
    }
    g_.topo_sort();
  }

 private:
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
    int64_t block = want ? want : blocks_.tensor(c);
    auto it = to_blocked_.find({v, block});
    if (it != to_blocked_.end()) return it->second;
    if (v->is_constant() && static_type(v)) {  // (a per-channel scale or shift)
      Value* folded = blocked_constant(*v, block);
      to_blocked_[{v, block}] = folded;
      return folded;
    }
    Attrs attrs;
    attrs.set("block", block);
    Node* t = g_.add_node(ops::OpKind::LayoutToBlocked, v->name + "_to_nchwc", {v},
                          {v->name + "_nchwc"}, attrs);
    t->opset = at.opset;
    set_output_types(*t);
    to_blocked_[{v, block}] = t->outputs[0];
    return t->outputs[0];
  }

  // A constant [N, C, spatial...] blocked at compile time, [N, ceil(C / block), spatial...,
  // block], the padding lanes zero: what LayoutToBlocked computes, without its kernel per run.
  Value* blocked_constant(const Value& v, int64_t block) {
    const Tensor& t = *v.constant;
    const std::vector<int64_t>& shape = t.shape();
    const int64_t n = shape[0], c = shape[1], cb = (c + block - 1) / block;
    int64_t inner = 1;  // spatial elements
    for (size_t d = 2; d < shape.size(); ++d) inner *= shape[d];
    const int64_t elem = dtype_bytes(t.dtype());
    std::vector<uint8_t> out(size_t(n * cb * inner * block * elem), 0);
    const uint8_t* src = t.data();
    for (int64_t b = 0; b < n; ++b)
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t i = 0; i < inner; ++i)
          std::memcpy(
              out.data() + (((b * cb + ch / block) * inner + i) * block + ch % block) * elem,
              src + ((b * c + ch) * inner + i) * elem, size_t(elem));
    std::vector<int64_t> blocked_shape = {n, cb};
    blocked_shape.insert(blocked_shape.end(), shape.begin() + 2, shape.end());
    blocked_shape.push_back(block);
    return g_.add_constant(v.name + "_nchwc",
                           std::make_shared<Tensor>(t.dtype(), blocked_shape, std::move(out)));
  }

  // An elementwise op whose operand is a conv's (blocked) result runs blocked when every
  // operand is the output's NCHW shape, its [N or 1, C, 1, ...] per-channel form (a
  // squeeze-excite gate) or a scalar; otherwise it stays NCHW.
  void convert_elementwise(Node& n) {
    const TensorType& t = n.outputs[0]->type;
    int64_t block = 0;
    for (Value* v : n.inputs)
      if (v && v->producer && v->producer->op == ops::OpKind::LayoutFromBlocked) {
        block = block_of(v->producer->inputs[0]);
        break;
      }
    if (block == 0) return;
    for (Value* v : n.inputs) {
      if (v == nullptr || (static_type(v) && v->type.num_elements() == 1)) continue;
      bool per_channel = v->type.rank() == t.rank() && v->type.shape[1] == t.shape[1] &&
                         (v->type.shape[0].value == 1 || v->type.shape[0] == t.shape[0]);
      for (int d = 2; per_channel && d < t.rank(); ++d)
        per_channel = v->type.shape[size_t(d)].value == 1;
      // (A DequantizeLinear reads an 8-bit tensor.)
      const bool dtype_ok = f32(v) || (n.op == ops::OpKind::DequantizeLinear && int8_family(v));
      if (!dtype_ok || !static_type(v) || (v->type.shape != t.shape && !per_channel)) return;
    }
    for (Value*& v : n.inputs) {
      if (v == nullptr || v->type.num_elements() == 1) continue;
      v = blocked(v, block, n);
    }
    take_blocked_output(n);
  }

  // Global pooling of a blocked conv result reduces the blocked tensor's spatial dims
  // (ReduceMean / ReduceMax over axes 2, ...), so it reads the blocked data once, lanes in order.
  void convert_global_pool(Node& n) {
    Value* x = n.inputs.at(0);
    if (!f32(x) || !image_rank(x->type.rank()) || !static_type(x) || !x->producer ||
        x->producer->op != ops::OpKind::LayoutFromBlocked)
      return;
    std::vector<int64_t> axes;
    for (int64_t d = 2; d < x->type.rank(); ++d) axes.push_back(d);
    if (n.op == ops::OpKind::ReduceMean || n.op == ops::OpKind::ReduceMax) {
      // The same pooling written as a reduction (SE blocks of exported models): every spatial
      // axis, dims kept, axes as an attribute (infer_types folds a constant axes input).
      std::vector<int64_t> have = n.attrs.get_ints("axes", {});
      for (int64_t& a : have)
        if (a < 0) a += x->type.rank();
      std::sort(have.begin(), have.end());
      if (have != axes || n.attrs.get_int("keepdims", 1) != 1 ||
          (n.inputs.size() > 1 && n.inputs[1] != nullptr))
        return;
    }
    n.inputs[0] = x->producer->inputs[0];
    if (n.op == ops::OpKind::GlobalAveragePool) n.op = ops::OpKind::ReduceMean;
    if (n.op == ops::OpKind::GlobalMaxPool) n.op = ops::OpKind::ReduceMax;
    n.attrs.set("axes", axes);
    n.attrs.set("keepdims", int64_t(1));
    take_blocked_output(n);
  }

  // A 2-D MaxPool (without Indices) or AveragePool of a blocked result pools the blocks
  // (MaxPoolNCHWc / AveragePoolNCHWc, same attributes); padding lanes stay finite.
  void convert_pool(Node& n) {
    Value* x = n.inputs.at(0);
    std::vector<int64_t> kernel = n.attrs.get_ints("kernel_shape", {});
    if (n.outputs.size() != 1 || !f32(x) || x->type.rank() != 4 || !static_type(x) ||
        !static_type(n.outputs[0]) || kernel.size() != 2 ||
        kernel[0] * kernel[1] > kMaxBlockedPoolTaps || !x->producer ||
        x->producer->op != ops::OpKind::LayoutFromBlocked)
      return;
    n.inputs[0] = x->producer->inputs[0];
    n.op = n.op == ops::OpKind::MaxPool ? ops::OpKind::MaxPoolNCHWc : ops::OpKind::AveragePoolNCHWc;
    n.attrs.erase("storage_order");
    take_blocked_output(n);
  }

  // A channel Concat of 2-D images runs blocked, a concat of the C/c axis, in the block c held by
  // the most channels among its blocked inputs of which every input's channel count is a
  // multiple (so no input has padding lanes); inputs in another block or NCHW are converted to
  // it. Without a blocked input, or without such a block, it stays NCHW.
  void convert_concat(Node& n) {
    const Value* y = n.outputs.at(0);
    if (!f32(y) || y->type.rank() != 4 || !static_type(y)) return;
    int64_t axis = n.attrs.get_int("axis", 0);
    if (axis != 1 && axis != -3) return;
    std::map<int64_t, int64_t> blocked_channels;  // block -> channels already in it
    for (const Value* v : n.inputs) {
      if (!v || !f32(v) || v->type.rank() != 4 || !static_type(v)) return;
      if (v->producer && v->producer->op == ops::OpKind::LayoutFromBlocked)
        blocked_channels[block_of(v->producer->inputs[0])] += v->type.shape[1].value;
    }
    int64_t block = 0, best = 0;
    for (auto [b, channels] : blocked_channels) {
      bool divides = true;
      for (const Value* v : n.inputs) divides = divides && v->type.shape[1].value % b == 0;
      if (divides && channels > best) block = b, best = channels;
    }
    if (block == 0) return;
    for (Value*& v : n.inputs) v = blocked(v, block, n);
    n.attrs.set("axis", int64_t(1));
    take_blocked_output(n);
  }

  // `n` (its inputs already blocked) writes a fresh blocked value; a LayoutFromBlocked takes
  // over its NCHW output (its name, its readers, its place among the graph outputs).
  void take_blocked_output(Node& n) {
    Value* y = n.outputs[0];
    int64_t channels = y->type.shape[1].value;
    Value* yb = g_.add_value(y->name + "_nchwc", TensorType{});
    yb->producer = &n;
    n.outputs[0] = yb;
    set_output_types(n);
    Attrs attrs;
    attrs.set("channels", channels);
    Node* back =
        g_.add_node(ops::OpKind::LayoutFromBlocked, y->name + "_from_nchwc", {yb}, {}, attrs);
    back->opset = n.opset;
    back->outputs.push_back(y);
    y->producer = back;
    y->output_index = 0;
    set_output_types(*back);
  }

  void convert(Node& n) {
    Value* y = n.outputs[0];
    // A groups = 1 conv reads any input block and writes its tile's; a depthwise conv keeps the
    // block of its input; a grouped conv takes blocks its groups fit (grouped_conv_blocks). The
    // summand has the output's block.
    int64_t group = n.attrs.get_int("group", 1), block = 0;
    const bool is_depthwise = depthwise_conv(n);  // (read on the NCHW input)
    if (group == 1 || is_depthwise) {
      n.inputs[0] = blocked(n.inputs[0], 0, n);
      block = group == 1 ? output_block(n, y->type.shape[1].value) : block_of(n.inputs[0]);
    } else {
      Value* x = n.inputs[0];
      int64_t have = 0;
      if (x->producer && x->producer->op == ops::OpKind::LayoutFromBlocked)
        have = block_of(x->producer->inputs[0]);
      auto blocks = blocks_.grouped(x->type.shape[1].value, y->type.shape[1].value, group, have);
      INGOT_ICHECK(blocks.has_value(), "{}: grouped conv has no blocks", n.describe());
      n.inputs[0] = blocked(x, blocks->ib, n);
      block = blocks->nr;
    }
    if (n.inputs.size() > 3 && n.inputs[3]) n.inputs[3] = blocked(n.inputs[3], block, n);
    if (!is_depthwise) pad_explicitly(n);
    n.op = ops::OpKind::ConvNCHWc;
    n.attrs.set("block", block);
    take_blocked_output(n);
  }

  // A QConv (blockable_qconv) as QConvNCHWc: its input blocked in groups of 4 lanes (its
  // producer's block or the default where that fits, else IC rounded up to 4; the weights zero
  // padded to IC rounded up to 4; a depthwise one keeps its producer's block), padded
  // explicitly with its zero point (a depthwise one too: the fold below counts every tap),
  // and X's zero point folded into the bias: sum (x - zx) w = sum x w - zx sum w, exact, the
  // padding then contributing zx * w like any pixel; the fixed-point multipliers become float32
  // scales (ops/layout.cpp). Left alone where those blocks do not fit or the folded bias
  // leaves int32.
  void convert_qconv(Node& n) {
    Value* x = n.inputs[0];
    const int64_t ic = x->type.shape[1].value, oc = n.inputs[1]->type.shape[0].value;
    const bool is_depthwise = depthwise_conv(n);  // (read on the NCHW input)
    // (Whole blocks, or one block with room for IC: the conv then reads IC rounded up to 4
    // lanes, those past IC, which a blocked producer leaves unspecified, against zero weights.)
    auto fits = [ic](int64_t b) { return b % 4 == 0 && (ic % b == 0 || ic < b); };
    int64_t block = 0;
    if (x->producer && x->producer->op == ops::OpKind::LayoutFromBlocked &&
        (is_depthwise || fits(block_of(x->producer->inputs[0]))))
      block = block_of(x->producer->inputs[0]);
    if (block == 0 && is_depthwise) block = blocks_.tensor(ic);  // (lanes multiply alone)
    if (block == 0) {
      const int64_t want = blocks_.tensor(ic);
      block = fits(want) ? want : (ic + 3) / 4 * 4;
      if (!fits(block)) return;
    }
    const Tensor& w = *n.inputs[1]->constant;
    const Tensor& bias = *n.inputs[2]->constant;
    const int64_t zx = n.attrs.get_int("x_zero_point", 0), per_channel = w.num_elements() / oc;
    std::vector<int32_t> folded;
    for (int64_t c = 0; c < oc; ++c) {
      int64_t sum = 0;
      for (int64_t k = 0; k < per_channel; ++k) sum += w.get_i64(c * per_channel + k);
      const int64_t v = bias.get_i64(c) - zx * sum;
      if (v < INT32_MIN || v > INT32_MAX) return;
      folded.push_back(int32_t(v));
    }
    n.inputs[0] = blocked(x, block, n);
    // One block wider than IC: the conv reads IC rounded up to 4 lanes (blocked_conv.h); W
    // [OC, IC, k...] -> [OC, that, k...], zeros past IC.
    const int64_t wide = (ic + 3) / 4 * 4;
    if (ic < block && ic < wide && !is_depthwise) {
      const int64_t taps = per_channel / ic;
      std::vector<uint8_t> padded(size_t(oc * wide * taps), 0);
      const uint8_t* src = w.data();
      for (int64_t c = 0; c < oc; ++c)
        std::memcpy(padded.data() + c * wide * taps, src + c * per_channel, size_t(per_channel));
      std::vector<int64_t> shape = w.shape();
      shape[1] = wide;
      n.inputs[1] = g_.add_constant(n.inputs[1]->name + "_padded",
                                    std::make_shared<Tensor>(DType::kI8, shape, std::move(padded)));
    }
    // The requantization as float32 scales, multiplier[c] * 2^-shift (QConvNCHWc), zero past
    // OC up to whole output blocks: the epilogue reads them at the output's lanes directly (a
    // read clamped into OC channels was a gather per vector).
    const int64_t out_block = is_depthwise ? block : output_block(n, oc);
    const Tensor& m = *n.inputs[3]->constant;
    const int shift = int(n.attrs.get_int("shift", 0));
    std::vector<float> scales(size_t((oc + out_block - 1) / out_block * out_block), 0.0f);
    for (int64_t c = 0; c < oc; ++c)
      scales[size_t(c)] = float(std::ldexp(double(m.get_i64(c)), -shift));
    n.inputs[3] = g_.add_constant(n.inputs[3]->name + "_scale",
                                  tensor_from_bytes(DType::kF32, {int64_t(scales.size())},
                                                    scales.data(), scales.size() * sizeof(float)));
    n.attrs.erase("shift");
    n.inputs[2] = g_.add_constant(
        n.inputs[2]->name + "_folded",
        tensor_from_bytes(DType::kI32, {oc}, folded.data(), folded.size() * sizeof(int32_t)));
    pad_explicitly(n, double(zx));
    n.op = ops::OpKind::QConvNCHWc;
    n.attrs.erase("x_zero_point");
    n.attrs.erase("w_zero_point");
    n.attrs.set("block", out_block);
    take_blocked_output(n);
  }

  // A groups = 1 conv's output block: the layout plan's where it names the conv with a block
  // the conv may take, else the default.
  int64_t output_block(const Node& n, int64_t channels) const {
    auto it = blocks_.planned.find(n.name);
    if (it != blocks_.planned.end() && blocks_.conv_output_options) {
      std::vector<int64_t> options = blocks_.conv_output_options(channels);
      if (std::find(options.begin(), options.end(), it->second) != options.end()) return it->second;
    }
    return blocks_.conv_output(channels);
  }

  // A direct convolution reads its blocked input through an explicit zero Pad of the spatial
  // dims (memoised per value, pads and padding value: a QConv pads with its zero point), so the
  // conv itself has no padding: its register tiles
  // read whole windows with no bounds tests. (A depthwise conv keeps its pads: its rule
  // partitions the border away.)
  void pad_explicitly(Node& n, double value = 0.0) {
    std::vector<int64_t> pads = n.attrs.get_ints("pads", {});
    if (std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; })) return;
    Value* x = n.inputs[0];
    const size_t rank = size_t(x->type.rank()), spatial = pads.size() / 2;
    std::vector<int64_t> full(2 * rank, 0);  // [N, C/c, spatial..., c]: begins, then ends
    for (size_t d = 0; d < spatial; ++d) {
      full[2 + d] = pads[d];
      full[rank + 2 + d] = pads[spatial + d];
    }
    auto [it, fresh] = padded_.try_emplace({x, full, value}, nullptr);
    if (fresh) {
      Attrs attrs;
      attrs.set("mode", std::string("constant"));
      attrs.set("pads", full);
      attrs.set("value", value);
      Node* pad =
          g_.add_node(ops::OpKind::Pad, x->name + "_padded", {x}, {x->name + "_padded"}, attrs);
      pad->opset = n.opset;
      set_output_types(*pad);
      it->second = pad->outputs[0];
    }
    n.inputs[0] = it->second;
    n.attrs.set("pads", std::vector<int64_t>(pads.size(), 0));
  }

  Graph& g_;
  const ChannelBlockPolicy& blocks_;
  std::map<std::pair<Value*, int64_t>, Value*> to_blocked_;
  std::map<std::tuple<Value*, std::vector<int64_t>, double>, Value*> padded_;
};

}  // namespace

void convert_layout_nchwc(Graph& g, const ChannelBlockPolicy& blocks) {
  LayoutRewriter(g, blocks).run();
}

}  // namespace ingot::graph

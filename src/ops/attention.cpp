// Attention (ONNX opset 23+): scaled dot-product attention over 3-D (batch, seq, heads * size)
// or 4-D (batch, heads, seq, size) Q/K/V, with grouped-query heads, an optional boolean or
// additive mask, causal and sliding-window masking, a past key/value cache (present outputs)
// and the qk_matmul_output debug output; RotaryEmbedding (opset 23+). Inference makes every
// attribute explicit.
#include <cmath>

#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

// A static dim that the op's arithmetic needs (head sizes, hidden sizes).
int64_t static_dim(const Node& n, const TensorType& t, int axis, const char* what) {
  if (!t.shape[size_t(axis)].is_static())
    fail_user("{}: dim {} of input '{}' {} must be static", n.describe(), axis, what, t.str());
  return t.shape[size_t(axis)].value;
}

Dim add_dims(const Dim& a, const Dim& b) {
  return Dim::of(a.sym() + b.sym());
}

// The per-head view of Q, K or V: (batch, heads, seq, head size).
struct Heads {
  Dim batch, seq;
  int64_t heads = 0, size = 0;
};

Heads heads_of(const Node& n, const TensorType& t, const char* what, const char* heads_attr) {
  Heads h{t.shape[0], Dim::fixed(0), 0, 0};
  if (t.rank() == 4) {
    h.heads = static_dim(n, t, 1, what);
    h.seq = t.shape[2];
    h.size = static_dim(n, t, 3, what);
    return h;
  }
  h.seq = t.shape[1];
  h.heads = n.attrs.get_int(heads_attr, 0);
  if (h.heads <= 0)
    fail_user("{}: attribute '{}' must be positive for 3-D inputs", n.describe(), heads_attr);
  int64_t hidden = static_dim(n, t, 2, what);
  if (hidden % h.heads != 0)
    fail_user("{}: hidden size {} of input '{}' is not divisible by {} = {}", n.describe(), hidden,
              what, heads_attr, h.heads);
  h.size = hidden / h.heads;
  return h;
}

std::vector<TensorType> infer_attention(Node& n) {
  const TensorType& q = input_type(n, 0, "Q");
  const TensorType& k = input_type(n, 1, "K");
  const TensorType& v = input_type(n, 2, "V");
  if (q.rank() != 3 && q.rank() != 4)
    fail_user("{}: input 'Q' {} must be 3-D or 4-D", n.describe(), q.str());
  if (k.rank() != q.rank() || v.rank() != q.rank())
    fail_user("{}: inputs 'Q' {}, 'K' {} and 'V' {} must have the same rank", n.describe(), q.str(),
              k.str(), v.str());
  if (!is_float_dtype(q.dtype)) fail_user("{}: input 'Q' {} must be float", n.describe(), q.str());
  require_same_dtype(n, q, k, "Q", "K");
  require_same_dtype(n, q, v, "Q", "V");
  Heads hq = heads_of(n, q, "Q", "q_num_heads");
  Heads hk = heads_of(n, k, "K", "kv_num_heads");
  Heads hv = heads_of(n, v, "V", "kv_num_heads");
  Dim batch = merge_dims(n, hq.batch, hk.batch, "batch sizes of 'Q' and 'K'");
  batch = merge_dims(n, batch, hv.batch, "batch sizes of 'Q' and 'V'");
  if (hk.heads != hv.heads)
    fail_user("{}: 'K' and 'V' have different head counts ({} vs {})", n.describe(), hk.heads,
              hv.heads);
  if (hq.heads % hk.heads != 0)
    fail_user("{}: q_num_heads {} is not a multiple of kv_num_heads {}", n.describe(), hq.heads,
              hk.heads);
  if (hq.size != hk.size)
    fail_user("{}: head sizes of 'Q' and 'K' differ ({} vs {})", n.describe(), hq.size, hk.size);
  Dim kv_seq = merge_dims(n, hk.seq, hv.seq, "sequence lengths of 'K' and 'V'");

  // Past cache: (batch, kv heads, past seq, head size), K and V together.
  Dim past = Dim::fixed(0);
  if (has_input(n, 4) != has_input(n, 5))
    fail_user("{}: inputs 'past_key' and 'past_value' must be given together", n.describe());
  if (has_input(n, 4)) {
    const char* names[] = {"past_key", "past_value"};
    int64_t sizes[] = {hk.size, hv.size};
    for (int i = 0; i < 2; ++i) {
      const TensorType& p = n.inputs[size_t(4 + i)]->type;
      require_same_dtype(n, q, p, "Q", names[i]);
      if (p.rank() != 4 || !p.shape[1].is_static() || p.shape[1].value != hk.heads ||
          !p.shape[3].is_static() || p.shape[3].value != sizes[i])
        fail_user("{}: input '{}' {} must be [batch, {}, past_sequence, {}]", n.describe(),
                  names[i], p.str(), hk.heads, sizes[i]);
      merge_dims(n, batch, p.shape[0], fmt::format("batch sizes of 'Q' and '{}'", names[i]));
    }
    past = merge_dims(n, n.inputs[4]->type.shape[2], n.inputs[5]->type.shape[2],
                      "past sequence lengths");
  }
  Dim total = add_dims(past, kv_seq);

  if (has_input(n, 6)) {
    const TensorType& s = n.inputs[6]->type;
    if (has_input(n, 4))
      fail_user("{}: input 'nonpad_kv_seqlen' cannot be combined with 'past_key'", n.describe());
    if ((s.dtype != DType::kI64) || s.rank() != 1)
      fail_user("{}: input 'nonpad_kv_seqlen' {} must be int64[batch]", n.describe(), s.str());
    merge_dims(n, batch, s.shape[0], "batch sizes of 'Q' and 'nonpad_kv_seqlen'");
  }

  // The mask broadcasts to (batch, q heads, q seq, total); its last dim may be shorter (padded
  // with masked positions).
  if (has_input(n, 3)) {
    const TensorType& m = n.inputs[3]->type;
    if (m.dtype != DType::kBool) require_same_dtype(n, q, m, "Q", "attn_mask");
    if (m.rank() < 1 || m.rank() > 4)
      fail_user("{}: input 'attn_mask' {} must have rank 1 to 4", n.describe(), m.str());
    std::vector<Dim> scores = {batch, Dim::fixed(hq.heads), hq.seq, Dim::fixed(1)};
    std::vector<Dim> lead(m.shape.begin(), m.shape.end() - 1);
    lead.push_back(Dim::fixed(1));
    if (broadcast_shapes(n, scores, lead) != scores)
      fail_user("{}: input 'attn_mask' {} does not broadcast to the scores [{},{},{},{}]",
                n.describe(), m.str(), batch.str(), hq.heads, hq.seq.str(), total.str());
    const Dim& last = m.shape.back();
    if (!last.is_static() || (total.is_static() && last.value > total.value))
      fail_user("{}: the last dim of 'attn_mask' {} must be static and at most the key length {}",
                n.describe(), m.str(), total.str());
  }

  int64_t mode = n.attrs.get_int("qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3)
    fail_user("{}: attribute 'qk_matmul_output_mode' must be 0 to 3, got {}", n.describe(), mode);
  for (const char* w : {"left_window_size", "right_window_size"})
    if (n.attrs.get_int(w, -1) < -1)
      fail_user("{}: attribute '{}' must be -1 or nonnegative, got {}", n.describe(), w,
                n.attrs.get_int(w, -1));
  double scale = n.attrs.get_float("scale", 1.0 / std::sqrt(double(hq.size)));
  n.attrs.set("scale", scale);
  n.attrs.set("is_causal", n.attrs.get_int("is_causal", 0) != 0 ? int64_t(1) : int64_t(0));
  n.attrs.set("q_num_heads", hq.heads);
  n.attrs.set("kv_num_heads", hk.heads);
  n.attrs.set("softcap", n.attrs.get_float("softcap", 0.0));
  n.attrs.set("qk_matmul_output_mode", mode);
  n.attrs.set("left_window_size", n.attrs.get_int("left_window_size", -1));
  n.attrs.set("right_window_size", n.attrs.get_int("right_window_size", -1));
  n.attrs.erase("softmax_precision");  // ingot's softmax runs in float32 or wider

  if (n.outputs.size() > 4)
    fail_user("{}: expects 1 to 4 outputs, got {}", n.describe(), n.outputs.size());
  std::vector<TensorType> out;
  if (q.rank() == 4)
    out.push_back(TensorType{q.dtype, {batch, Dim::fixed(hq.heads), hq.seq, Dim::fixed(hv.size)}});
  else
    out.push_back(TensorType{q.dtype, {batch, hq.seq, Dim::fixed(hq.heads * hv.size)}});
  out.push_back(TensorType{q.dtype, {batch, Dim::fixed(hk.heads), total, Dim::fixed(hk.size)}});
  out.push_back(TensorType{q.dtype, {batch, Dim::fixed(hk.heads), total, Dim::fixed(hv.size)}});
  out.push_back(TensorType{q.dtype, {batch, Dim::fixed(hq.heads), hq.seq, total}});
  out.resize(n.outputs.size());
  return out;
}

// Two contractions of (queries x keys x head size) per query head (keys without the past).
double attention_flops(const Node& n) {
  const TensorType& k = n.inputs[1]->type;
  const Dim& kv_seq = k.shape[k.rank() == 4 ? 2 : 1];
  double keys = kv_seq.is_static() ? double(kv_seq.value) : 1;
  return 2 * keys * (approx_elements(n.inputs[0]->type) + approx_elements(n.outputs[0]->type));
}

// RotaryEmbedding: X 4-D (batch, heads, seq, head size) or 3-D (batch, seq, heads * head size);
// cos/sin caches (max position, rotary dim / 2) indexed by position_ids (batch, seq), or
// (batch, seq, rotary dim / 2) without position_ids.
std::vector<TensorType> infer_rotary(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  if (x.rank() != 3 && x.rank() != 4)
    fail_user("{}: input 'X' {} must be 3-D or 4-D", n.describe(), x.str());
  if (!is_float_dtype(x.dtype)) fail_user("{}: input 'X' {} must be float", n.describe(), x.str());
  Heads h = heads_of(n, x, "X", "num_heads");
  int64_t rot = n.attrs.get_int("rotary_embedding_dim", 0);
  if (rot == 0) rot = h.size;
  if (rot < 0 || rot > h.size || rot % 2 != 0)
    fail_user("{}: attribute 'rotary_embedding_dim' {} must be even and at most the head size {}",
              n.describe(), rot, h.size);
  bool ids = has_input(n, 3);
  if (ids) {
    const TensorType& p = n.inputs[3]->type;
    if (p.dtype != DType::kI64 || p.rank() != 2)
      fail_user("{}: input 'position_ids' {} must be int64[batch, sequence]", n.describe(),
                p.str());
    merge_dims(n, h.batch, p.shape[0], "batch sizes of 'X' and 'position_ids'");
    merge_dims(n, h.seq, p.shape[1], "sequence lengths of 'X' and 'position_ids'");
  }
  const char* names[] = {"X", "cos_cache", "sin_cache"};
  for (int i = 1; i < 3; ++i) {
    const TensorType& c = input_type(n, i, names[i]);
    require_same_dtype(n, x, c, "X", names[i]);
    bool ok =
        c.rank() == (ids ? 2 : 3) && c.shape.back().is_static() && c.shape.back().value == rot / 2;
    if (!ok)
      fail_user("{}: input '{}' {} must be [{}, {}]", n.describe(), names[i], c.str(),
                ids ? "max_position" : "batch, sequence", rot / 2);
    if (!ids) {
      merge_dims(n, h.batch, c.shape[0], fmt::format("batch sizes of 'X' and '{}'", names[i]));
      merge_dims(n, h.seq, c.shape[1], fmt::format("sequence lengths of 'X' and '{}'", names[i]));
    }
  }
  n.attrs.set("num_heads", h.heads);
  n.attrs.set("rotary_embedding_dim", rot);
  n.attrs.set("interleaved", n.attrs.get_int("interleaved", 0) != 0 ? int64_t(1) : int64_t(0));
  return {x};
}

}  // namespace

void add_attention_ops(std::vector<OpInfo>& t) {
  OpInfo a{OpKind::Attention,
           "Attention",
           PatternKind::kOpaque,
           {{"scale", AttrType::kFloat},
            {"is_causal", AttrType::kInt},
            {"q_num_heads", AttrType::kInt},
            {"kv_num_heads", AttrType::kInt},
            {"softcap", AttrType::kFloat},
            {"qk_matmul_output_mode", AttrType::kInt},
            {"softmax_precision", AttrType::kInt},
            {"left_window_size", AttrType::kInt},
            {"right_window_size", AttrType::kInt}}};
  a.min_inputs = 3;
  a.max_inputs = 7;
  a.num_outputs = -1;  // Y, optional present_key, present_value, qk_matmul_output
  a.infer_fn = infer_attention;
  a.flops_fn = attention_flops;
  t.push_back(a);

  OpInfo r{OpKind::RotaryEmbedding,
           "RotaryEmbedding",
           PatternKind::kInjective,
           {{"interleaved", AttrType::kInt},
            {"num_heads", AttrType::kInt},
            {"rotary_embedding_dim", AttrType::kInt}}};
  r.min_inputs = 3;
  r.max_inputs = 4;
  r.infer_fn = infer_rotary;
  r.flops_fn = [](const Node& n) { return 3 * approx_elements(n.outputs[0]->type); };
  t.push_back(r);
}

}  // namespace ingot::ops::detail

// LinearAttention (opset 27): the recurrent form of linear attention over packed (batch, seq,
// heads * size) query/key/value. Per KV head a (d_k, d_v) state S runs over the sequence:
// "linear" S += k v^T, "gated" S = exp(g) S + k v^T, "delta" S += k (beta (v - S^T k))^T,
// "gated_delta" the delta rule on exp(g) S; each step reads o = scale * q^T S for the query heads
// that share the KV head (grouped-query). Outputs: (batch, seq, q_heads * d_v) and the final
// state (batch, kv_heads, d_k, d_v). Inference makes `update_rule` and `scale` explicit (scale
// 0 becomes 1 / sqrt(d_k)) and checks the optional inputs against the rule.
#include <cmath>

#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

bool is_float(DType d) {
  return is_float_dtype(d);
}

// The static packed size (dim 2) of a 3-D (batch, seq, packed) input divided by `heads`.
int64_t per_head(const Node& n, const TensorType& t, const char* what, int64_t heads) {
  if (t.rank() != 3)
    fail_user("{}: input '{}' {} must be 3-D (batch, sequence, heads * size)", n.describe(), what,
              t.str());
  if (!t.shape[2].is_static())
    fail_user("{}: dim 2 of input '{}' {} must be static", n.describe(), what, t.str());
  if (t.shape[2].value % heads != 0)
    fail_user("{}: packed size {} of input '{}' is not divisible by its {} heads", n.describe(),
              t.shape[2].value, what, heads);
  return t.shape[2].value / heads;
}

std::vector<TensorType> infer_linear_attention(Node& n) {
  const TensorType& q = input_type(n, 0, "query");
  const TensorType& k = input_type(n, 1, "key");
  const TensorType& v = input_type(n, 2, "value");
  if (!is_float(q.dtype))
    fail_user("{}: input 'query' must be a float tensor, got {}", n.describe(),
              dtype_name(q.dtype));
  require_same_dtype(n, q, k, "query", "key");
  require_same_dtype(n, q, v, "query", "value");
  int64_t hq = n.attrs.get_int("q_num_heads", 0), hkv = n.attrs.get_int("kv_num_heads", 0);
  if (hq <= 0 || hkv <= 0 || hq % hkv != 0)
    fail_user("{}: q_num_heads ({}) must be a positive multiple of kv_num_heads ({})", n.describe(),
              hq, hkv);
  int64_t dk = per_head(n, q, "query", hq);
  int64_t dk_key = per_head(n, k, "key", hkv);
  if (dk != dk_key)
    fail_user("{}: head sizes of 'query' ({}) and 'key' ({}) differ", n.describe(), dk, dk_key);
  int64_t dv = per_head(n, v, "value", hkv);
  Dim batch = q.shape[0], seq = q.shape[1];
  auto merge_bt = [&](const TensorType& t, const char* what) {
    batch = merge_dims(n, batch, t.shape[0], fmt::format("batch sizes of 'query' and '{}'", what));
    seq = merge_dims(n, seq, t.shape[1], fmt::format("sequence lengths of 'query' and '{}'", what));
  };
  merge_bt(k, "key");
  merge_bt(v, "value");

  std::string rule = n.attrs.get_string("update_rule", "gated_delta");
  if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta")
    fail_user(
        "{}: attribute 'update_rule' = '{}' must be 'linear', 'gated', 'delta' or 'gated_delta'",
        n.describe(), rule);
  bool gated = rule == "gated" || rule == "gated_delta";
  bool delta = rule == "delta" || rule == "gated_delta";
  if (gated != has_input(n, 4))
    fail_user("{}: update_rule '{}' {} input 'decay'", n.describe(), rule,
              gated ? "requires" : "forbids");
  if (delta != has_input(n, 5))
    fail_user("{}: update_rule '{}' {} input 'beta'", n.describe(), rule,
              delta ? "requires" : "forbids");
  if (gated) {
    const TensorType& g = n.inputs[4]->type;
    require_same_dtype(n, q, g, "query", "decay");
    if (g.rank() != 3 || !g.shape[2].is_static() ||
        (g.shape[2].value != hkv && g.shape[2].value != hkv * dk))
      fail_user("{}: input 'decay' {} must be (batch, sequence, {}) or (batch, sequence, {})",
                n.describe(), g.str(), hkv, hkv * dk);
    merge_bt(g, "decay");
  }
  if (delta) {
    const TensorType& b = n.inputs[5]->type;
    require_same_dtype(n, q, b, "query", "beta");
    if (b.rank() != 3 || !b.shape[2].is_static() ||
        (b.shape[2].value != hkv && b.shape[2].value != 1))
      fail_user("{}: input 'beta' {} must be (batch, sequence, {}) or (batch, sequence, 1)",
                n.describe(), b.str(), hkv);
    merge_bt(b, "beta");
  }
  DType state_dtype = q.dtype;
  if (has_input(n, 3)) {
    const TensorType& p = n.inputs[3]->type;
    if (!is_float(p.dtype))
      fail_user("{}: input 'past_state' must be a float tensor, got {}", n.describe(),
                dtype_name(p.dtype));
    if (p.rank() != 4)
      fail_user("{}: input 'past_state' {} must be 4-D (batch, {}, {}, {})", n.describe(), p.str(),
                hkv, dk, dv);
    batch = merge_dims(n, batch, p.shape[0], "batch sizes of 'query' and 'past_state'");
    merge_dims(n, Dim::fixed(hkv), p.shape[1], "kv_num_heads and dim 1 of 'past_state'");
    merge_dims(n, Dim::fixed(dk), p.shape[2], "the key head size and dim 2 of 'past_state'");
    merge_dims(n, Dim::fixed(dv), p.shape[3], "the value head size and dim 3 of 'past_state'");
    state_dtype = p.dtype;
  }
  double scale = n.attrs.get_float("scale", 0.0);
  if (scale == 0.0) scale = 1.0 / std::sqrt(double(dk));
  n.attrs.set("scale", scale);
  n.attrs.set("update_rule", rule);
  TensorType out{q.dtype, {batch, seq, Dim::fixed(hq * dv)}};
  TensorType state{state_dtype, {batch, Dim::fixed(hkv), Dim::fixed(dk), Dim::fixed(dv)}};
  return {out, state};
}

// Per step and KV head: the state update (about 2-4 d_k d_v) and the reads (2 d_k d_v per
// query head).
double linear_attention_flops(const Node& n) {
  const TensorType& q = n.inputs[0]->type;
  const TensorType& s = n.outputs[1]->type;
  double steps = (q.shape[0].is_static() ? double(q.shape[0].value) : 1.0) *
                 (q.shape[1].is_static() ? double(q.shape[1].value) : 1.0);
  double dkdv = double(s.shape[2].value * s.shape[3].value);
  double hq = double(n.attrs.get_int("q_num_heads", 1));
  double hkv = double(n.attrs.get_int("kv_num_heads", 1));
  return steps * dkdv * (4 * hkv + 2 * hq);
}

}  // namespace

void add_linear_attention_ops(std::vector<OpInfo>& t) {
  OpInfo a{OpKind::LinearAttention,
           "LinearAttention",
           PatternKind::kOpaque,
           {{"update_rule", AttrType::kString},
            {"scale", AttrType::kFloat},
            {"q_num_heads", AttrType::kInt, true},
            {"kv_num_heads", AttrType::kInt, true}}};
  a.min_inputs = 3;
  a.max_inputs = 6;
  a.num_outputs = 2;
  a.infer_fn = infer_linear_attention;
  a.flops_fn = linear_attention_flops;
  t.push_back(a);
}

}  // namespace ingot::ops::detail

// CausalConvWithState (opset 27): a causal depthwise 1-D convolution over (batch, channels, length)
// whose left context is the carried state past_state (batch, channels, k - 1) or zeros, with an
// optional per-channel bias and fused SiLU; the second output is the new state, the last k - 1
// positions of past_state ++ input. Inference makes `activation` explicit ("none" or "silu"; the
// alias "swish" becomes "silu").
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

std::vector<TensorType> infer_causal_conv(Node& n) {
  const TensorType& x = input_type(n, 0, "input");
  const TensorType& w = input_type(n, 1, "weight");
  if (!is_float_dtype(x.dtype))
    fail_user("{}: input 'input' must be a float tensor, got {}", n.describe(),
              dtype_name(x.dtype));
  if (x.rank() != 3)
    fail_user("{}: input 'input' {} must be 3-D (batch, channels, length)", n.describe(), x.str());
  require_same_dtype(n, x, w, "input", "weight");
  if (w.rank() != 3 || !(w.shape[1] == Dim::fixed(1)) || !w.shape[2].is_static())
    fail_user("{}: input 'weight' {} must be (channels, 1, k) with a static k", n.describe(),
              w.str());
  int64_t k = w.shape[2].value;
  if (k < 1) fail_user("{}: kernel size k = {} must be at least 1", n.describe(), k);
  Dim batch = x.shape[0];
  Dim channels = merge_dims(n, x.shape[1], w.shape[0], "channels of 'input' and 'weight'");
  if (has_input(n, 2)) {
    const TensorType& b = n.inputs[2]->type;
    require_same_dtype(n, x, b, "input", "bias");
    if (b.rank() != 1)
      fail_user("{}: input 'bias' {} must be 1-D (channels)", n.describe(), b.str());
    channels = merge_dims(n, channels, b.shape[0], "channels of 'input' and 'bias'");
  }
  if (has_input(n, 3)) {
    const TensorType& p = n.inputs[3]->type;
    require_same_dtype(n, x, p, "input", "past_state");
    if (p.rank() != 3)
      fail_user("{}: input 'past_state' {} must be 3-D (batch, channels, k - 1)", n.describe(),
                p.str());
    batch = merge_dims(n, batch, p.shape[0], "batch sizes of 'input' and 'past_state'");
    channels = merge_dims(n, channels, p.shape[1], "channels of 'input' and 'past_state'");
    merge_dims(n, Dim::fixed(k - 1), p.shape[2], "k - 1 and the length of 'past_state'");
  }
  std::string act = n.attrs.get_string("activation", "none");
  if (act == "swish") act = "silu";
  if (act != "none" && act != "silu")
    fail_user("{}: attribute 'activation' = '{}' must be 'none', 'silu' or 'swish'", n.describe(),
              act);
  n.attrs.set("activation", act);
  TensorType y{x.dtype, {batch, channels, x.shape[2]}};
  TensorType state{x.dtype, {batch, channels, Dim::fixed(k - 1)}};
  return {y, state};
}

double causal_conv_flops(const Node& n) {
  int64_t k = n.inputs[1]->type.shape[2].value;
  return 2.0 * double(k) * approx_elements(n.outputs[0]->type);
}

}  // namespace

void add_causal_conv_ops(std::vector<OpInfo>& t) {
  OpInfo c{OpKind::CausalConvWithState,
           "CausalConvWithState",
           PatternKind::kOpaque,
           {{"activation", AttrType::kString}}};
  c.min_inputs = 2;
  c.max_inputs = 4;
  c.num_outputs = 2;
  c.infer_fn = infer_causal_conv;
  c.flops_fn = causal_conv_flops;
  t.push_back(c);
}

}  // namespace ingot::ops::detail

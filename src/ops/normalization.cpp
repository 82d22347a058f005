// Normalisation ops: BatchNormalization (inference), LayerNormalization, InstanceNormalization,
// RMSNormalization, GroupNormalization, MeanVarianceNormalization, LpNormalization, LRN (across
// channels) and Softmax.
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

std::vector<TensorType> infer_batchnorm(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  require_rank_at_least(n, x, 2, "X");
  const char* names[] = {"X", "scale", "B", "input_mean", "input_var"};
  for (int i = 1; i < 5; ++i) {
    const TensorType& p = input_type(n, i, names[i]);
    require_same_dtype(n, x, p, "X", names[i]);
    if (p.rank() != 1) fail_user("{}: input '{}' {} must be 1-D", n.describe(), names[i], p.str());
    merge_dims(n, x.shape[1], p.shape[0], fmt::format("channels of X and '{}'", names[i]));
  }
  n.attrs.set("epsilon", n.attrs.get_float("epsilon", 1e-5));
  n.attrs.erase("momentum");  // training-only
  return {x};
}

std::vector<TensorType> infer_layernorm(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  require_rank_at_least(n, x, 1, "X");
  int64_t axis = normalize_axis(n, n.attrs.get_int("axis", -1), x.rank(), "axis");
  std::vector<Dim> normalized(x.shape.begin() + axis, x.shape.end());
  const char* names[] = {"X", "Scale", "B"};
  for (int i = 1; i < 3; ++i) {
    if (!has_input(n, i)) {
      if (i == 1) input_type(n, 1, "Scale");  // Scale is required
      continue;
    }
    const TensorType& p = n.inputs[i]->type;
    require_same_dtype(n, x, p, "X", names[i]);
    if (p.rank() > int(normalized.size()) || broadcast_shapes(n, normalized, p.shape) != normalized)
      fail_user("{}: input '{}' {} does not broadcast to the normalised shape {}", n.describe(),
                names[i], p.str(), shape_str(normalized));
  }
  n.attrs.set("axis", axis);
  n.attrs.set("epsilon", n.attrs.get_float("epsilon", 1e-5));
  n.attrs.erase("stash_type");
  // Optional outputs Mean and InvStdDev: X's shape with the normalised dims set to 1.
  std::vector<TensorType> out = {x};
  TensorType stat = x;
  for (size_t d = size_t(axis); d < stat.shape.size(); ++d) stat.shape[d] = Dim::fixed(1);
  for (size_t i = 1; i < n.outputs.size(); ++i) out.push_back(stat);
  return out;
}

// Per (batch, channel) statistics over the spatial dims; scale and B are per channel.
std::vector<TensorType> infer_instancenorm(Node& n) {
  const TensorType& x = input_type(n, 0, "input");
  require_rank_at_least(n, x, 3, "input");
  const char* names[] = {"input", "scale", "B"};
  for (int i = 1; i < 3; ++i) {
    const TensorType& p = input_type(n, i, names[i]);
    require_same_dtype(n, x, p, "input", names[i]);
    if (p.rank() != 1) fail_user("{}: input '{}' {} must be 1-D", n.describe(), names[i], p.str());
    merge_dims(n, x.shape[1], p.shape[0], fmt::format("channels of input and '{}'", names[i]));
  }
  n.attrs.set("epsilon", n.attrs.get_float("epsilon", 1e-5));
  return {x};
}

// Y = X / sqrt(mean(X^2 over dims axis..) + epsilon) * scale; scale broadcasts to X.
std::vector<TensorType> infer_rmsnorm(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  require_rank_at_least(n, x, 1, "X");
  int64_t axis = normalize_axis(n, n.attrs.get_int("axis", -1), x.rank(), "axis");
  const TensorType& s = input_type(n, 1, "scale");
  require_same_dtype(n, x, s, "X", "scale");
  if (s.rank() > x.rank() || broadcast_shapes(n, x.shape, s.shape) != x.shape)
    fail_user("{}: input 'scale' {} does not broadcast to X {}", n.describe(), s.str(), x.str());
  n.attrs.set("axis", axis);
  n.attrs.set("epsilon", n.attrs.get_float("epsilon", 1e-5));
  n.attrs.erase("stash_type");
  return {x};
}

// Statistics per (batch, group of num_groups channels); scale and B per channel (opset 21).
std::vector<TensorType> infer_groupnorm(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  require_rank_at_least(n, x, 2, "X");
  int64_t groups = n.attrs.get_int("num_groups", 0);
  if (groups <= 0)
    fail_user("{}: attribute 'num_groups' must be positive, got {}", n.describe(), groups);
  if (x.shape[1].is_static() && x.shape[1].value % groups != 0)
    fail_user("{}: channels {} of X are not divisible by num_groups {}", n.describe(),
              x.shape[1].value, groups);
  const char* names[] = {"X", "scale", "bias"};
  for (int i = 1; i < 3; ++i) {
    const TensorType& p = input_type(n, i, names[i]);
    require_same_dtype(n, x, p, "X", names[i]);
    if (p.rank() != 1) fail_user("{}: input '{}' {} must be 1-D", n.describe(), names[i], p.str());
    merge_dims(n, x.shape[1], p.shape[0], fmt::format("channels of X and '{}'", names[i]));
  }
  n.attrs.set("epsilon", n.attrs.get_float("epsilon", 1e-5));
  n.attrs.erase("stash_type");
  return {x};
}

std::vector<TensorType> infer_mvn(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  n.attrs.set("axes", normalize_axes(n, n.attrs.get_ints("axes", {0, 2, 3}), x.rank(), "axes"));
  return {x};
}

std::vector<TensorType> infer_lpnorm(Node& n) {
  const TensorType& x = input_type(n, 0, "input");
  require_rank_at_least(n, x, 1, "input");
  int64_t p = n.attrs.get_int("p", 2);
  if (p != 1 && p != 2) fail_user("{}: attribute 'p' must be 1 or 2, got {}", n.describe(), p);
  n.attrs.set("p", p);
  n.attrs.set("axis", normalize_axis(n, n.attrs.get_int("axis", -1), x.rank(), "axis"));
  return {x};
}

// LRN: X is [N, C, D1, ...]; every attribute explicit after inference.
std::vector<TensorType> infer_lrn(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  require_rank_at_least(n, x, 2, "X");
  if (!is_float_dtype(x.dtype))
    fail_user("{}: input 'X' must be a float tensor, got {}", n.describe(), dtype_name(x.dtype));
  int64_t size = n.attrs.get_int("size", 0);
  if (size < 1) fail_user("{}: attribute 'size' must be positive, got {}", n.describe(), size);
  n.attrs.set("alpha", n.attrs.get_float("alpha", 1e-4));
  n.attrs.set("beta", n.attrs.get_float("beta", 0.75));
  n.attrs.set("bias", n.attrs.get_float("bias", 1.0));
  return {x};
}

// The square sum over `size` channels (2 each), then scale, power and divide.
double lrn_flops(const Node& n) {
  return double(2 * n.attrs.get_int("size", 1) + 4) * approx_elements(n.outputs[0]->type);
}

std::vector<TensorType> infer_softmax(Node& n) {
  const TensorType& x = input_type(n, 0, "input");
  require_rank_at_least(n, x, 1, "input");
  n.attrs.set("axis", normalize_axis(n, n.attrs.get_int("axis", -1), x.rank(), "axis"));
  return {x};
}

template <int kPerElement>
double per_element_flops(const Node& n) {
  return kPerElement * approx_elements(n.outputs[0]->type);
}

}  // namespace

// The normalisations are reductions across their axes followed by an elementwise step: pattern
// kReduction, so fusion inlines injective producers into their reads of the input.
void add_normalization_ops(std::vector<OpInfo>& t) {
  // Inference BatchNormalization folds to one multiply-add per element.
  OpInfo bn{OpKind::BatchNormalization,
            "BatchNormalization",
            PatternKind::kBroadcast,
            {{"epsilon", AttrType::kFloat}, {"momentum", AttrType::kFloat}}};
  bn.min_inputs = bn.max_inputs = 5;
  bn.infer_fn = infer_batchnorm;
  bn.flops_fn = per_element_flops<2>;
  t.push_back(bn);

  // mean, variance (2 each), normalise, scale and shift.
  OpInfo ln{
      OpKind::LayerNormalization,
      "LayerNormalization",
      PatternKind::kReduction,
      {{"axis", AttrType::kInt}, {"epsilon", AttrType::kFloat}, {"stash_type", AttrType::kInt}}};
  ln.min_inputs = 2;
  ln.max_inputs = 3;
  ln.num_outputs = -1;  // Y, optional Mean and InvStdDev
  ln.infer_fn = infer_layernorm;
  ln.flops_fn = per_element_flops<8>;
  t.push_back(ln);

  OpInfo in{OpKind::InstanceNormalization,
            "InstanceNormalization",
            PatternKind::kReduction,
            {{"epsilon", AttrType::kFloat}}};
  in.min_inputs = in.max_inputs = 3;
  in.infer_fn = infer_instancenorm;
  in.flops_fn = per_element_flops<8>;
  t.push_back(in);

  // square-sum (2), normalise, scale.
  OpInfo rms{
      OpKind::RMSNormalization,
      "RMSNormalization",
      PatternKind::kReduction,
      {{"axis", AttrType::kInt}, {"epsilon", AttrType::kFloat}, {"stash_type", AttrType::kInt}}};
  rms.min_inputs = rms.max_inputs = 2;
  rms.infer_fn = infer_rmsnorm;
  rms.flops_fn = per_element_flops<4>;
  t.push_back(rms);

  OpInfo gn{OpKind::GroupNormalization,
            "GroupNormalization",
            PatternKind::kReduction,
            {{"epsilon", AttrType::kFloat},
             {"num_groups", AttrType::kInt, true},
             {"stash_type", AttrType::kInt}}};
  gn.min_inputs = gn.max_inputs = 3;
  gn.infer_fn = infer_groupnorm;
  gn.flops_fn = per_element_flops<8>;
  t.push_back(gn);

  OpInfo mvn{OpKind::MeanVarianceNormalization,
             "MeanVarianceNormalization",
             PatternKind::kReduction,
             {{"axes", AttrType::kInts}}};
  mvn.infer_fn = infer_mvn;
  mvn.flops_fn = per_element_flops<6>;
  t.push_back(mvn);

  OpInfo lp{OpKind::LpNormalization,
            "LpNormalization",
            PatternKind::kReduction,
            {{"axis", AttrType::kInt}, {"p", AttrType::kInt}}};
  lp.infer_fn = infer_lpnorm;
  lp.flops_fn = per_element_flops<3>;
  t.push_back(lp);

  OpInfo lrn{OpKind::LRN,
             "LRN",
             PatternKind::kOutEWiseFusable,
             {{"size", AttrType::kInt, true},
              {"alpha", AttrType::kFloat},
              {"beta", AttrType::kFloat},
              {"bias", AttrType::kFloat}}};
  lrn.infer_fn = infer_lrn;
  lrn.flops_fn = lrn_flops;
  t.push_back(lrn);

  // max, subtract, exp, sum, divide.
  OpInfo sm{OpKind::Softmax, "Softmax", PatternKind::kReduction, {{"axis", AttrType::kInt}}};
  sm.infer_fn = infer_softmax;
  sm.flops_fn = per_element_flops<5>;
  t.push_back(sm);
}

}  // namespace ingot::ops::detail

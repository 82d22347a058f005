// Contractions: Gemm (2-D, optional transposes, alpha/beta, broadcast C) and MatMul (numpy
// semantics: 1-D promotion and broadcast batch dims).
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

// The output dtype of a product: its operands', or the attribute `out_dtype` where a graph pass
// set one (convert_bfloat16: bfloat16 operands accumulated and written in float32).
DType product_dtype(const Node& n, const TensorType& operands) {
  if (!n.attrs.has("out_dtype")) return operands.dtype;
  const auto out = DType(n.attrs.get_int("out_dtype", 0));
  if (operands.dtype != DType::kBF16 || out != DType::kF32)
    fail_user("{}: out_dtype {} is only for bfloat16 operands accumulated in float32", n.describe(),
              dtype_name(out));
  return out;
}

std::vector<TensorType> infer_gemm(Node& n) {
  const TensorType& a = input_type(n, 0, "A");
  const TensorType& b = input_type(n, 1, "B");
  require_same_dtype(n, a, b, "A", "B");
  if (a.rank() != 2 || b.rank() != 2)
    fail_user("{}: inputs A {} and B {} must be 2-D", n.describe(), a.str(), b.str());
  bool ta = n.attrs.get_int("transA", 0) != 0;
  bool tb = n.attrs.get_int("transB", 0) != 0;
  Dim m = a.shape[ta ? 1 : 0], ka = a.shape[ta ? 0 : 1];
  Dim kb = b.shape[tb ? 1 : 0], nn = b.shape[tb ? 0 : 1];
  merge_dims(n, ka, kb, "the inner dimensions of A and B");
  std::vector<Dim> out{m, nn};
  if (has_input(n, 2)) {
    const TensorType& c = n.inputs[2]->type;
    if (!n.attrs.has("out_dtype"))
      require_same_dtype(n, a, c, "A", "C");
    else if (c.dtype != product_dtype(n, a))
      fail_user("{}: input 'C' {} must have the output's dtype {}", n.describe(), c.str(),
                dtype_name(product_dtype(n, a)));
    if (c.rank() > 2 || broadcast_shapes(n, out, c.shape) != out)
      fail_user("{}: C {} does not broadcast to the output shape {}", n.describe(), c.str(),
                shape_str(out));
  }
  n.attrs.set("alpha", n.attrs.get_float("alpha", 1.0));
  n.attrs.set("beta", n.attrs.get_float("beta", 1.0));
  n.attrs.set("transA", int64_t(ta));
  n.attrs.set("transB", int64_t(tb));
  return {TensorType{product_dtype(n, a), out}};
}

double gemm_flops(const Node& n) {
  const TensorType& a = n.inputs[0]->type;
  const Dim& k = a.shape[n.attrs.get_int("transA", 0) ? 0 : 1];
  double outs = approx_elements(n.outputs[0]->type);
  return 2 * outs * (k.is_static() ? double(k.value) : 1) + (has_input(n, 2) ? 2 * outs : 0);
}

// A MatMul operand as the product reads it: with `perm_a` / `perm_b` (graph pass
// fold_transpose_matmul) the input transposed by that permutation, else the input itself.
TensorType matmul_operand(Node& n, int i, const char* name, const char* perm_attr) {
  TensorType t = input_type(n, i, name);
  if (!n.attrs.has(perm_attr)) return t;
  std::vector<int64_t> perm = n.attrs.get_ints(perm_attr);
  std::vector<bool> seen(perm.size(), false);
  bool ok = int(perm.size()) == t.rank() && t.rank() >= 2;
  for (int64_t p : perm) {
    ok = ok && p >= 0 && p < int64_t(perm.size()) && !seen[size_t(p)];
    if (ok) seen[size_t(p)] = true;
  }
  if (!ok)
    fail_user("{}: attribute '{}' is not a permutation of the {} dims of {} {}", n.describe(),
              perm_attr, t.rank(), name, t.str());
  TensorType out{t.dtype, {}};
  for (int64_t p : perm) out.shape.push_back(t.shape[size_t(p)]);
  return out;
}

std::vector<TensorType> infer_matmul(Node& n) {
  const TensorType a = matmul_operand(n, 0, "A", "perm_a");
  const TensorType b = matmul_operand(n, 1, "B", "perm_b");
  require_same_dtype(n, a, b, "A", "B");
  if (a.rank() < 1 || b.rank() < 1)
    fail_user("{}: inputs A {} and B {} must have rank >= 1", n.describe(), a.str(), b.str());
  std::vector<Dim> sa = a.shape, sb = b.shape;
  bool promote_a = sa.size() == 1, promote_b = sb.size() == 1;
  if (promote_a) sa.insert(sa.begin(), Dim::fixed(1));
  if (promote_b) sb.push_back(Dim::fixed(1));
  const Dim& ka = sa[sa.size() - 1];
  const Dim& kb = sb[sb.size() - 2];
  if (ka.is_static() && kb.is_static() && ka.value != kb.value)
    fail_user("{}: inner dimensions of A {} and B {} differ ({} vs {})", n.describe(), a.str(),
              b.str(), ka.value, kb.value);
  if (!(ka == kb)) n.assumed_equal.push_back({ka.sym(), kb.sym()});  // checked at run time
  std::vector<Dim> batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
  std::vector<Dim> out = broadcast_shapes(n, batch_a, batch_b);
  if (!promote_a) out.push_back(sa[sa.size() - 2]);
  if (!promote_b) out.push_back(sb[sb.size() - 1]);
  TensorType result{product_dtype(n, a), out};
  // The fused epilogue (graph pass fuse_epilogue): a bias row [N], a summand Z of the output's
  // type and an activation: y = act(A B + bias + Z).
  if (has_input(n, 2)) {
    const TensorType& bias = n.inputs[2]->type;
    if (bias.rank() != 1 || out.empty() || !(bias.shape[0] == out.back()))
      fail_user("{}: fused bias {} must have shape [{}]", n.describe(), bias.str(),
                out.empty() ? "" : out.back().str());
  }
  if (has_input(n, 3) && n.inputs[3]->type != result)
    fail_user("{}: summand Z {} must have the output type {}", n.describe(),
              n.inputs[3]->type.str(), result.str());
  check_fused_activation(n);
  return {result};
}

double matmul_flops(const Node& n) {
  const TensorType& a = n.inputs[0]->type;
  std::vector<int64_t> perm = n.attrs.get_ints("perm_a");
  const Dim& k = perm.empty() ? a.shape.back() : a.shape[size_t(perm.back())];
  double outs = approx_elements(n.outputs[0]->type);
  return 2 * outs * (k.is_static() ? double(k.value) : 1) + (has_input(n, 2) ? outs : 0) +
         (has_input(n, 3) ? outs : 0);
}

}  // namespace

void add_matmul_ops(std::vector<OpInfo>& t) {
  OpInfo gemm{OpKind::Gemm,
              "Gemm",
              PatternKind::kOutEWiseFusable,
              {{"alpha", AttrType::kFloat},
               {"beta", AttrType::kFloat},
               {"transA", AttrType::kInt},
               {"transB", AttrType::kInt},
               {"out_dtype", AttrType::kInt}}};
  gemm.min_inputs = 2;
  gemm.max_inputs = 3;
  gemm.infer_fn = infer_gemm;
  gemm.flops_fn = gemm_flops;
  t.push_back(gemm);

  OpInfo mm{
      OpKind::MatMul,
      "MatMul",
      PatternKind::kOutEWiseFusable,
      {{"perm_a", AttrType::kInts}, {"perm_b", AttrType::kInts}, {"out_dtype", AttrType::kInt}}};
  for (AttrSpec& a : epilogue_attr_specs()) mm.attrs.push_back(a);
  mm.min_inputs = 2;
  mm.max_inputs = 4;
  mm.infer_fn = infer_matmul;
  mm.flops_fn = matmul_flops;
  t.push_back(mm);
}

}  // namespace ingot::ops::detail

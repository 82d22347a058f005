// Internal ops of weight-only quantization (graph pass quantize_weights, --quantize-weights):
// a constant float32 weight stored as symmetric integers with one float32 scale per group of
// `group_size` elements along the reduced dim K, dequantized where it is read.
//   WQMatMul(A, Wq, scales, bias?): A [..., K] float32; B [K, N] stored row-major as integers:
//     Wq [K, N] int8 (bits 8) or uint8 [K/2, N] (bits 4: k = 2m in the low nibble of byte m,
//     2m+1 in the high one, each stored + 8); scales [K / group_size, N] float32; bias [N]
//     float32. Y = A @ dequant(B) (+ bias). How the integers are laid out for the kernel (column
//     panels) is the schedule's decision (rules/matmul_dequant.h), not the op's.
//   WQGather(Wq, scales, indices): rows of B's transpose, as Gather(W, indices) on axis 0 of
//     the [N, K] matrix a tied embedding reads (output indices.shape + [K]).
// Attributes: bits (4 or 8), group_size, columns (N).
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

// K and N of the quantized weight (K from the scales and groups), checking dtypes and shapes.
std::pair<Dim, Dim> weight_dims(const Node& n, int wq_index) {
  const TensorType& wq = input_type(n, wq_index, "Wq");
  const TensorType& s = input_type(n, wq_index + 1, "scales");
  int64_t bits = n.attrs.get_int("bits", 8), group = n.attrs.get_int("group_size", 0);
  int64_t cols = n.attrs.get_int("columns", 0);
  if (bits != 4 && bits != 8) fail_user("{}: bits must be 4 or 8, got {}", n.describe(), bits);
  if (group < 2 || group % 2 != 0)
    fail_user("{}: group_size must be an even number >= 2, got {}", n.describe(), group);
  DType want = bits == 8 ? DType::kI8 : DType::kU8;
  if (cols < 1 || wq.dtype != want || wq.rank() != 2 || !wq.is_static() ||
      wq.shape[1].value != cols)
    fail_user("{}: Wq must be a static {} [K{}, {}] tensor, got {}", n.describe(), dtype_name(want),
              bits == 4 ? "/2" : "", cols, wq.str());
  if (s.dtype != DType::kF32 || s.rank() != 2 || !s.is_static() || s.shape[1].value != cols ||
      s.shape[0].value * group != wq.shape[0].value * (bits == 4 ? 2 : 1))
    fail_user("{}: scales {} do not match Wq {} in groups of {}", n.describe(), s.str(), wq.str(),
              group);
  return {Dim::fixed(s.shape[0].value * group), Dim::fixed(cols)};
}

std::vector<TensorType> infer_wq_matmul(Node& n) {
  const TensorType& a = input_type(n, 0, "A");
  auto [k, cols] = weight_dims(n, 1);
  if (a.dtype != DType::kF32 || a.rank() < 1 || !(a.shape.back() == k))
    fail_user("{}: A must be float32 [..., {}], got {}", n.describe(), k.str(), a.str());
  if (n.inputs.size() > 3 && n.inputs[3] != nullptr) {
    const TensorType& b = input_type(n, 3, "bias");
    if (b.dtype != DType::kF32 || b.rank() != 1 || !(b.shape[0] == cols))
      fail_user("{}: bias must be float32 [{}], got {}", n.describe(), cols.str(), b.str());
  }
  TensorType out{DType::kF32, a.shape};
  out.shape.back() = cols;
  return {out};
}

std::vector<TensorType> infer_wq_gather(Node& n) {
  auto [k, rows] = weight_dims(n, 0);
  const TensorType& idx = input_type(n, 2, "indices");
  if (idx.dtype != DType::kI64 && idx.dtype != DType::kI32)
    fail_user("{}: indices must be int32 or int64, got {}", n.describe(), idx.str());
  TensorType out{DType::kF32, idx.shape};
  out.shape.push_back(k);
  return {out};
}

double wq_matmul_ops(const Node& n) {
  const TensorType& s = n.inputs[2]->type;
  return 2 * approx_elements(n.outputs[0]->type) *
         double(s.shape[0].value * n.attrs.get_int("group_size", 1));
}

}  // namespace

void add_weight_quant_ops(std::vector<OpInfo>& t) {
  std::vector<AttrSpec> attrs = {{"bits", AttrType::kInt, true},
                                 {"group_size", AttrType::kInt, true},
                                 {"columns", AttrType::kInt, true}};
  OpInfo mm{OpKind::WQMatMul, "WQMatMul", PatternKind::kOpaque, attrs};
  mm.min_inputs = 3;
  mm.max_inputs = 4;
  mm.infer_fn = infer_wq_matmul;
  mm.flops_fn = wq_matmul_ops;
  t.push_back(mm);
  OpInfo g{OpKind::WQGather, "WQGather", PatternKind::kOpaque, attrs};
  g.min_inputs = 3;
  g.max_inputs = 3;
  g.infer_fn = infer_wq_gather;
  g.flops_fn = [](const Node&) { return 0.0; };  // data movement
  t.push_back(g);
}

}  // namespace ingot::ops::detail

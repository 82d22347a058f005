// Packed-B matmul kernels for MatMul and Gemm with constant weights (see scheduled.h): B (scaled
// by Gemm's alpha, transposed for transB) is packed into NR-wide panels at compile time, the
// bias (scaled by beta) becomes the init row, and A's leading dims fold into M.
#include <algorithm>
#include <cstring>

#include "lower/compute/common.h"
#include "lower/compute/epilogue.h"
#include "lower/compute/matmul_operand.h"
#include "lower/scheduled/layout_kernels.h"
#include "lower/scheduled/scheduled.h"
#include "schedule/rules/default_rules.h"
#include "schedule/rules/matmul.h"

namespace ingot::lower {

namespace {

bool is_f32(const graph::Value* v) {
  return v != nullptr && v->type.dtype == graph::DType::kF32;
}

// Y = act(Y + Z) in place, over the output as [M, N] (rows in parallel, columns vectorized).
tir::PrimFunc epilogue_kernel(const graph::Node& node, int64_t M, int64_t N, bool has_z) {
  using namespace tir;
  Buffer y = Buffer::make("Y", DataType::f32(), std::vector<int64_t>{M, N});
  Buffer z = Buffer::make("Z", DataType::f32(), std::vector<int64_t>{M, N});
  PrimFunc f;
  f.name = "epilogue";
  f.params = {y};
  if (has_z) f.params.push_back(z);
  f.body = epilogue_pass(node, y, Buffer(), has_z ? z : Buffer());
  return f;
}

}  // namespace

std::optional<std::vector<NodeKernel>> lower_packed_matmul(const graph::Node& node, int vector_bits,
                                                           ValueFactory& values) {
  bool gemm = node.op == ops::OpKind::Gemm;
  if (node.op != ops::OpKind::MatMul && !gemm) return std::nullopt;
  // A dense product is a compute-rule block that the packed matmul rule matches.
  if (is_dense_product(node)) return std::nullopt;
  const graph::Value* a = node.inputs.at(0);
  const graph::Value* b = node.inputs.at(1);
  // Gemm's C or a fused MatMul's bias row (input 2).
  const graph::Value* bias = node.inputs.size() > 2 ? node.inputs[2] : nullptr;
  const graph::Value* y = node.outputs.at(0);
  if (!is_f32(a) || !is_f32(b) || !is_f32(y) || a->type.rank() < 2 || b->type.rank() < 2)
    return std::nullopt;
  double alpha = 1.0, beta = 1.0;
  bool trans_b = false;
  if (gemm) {
    if (node.attrs.get_int("transA", 0) != 0 || !b->is_constant()) return std::nullopt;
    trans_b = node.attrs.get_int("transB", 0) != 0;
    alpha = node.attrs.get_float("alpha", 1.0);
    beta = node.attrs.get_float("beta", 1.0);
  }
  // A Transpose folded into the MatMul (perm_a / perm_b): the product reads that view of the
  // input, through the packing (A always packed then; B only as a run-time B).
  std::vector<int64_t> perm_a = node.attrs.get_ints("perm_a"),
                       perm_b = node.attrs.get_ints("perm_b");
  auto view = [](std::vector<int64_t> shape, const std::vector<int64_t>& perm) {
    if (perm.empty()) return shape;
    std::vector<int64_t> v;
    for (int64_t p : perm) v.push_back(shape[size_t(p)]);
    return v;
  };
  if (!perm_b.empty() && b->is_constant()) return std::nullopt;
  std::vector<int64_t> as = view(a->type.static_shape(), perm_a);
  std::vector<int64_t> bs = view(b->type.static_shape(), perm_b);
  int64_t K = as.back(), N = trans_b ? bs[0] : bs.back();
  // A constant 2-D B is packed now and shared by all of A's rows (its leading dims fold into M);
  // a run-time B is packed in the kernel, per batch when it has batch dims equal to A's.
  bool runtime_b = !b->is_constant();
  int64_t batch = 0, M = a->type.num_elements() / K;
  if (b->type.rank() > 2) {
    if (!runtime_b || as.size() != bs.size() || !std::equal(as.begin(), as.end() - 2, bs.begin()))
      return std::nullopt;
    M = as[as.size() - 2];
    batch = a->type.num_elements() / (M * K);
  }
  // The bias must be one row (shape [N], [1, N], [1] or []) known at compile time.
  if (bias != nullptr && beta != 0.0) {
    int64_t n = bias->type.num_elements();
    if (!is_f32(bias) || !bias->is_constant() || (n != N && n != 1)) return std::nullopt;
    if (bias->type.rank() == 2 && bias->type.static_shape()[0] != 1 && n != 1) return std::nullopt;
  } else {
    bias = nullptr;
  }

  schedule::MatmulConfig cfg;
  cfg.vector_bits = vector_bits;
  int nr = schedule::matmul_panel_width(cfg);
  int64_t nb = (N + nr - 1) / nr;
  auto batched = [&](std::vector<int64_t> dims) {
    if (batch) dims.insert(dims.begin(), batch);
    return dims;
  };
  // 1. A constant B as row-major [K, N] scaled by alpha, then packed into panels.
  const graph::Value* bp = nullptr;
  if (!runtime_b) {
    const float* bd = b->constant->data_as<float>();
    std::vector<float> rows(size_t(K * N));
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n)
        rows[size_t(k * N + n)] = float(alpha * (trans_b ? bd[n * K + k] : bd[k * N + n]));
    std::vector<float> packed = schedule::pack_b_panels(rows.data(), K, N, nr);
    bp = values.constant(b->name + "_packed", f32_tensor({nb, K, nr}, packed));
  } else {
    bp = values.temporary(y->name + "_packed_b", graph::DType::kF32, batched({nb, K, nr}));
  }
  // 2. The kernel (with the bias row as its init). With more than one row panel, A is packed
  //    in MR-row panels inside the kernel (into a workspace scratch) so the micro-kernel reads
  //    it as one stream. Params: A, [Ap,] [B,] Bp, [bias,] C.
  int mr =
      M > schedule::matmul_row_tile(cfg) || !perm_a.empty() ? schedule::matmul_row_tile(cfg) : 0;
  schedule::OperandLayout a_layout, b_layout;
  if (!perm_a.empty()) a_layout = {a->type.static_shape(), perm_a};
  if (!perm_b.empty()) b_layout = {b->type.static_shape(), perm_b};
  schedule::PackedMatmul m = schedule::make_packed_matmul(M, N, K, nr, batch, bias != nullptr, mr,
                                                          runtime_b, a_layout, b_layout);
  NodeKernel k{m.func, {a}};
  if (mr > 0)
    k.args.push_back(values.temporary(y->name + "_packed_a", graph::DType::kF32,
                                      batched({(M + mr - 1) / mr, K, int64_t(mr)})));
  if (runtime_b) k.args.push_back(b);
  k.args.push_back(bp);
  if (bias != nullptr) {
    std::vector<float> row(size_t(nb * nr), 0.0f);
    const float* cd = bias->constant->data_as<float>();
    for (int64_t n = 0; n < N; ++n)
      row[size_t(n)] = float(beta * cd[bias->type.num_elements() == 1 ? 0 : n]);
    k.args.push_back(values.constant(bias->name + "_row", f32_tensor({nb * nr}, row)));
  }
  k.args.push_back(y);
  k.func.schedule_rule = schedule::kPackedMatmulRule;
  std::vector<NodeKernel> kernels = {std::move(k)};
  // 3. A fused summand / activation: a pass over the output while it is still in cache.
  if (has_epilogue(node)) {
    const graph::Value* z = node.inputs.size() > 3 ? node.inputs[3] : nullptr;
    int64_t rows = std::max<int64_t>(batch, 1) * M;
    kernels.push_back({epilogue_kernel(node, rows, N, z != nullptr), {y}});
    if (z != nullptr) kernels.back().args.push_back(z);
  }
  return kernels;
}

}  // namespace ingot::lower

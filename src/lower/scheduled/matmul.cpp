// Packed-B matmul kernels for MatMul and Gemm with constant weights (see scheduled.h): B (scaled
// by Gemm's alpha, transposed for transB) is packed into NR-wide panels at compile time, the
// bias (scaled by beta) becomes the init row, and A's leading dims fold into M.
#include <cstring>

#include "lower/compute/common.h"
#include "lower/scheduled/scheduled.h"
#include "schedule/rules/default_rules.h"
#include "schedule/rules/matmul.h"

namespace ingot::lower {

namespace {

bool is_f32(const graph::Value* v) {
  return v != nullptr && v->type.dtype == graph::DType::kF32;
}

graph::TensorPtr f32_tensor(std::vector<int64_t> shape, const std::vector<float>& data) {
  std::vector<uint8_t> bytes(data.size() * sizeof(float));
  std::memcpy(bytes.data(), data.data(), bytes.size());
  return std::make_shared<graph::Tensor>(graph::DType::kF32, std::move(shape), std::move(bytes));
}

}  // namespace

std::optional<std::vector<NodeKernel>> lower_packed_matmul(const graph::Node& node,
                                                           int vector_bits, ValueFactory& values) {
  bool gemm = node.op == ops::OpKind::Gemm;
  if (node.op != ops::OpKind::MatMul && !gemm) return std::nullopt;
  const graph::Value* a = node.inputs.at(0);
  const graph::Value* b = node.inputs.at(1);
  const graph::Value* bias = gemm && node.inputs.size() > 2 ? node.inputs[2] : nullptr;
  const graph::Value* y = node.outputs.at(0);
  if (!is_f32(a) || !is_f32(b) || !is_f32(y) || !b->is_constant() || b->type.rank() != 2 ||
      a->type.rank() < 2)
    return std::nullopt;
  double alpha = 1.0, beta = 1.0;
  bool trans_b = false;
  if (gemm) {
    if (node.attrs.get_int("transA", 0) != 0) return std::nullopt;
    trans_b = node.attrs.get_int("transB", 0) != 0;
    alpha = node.attrs.get_float("alpha", 1.0);
    beta = node.attrs.get_float("beta", 1.0);
  }
  std::vector<int64_t> as = a->type.static_shape(), bs = b->type.static_shape();
  int64_t K = as.back(), N = trans_b ? bs[0] : bs[1];
  int64_t M = a->type.num_elements() / K;
  // The bias must be one row (shape [N], [1, N], [1] or []) known at compile time.
  if (bias != nullptr && beta != 0.0) {
    int64_t n = bias->type.num_elements();
    if (!is_f32(bias) || !bias->is_constant() || (n != N && n != 1)) return std::nullopt;
    if (bias->type.rank() == 2 && bias->type.static_shape()[0] != 1 && n != 1)
      return std::nullopt;
  } else {
    bias = nullptr;
  }

  schedule::MatmulConfig cfg;
  cfg.vector_bits = vector_bits;
  int nr = schedule::matmul_panel_width(cfg);
  // 1. B as row-major [K, N] scaled by alpha, then packed into panels.
  const float* bd = b->constant->data_as<float>();
  std::vector<float> rows(size_t(K * N));
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n)
      rows[size_t(k * N + n)] = float(alpha * (trans_b ? bd[n * K + k] : bd[k * N + n]));
  std::vector<float> packed = schedule::pack_b_panels(rows.data(), K, N, nr);
  int64_t nb = (N + nr - 1) / nr;
  const graph::Value* bp = values.constant(b->name + "_packed", f32_tensor({nb, K, nr}, packed));
  // 2. The kernel (with the bias row as its init). With more than one row panel, A is packed
  //    in MR-row panels inside the kernel (into a workspace scratch) so the micro-kernel reads
  //    it as one stream.
  int mr = M > schedule::matmul_row_tile(cfg) ? schedule::matmul_row_tile(cfg) : 0;
  schedule::PackedMatmul m = schedule::make_packed_matmul(M, N, K, nr, 0, bias != nullptr, mr);
  NodeKernel k{m.func, {a, bp, y}};
  if (mr > 0)
    k.args.insert(k.args.begin() + 1,
                  values.temporary(y->name + "_packed_a", graph::DType::kF32,
                                   {(M + mr - 1) / mr, K, int64_t(mr)}));
  if (bias != nullptr) {
    std::vector<float> row(size_t(nb * nr), 0.0f);
    const float* cd = bias->constant->data_as<float>();
    for (int64_t n = 0; n < N; ++n)
      row[size_t(n)] = float(beta * cd[bias->type.num_elements() == 1 ? 0 : n]);
    k.args.insert(k.args.end() - 1, values.constant(bias->name + "_row", f32_tensor({nb * nr}, row)));
  }
  k.func.schedule_rule = schedule::kPackedMatmulRule;
  return std::vector<NodeKernel>{std::move(k)};
}

}  // namespace ingot::lower

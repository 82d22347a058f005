// quantize_weights: see quantize_weights.h.
#include "graph/transforms/quantize_weights.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops/op.h"

namespace ingot::graph {

namespace {

// How a reader uses W: as B = W, as B = W^T, as the rows of B^T (a tied embedding), or other.
enum class Use { kDirect, kTransposed, kEmbedding, kOther };

Use use_of(const Node* n, const Value* w) {
  const bool as_b = n->inputs.size() >= 2 && n->inputs[1] == w && n->inputs[0] != w;
  if (n->op == ops::OpKind::MatMul && as_b && n->inputs.size() == 2 &&
      n->inputs[0]->type.rank() >= 1) {
    // Fused epilogues (bias, summand, activation) are not taken: those stay float.
    for (const char* a : {"activation", "summand", "bias"})
      if (n->attrs.has(a)) return Use::kOther;
    std::vector<int64_t> perm = n->attrs.get_ints("perm_a");
    if (!perm.empty()) return Use::kOther;
    perm = n->attrs.get_ints("perm_b");
    if (perm.empty()) return Use::kDirect;
    return perm == std::vector<int64_t>{1, 0} ? Use::kTransposed : Use::kOther;
  }
  if (n->op == ops::OpKind::Gemm && as_b && n->attrs.get_int("transA", 0) == 0 &&
      n->attrs.get_float("alpha", 1.0) == 1.0 && n->inputs[0]->type.rank() == 2) {
    if (n->inputs.size() > 2 && n->inputs[2] != nullptr) {
      const Value* c = n->inputs[2];
      if (n->attrs.get_float("beta", 1.0) != 1.0 || c->type.rank() != 1 || !c->is_constant() ||
          c->type.dtype != DType::kF32)
        return Use::kOther;
    }
    return n->attrs.get_int("transB", 0) != 0 ? Use::kTransposed : Use::kDirect;
  }
  if (n->op == ops::OpKind::Gather && n->inputs.at(0) == w && n->inputs.at(1) != w &&
      n->attrs.get_int("axis", 0) == 0)
    return Use::kEmbedding;
  return Use::kOther;
}

TensorPtr tensor(DType dtype, std::vector<int64_t> shape, const void* data, size_t bytes) {
  return tensor_from_bytes(dtype, std::move(shape), data, bytes);
}

}  // namespace

QuantizeWeightsStats quantize_weights(Graph& g, int bits, int group_size) {
  QuantizeWeightsStats stats;
  const int qmax = bits == 8 ? 127 : 7;
  std::vector<Value*> weights;
  for (const auto& v : g.values())
    if (v->is_constant() && v->type.dtype == DType::kF32 && v->type.rank() == 2 &&
        v->type.is_static())
      weights.push_back(v.get());
  for (Value* w : weights) {
    std::vector<Node*> readers = g.users(w);
    int products = 0, direct = 0, transposed = 0, embedding = 0, other = 0;
    for (const Node* n : readers) {
      switch (use_of(n, w)) {
        case Use::kDirect:
          ++direct, ++products;
          break;
        case Use::kTransposed:
          ++transposed, ++products;
          break;
        case Use::kEmbedding:
          ++embedding;
          break;
        case Use::kOther:
          ++other;
          break;
      }
    }
    if (products == 0) continue;
    const bool t = transposed > 0;
    const int64_t rows = w->type.shape[0].value, cols = w->type.shape[1].value;
    const int64_t k_dim = t ? cols : rows, n_dim = t ? rows : cols;
    if (other > 0 || (direct > 0 && transposed > 0) || (embedding > 0 && !t) ||
        k_dim % group_size != 0 || std::count(g.outputs.begin(), g.outputs.end(), w) > 0) {
      ++stats.skipped;
      continue;
    }
    // B[k][n], quantized per group of K.
    const float* src = w->constant->data_as<float>();
    auto b_at = [&](int64_t k, int64_t n) { return t ? src[n * cols + k] : src[k * cols + n]; };
    const int64_t groups = k_dim / group_size;
    std::vector<float> scales(size_t(groups * n_dim));
    std::vector<int8_t> q(size_t(k_dim * n_dim));
    double max_abs = 0, max_err = 0;
    for (int64_t gi = 0; gi < groups; ++gi) {
      for (int64_t n = 0; n < n_dim; ++n) {
        float amax = 0;
        for (int64_t k = gi * group_size; k < (gi + 1) * group_size; ++k)
          amax = std::max(amax, std::fabs(b_at(k, n)));
        float s = amax > 0 ? amax / float(qmax) : 1.0f;
        scales[size_t(gi * n_dim + n)] = s;
        for (int64_t k = gi * group_size; k < (gi + 1) * group_size; ++k) {
          float v = b_at(k, n);
          long r = std::lround(v / s);
          r = std::clamp<long>(r, -qmax, qmax);
          q[size_t(k * n_dim + n)] = int8_t(r);
          max_abs = std::max(max_abs, double(std::fabs(v)));
          max_err = std::max(max_err, std::fabs(double(r) * s - double(v)));
        }
      }
    }
    stats.max_rel_error = std::max(stats.max_rel_error, max_abs > 0 ? max_err / max_abs : 0.0);
    // Row-major integers [K, N] (int4: [K/2, N], k = 2m in the low nibble of byte m) and
    // scales [groups, N]; the kernel's layout is its schedule's (rules/matmul_dequant.h).
    TensorPtr wq;
    if (bits == 8) {
      wq = tensor(DType::kI8, {k_dim, n_dim}, q.data(), q.size());
    } else {
      std::vector<uint8_t> packed(size_t((k_dim / 2) * n_dim));
      for (int64_t k = 0; k < k_dim; k += 2)
        for (int64_t n = 0; n < n_dim; ++n)
          packed[size_t((k / 2) * n_dim + n)] =
              uint8_t((q[size_t(k * n_dim + n)] + 8) | ((q[size_t((k + 1) * n_dim + n)] + 8) << 4));
      wq = tensor(DType::kU8, {k_dim / 2, n_dim}, packed.data(), packed.size());
    }
    Value* wq_value = g.add_constant(w->name + "_q" + std::to_string(bits), wq);
    Value* scale_value = g.add_constant(
        w->name + "_scales",
        tensor(DType::kF32, {groups, n_dim}, scales.data(), scales.size() * sizeof(float)));
    Attrs attrs;
    attrs.set("bits", int64_t(bits));
    attrs.set("group_size", int64_t(group_size));
    attrs.set("columns", n_dim);
    for (Node* n : readers) {
      std::string was = ops::op_name(n->op);
      if (n->op == ops::OpKind::Gather) {
        n->inputs = {wq_value, scale_value, n->inputs[1]};
        n->op = ops::OpKind::WQGather;
      } else {
        std::vector<Value*> in = {n->inputs[0], wq_value, scale_value};
        if (n->inputs.size() > 2 && n->inputs[2] != nullptr) in.push_back(n->inputs[2]);
        n->inputs = in;
        n->op = ops::OpKind::WQMatMul;
      }
      n->attrs = attrs;
      n->fused.push_back(was);
    }
    ++stats.quantized;
    stats.float_bytes += w->constant->nbytes();
    stats.quantized_bytes += wq->nbytes() + int64_t(scales.size() * sizeof(float));
  }
  return stats;
}

}  // namespace ingot::graph

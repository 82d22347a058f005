// Converter of com.microsoft MatMulNBits, ONNX Runtime's block-quantized weight format (written
// by onnxruntime.quantization.matmul_nbits_quantizer and the GenAI model builder, the form
// LLMs quantized by ONNX Runtime's tools ship in): Y = A @ W^T (+ bias) with
//   W[n, k] = (q[n, k] - zp[n, k / block_size]) * scales[n, k / block_size],
//   B uint8 [N, k_blocks, blob] (bits 4: element 2i of a block in the low nibble of byte i, 2i+1
//   in the high one; bits 8: a byte each), scales [N * k_blocks] or [N, k_blocks] in A's type,
//   zero_points uint8 packed along the blocks (ceil(k_blocks * bits / 8) bytes per column, low
//   nibble first) or A's float type [N * k_blocks]; absent: 2^(bits-1).
// It becomes ingot's weight-only op WQMatMul (ops/weight_quant.cpp), whose dequantizing
// micro-kernels stream the integers: the same integers re-laid [K(/2), N] (bits 4: the nibbles
// unchanged, since WQMatMul stores q + 8 and MatMulNBits' default zero point is 8; bits 8:
// q - 128 as int8), one scale per block. Zero points other than 2^(bits-1) = c add a correction
// term, exact in real arithmetic: sum_k a[k] (q - zp) s = sum_k a[k] (q - c) s
// + sum_g (c - zp_g) s_g (sum of a over block g), i.e. the block sums of A (ReduceSum of A
// reshaped [..., k_blocks, block_size]) times a constant [k_blocks, N] matrix: a product
// block_size times smaller than the main one. K not whole blocks, or a g_idx that reorders the
// blocks, dequantizes B at import into a float32 [K, N] constant and a MatMul (correct; the
// weights then take float32's memory). accuracy_level only permits ONNX Runtime to compute in
// lower precision; ingot computes with float32 activations (level 0's numbers).
#include <optional>
#include <utility>
#include <vector>

#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

namespace ingot::frontend::detail {
namespace {

using graph::DType;
using ops::OpKind;

struct NBitsWeights {
  int64_t k = 0, n = 0, bits = 0, block = 0, blocks = 0;
  graph::TensorPtr q, scales, zero_points;  // as in the file
  std::vector<int64_t> g_idx;               // empty: block k / block_size

  // The integer q[n, k].
  int64_t quant(int64_t col, int64_t kk) const {
    const int64_t blob = block * bits / 8;
    const uint8_t* b = q->data() + col * blocks * blob + (kk / block) * blob;
    const int64_t i = kk % block;
    if (bits == 8) return b[i];
    return (b[i / 2] >> (4 * (i % 2))) & 0xF;
  }
  int64_t group(int64_t kk) const { return g_idx.empty() ? kk / block : g_idx[size_t(kk)]; }
  double scale(int64_t col, int64_t g) const { return scales->get_f64(col * blocks + g); }
  double zero_point(int64_t col, int64_t g) const {
    const double mid = double(int64_t(1) << (bits - 1));
    if (!zero_points) return mid;
    if (zero_points->dtype() != DType::kU8) return zero_points->get_f64(col * blocks + g);
    const int64_t per_col = (blocks * bits + 7) / 8;
    const uint8_t byte = zero_points->data()[col * per_col + g * bits / 8];
    return bits == 8 ? byte : (byte >> (4 * (g % 2))) & 0xF;
  }
  bool symmetric() const {
    const double mid = double(int64_t(1) << (bits - 1));
    for (int64_t col = 0; zero_points && col < n; ++col)
      for (int64_t g = 0; g < blocks; ++g)
        if (zero_point(col, g) != mid) return false;
    return true;
  }
};

NBitsWeights read_weights(NodeConverter& c) {
  NBitsWeights w;
  auto required = [&](const char* name) {
    std::optional<int64_t> v = c.attr_int(name);
    if (!v) c.fail("required attribute '{}' is missing", name);
    return *v;
  };
  w.k = required("K");
  w.n = required("N");
  w.bits = required("bits");
  w.block = required("block_size");
  c.attr_int("accuracy_level");  // a permission to lower precision, not taken (see the banner)
  if (w.bits != 4 && w.bits != 8) c.fail("bits {} is not supported (4 or 8)", w.bits);
  if (w.block < 16 || (w.block & (w.block - 1)) != 0)
    c.fail("block_size {} must be a power of two >= 16", w.block);
  if (w.k < 1 || w.n < 1) c.fail("K {} and N {} must be positive", w.k, w.n);
  w.blocks = (w.k + w.block - 1) / w.block;
  const int64_t blob = w.block * w.bits / 8;
  w.q = c.constant_input(1, "B");
  if (w.q->dtype() != DType::kU8 || w.q->num_elements() != w.n * w.blocks * blob)
    c.fail("input 'B' must be uint8 [N={}, k_blocks={}, blob={}], got {}", w.n, w.blocks, blob,
           w.q->type().str());
  w.scales = c.constant_input(2, "scales");
  if ((w.scales->dtype() != DType::kF32 && w.scales->dtype() != DType::kF16) ||
      w.scales->num_elements() != w.n * w.blocks)
    c.fail("input 'scales' must be float [N * k_blocks = {}], got {}", w.n * w.blocks,
           w.scales->type().str());
  if (c.has_input(3)) {
    w.zero_points = c.constant_input(3, "zero_points");
    const int64_t packed = w.n * ((w.blocks * w.bits + 7) / 8);
    const bool ok = w.zero_points->dtype() == DType::kU8
                        ? w.zero_points->num_elements() == packed
                        : w.zero_points->dtype() == w.scales->dtype() &&
                              w.zero_points->num_elements() == w.n * w.blocks;
    if (!ok)
      c.fail("input 'zero_points' must be uint8 [{}] (packed) or the scales' type [{}], got {}",
             packed, w.n * w.blocks, w.zero_points->type().str());
  }
  if (c.has_input(4)) {
    graph::TensorPtr g = c.constant_input(4, "g_idx");
    if (g->num_elements() != w.k) c.fail("input 'g_idx' must have K = {} entries", w.k);
    bool identity = true;
    for (int64_t kk = 0; kk < w.k; ++kk) {
      int64_t v = g->get_i64(kk);
      if (v < 0 || v >= w.blocks)
        c.fail("g_idx[{}] = {} is not a block of 0..{}", kk, v, w.blocks - 1);
      w.g_idx.push_back(v);
      identity = identity && v == kk / w.block;
    }
    if (identity) w.g_idx.clear();
  }
  return w;
}

// B dequantized into a float32 [K, N] constant.
graph::TensorPtr dequantized_b(const NBitsWeights& w) {
  std::vector<float> b(size_t(w.k * w.n));
  for (int64_t col = 0; col < w.n; ++col)
    for (int64_t kk = 0; kk < w.k; ++kk) {
      const int64_t g = w.group(kk);
      b[size_t(kk * w.n + col)] =
          float((double(w.quant(col, kk)) - w.zero_point(col, g)) * w.scale(col, g));
    }
  return graph::tensor_from_bytes(DType::kF32, {w.k, w.n}, b.data(), b.size() * sizeof(float));
}

// WQMatMul's integers [K, N] int8 (bits 8) or [K/2, N] uint8 (bits 4), both as q - c.
graph::TensorPtr wq_integers(const NBitsWeights& w) {
  if (w.bits == 8) {
    std::vector<int8_t> q(size_t(w.k * w.n));
    for (int64_t col = 0; col < w.n; ++col)
      for (int64_t kk = 0; kk < w.k; ++kk)
        q[size_t(kk * w.n + col)] = int8_t(w.quant(col, kk) - 128);
    return graph::tensor_from_bytes(DType::kI8, {w.k, w.n}, q.data(), q.size());
  }
  std::vector<uint8_t> q(size_t(w.k / 2 * w.n));
  for (int64_t col = 0; col < w.n; ++col)
    for (int64_t kk = 0; kk < w.k; kk += 2)
      q[size_t(kk / 2 * w.n + col)] = uint8_t(w.quant(col, kk) | (w.quant(col, kk + 1) << 4));
  return graph::tensor_from_bytes(DType::kU8, {w.k / 2, w.n}, q.data(), q.size());
}

// A [rows, N] float32 matrix of f(g, n).
template <typename F>
graph::TensorPtr per_block_matrix(const NBitsWeights& w, F f) {
  std::vector<float> m(size_t(w.blocks * w.n));
  for (int64_t g = 0; g < w.blocks; ++g)
    for (int64_t col = 0; col < w.n; ++col) m[size_t(g * w.n + col)] = float(f(g, col));
  return graph::tensor_from_bytes(DType::kF32, {w.blocks, w.n}, m.data(), m.size() * sizeof(float));
}

graph::Value* cast_to(NodeConverter& c, graph::Value* v, DType d, const std::string& suffix) {
  graph::Attrs attrs;
  attrs.set("to", int64_t(d));
  return c.emit_helper(OpKind::Cast, suffix, {v}, attrs);
}

// The sums of `a` [..., K] over each block: [..., k_blocks].
graph::Value* block_sums(NodeConverter& c, graph::Value* a, const NBitsWeights& w) {
  graph::Attrs lead;
  lead.set("start", int64_t(0));
  lead.set("end", int64_t(-1));
  graph::Value* rows = c.emit_helper(OpKind::Shape, "a_rows", {a}, lead);
  graph::Value* tail = c.make_constant("block_shape", make_i64_tensor({w.blocks, w.block}, {2}));
  graph::Attrs cat;
  cat.set("axis", int64_t(0));
  graph::Value* shape = c.emit_helper(OpKind::Concat, "blocked_shape", {rows, tail}, cat);
  graph::Attrs reshape;
  reshape.set("allowzero", int64_t(0));
  graph::Value* blocked = c.emit_helper(OpKind::Reshape, "a_blocks", {a, shape}, reshape);
  graph::Attrs sum;
  sum.set("axes", std::vector<int64_t>{-1});
  sum.set("keepdims", int64_t(0));
  sum.set("noop_with_empty_axes", int64_t(0));
  return c.emit_helper(OpKind::ReduceSum, "block_sums", {blocked}, sum);
}

void convert_matmul_nbits(NodeConverter& c) {
  graph::Value* a = c.input(0, "A");
  const NBitsWeights w = read_weights(c);
  graph::Value* bias = c.optional_input(5);
  std::optional<DType> a_type = NodeConverter::known_dtype(a);
  const DType t1 = w.scales->dtype();  // T1: A's, the scales' and the output's type
  if (a_type && *a_type != t1)
    c.fail("input 'A' has dtype {}, the scales {}: both must be T1", graph::dtype_name(*a_type),
           graph::dtype_name(t1));
  graph::Value* a32 = t1 == DType::kF32 ? a : cast_to(c, a, DType::kF32, "a_f32");
  graph::Value* b32 = bias && t1 != DType::kF32 ? cast_to(c, bias, DType::kF32, "bias_f32") : bias;
  // The last node takes the ONNX output's name; a float16 T1 ends with a Cast back.
  auto finish = [&](OpKind op, std::vector<graph::Value*> in, graph::Attrs attrs = {}) {
    if (t1 == DType::kF32) {
      c.emit(op, std::move(in), std::move(attrs));
      return;
    }
    graph::Attrs to;
    to.set("to", int64_t(t1));
    c.emit(OpKind::Cast, {c.emit_helper(op, "f32", std::move(in), std::move(attrs))}, to);
  };
  if (w.k % w.block != 0 || !w.g_idx.empty()) {
    std::vector<graph::Value*> in = {a32, c.make_constant("b_dequantized", dequantized_b(w))};
    if (!b32) return finish(OpKind::MatMul, in);
    return finish(OpKind::Add, {c.emit_helper(OpKind::MatMul, "matmul", in), b32});
  }
  graph::Attrs attrs;
  attrs.set("bits", w.bits);
  attrs.set("group_size", w.block);
  attrs.set("columns", w.n);
  std::vector<graph::Value*> in = {
      a32, c.make_constant("q", wq_integers(w)),
      c.make_constant("scales_kn", per_block_matrix(w, [&](int64_t g, int64_t col) {
                        return w.scale(col, g);
                      }))};
  if (b32) in.push_back(b32);
  if (w.symmetric()) return finish(OpKind::WQMatMul, in, attrs);
  graph::Value* y = c.emit_helper(OpKind::WQMatMul, "wq_matmul", in, attrs);
  const double mid = double(int64_t(1) << (w.bits - 1));
  graph::Value* offsets =
      c.make_constant("zero_point_offsets", per_block_matrix(w, [&](int64_t g, int64_t col) {
                        return (mid - w.zero_point(col, g)) * w.scale(col, g);
                      }));
  graph::Value* correction =
      c.emit_helper(OpKind::MatMul, "zero_point_term", {block_sums(c, a32, w), offsets});
  finish(OpKind::Add, {y, correction});
}

const ConverterEntry kTable[] = {
    {"MatMulNBits", 1, 1, convert_matmul_nbits},
};

}  // namespace

std::span<const ConverterEntry> microsoft_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail

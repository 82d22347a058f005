// The convolution rules' weight layouts (see conv_weight_layout.h).
#include "schedule/rules/conv_weight_layout.h"

#include <algorithm>

#include "schedule/ir_utils.h"
#include "support/error.h"
#include "tir/analysis.h"
#include "tir/arith/analyzer.h"
#include "tir/op.h"
#include "tir/param_layout.h"
#include "tir/printer.h"
#include "tir/region_analysis.h"

namespace ingot::schedule {

using namespace tir;

namespace {

// The loads of constant parameters in `e`, in order.
void constant_loads(const Expr& e, const PrimFunc& f, std::vector<const BufferLoad*>& out) {
  if (auto* l = e.as<BufferLoad>()) {
    if (is_constant_param(f, l->buffer.get())) out.push_back(l);
    return;
  }
  if (auto* s = e.as<Select>()) {
    constant_loads(s->condition, f, out);
    constant_loads(s->true_value, f, out);
    return constant_loads(s->false_value, f, out);
  }
  if (auto* a = e.as<Add>()) return constant_loads(a->a, f, out), constant_loads(a->b, f, out);
  if (auto* m = e.as<Mul>()) return constant_loads(m->a, f, out), constant_loads(m->b, f, out);
  if (auto* c = e.as<Cast>()) return constant_loads(c->value, f, out);
}

// (outer, f, inner) when `index` is `outer * f + inner` over two vars.
struct SplitIndex {
  const VarNode* outer = nullptr;
  int64_t factor = 0;
  const VarNode* inner = nullptr;
};
// The index without the clamp `min(i, E - 1)` a guarded read gives it
// (lower/compute/blocked_conv.h).
Expr unclamped(const Expr& index) {
  auto* m = index.as<Min>();
  return m != nullptr && is_const_int(m->b) ? m->a : index;
}

std::optional<SplitIndex> split_index(const Expr& clamped) {
  Expr index = unclamped(clamped);
  auto* a = index.as<Add>();
  auto* m = a ? a->a.as<Mul>() : nullptr;
  SplitIndex s;
  if (m == nullptr || !is_const_int(m->b, &s.factor) || s.factor < 2) return std::nullopt;
  s.outer = m->a.as<VarNode>(), s.inner = a->b.as<VarNode>();
  if (s.outer == nullptr || s.inner == nullptr) return std::nullopt;
  return s;
}

int read_index_of(const Block* b, const BufferNode* buffer) {
  for (size_t r = 0; r < b->reads.size(); ++r)
    if (b->reads[r].buffer.get() == buffer) return int(r);
  return -1;
}

// The block's body as one store (its value may be an in-place select), or nullptr.
const BufferStore* body_store(const Block* b) {
  return b == nullptr ? nullptr : b->body.as<BufferStore>();
}

// An 8-bit blocked conv (lower/compute/blocked_conv.h, int8): acc = acc + int32(X) * int32(W),
// X uint8 / int8, W a constant int8 parameter, acc int32.
bool is_int8_blocked_conv(const PrimFunc& f, const Block* b, const BufferStore* store) {
  const BufferLoad* x = int8_conv_input(b);
  if (x == nullptr || x->indices.empty()) return false;
  // (W's read may be guarded past IC or OC: int32(select(inside, W[..], 0)).)
  std::vector<const BufferLoad*> w;
  constant_loads(store->value.as<Add>()->b.as<Mul>()->b, f, w);
  if (w.size() != 1 || w[0]->buffer->dtype != DataType::i8()) return false;
  // The input's lane is a reduction iter var (a depthwise conv's is the output's lane).
  const VarNode* lane = x->indices.back().as<VarNode>();
  bool lane_reduced = false;
  for (const IterVar& iv : b->iter_vars)
    lane_reduced = lane_reduced || (iv.var.get() == lane && iv.kind == IterKind::kReduce);
  if (!lane_reduced) return false;
  size_t spatial = 0, reduce = 0;
  for (const IterVar& iv : b->iter_vars) (iv.kind == IterKind::kSpatial ? spatial : reduce)++;
  return spatial >= 4 && reduce >= 2 && store->buffer->shape.size() == spatial;
}

// Each bias read past OC padded to whole blocks of nr ([ceil(OC / NR), NR]).
void pad_biases(Schedule& s, BlockRV conv, const std::string& block,
                const std::vector<const BufferLoad*>& biases, int64_t nr) {
  for (const BufferLoad* bias : biases) {
    int64_t oc = 0;
    if (bias->buffer->shape.size() != 1 || !is_const_int(bias->buffer->shape[0], &oc) ||
        oc % nr == 0)
      continue;
    const Block* b = find_block(s.func().body, block, nullptr)->block;
    s.transform_layout(conv, read_index_of(b, bias->buffer.get()), {0, nr}, {});
  }
}

// X of acc = acc + sum_t(X[..]) * <the weights>, acc of `sum_t`, or nullptr.
const BufferLoad* widened_conv_input(const Block* b, DataType sum_t) {
  const BufferStore* store = body_store(b);
  if (store == nullptr || store->buffer->dtype != sum_t) return nullptr;
  auto* add = store->value.as<Add>();
  auto* acc = add ? add->a.as<BufferLoad>() : nullptr;
  auto* mul = add ? add->b.as<Mul>() : nullptr;
  auto* widened = mul ? mul->a.as<Cast>() : nullptr;
  auto* x = widened ? widened->value.as<BufferLoad>() : nullptr;
  if (acc == nullptr || acc->buffer.get() != store->buffer.get() || x == nullptr) return nullptr;
  return x;
}

}  // namespace

bool sums_in_scratch(const PrimFunc& f, const Block* b) {
  const BufferStore* store = body_store(b);
  if (store == nullptr) return false;
  for (int p : f.scratch_params)
    if (f.params[size_t(p)].get() == store->buffer.get()) return true;
  return false;
}

const BufferLoad* int8_conv_input(const Block* b) {
  const BufferLoad* x = widened_conv_input(b, DataType::i32());
  return x != nullptr && x->buffer->dtype.bits == 8 ? x : nullptr;
}

const BufferLoad* bf16_conv_input(const Block* b) {
  const BufferLoad* x = widened_conv_input(b, DataType::f32());
  return x != nullptr && x->buffer->dtype.is_bfloat16() ? x : nullptr;
}

void lay_out_conv_weights(Schedule& s, const std::string& block) {
  BlockRV conv = s.get_block(block);
  const PrimFunc f = s.func();  // a copy: the loads below stay alive through the rewrites
  const Block* b = find_block(f.body, block, nullptr)->block;
  const BufferStore* store = body_store(b);
  INGOT_ICHECK(store != nullptr, "conv rule: block {} is not one store", block);
  const int64_t nr = [&] {
    int64_t e = 0;
    is_const_int(store->buffer->shape.back(), &e);
    return e;
  }();
  std::vector<const BufferLoad*> weights, biases;
  constant_loads(store->value, f, weights);
  if (auto* init = b->init.defined() ? b->init.as<BufferStore>() : nullptr)
    constant_loads(init->value, f, biases);
  for (const BufferLoad* w : weights) {
    if (w->buffer->shape.size() + 1 != store->buffer->shape.size()) continue;  // laid out
    // Splits: each index `outer * f + inner` by f. The dims after them, each read by one iter
    // var or a constant, ordered: the output block (the first spatial iter var), constant dims,
    // the reduction dims as the block iterates them, the channel within the block (the other
    // spatial iter vars) innermost.
    std::vector<int64_t> splits, constant;
    std::vector<std::pair<size_t, int64_t>> spatial, reduce;  // (iter var position, dim)
    auto place = [&](const VarNode* v, int64_t dim) {
      size_t at = b->iter_vars.size();
      for (size_t k = 0; k < b->iter_vars.size(); ++k)
        if (v == b->iter_vars[k].var.get()) at = k;
      INGOT_ICHECK(at < b->iter_vars.size(), "conv rule: weight index {} is not an iter var",
                   v->name);
      (b->iter_vars[at].kind == IterKind::kSpatial ? spatial : reduce).push_back({at, dim});
    };
    int64_t dim = 0;
    for (size_t d = 0; d < w->indices.size(); ++d) {
      if (std::optional<SplitIndex> sp = split_index(w->indices[d])) {
        splits.insert(splits.end(), {int64_t(d), sp->factor});
        place(sp->outer, dim++);
        place(sp->inner, dim++);
      } else if (is_const_int(w->indices[d])) {
        constant.push_back(dim++);
      } else {
        auto* v = unclamped(w->indices[d]).as<VarNode>();
        INGOT_ICHECK(v != nullptr, "conv rule: weight index {} is not an iter var",
                     to_string(w->indices[d]));
        place(v, dim++);
      }
    }
    std::sort(spatial.begin(), spatial.end());
    std::sort(reduce.begin(), reduce.end());
    INGOT_ICHECK(!spatial.empty(), "conv rule: block {} reads its weights per output block", block);
    std::vector<int64_t> perm = {spatial[0].second};
    perm.insert(perm.end(), constant.begin(), constant.end());
    for (const auto& r : reduce) perm.push_back(r.second);
    for (size_t k = 1; k < spatial.size(); ++k) perm.push_back(spatial[k].second);
    s.transform_layout(conv, read_index_of(b, w->buffer.get()), splits, perm);
    b = find_block(s.func().body, block, nullptr)->block;
  }
  pad_biases(s, conv, block, biases, nr);
}

void lay_out_dot_conv_weights(Schedule& s, const std::string& block, int group) {
  BlockRV conv = s.get_block(block);
  const PrimFunc f = s.func();
  const Block* b = find_block(f.body, block, nullptr)->block;
  const BufferStore* store = body_store(b);
  INGOT_ICHECK(store != nullptr, "conv rule: block {} is not one store", block);
  int64_t nr = 0;
  is_const_int(store->buffer->shape.back(), &nr);
  std::vector<const BufferLoad*> weights, biases;
  constant_loads(store->value, f, weights);
  if (auto* init = b->init.defined() ? b->init.as<BufferStore>() : nullptr)
    constant_loads(init->value, f, biases);
  INGOT_ICHECK(weights.size() == 1 && weights[0]->indices.size() >= 3,
               "dot conv rule: block {} reads no [OC, IC, k...] weights", block);
  // [OC, IC, k...] -> [OC/NR, NR, IC/G, G, k...] -> [OC/NR, IC/G, k..., NR, G].
  const int64_t rank = int64_t(weights[0]->indices.size());
  std::vector<int64_t> perm = {0, 2};
  for (int64_t d = 4; d < rank + 2; ++d) perm.push_back(d);
  perm.insert(perm.end(), {1, 3});
  s.transform_layout(conv, read_index_of(b, weights[0]->buffer.get()), {0, nr, 1, group}, perm);
  pad_biases(s, conv, block, biases, nr);
}

bool is_blocked_conv(const PrimFunc& f) {
  std::optional<BlockInfo> found = find_block(f.body, "conv", nullptr);
  if (!found) return false;
  const Block* b = found->block;
  const BufferStore* store = body_store(b);
  if (store == nullptr) return false;
  if (store->buffer->dtype == DataType::i32()) return is_int8_blocked_conv(f, b, store);
  if (store->buffer->dtype != DataType::f32()) return false;
  auto* add = store->value.as<Add>();
  auto* acc = add ? add->a.as<BufferLoad>() : nullptr;
  auto* mul = add ? add->b.as<Mul>() : nullptr;
  if (acc == nullptr || acc->buffer.get() != store->buffer.get() || mul == nullptr) return false;
  std::vector<const BufferLoad*> weights;
  constant_loads(mul->b, f, weights);
  size_t spatial = 0, reduce = 0;
  for (const IterVar& iv : b->iter_vars) (iv.kind == IterKind::kSpatial ? spatial : reduce)++;
  // (bfloat16 products: both operands widened, the input's lane a reduction iter var.)
  const BufferLoad* x = bf16_conv_input(b);
  if (x != nullptr && (weights.size() != 1 || !weights[0]->buffer->dtype.is_bfloat16()))
    return false;
  if (x == nullptr) x = mul->a.as<BufferLoad>();
  return weights.size() == 1 && x != nullptr && spatial >= 4 && reduce >= 2 &&
         store->buffer->shape.size() == spatial;
}

}  // namespace ingot::schedule

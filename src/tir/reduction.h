// Reductions as the loop IR writes them: a store that combines into its own element,
// `out[idx] = combine(out[idx], value)` with combine one of +, *, max, min (in either operand
// order) and `value` not reading `out`. Shared by the schedule's rfactor and the GPU lowering's
// cross-thread reductions, which both rebuild such a reduction from its combiner and identity.
#pragma once

#include <optional>

#include "tir/stmt.h"

namespace ingot::tir {

struct CombiningStore {
  NodeTag combiner = NodeTag::Add;  // Add, Mul, Max or Min
  Expr value;                       // what each step combines in
};

// The combiner and value of a store `out[idx] = combine(out[idx], value)`; nullopt otherwise.
std::optional<CombiningStore> match_combining_store(const BufferStore& store);

// The combiner's identity in `dtype` (0, 1, the lowest and the highest value).
Expr reduction_identity(NodeTag combiner, DataType dtype);

// combine(a, b).
Expr combine(NodeTag combiner, Expr a, Expr b);

// A float32 store accumulating the product of two float16 loads, `c[idx] = c[idx] +
// float(a[...]) * float(b[...])` (a tensor-core product's update): the two loads, in order.
struct WidenedProduct {
  const BufferLoad* a = nullptr;
  const BufferLoad* b = nullptr;
};
std::optional<WidenedProduct> match_widened_product(const BufferStore& store);

}  // namespace ingot::tir

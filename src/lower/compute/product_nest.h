// The loop nest of a product block (lower/compute/matmul_block.cpp, conv_block.cpp,
// weight_quant.cpp): spatial batch dims, the rows i and columns j, then one reduce k, each a
// serial loop around one block, which the product and conv rules schedule; and a float16
// product's float32 accumulator.
#pragma once

#include <string>
#include <vector>

#include "lower/compute/common.h"
#include "tir/block_nest.h"
#include "tir/op.h"
#include "tir/region_analysis.h"

namespace ingot::lower {

// The loops and iter vars of a product, outermost first.
struct ProductNest {
  std::vector<tir::Var> loops;
  std::vector<tir::IterVar> iters;
  std::vector<tir::Expr> extents;
  tir::Var add(const std::string& name, int64_t extent, tir::IterKind kind) {
    return add(name, tir::i64(extent), kind);
  }
  // A symbolic extent (the rows of a sequence) too.
  tir::Var add(const std::string& name, tir::Expr extent, tir::IterKind kind) {
    tir::Var v("v" + name);
    loops.push_back(tir::Var(name));
    iters.push_back({v, tir::i64(0), extent, kind});
    extents.push_back(extent);
    return v;
  }
  // The block over `body` (init: `init`) inside its loops.
  tir::Stmt make(tir::Stmt body, tir::Stmt init, const std::string& name = "matmul") const {
    std::vector<tir::Expr> values(loops.begin(), loops.end());
    tir::Stmt s =
        tir::BlockRealize::make(values, tir::make_const(tir::DataType::boolean(), 1),
                                tir::make_block(name, iters, std::move(body), std::move(init)));
    for (size_t d = loops.size(); d-- > 0;)
      s = tir::For::make(loops[d], tir::i64(0), extents[d], tir::ForKind::kSerial, s);
    return s;
  }
};

// Where a product accumulates: y itself, or for a float16 y a float32 buffer of its shape.
inline tir::Buffer accumulator_of(const tir::Buffer& y) {
  if (accum_dtype(y->dtype) == y->dtype) return y;
  return tir::Buffer::make(y->name + "_acc", accum_dtype(y->dtype), const_shape(y));
}

// The kernel of a float16 product: its float32 accumulator allocated at the root around the
// product and the pass rounding it into the output (with the epilogue, in float32); the GPU
// matmul rule folds that pass into its write-back, so the accumulator never reaches memory.
inline tir::Stmt widened_kernel(const tir::Buffer& acc, tir::Stmt product, tir::Stmt rounding) {
  return tir::make_root(tir::SeqStmt::make({std::move(product), std::move(rounding)}), {acc});
}

}  // namespace ingot::lower

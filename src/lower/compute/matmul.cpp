// Compute rules of Gemm and MatMul (the products the packed matmul rule does not take): a row
// block per output row, i, k, j loop order with j innermost (lane loops) over a
// zero-initialised output row, so the inner loop is a contiguous multiply-accumulate. A float16
// row is accumulated in a float32 scratch row and rounded once. Over a symbolic output whose B is
// read along k, a dot product per output element (symbolic_product.h). No loop kinds: the
// injective rule sets them.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "lower/compute/epilogue.h"
#include "lower/compute/matmul_operand.h"
#include "lower/compute/symbolic_product.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

Stmt dot_product_nest(const Buffer& y, const SymbolicProduct& p) {
  const DataType acc_dt = accum_dtype(y->dtype);
  // Rows innermost among the block's loops: a row of B (one output column) stays in cache
  // across them.
  std::vector<Expr> outer = p.batch;
  outer.push_back(p.cols);
  outer.push_back(p.rows);
  return loop_nest(Extents(outer), "b", [&](const Index& o) {
    Index batch(o.begin(), o.end() - 2);
    Expr j = o[o.size() - 2], i = o.back();
    Accumulator acc("dot", acc_dt);
    Stmt sum = acc.reduce(Extents({p.depth}), "k", [&](const Index& k) {
      return acc.get() + widen(p.a_at(batch, i, k[0])) * widen(p.b_at(batch, k[0], j));
    });
    Expr v = p.finish ? p.finish(acc.get(), batch, i, j) : acc.get();
    return acc.scope(SeqStmt::make({acc.set(make_const(acc_dt, 0)), sum,
                                    BufferStore::make(y, cast(y->dtype, v), p.y_at(batch, i, j))}));
  });
}

Stmt compute_gemm(const graph::Node& node, const std::vector<Buffer>& inputs,
                  const std::vector<Buffer>& outputs) {
  const Buffer& a = inputs.at(0);
  const Buffer& b = inputs.at(1);
  Buffer c = inputs.size() > 2 ? inputs[2] : Buffer();
  const Buffer& y = outputs.at(0);
  check_dtype(node, a, DTypeClass::kNumeric);
  check_dtype(node, b, DTypeClass::kNumeric);
  const GemmAttrs g(node);
  const bool trans_a = g.trans_a, trans_b = g.trans_b, has_c = g.uses_c(c);
  const std::vector<Expr>&as = a->shape, &ys = y->shape;
  Expr rows = ys[0], cols = ys[1], depth = trans_a ? as[0] : as[1];
  if (is_symbolic(y) && trans_b) {
    SymbolicProduct p{{},
                      rows,
                      cols,
                      depth,
                      [&](const Index&, Expr i, Expr k) {
                        return trans_a ? a.load({k, i}) : a.load({i, k});
                      },
                      [&](const Index&, Expr k, Expr j) {
                        return trans_b ? b.load({j, k}) : b.load({k, j});
                      },
                      [](const Index&, Expr i, Expr j) {
                        return Index{i, j};
                      },
                      nullptr};
    if (g.alpha != 1.0 || has_c)
      p.finish = [&](Expr v, const Index&, Expr i, Expr j) {
        Expr cv = has_c ? widen(c.load(broadcast_index(c, {i, j}))) : Expr();
        return g.scaled(v, cv);
      };
    return dot_product_nest(y, p);
  }

  // A row per output row (block "rows", scheduled by the injective rule: the rows in parallel,
  // the lane loops vectorized).
  return loop_nest(Extents({rows}), "i", [&](const Index& o) {
    Expr i = o[0];
    RowAccum row(y, cols, [&](Expr j) { return Index{i, j}; });
    Expr zero = make_const(row.dtype, 0);
    Stmt init = lane_loop("j", i64(0), cols, [&](Expr j) { return row.store(j, zero); });
    Stmt update = serial_loop("k", i64(0), depth, [&](Expr k) {
      return lane_loop("j", i64(0), cols, [&](Expr j) {
        Expr av = widen(trans_a ? a.load({k, i}) : a.load({i, k}));
        Expr bv = widen(trans_b ? b.load({j, k}) : b.load({k, j}));
        return row.store(j, row.load(j) + av * bv);
      });
    });
    std::vector<Stmt> seq = {init, update};
    if (g.alpha != 1.0 || has_c) {
      seq.push_back(lane_loop("j", i64(0), cols, [&](Expr j) {
        Expr cv = has_c ? widen(c.load(broadcast_index(c, {i, j}))) : Expr();
        return row.store(j, g.scaled(row.load(j), cv));
      }));
    }
    return row.wrap(SeqStmt::make(seq));
  });
}

Stmt compute_matmul(const graph::Node& node, const std::vector<Buffer>& inputs,
                    const std::vector<Buffer>& outputs) {
  const OperandView a{inputs.at(0), node.attrs.get_ints("perm_a")};
  const OperandView b{inputs.at(1), node.attrs.get_ints("perm_b")};
  const Buffer& y = outputs.at(0);
  check_dtype(node, a.buf, DTypeClass::kNumeric);
  check_dtype(node, b.buf, DTypeClass::kNumeric);
  std::vector<Expr> as = a.shape(), bs = b.shape();
  const std::vector<Expr>& ys = y->shape;
  bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  Expr depth = as.back();
  Expr rows = a_vec ? i64(1) : as[as.size() - 2];
  Expr cols = b_vec ? i64(1) : bs.back();
  // Output = batch dims, then M (unless A is 1-D), then N (unless B is 1-D).
  int batch_rank = int(ys.size()) - (a_vec ? 0 : 1) - (b_vec ? 0 : 1);
  std::vector<Expr> outer(ys.begin(), ys.begin() + batch_rank);
  outer.push_back(rows);

  auto batch_index = [&](const std::vector<Expr>& shape, int matrix_rank, const Index& batch) {
    return operand_batch_index(shape, matrix_rank, batch_rank, batch);
  };
  // B's physical innermost dim is its k (a transposed weight): perm_b swaps its last two dims.
  const std::vector<int64_t> perm_b = node.attrs.get_ints("perm_b");
  const bool b_along_k = !b_vec && perm_b.size() >= 2 &&
                         perm_b.back() == int64_t(perm_b.size()) - 2 &&
                         perm_b[perm_b.size() - 2] == int64_t(perm_b.size()) - 1;
  Stmt product;
  if (is_symbolic(y) && b_along_k) {
    SymbolicProduct p{std::vector<Expr>(ys.begin(), ys.begin() + batch_rank),
                      rows,
                      cols,
                      depth,
                      [&](const Index& batch, Expr i, Expr k) {
                        Index ai = a_vec ? Index{k} : batch_index(as, 2, batch);
                        if (!a_vec) {
                          ai.push_back(i);
                          ai.push_back(k);
                        }
                        return a.load(ai);
                      },
                      [&](const Index& batch, Expr k, Expr j) {
                        Index bi = b_vec ? Index{k} : batch_index(bs, 2, batch);
                        if (!b_vec) {
                          bi.push_back(k);
                          bi.push_back(j);
                        }
                        return b.load(bi);
                      },
                      [&](const Index& batch, Expr i, Expr j) {
                        Index idx = batch;
                        if (!a_vec) idx.push_back(i);
                        if (!b_vec) idx.push_back(j);
                        return idx;
                      },
                      nullptr};
    product = dot_product_nest(y, p);
  }

  if (!product.defined())
    product = loop_nest(outer, "b", [&](const Index& o) {
      Index batch(o.begin(), o.end() - 1);
      Expr i = o.back();
      auto y_index = [&](Expr j) {
        Index idx = batch;
        if (!a_vec) idx.push_back(i);
        if (!b_vec) idx.push_back(j);
        return idx;
      };
      RowAccum row(y, cols, y_index);
      Expr zero = make_const(row.dtype, 0);
      Stmt init = lane_loop("j", i64(0), cols, [&](Expr j) { return row.store(j, zero); });
      Stmt update = serial_loop("k", i64(0), depth, [&](Expr k) {
        return lane_loop("j", i64(0), cols, [&](Expr j) {
          Index ai = a_vec ? Index{k} : batch_index(as, 2, batch);
          if (!a_vec) {
            ai.push_back(i);
            ai.push_back(k);
          }
          Index bi = b_vec ? Index{k} : batch_index(bs, 2, batch);
          if (!b_vec) {
            bi.push_back(k);
            bi.push_back(j);
          }
          return row.store(j, row.load(j) + widen(a.load(ai)) * widen(b.load(bi)));
        });
      });
      return row.wrap(SeqStmt::make({init, update}));
    });
  // The fused epilogue (bias row, summand, activation), a second pass over the output.
  Buffer bias = inputs.size() > 2 ? inputs[2] : Buffer();
  Buffer z = inputs.size() > 3 ? inputs[3] : Buffer();
  if (!bias.defined() && !has_epilogue(node)) return product;
  Stmt epilogue = epilogue_pass(node, y, bias, z);
  return SeqStmt::make({product, epilogue});
}

}  // namespace ingot::lower

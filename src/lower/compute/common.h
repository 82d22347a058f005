// Shared helpers of the compute rules: node labels for messages, dtype mapping, constant
// shapes, loop-nest construction (block form, or parallel outer / vectorized inner loops) and
// broadcast indexing.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "tir/op.h"
#include "tir/stmt.h"

namespace ingot::lower {

using Index = std::vector<tir::Expr>;
using BodyFn = std::function<tir::Stmt(const Index&)>;

// "node 'conv1' (Conv)" for messages.
std::string node_label(const graph::Node& node);
// The node's `axis` attribute (or `def` when absent) made non-negative for `rank` dims;
// type inference already normalised it, so out of range is an internal error.
int node_axis(const graph::Node& node, int64_t def, int rank);

// Graph dtype -> loop-IR scalar dtype (bool is stored as one byte).
tir::DataType to_tir_dtype(graph::DType d);

// The constant shape of a buffer (InternalError if a dim is not an IntImm).
std::vector<int64_t> const_shape(const tir::Buffer& b);
int64_t num_elements(const std::vector<int64_t>& shape);
// Whether a dim of `b` is not a constant (a symbolic dim: docs/dynamic-shapes.md), and the
// element count as an expression.
bool is_symbolic(const tir::Buffer& b);
tir::Expr num_elements(const tir::Buffer& b);
// The product of extents (1 for none), and int64 extents as expressions.
tir::Expr product(const std::vector<tir::Expr>& dims);
std::vector<tir::Expr> exprs(const std::vector<int64_t>& dims);
// Row-major strides of a shape, in elements.
std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape);

// UserError unless `b`'s dtype is one of the accepted kinds (kFloat: float16/32/64).
enum class DTypeClass { kFloat, kNumeric, kAny };
void check_dtype(const graph::Node& node, const tir::Buffer& b, DTypeClass accepted);

// Loop nest over `shape` (outermost first); body(idx) builds the innermost statement. Dims of
// extent 1 get the constant index 0 and no loop. With no non-trivial dim, body runs once.
// loop_nest is a block nest: one spatial block over the output's indices, a store ("compute")
// or a row ("rows"), whose loops the schedule rules give their kinds (parallel, vectorized;
// schedule/rules/injective.h). Inside a row, serial_nest is plain serial loops and lane_nest
// the same with its innermost loop a lane loop (lane_loop below). Lowering describes the
// loops; every loop kind is the schedule's.
tir::Stmt loop_nest(const std::vector<int64_t>& shape, const std::string& prefix,
                    const BodyFn& body);
// Extents that may be symbolic (a buffer's shape): its own type, so a braced list of integers
// still picks the int64 overloads.
struct Extents {
  Extents(std::vector<tir::Expr> d) : dims(std::move(d)) {}  // NOLINT(google-explicit-constructor)
  std::vector<tir::Expr> dims;
};
tir::Stmt loop_nest(const Extents& shape, const std::string& prefix, const BodyFn& body);
tir::Stmt serial_nest(const std::vector<int64_t>& shape, const std::string& prefix,
                      const BodyFn& body);
tir::Stmt serial_nest(const Extents& shape, const std::string& prefix, const BodyFn& body);
tir::Stmt lane_nest(const Extents& shape, const std::string& prefix, const BodyFn& body);
// A plain serial loop over [min, min + extent) (none when extent is 1: body(min)).
tir::Stmt serial_loop(const std::string& name, tir::Expr min, int64_t extent,
                      const std::function<tir::Stmt(tir::Expr)>& body);
tir::Stmt serial_loop(const std::string& name, tir::Expr min, tir::Expr extent,
                      const std::function<tir::Stmt(tir::Expr)>& body);

// Inside a row (the body of a block nest that is not one store): a loop over [min, min + extent)
// whose iterations are independent stores along a contiguous run (a row's init, update or write
// pass). It is a spatial block "lanes" bound to a serial loop, which the injective rule vectorizes;
// body(min) alone when extent is 1.
tir::Stmt lane_loop(const std::string& name, tir::Expr min, int64_t extent,
                    const std::function<tir::Stmt(tir::Expr)>& body);
tir::Stmt lane_loop(const std::string& name, tir::Expr min, tir::Expr extent,
                    const std::function<tir::Stmt(tir::Expr)>& body);

// Numpy broadcasting: the index into `in` (rank <= out rank, right-aligned) for output index
// `out_idx`; dims of extent 1 in `in` read index 0.
Index broadcast_index(const tir::Buffer& in, const Index& out_idx);

// Index of zeros for reading a scalar (rank 0 or all-ones shape) tensor.
Index scalar_index(const tir::Buffer& b);

// A one-element local accumulator and helpers to read / update it.
struct Accumulator {
  tir::Buffer buf;
  explicit Accumulator(const std::string& name, tir::DataType dtype);
  tir::Expr get() const;
  tir::Stmt set(tir::Expr v) const;
  // Allocate the buffer around `body`.
  tir::Stmt scope(tir::Stmt body) const;
  // acc = value(r) for each index r of `shape` in order (dims of extent 1 get index 0, no
  // loop), where value combines get() with the step's term (get() + x, max(get(), x), ...): a
  // reduction block named after the buffer, its reduce iter vars bound to serial loops
  // `<prefix>k`, which the schedule may split into partial results (rules/row_reduction.h).
  // `before` (optional) builds stores into other buffers that run at each step first (the
  // update may read them back).
  tir::Stmt reduce(const std::vector<int64_t>& shape, const std::string& prefix,
                   const std::function<tir::Expr(const Index&)>& value,
                   const BodyFn& before = nullptr) const;
  tir::Stmt reduce(const Extents& shape, const std::string& prefix,
                   const std::function<tir::Expr(const Index&)>& value,
                   const BodyFn& before = nullptr) const;
};

// float16 results are accumulated in float32 and rounded once: the accumulation dtype of `d`
// (float32 for float16, else `d`), and `e` widened to it (a no-op unless `e` is float16).
tir::DataType accum_dtype(tir::DataType d);
tir::Expr widen(tir::Expr e);

// One output row accumulated in accum_dtype(y's dtype): the row of `y` itself, or for a float16
// `y` a local float32 row of `len` elements that wrap() rounds into `y` after the body ran. With
// `finish` (integer kernels): a local row of `acc` that wrap() writes as finish(value, j).
struct RowAccum {
  RowAccum(const tir::Buffer& y, tir::Expr len, std::function<Index(tir::Expr)> y_index);
  RowAccum(const tir::Buffer& y, tir::Expr len, std::function<Index(tir::Expr)> y_index,
           tir::DataType acc, std::function<tir::Expr(tir::Expr, tir::Expr)> finish);
  tir::DataType dtype;
  std::function<tir::Expr(tir::Expr, tir::Expr)> finish;
  tir::Expr load(tir::Expr j) const;
  tir::Stmt store(tir::Expr j, tir::Expr v) const;  // `v` is cast to `dtype`
  tir::Stmt wrap(tir::Stmt body) const;
  tir::Buffer y, local;
  tir::Expr len;
  std::function<Index(tir::Expr)> y_index;
  // The lanes wrap() writes to y (len unless set): a local accumulator over whole vector blocks
  // of which only the first flush_len are real columns.
  tir::Expr flush_len;
};

// conv.cpp: the loop nest of an N-d convolution (NCHW-style; the node's window attributes): per
// output row (row_of(o, m): the outer output index without the width, and the output channel)
// initialised with init(m), accumulating term(x element, w element) over the input channels and
// kernel offsets, output width innermost, and wrapped up by the row. Conv and QConv share it.
tir::Stmt conv_rows(const graph::Node& node, const tir::Buffer& x, const tir::Buffer& w,
                    const tir::Buffer& y,
                    const std::function<RowAccum(const Index& outer_index, tir::Expr m)>& row_of,
                    const std::function<tir::Expr(tir::Expr m)>& init,
                    const std::function<tir::Expr(tir::Expr xv, tir::Expr wv)>& term);

// ONNX integer division (truncates toward zero) built from floordiv/floormod.
tir::Expr trunc_div(tir::Expr a, tir::Expr b);
// ONNX Cast of one value: to bool tests for non-zero, otherwise a plain conversion.
tir::Expr onnx_cast(tir::DataType to, tir::Expr x);

}  // namespace ingot::lower

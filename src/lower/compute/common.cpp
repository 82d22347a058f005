// Shared helpers of the compute rules: loop nests, broadcasting, dtype checks, accumulators.
#include "lower/compute/common.h"

#include <fmt/format.h>

#include "support/error.h"
#include "tir/region_analysis.h"
#include "tir/substitute.h"

namespace ingot::lower {

using namespace tir;

std::string node_label(const graph::Node& node) {
  return fmt::format("node '{}' ({})", node.name, ops::op_name(node.op));
}

int node_axis(const graph::Node& node, int64_t def, int rank) {
  int64_t axis = node.attrs.get_int("axis", def);
  if (axis < 0) axis += rank;
  INGOT_ICHECK(axis >= 0 && axis < rank, "{}: axis {} out of range for rank {}", node_label(node),
               axis, rank);
  return int(axis);
}

DataType to_tir_dtype(graph::DType d) {
  switch (d) {
    case graph::DType::kF32:
      return DataType::f32();
    case graph::DType::kF16:
      return DataType::f16();
    case graph::DType::kBF16:
      return DataType::bf16();
    case graph::DType::kF64:
      return DataType::f64();
    case graph::DType::kI8:
      return DataType::i8();
    case graph::DType::kI16:
      return DataType{DataType::kInt, 16, 1};
    case graph::DType::kI32:
      return DataType::i32();
    case graph::DType::kI64:
      return DataType::i64();
    case graph::DType::kU8:
      return DataType::u8();
    case graph::DType::kU16:
      return DataType{DataType::kUInt, 16, 1};
    case graph::DType::kU32:
      return DataType{DataType::kUInt, 32, 1};
    case graph::DType::kU64:
      return DataType{DataType::kUInt, 64, 1};
    case graph::DType::kBool:
      return DataType::boolean();
  }
  fail_internal("unknown graph dtype {}", int(d));
}

std::vector<int64_t> const_shape(const Buffer& b) {
  std::vector<int64_t> shape;
  for (const Expr& e : b->shape) {
    int64_t v = 0;
    INGOT_ICHECK(is_const_int(e, &v), "buffer {} has a non-constant dimension", b->name);
    shape.push_back(v);
  }
  return shape;
}

int64_t num_elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int k = int(shape.size()) - 2; k >= 0; --k) s[k] = s[k + 1] * shape[k + 1];
  return s;
}

void check_dtype(const graph::Node& node, const Buffer& b, DTypeClass accepted) {
  DataType d = b->dtype;
  bool ok = accepted == DTypeClass::kAny || (accepted == DTypeClass::kFloat && d.is_float()) ||
            (accepted == DTypeClass::kNumeric && (d.is_float() || d.is_integer()));
  if (!ok)
    fail_user("{}: dtype {} is not supported (tensor '{}')", node_label(node), d.str(), b->name);
}

namespace {

bool is_one(const Expr& e) {
  int64_t v = 0;
  return is_const_int(e, &v) && v == 1;
}

std::vector<Expr> to_exprs(const std::vector<int64_t>& shape) {
  std::vector<Expr> out;
  for (int64_t d : shape) out.push_back(i64(d));
  return out;
}

// Serial loops (innermost last) around `s`.
Stmt wrap_loops(Stmt s, const std::vector<Var>& vars, const std::vector<Expr>& extents) {
  for (size_t n = vars.size(); n-- > 0;)
    s = For::make(vars[n], i64(0), extents[n], ForKind::kSerial, s);
  return s;
}

// The loops of a nest over `shape` (dims of extent 1 get index 0 and no loop): loop vars
// `<prefix>k`, and, with `block`, iter vars `v<prefix>k` of that kind bound to them (else the
// index is the loop var).
struct NestVars {
  Index idx;
  std::vector<IterVar> iters;
  std::vector<Var> loop_vars;
  std::vector<Expr> extents;
};
NestVars nest_vars(const std::vector<Expr>& shape, const std::string& prefix, bool block,
                   IterKind kind) {
  NestVars n;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (is_one(shape[k])) {
      n.idx.push_back(i64(0));
      continue;
    }
    Var loop(fmt::format("{}{}", prefix, k));
    Var index = block ? Var(fmt::format("v{}{}", prefix, k)) : loop;
    n.idx.push_back(index);
    n.iters.push_back({index, i64(0), shape[k], kind});
    n.loop_vars.push_back(loop);
    n.extents.push_back(shape[k]);
  }
  return n;
}

}  // namespace

bool is_symbolic(const Buffer& b) {
  for (const Expr& e : b->shape)
    if (!is_const_int(e)) return true;
  return false;
}

Expr num_elements(const Buffer& b) {
  return product(b->shape);
}

Expr product(const std::vector<Expr>& dims) {
  Expr n = i64(1);
  for (const Expr& e : dims) n = is_one(n) ? e : n * e;
  return n;
}

std::vector<Expr> exprs(const std::vector<int64_t>& dims) {
  return to_exprs(dims);
}

Stmt loop_nest(const std::vector<int64_t>& shape, const std::string& prefix, const BodyFn& body) {
  return loop_nest(to_exprs(shape), prefix, body);
}

Stmt loop_nest(const Extents& extents_of, const std::string& prefix, const BodyFn& body) {
  // The body is built on block iter vars and becomes a block (one store: "compute"; anything
  // else, a row: "rows") whose spatial iter vars are bound to serial loops; the schedule rules
  // give the loops their kinds (schedule/rules/injective.h).
  auto [idx, iters, loop_vars, extents] =
      nest_vars(extents_of.dims, prefix, true, IterKind::kSpatial);
  Stmt s = body(idx);
  std::vector<Expr> values(loop_vars.begin(), loop_vars.end());
  // Names independent of the tensors, so equal computations are equal kernels (one tuning
  // task, one trace for all).
  std::string name = s.as<BufferStore>() != nullptr ? "compute" : "rows";
  Stmt realize =
      BlockRealize::make(values, make_const(DataType::boolean(), 1), make_block(name, iters, s));
  return wrap_loops(realize, loop_vars, extents);
}

Stmt serial_nest(const std::vector<int64_t>& shape, const std::string& prefix, const BodyFn& body) {
  return serial_nest(to_exprs(shape), prefix, body);
}

Stmt serial_nest(const Extents& extents_of, const std::string& prefix, const BodyFn& body) {
  auto [idx, iters, loop_vars, extents] =
      nest_vars(extents_of.dims, prefix, false, IterKind::kSpatial);
  return wrap_loops(body(idx), loop_vars, extents);
}

Stmt lane_nest(const Extents& extents_of, const std::string& prefix, const BodyFn& body) {
  const std::vector<Expr>& shape = extents_of.dims;
  size_t inner = shape.size();
  while (inner > 0 && is_one(shape[inner - 1])) --inner;
  if (inner == 0) return serial_nest(extents_of, prefix, body);
  --inner;
  std::vector<Expr> outer = shape;
  outer[inner] = i64(1);
  return serial_nest(Extents(outer), prefix, [&](const Index& o) {
    return lane_loop(fmt::format("{}{}", prefix, inner), i64(0), shape[inner], [&](Expr v) {
      Index i = o;
      i[inner] = v;
      return body(i);
    });
  });
}

Stmt serial_loop(const std::string& name, Expr min, int64_t extent,
                 const std::function<Stmt(Expr)>& body) {
  return serial_loop(name, std::move(min), i64(extent), body);
}

Stmt serial_loop(const std::string& name, Expr min, Expr extent,
                 const std::function<Stmt(Expr)>& body) {
  if (is_one(extent)) return body(min);
  Var v(name);
  return For::make(v, min, extent, ForKind::kSerial, body(v));
}

Stmt lane_loop(const std::string& name, Expr min, int64_t extent,
               const std::function<Stmt(Expr)>& body) {
  return lane_loop(name, std::move(min), i64(extent), body);
}

Stmt lane_loop(const std::string& name, Expr min, Expr extent,
               const std::function<Stmt(Expr)>& body) {
  if (is_one(extent)) return body(min);
  Var loop(name), index("v" + name);
  Stmt block = make_block("lanes", {{index, min, extent, IterKind::kSpatial}}, body(index));
  return For::make(loop, min, extent, ForKind::kSerial,
                   BlockRealize::make({loop}, make_const(DataType::boolean(), 1), block));
}

Index broadcast_index(const Buffer& in, const Index& out_idx) {
  const std::vector<Expr>& shape = in->shape;
  INGOT_ICHECK(shape.size() <= out_idx.size(), "broadcast of rank {} into rank {}", shape.size(),
               out_idx.size());
  size_t off = out_idx.size() - shape.size();
  Index idx;
  for (size_t k = 0; k < shape.size(); ++k)
    idx.push_back(is_one(shape[k]) ? i64(0) : out_idx[off + k]);
  return idx;
}

Index scalar_index(const Buffer& b) {
  return Index(b->shape.size(), i64(0));
}

Accumulator::Accumulator(const std::string& name, DataType dtype)
    : buf(Buffer::make(name, dtype, std::vector<int64_t>{1}, StorageScope::kLocal)) {}
Expr Accumulator::get() const {
  return buf.load({i64(0)});
}
Stmt Accumulator::set(Expr v) const {
  return BufferStore::make(buf, std::move(v), {i64(0)});
}
Stmt Accumulator::scope(Stmt body) const {
  return Allocate::make(buf, std::move(body));
}
Stmt Accumulator::reduce(const std::vector<int64_t>& shape, const std::string& prefix,
                         const std::function<Expr(const Index&)>& value,
                         const BodyFn& before) const {
  return reduce(to_exprs(shape), prefix, value, before);
}
Stmt Accumulator::reduce(const Extents& shape, const std::string& prefix,
                         const std::function<Expr(const Index&)>& value,
                         const BodyFn& before) const {
  auto [idx, iters, loop_vars, extents] = nest_vars(shape.dims, prefix, true, IterKind::kReduce);
  Stmt update = set(value(idx));
  if (before) update = SeqStmt::make({before(idx), update});
  if (iters.empty()) return update;
  std::vector<Expr> values(loop_vars.begin(), loop_vars.end());
  Stmt realize = BlockRealize::make(values, make_const(DataType::boolean(), 1),
                                    make_block(buf->name, iters, update));
  return wrap_loops(realize, loop_vars, extents);
}

DataType accum_dtype(DataType d) {
  return d.is_float() && d.bits == 16 ? DataType::f32(d.lanes) : d;
}
Expr widen(Expr e) {
  return cast(accum_dtype(e.dtype()), e);
}

RowAccum::RowAccum(const Buffer& y, Expr len, std::function<Index(Expr)> y_index)
    : dtype(accum_dtype(y->dtype)), y(y), len(len), y_index(std::move(y_index)), flush_len(len) {
  if (dtype != y->dtype)
    local = Buffer::make(y->name + "_acc", dtype, std::vector<Expr>{len}, StorageScope::kLocal);
}
RowAccum::RowAccum(const Buffer& y, Expr len, std::function<Index(Expr)> y_index, DataType acc,
                   std::function<Expr(Expr, Expr)> finish)
    : dtype(acc),
      finish(std::move(finish)),
      y(y),
      len(len),
      y_index(std::move(y_index)),
      flush_len(len) {
  local = Buffer::make(y->name + "_acc", dtype, std::vector<Expr>{len}, StorageScope::kLocal);
}
Expr RowAccum::load(Expr j) const {
  return local.defined() ? local.load({j}) : y.load(y_index(j));
}
Stmt RowAccum::store(Expr j, Expr v) const {
  v = cast(dtype, std::move(v));
  return local.defined() ? BufferStore::make(local, v, {j}) : BufferStore::make(y, v, y_index(j));
}
Stmt RowAccum::wrap(Stmt body) const {
  if (!local.defined()) return body;
  // The flush is a lane loop: a block the rules vectorize.
  Stmt flush = lane_loop("j", i64(0), flush_len, [&](Expr j) {
    Expr v = local.load({j});
    return BufferStore::make(y, finish ? finish(v, j) : cast(y->dtype, v), y_index(j));
  });
  return Allocate::make(local, SeqStmt::make({std::move(body), flush}));
}

Expr onnx_cast(DataType to, Expr x) {
  if (to.is_bool() && !x.dtype().is_bool()) return x != make_const(x.dtype(), 0);
  return cast(to, x);
}

Expr trunc_div(Expr a, Expr b) {
  Expr zero = make_const(a.dtype(), 0);
  Expr q = floordiv(a, b);
  Expr adjust = (floormod(a, b) != zero) && ((a < zero) != (b < zero));
  return select(adjust, q + make_const(a.dtype(), 1), q);
}

}  // namespace ingot::lower

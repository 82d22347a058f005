// Cost-model features of a scheduled kernel's loop IR (see features.h).
#include "tune/features.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "support/error.h"
#include "tir/analysis.h"
#include "tir/arith/analyzer.h"
#include "tir/arith/linear_form.h"
#include "tir/visitor.h"

namespace ingot::tune {

namespace {

using tir::arith::Analyzer;
using tir::arith::ConstIntBound;

// Arithmetic kinds counted per row, in feature order.
enum Op : int {
  kFAdd,
  kFMul,
  kFma,
  kFDiv,
  kFMinMax,
  kFMath,
  kIntOp,
  kCompare,
  kCast,
  kVecOp,
  kOps
};
const char* const kOpNames[kOps] = {"float_add",    "float_mul",   "float_fma", "float_div",
                                    "float_minmax", "float_math",  "int_ops",   "compare_select",
                                    "casts",        "vector_moves"};
constexpr int kBufferSlots = 5;
const char* const kBufferFeatures[] = {
    "present",      "written",     "read",        "bytes_accessed", "bytes_unique",
    "inner_stride", "reuse_count", "reuse_bytes", "scope",          "contiguous_vector"};
constexpr int kPerBuffer = int(std::size(kBufferFeatures));
const char* const kRowFeatures[] = {
    "stores",          "lanes",           "executions",       "loops",
    "loop_iterations", "inner_extent",    "parallel_loops",   "parallel_extent",
    "thread_balance",  "parallel_depth",  "vectorized_loops", "vectorized_extent",
    "unrolled_loops",  "unrolled_extent", "outlined_loops",   "accumulates",
    "local_bytes",     "l1_traffic",      "l2_traffic",       "intensity_l1",
    "intensity_l2",    "kernel_flops",    "kernel_rows"};
constexpr int64_t kL1Bytes = 32 << 10, kL2Bytes = 1 << 20;

float log1p2(double x) {
  return float(std::log2(1.0 + std::max(0.0, x)));
}

struct Access {
  const tir::BufferNode* buffer;
  std::vector<tir::Expr> indices;
  int lanes;
  bool write;
};

struct Loop {
  const tir::For* node;
  int64_t extent;
};

// A group of stores with the same enclosing loops and destination buffer.
struct Row {
  std::vector<Loop> loops;  // outermost first
  const tir::BufferNode* dest = nullptr;
  int stores = 0, lanes = 1;
  double ops[kOps] = {};  // one execution of all the row's stores, lanes counted
  std::vector<Access> accesses;
  bool accumulates = false;
  int64_t local_bytes = 0;
};

// Counts a store's arithmetic and collects its loads.
class OpCounter : public tir::IRVisitor {
 public:
  explicit OpCounter(Row& row) : row_(row) {}

 private:
  void count(Op k, const tir::Expr& e) { row_.ops[k] += e.dtype().lanes; }
  void binary(const tir::Expr& a, const tir::Expr& e, Op fk) {
    if (a.dtype().is_float()) {
      count(fk, e);
    } else {
      count(kIntOp, e);
    }
  }
  void visit_Add(const tir::node_type::Add* op, const tir::Expr& e) override {
    bool fma = e.dtype().is_float() &&
               (op->a.tag() == tir::NodeTag::Mul || op->b.tag() == tir::NodeTag::Mul);
    binary(op->a, e, fma ? kFma : kFAdd);
    IRVisitor::visit_Add(op, e);
  }
  // Float arithmetic by kind (integer arithmetic as kIntOp), and nodes counted as one kind.
#define INGOT_COUNT_BINARY(N, KIND)                                          \
  void visit_##N(const tir::node_type::N* op, const tir::Expr& e) override { \
    binary(op->a, e, KIND);                                                  \
    IRVisitor::visit_##N(op, e);                                             \
  }
#define INGOT_COUNT(N, KIND)                                                 \
  void visit_##N(const tir::node_type::N* op, const tir::Expr& e) override { \
    count(KIND, e);                                                          \
    IRVisitor::visit_##N(op, e);                                             \
  }
  INGOT_COUNT_BINARY(Sub, kFAdd)
  INGOT_COUNT_BINARY(Mul, kFMul)
  INGOT_COUNT_BINARY(Div, kFDiv)
  INGOT_COUNT_BINARY(Min, kFMinMax)
  INGOT_COUNT_BINARY(Max, kFMinMax)
  INGOT_COUNT(FloorDiv, kIntOp)
  INGOT_COUNT(FloorMod, kIntOp)
  INGOT_COUNT(EQ, kCompare)
  INGOT_COUNT(NE, kCompare)
  INGOT_COUNT(LT, kCompare)
  INGOT_COUNT(LE, kCompare)
  INGOT_COUNT(GT, kCompare)
  INGOT_COUNT(GE, kCompare)
  INGOT_COUNT(And, kCompare)
  INGOT_COUNT(Or, kCompare)
  INGOT_COUNT(Not, kCompare)
  INGOT_COUNT(Select, kCompare)
  INGOT_COUNT(Cast, kCast)
  INGOT_COUNT(Call, kFMath)
#undef INGOT_COUNT
#undef INGOT_COUNT_BINARY
  void visit_Broadcast(const tir::node_type::Broadcast* op, const tir::Expr& e) override {
    row_.ops[kVecOp] += 1;
    IRVisitor::visit_Broadcast(op, e);
  }
  void visit_Shuffle(const tir::node_type::Shuffle* op, const tir::Expr& e) override {
    row_.ops[kVecOp] += 1;
    IRVisitor::visit_Shuffle(op, e);
  }
  void visit_BufferLoad(const tir::node_type::BufferLoad* op, const tir::Expr& e) override {
    row_.accesses.push_back({op->buffer.get(), op->indices, e.dtype().lanes, false});
    if (op->buffer.get() == row_.dest) row_.accumulates = true;
    IRVisitor::visit_BufferLoad(op, e);
  }
  Row& row_;
};

// Walks the statements: loops entered, local allocations in scope, stores grouped into rows.
class RowCollector : public tir::IRVisitor {
 public:
  std::vector<Row> rows;
  Analyzer analyzer;  // every loop variable met so far, bound to its range

 private:
  void visit_For(const tir::For* op, const tir::Stmt& s) override {
    ConstIntBound lo = analyzer.bound_of(op->min), ext = analyzer.bound_of(op->extent);
    int64_t extent =
        ext.max_value == ConstIntBound::kPosInf ? 1 : std::max<int64_t>(1, ext.max_value);
    int64_t min = lo.min_value == ConstIntBound::kNegInf ? 0 : lo.min_value;
    analyzer.bind(op->loop_var, ConstIntBound{min, min + extent - 1});
    loops_.push_back({op, extent});
    IRVisitor::visit_For(op, s);
    loops_.pop_back();
  }
  void visit_Allocate(const tir::Allocate* op, const tir::Stmt& s) override {
    int64_t bytes = op->buffer->dtype.bytes();
    for (const tir::Expr& d : op->buffer->shape)
      if (auto* imm = d.as<tir::IntImm>()) bytes *= imm->value;
    local_bytes_ += bytes;
    IRVisitor::visit_Allocate(op, s);
    local_bytes_ -= bytes;
  }
  void visit_BufferStore(const tir::BufferStore* op, const tir::Stmt&) override {
    std::vector<const tir::For*> key;
    for (const Loop& l : loops_) key.push_back(l.node);
    auto [it, fresh] = index_.try_emplace({key, op->buffer.get()}, rows.size());
    if (fresh) {
      rows.emplace_back();
      rows.back().loops = loops_;
      rows.back().dest = op->buffer.get();
      rows.back().local_bytes = local_bytes_;
    }
    Row& row = rows[it->second];
    ++row.stores;
    row.lanes = std::max(row.lanes, int(op->value.dtype().lanes));
    row.accesses.push_back({op->buffer.get(), op->indices, op->value.dtype().lanes, true});
    OpCounter counter(row);
    counter.visit(op->value);
    for (const tir::Expr& i : op->indices) counter.visit(i);
  }
  std::vector<Loop> loops_;
  int64_t local_bytes_ = 0;
  std::map<std::pair<std::vector<const tir::For*>, const tir::BufferNode*>, size_t> index_;
};

// `outer` with the row's loops [0, level) fixed at their first value and the rest over their
// ranges.
Analyzer at_level(const Row& row, size_t level, const Analyzer& outer) {
  Analyzer a = outer;
  for (size_t k = 0; k < row.loops.size(); ++k) {
    ConstIntBound lo = a.bound_of(row.loops[k].node->min);
    int64_t min = lo.min_value == ConstIntBound::kNegInf ? 0 : lo.min_value;
    a.bind(row.loops[k].node->loop_var,
           ConstIntBound{min, k < level ? min : min + row.loops[k].extent - 1});
  }
  return a;
}

// Elements of `b` the row's accesses touch under `a` (from at_level: all iterations of the loops
// from a level inward, the loops outside it at their first value).
double footprint(const Row& row, const tir::BufferNode* b, const Analyzer& a) {
  std::vector<std::pair<int64_t, int64_t>> span;  // per dimension
  for (const Access& acc : row.accesses) {
    if (acc.buffer != b) continue;
    if (span.empty())
      span.assign(acc.indices.size(), {ConstIntBound::kPosInf, ConstIntBound::kNegInf});
    for (size_t d = 0; d < acc.indices.size() && d < span.size(); ++d) {
      ConstIntBound r = a.bound_of(acc.indices[d]);
      span[d].first = std::min(span[d].first, r.min_value);
      span[d].second = std::max(span[d].second, r.max_value);
    }
  }
  double elements = 1;
  for (size_t d = 0; d < span.size(); ++d) {
    double extent = double(span[d].second) - double(span[d].first) + 1;
    const tir::IntImm* dim = d < b->shape.size() ? b->shape[d].as<tir::IntImm>() : nullptr;
    if (span[d].first == ConstIntBound::kNegInf || span[d].second == ConstIntBound::kPosInf)
      extent = dim ? double(dim->value) : 1;
    if (dim) extent = std::min(extent, double(dim->value));
    elements *= std::max(1.0, extent);
  }
  return elements;
}

// Elements between consecutive values of `v` in the flattened index of the first access of `b`
// (row-major); 0 when v does not appear, -1 when it appears other than linearly.
double inner_stride(const Row& row, const tir::BufferNode* b, const tir::VarNode* v) {
  for (const Access& acc : row.accesses) {
    if (acc.buffer != b) continue;
    double stride = 0, dim_stride = 1;
    for (size_t d = acc.indices.size(); d-- > 0;) {
      tir::arith::LinearForm lf = tir::arith::linear_form(acc.indices[d]);
      for (const auto& [atom, coeff] : lf.terms) {
        if (atom.get() == v) {
          stride += double(coeff) * dim_stride;
        } else if (auto* r = atom.as<tir::Ramp>()) {
          for (const auto& [a2, c2] : tir::arith::linear_form(r->base).terms)
            if (a2.get() == v) stride += double(coeff * c2) * dim_stride;
        } else if (tir::uses_var(atom, [v](const tir::VarNode* u) { return u == v; })) {
          return -1;
        }
      }
      const tir::IntImm* dim = d < b->shape.size() ? b->shape[d].as<tir::IntImm>() : nullptr;
      dim_stride *= dim ? double(dim->value) : 1;
    }
    return stride;
  }
  return 0;
}

struct BufferStats {
  const tir::BufferNode* buffer = nullptr;
  bool written = false, read = false, contiguous = false;
  double bytes_accessed = 0;
  std::vector<double> fp;  // footprint in bytes per level 0..n
};

// Writes the row's features to out; returns its floating-point operations.
double row_features(const Row& row, const Analyzer& analyzer, int threads, float* out) {
  const size_t n = row.loops.size();
  double iterations = 1, par = 1, vec = 1, unr = 1;
  int n_par = 0, n_vec = 0, n_unr = 0, n_out = 0, par_depth = -1;
  for (size_t k = 0; k < n; ++k) {
    double e = double(row.loops[k].extent);
    iterations *= e;
    switch (row.loops[k].node->kind) {
      case tir::ForKind::kParallel:
        ++n_par;
        par *= e;
        if (par_depth < 0) par_depth = int(k);
        break;
      case tir::ForKind::kVectorized:
        ++n_vec;
        vec *= e;
        break;
      case tir::ForKind::kUnrolled:
        ++n_unr;
        unr *= e;
        break;
      case tir::ForKind::kOutlined:
        ++n_out;
        break;
      default:
        break;
    }
  }
  // Per buffer: accesses merged, footprints per loop level.
  std::vector<BufferStats> stats;
  for (const Access& acc : row.accesses) {
    auto it = std::find_if(stats.begin(), stats.end(),
                           [&](const BufferStats& s) { return s.buffer == acc.buffer; });
    if (it == stats.end()) {
      stats.emplace_back();
      stats.back().buffer = acc.buffer;
      it = stats.end() - 1;
    }
    (acc.write ? it->written : it->read) = true;
    it->bytes_accessed += double(acc.lanes) * acc.buffer->dtype.bytes() * iterations;
    if (acc.lanes > 1 && !acc.indices.empty())
      if (auto* r = acc.indices.back().as<tir::Ramp>())
        if (auto* s = r->stride.as<tir::IntImm>(); s && s->value == 1) it->contiguous = true;
  }
  std::vector<double> total(n + 1, 0);
  for (size_t level = 0; level <= n; ++level) {
    Analyzer a = at_level(row, level, analyzer);
    for (BufferStats& s : stats) {
      s.fp.push_back(footprint(row, s.buffer, a) * s.buffer->dtype.bytes());
      total[level] += s.fp.back();
    }
  }
  std::sort(stats.begin(), stats.end(), [](const BufferStats& a, const BufferStats& b) {
    return a.bytes_accessed > b.bytes_accessed;
  });
  // Bytes moved into a cache of `size`: the innermost loop whose whole range does not fit
  // brings its body's footprint in on every iteration.
  std::vector<double> before(n + 1, 1);  // iterations of loops [0, level)
  for (size_t k = 0; k < n; ++k) before[k + 1] = before[k] * double(row.loops[k].extent);
  auto traffic = [&](double size) {
    for (size_t level = n; level-- > 0;)
      if (total[level] > size) return before[level + 1] * total[level + 1];
    return total[0];
  };
  double flops = 0;
  // An FMA's multiply is counted among the multiplies, its add as kFma.
  for (int k : {kFAdd, kFMul, kFma, kFDiv, kFMinMax, kFMath}) flops += row.ops[k];
  flops *= iterations;
  double l1 = traffic(kL1Bytes), l2 = traffic(kL2Bytes);
  double balance = par > 1 ? par / (std::ceil(par / threads) * threads) : 1.0 / threads;
  float* f = out;
  *f++ = log1p2(row.stores);
  *f++ = float(row.lanes);
  *f++ = log1p2(iterations * row.stores);
  *f++ = float(n);
  *f++ = log1p2(iterations);
  *f++ = n ? log1p2(double(row.loops.back().extent)) : 0.f;
  *f++ = float(n_par);
  *f++ = log1p2(par);
  *f++ = float(balance);
  *f++ = float(par_depth);
  *f++ = float(n_vec);
  *f++ = log1p2(vec);
  *f++ = float(n_unr);
  *f++ = log1p2(unr);
  *f++ = float(n_out);
  *f++ = row.accumulates ? 1.f : 0.f;
  *f++ = log1p2(double(row.local_bytes));
  *f++ = log1p2(l1);
  *f++ = log1p2(l2);
  *f++ = float(std::log2((flops + 1) / (l1 + 1)));
  *f++ = float(std::log2((flops + 1) / (l2 + 1)));
  f += 2;  // kernel_flops, kernel_rows: filled in by the caller
  for (int k = 0; k < kOps; ++k) *f++ = log1p2(row.ops[k] * iterations);
  const tir::VarNode* inner = n ? row.loops.back().node->loop_var.node() : nullptr;
  for (int slot = 0; slot < kBufferSlots; ++slot) {
    if (slot >= int(stats.size())) {
      f += kPerBuffer;
      continue;
    }
    const BufferStats& s = stats[size_t(slot)];
    // Reuse: the innermost loop that leaves this buffer's footprint unchanged.
    double reuse_count = 0, reuse_bytes = 0;
    for (size_t level = n; level-- > 0;) {
      if (row.loops[level].extent > 1 && s.fp[level] <= s.fp[level + 1]) {
        reuse_count = double(row.loops[level].extent);
        reuse_bytes = total[level + 1];
        break;
      }
    }
    double stride = inner ? inner_stride(row, s.buffer, inner) : 0;
    *f++ = 1;
    *f++ = s.written ? 1.f : 0.f;
    *f++ = s.read ? 1.f : 0.f;
    *f++ = log1p2(s.bytes_accessed);
    *f++ = log1p2(s.fp[0]);
    *f++ = stride < 0 ? -1.f : log1p2(std::fabs(stride));
    *f++ = log1p2(reuse_count);
    *f++ = log1p2(reuse_bytes);
    *f++ = float(int(s.buffer->scope));
    *f++ = s.contiguous ? 1.f : 0.f;
  }
  INGOT_ICHECK(f == out + feature_count(), "features: {} columns written, {} named", f - out,
               feature_count());
  return flops;
}

}  // namespace

const std::vector<std::string>& feature_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v(std::begin(kRowFeatures), std::end(kRowFeatures));
    for (const char* op : kOpNames) v.push_back(op);
    for (int slot = 0; slot < kBufferSlots; ++slot)
      for (const char* b : kBufferFeatures) v.push_back("buffer" + std::to_string(slot) + "_" + b);
    return v;
  }();
  return names;
}

float KernelFeatures::at(size_t row, const std::string& name) const {
  const std::vector<std::string>& names = feature_names();
  auto it = std::find(names.begin(), names.end(), name);
  INGOT_ICHECK(it != names.end(), "features: no column {}", name);
  return rows[row * feature_count() + size_t(it - names.begin())];
}

KernelFeatures extract_features(const tir::PrimFunc& lowered, int threads) {
  RowCollector collector;
  collector.visit(lowered);
  KernelFeatures out;
  const size_t width = feature_count();
  out.rows.assign(collector.rows.size() * width, 0.f);
  double kernel_flops = 0;
  for (size_t r = 0; r < collector.rows.size(); ++r) {
    float* row = out.rows.data() + r * width;
    kernel_flops += row_features(collector.rows[r], collector.analyzer, std::max(1, threads), row);
  }
  const size_t flops_col = size_t(std::size(kRowFeatures)) - 2;
  for (size_t r = 0; r < collector.rows.size(); ++r) {
    out.rows[r * width + flops_col] = log1p2(kernel_flops);
    out.rows[r * width + flops_col + 1] = log1p2(double(collector.rows.size()));
  }
  return out;
}

}  // namespace ingot::tune

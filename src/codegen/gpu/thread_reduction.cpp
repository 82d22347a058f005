// Reductions across the threads of a block (see thread_reduction.h).
#include "codegen/gpu/thread_reduction.h"

#include <optional>
#include <vector>

#include <fmt/format.h>

#include "support/error.h"
#include "tir/analysis.h"
#include "tir/mutator.h"
#include "tir/op.h"
#include "tir/reduction.h"
#include "tir/substitute.h"

namespace ingot::codegen {
namespace {

using namespace tir;

// The reduction a thread loop's body is: an optional predicate around one combining store
// whose element does not depend on the loop variable.
struct ThreadReduction {
  const BufferStore* store = nullptr;
  CombiningStore combine;
  Expr predicate;  // undefined: always
};

std::optional<ThreadReduction> match(const For& loop) {
  Stmt body = loop.body;
  Expr predicate;
  while (const auto* c = body.as<IfThenElse>()) {
    if (c->else_case.defined()) return std::nullopt;
    predicate = predicate.defined() ? predicate && c->condition : c->condition;
    body = c->then_case;
  }
  const auto* st = body.as<BufferStore>();
  if (st == nullptr) return std::nullopt;
  for (const Expr& i : st->indices)
    if (uses_var(i, [&](const VarNode* v) { return v == loop.loop_var.node(); }))
      return std::nullopt;
  auto c = match_combining_store(*st);
  if (!c) return std::nullopt;
  return ThreadReduction{st, *c, predicate};
}

class Lowerer : public IRMutator {
 public:
  Lowerer(const std::array<uint32_t, 3>& block, const std::string& kernel, bool warp_shuffles)
      : block_(block), kernel_(kernel), warp_shuffles_(warp_shuffles) {}

  Stmt visit_For(const For* op, const Stmt& s) override {
    if (op->kind != ForKind::kThreadBinding || !op->thread_tag.starts_with("threadIdx"))
      return IRMutator::visit_For(op, s);
    auto red = match(*op);
    if (!red) return IRMutator::visit_For(op, s);
    return lower(*op, *red);
  }

 private:
  // One tree (see thread_reduction.h).
  Stmt lower(const For& loop, const ThreadReduction& red) {
    const BufferStore& st = *red.store;
    if (st.buffer->scope != StorageScope::kLocal)
      fail_user(
          "kernel {}: a reduction across threads into {} buffer {} is not supported on GPU "
          "targets (its accumulator must be per-thread)",
          kernel_, storage_scope_name(st.buffer->scope), st.buffer->name);
    size_t axis = size_t(loop.thread_tag.back() - 'x');
    int64_t n = block_[axis];
    DataType dt = st.buffer->dtype;
    Buffer scratch = Buffer::make(fmt::format("{}_red{}", st.buffer->name, count_++), dt,
                                  std::vector<int64_t>{int64_t(block_[0]) * block_[1] * block_[2]},
                                  StorageScope::kShared);
    // Fresh thread variables per axis; the scratch is laid out x fastest.
    std::array<Var, 3> t;
    for (size_t d = 0; d < 3; ++d) t[d] = Var(std::string("r") + char('x' + d));
    auto at = [&](Expr along) {
      Expr flat;
      int64_t stride = 1;
      for (size_t d = 0; d < 3; ++d) {
        Expr v = d == axis ? along : Expr(t[d]);
        int64_t c = -1;
        bool zero = is_const_int(v, &c) && c == 0;
        if ((block_[d] > 1 || d == axis) && !zero) {
          Expr term = stride == 1 ? v : v * i64(stride);
          flat = flat.defined() ? flat + term : term;
        }
        stride *= block_[d];
      }
      return flat.defined() ? flat : i64(0);
    };
    // `body` run by the threads whose index along the axis is below `count` (none along the
    // axis when `count` is 0: every thread of the axis alike).
    auto threads = [&](Stmt body, int64_t count) {
      for (size_t d = 0; d < 3; ++d) {
        int64_t extent = d == axis ? count : int64_t(block_[d]);
        if (d == axis && count == 0) continue;
        if (d != axis && extent == 1) {
          body = substitute(body, t[d], i64(0));
          continue;
        }
        body = For::make(t[d], i64(0), i64(extent), ForKind::kThreadBinding, body,
                         std::string("threadIdx.") + char('x' + d));
      }
      return body;
    };
    Expr identity = reduction_identity(red.combine.combiner, dt);
    // Each thread's term: the loop's body at its index, the identity where it has none.
    int64_t min = -1;
    Expr index = is_const_int(loop.min, &min) && min == 0 ? Expr(t[axis]) : loop.min + t[axis];
    Expr term = substitute(red.combine.value, loop.loop_var, index);
    int64_t extent = 0;
    Expr live;
    if (!is_const_int(loop.extent, &extent) || extent < n) live = t[axis] < loop.extent;
    if (red.predicate.defined()) {
      Expr p = substitute(red.predicate, loop.loop_var, index);
      live = live.defined() ? live && p : p;
    }
    if (live.defined()) term = Select::make(live, term, identity);
    std::vector<Stmt> seq = {threads(BufferStore::make(scratch, term, {at(t[axis])}), n)};
    auto fold = [&](int64_t count, int64_t offset) {
      Expr a = scratch.load({at(t[axis])}), b = scratch.load({at(t[axis] + i64(offset))});
      seq.push_back(threads(
          BufferStore::make(scratch, combine(red.combine.combiner, a, b), {at(t[axis])}), count));
    };
    int64_t half = 1;
    while (half * 2 <= n) half *= 2;
    if (half < n) fold(n - half, half);
    // With warp shuffles, whole warps along x: the shared folds stop at 64 values (or 32), which
    // the first warp of each row folds (two per lane) in registers, leaving the result in
    // `result`.
    const bool warp = warp_shuffles_ && axis == 0 && n % kWarp == 0;
    for (int64_t s = half / 2; s >= (warp ? 2 * kWarp : 1); s /= 2) fold(s, s);
    Buffer result = scratch;
    if (warp) {
      result = Buffer::make(scratch->name + "_out", dt, scratch->shape, StorageScope::kShared);
      Buffer lane =
          Buffer::make(scratch->name + "_lane", dt, std::vector<int64_t>{1}, StorageScope::kLocal);
      Expr first = scratch.load({at(t[axis])});
      if (half >= 2 * kWarp)
        first = combine(red.combine.combiner, first, scratch.load({at(t[axis] + i64(kWarp))}));
      std::vector<Stmt> steps = {BufferStore::make(lane, first, {i64(0)})};
      for (int64_t s = kWarp / 2; s >= 1; s /= 2) {
        Expr other = Call::make(Intrinsic::warp_shuffle_down, {lane.load({i64(0)}), i64(s)});
        steps.push_back(BufferStore::make(
            lane, combine(red.combine.combiner, lane.load({i64(0)}), other), {i64(0)}));
      }
      steps.push_back(IfThenElse::make(
          EQ::make(t[axis], i64(0)), BufferStore::make(result, lane.load({i64(0)}), {at(i64(0))})));
      seq.push_back(threads(Allocate::make(lane, SeqStmt::make(std::move(steps))), kWarp));
    }
    Buffer acc(st.buffer);
    seq.push_back(threads(
        BufferStore::make(
            acc, combine(red.combine.combiner, acc.load(st.indices), result.load({at(i64(0))})),
            st.indices),
        0));
    Stmt tree = SeqStmt::make(std::move(seq));
    if (warp) tree = Allocate::make(result, tree);
    return Allocate::make(scratch, tree);
  }

  static constexpr int64_t kWarp = 32;
  std::array<uint32_t, 3> block_;
  std::string kernel_;
  bool warp_shuffles_;
  int count_ = 0;
};

}  // namespace

Stmt lower_thread_reductions(const Stmt& launch, const std::array<uint32_t, 3>& block,
                             const std::string& kernel, bool warp_shuffles) {
  return Lowerer(block, kernel, warp_shuffles).mutate(launch);
}

}  // namespace ingot::codegen

// The GPU row rule (see gpu_row_reduction.h).
#include "schedule/rules/gpu_row_reduction.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "schedule/ir_utils.h"
#include "schedule/rules/choice.h"
#include "schedule/rules/nest_utils.h"
#include "tir/analysis.h"
#include "tir/op.h"

namespace ingot::schedule {

using namespace tir;

namespace {

// Threads per row the default never exceeds.
constexpr int64_t kMaxDefaultThreads = 256;

// What a statement of a row is to the rule.
struct RowPart {
  enum Kind { kReduction, kPass, kScalar } kind = kScalar;
  std::string block;        // a reduction's or pass's block
  int64_t extent = 0;       // the elements it covers (a reduction's loops fused)
  size_t loops = 0;         // a reduction's own loops
  bool side_store = false;  // a reduction that also stores into a non-local buffer
};

bool all_serial(const std::vector<const For*>& loops) {
  for (const For* f : loops)
    if (f->kind != ForKind::kSerial) return false;
  return true;
}

std::optional<RowPart> classify(const Stmt& item) {
  if (const auto* st = item.as<BufferStore>()) {
    if (st->buffer->scope != StorageScope::kLocal && loads_buffer(st->value, st->buffer.get()))
      return std::nullopt;
    return RowPart{};
  }
  std::vector<const For*> loops;
  Stmt s = item;
  while (const auto* f = s.as<For>()) {
    loops.push_back(f);
    s = f->body;
  }
  const auto* br = s.as<BlockRealize>();
  if (br == nullptr || loops.empty() || !all_serial(loops)) return std::nullopt;
  const Block* b = br->block_node();
  int64_t extent = 1;
  for (const For* f : loops) {
    int64_t e = 0, m = -1;
    if (!is_const_int(f->extent, &e) || !is_const_int(f->min, &m) || m != 0) return std::nullopt;
    extent *= e;
  }
  bool reduce = !b->iter_vars.empty(), spatial = !b->iter_vars.empty();
  for (const IterVar& iv : b->iter_vars) {
    reduce = reduce && iv.kind == IterKind::kReduce;
    spatial = spatial && iv.kind == IterKind::kSpatial;
  }
  if (reduce) {
    // Every loop feeds the reduction (its own loops); the accumulator is per-thread.
    for (const For* f : loops) {
      bool feeds = false;
      for (const Expr& v : br->iter_values) feeds = feeds || uses_var(v, f->loop_var);
      if (!feeds) return std::nullopt;
    }
    std::vector<Stmt> stmts = {b->body};
    if (const auto* seq = b->body.as<SeqStmt>()) stmts = seq->seq;
    const auto* st = stmts.back().as<BufferStore>();
    if (b->init.defined() || st == nullptr || st->buffer->scope != StorageScope::kLocal ||
        !is_rfactor_reduction(b->body))
      return std::nullopt;
    bool side = false;
    for (size_t k = 0; k + 1 < stmts.size(); ++k)
      side = side || stmts[k].as<BufferStore>()->buffer->scope != StorageScope::kLocal;
    return RowPart{RowPart::kReduction, b->name_hint, extent, loops.size(), side};
  }
  // A pass: one spatial iter var bound to the innermost loop (the outer ones stay serial).
  if (!spatial || b->iter_vars.size() != 1 ||
      br->iter_values[0].as<VarNode>() != loops.back()->loop_var.node())
    return std::nullopt;
  int64_t e = 0;
  is_const_int(loops.back()->extent, &e);
  return RowPart{RowPart::kPass, b->name_hint, e, 0, false};
}

// The statements of a row block's body, classified; nullopt when one does not qualify.
std::optional<std::vector<RowPart>> row_parts(const Block& row) {
  Stmt body = row.body;
  while (const auto* a = body.as<Allocate>()) {
    if (a->buffer->scope != StorageScope::kLocal) return std::nullopt;
    body = a->body;
  }
  std::vector<Stmt> items = {body};
  if (const auto* seq = body.as<SeqStmt>()) items = seq->seq;
  std::vector<RowPart> parts;
  for (const Stmt& item : items) {
    auto p = classify(item);
    if (!p) return std::nullopt;
    parts.push_back(*p);
  }
  return parts;
}

int64_t default_threads(int64_t longest, int max_threads) {
  if (longest < 32 || max_threads < 32) return 0;
  int64_t t = 32;
  while (t * 2 <= std::min<int64_t>(max_threads, kMaxDefaultThreads) && t * 4 <= longest) t *= 2;
  return t;
}

// One reduction: its loops fused and split by the threads, a partial result per thread,
// combined across them.
void split_reduction(Schedule& s, const RowPart& part, int64_t threads) {
  BlockRV b = s.get_block(part.block);
  std::vector<LoopRV> loops = s.get_loops(b);
  std::vector<LoopRV> own(loops.end() - std::ptrdiff_t(part.loops), loops.end());
  LoopRV fused = own.size() == 1 ? own.front() : s.fuse(own);
  auto split = s.split(fused, {std::nullopt, threads});
  BlockRV rf = s.rfactor(split[1]);
  s.reorder({split[1], split[0]});
  s.bind(split[1], "threadIdx.x");
  s.decompose_reduction(rf, split[0]);
  s.bind(s.get_loops(b).back(), "threadIdx.x");
}

void schedule_row(Schedule& s, const std::vector<LoopRV>& rows, const std::vector<RowPart>& parts,
                  int max_threads) {
  int64_t longest = 0;
  bool reduction = false, side = false;
  std::set<int64_t> extents;
  for (const RowPart& p : parts) {
    if (p.kind == RowPart::kScalar) continue;
    longest = std::max(longest, p.extent);
    reduction = reduction || p.kind == RowPart::kReduction;
    side = side || p.side_store;
    extents.insert(p.extent);
  }
  // A single row (a whole-tensor reduction) has no loop to put on blockIdx.x: its statements
  // would be launches of their own, and its accumulators cannot cross launches.
  if (rows.empty() || !reduction || (side && extents.size() > 1) || max_threads < 32) return;
  std::vector<int64_t> counts = {0};
  for (int64_t t = 32; t <= max_threads; t *= 2) counts.push_back(t);
  int64_t threads = s.value(sample_choice(s, counts, default_threads(longest, max_threads)));
  if (threads == 0) return;
  s.bind(rows.size() == 1 ? rows.front() : s.fuse(rows), "blockIdx.x");
  for (const RowPart& p : parts) {
    if (p.kind == RowPart::kReduction) split_reduction(s, p, threads);
    if (p.kind == RowPart::kPass) {
      auto split = s.split(s.get_loops(s.get_block(p.block)).back(), {std::nullopt, threads});
      s.bind(split[1], "threadIdx.x");
    }
  }
}

}  // namespace

void schedule_gpu_rows(Schedule& s, int max_threads) {
  for (const std::string& name : top_level_block_names(s)) {
    BlockRV b = s.get_block(name);
    auto loops = own_loops(s, b);
    if (!loops || loops->size() != s.get_loops(b).size()) continue;
    auto info = find_block(s.func().body, name, nullptr);
    if (info->block->body.as<BufferStore>() != nullptr) continue;
    if (auto parts = row_parts(*info->block)) schedule_row(s, *loops, *parts, max_threads);
  }
}

}  // namespace ingot::schedule

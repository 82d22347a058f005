// Primitive partition: a loop's range is cut at constant points into parts, each with its own
// copy of the loop body (fresh loops and iter vars, blocks renamed <name>_p<k>) simplified for
// the part's range, so that a guard a part decides folds away (TVM's loop_partition; Halide
// specializes the same way). A block whose body then stores back what it loads (its guard is
// false all over the part) is removed with the loops it leaves empty. The parts are sequential
// loops, or with `branch` one loop whose body branches to the part of each iteration, which
// keeps the loops around it fusable (one parallel loop over the rows of every part).
#include <functional>

#include "schedule/primitives/common.h"
#include "schedule/primitives/region_nest.h"
#include "tir/analysis.h"
#include "tir/arith/analyzer.h"
#include "tir/mutator.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace ingot::schedule {

using namespace tir;

class PartitionError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

namespace {

// A copy of a statement with fresh loop variables and block iter vars, and blocks renamed by
// `rename` (their old name in, the new one out).
class FreshCopy : public IRMutator {
 public:
  explicit FreshCopy(std::function<std::string(const std::string&)> rename)
      : rename_(std::move(rename)) {}

  Expr visit_Var(const VarNode* op, const Expr& e) override {
    auto it = map_.find(op);
    return it == map_.end() ? e : it->second;
  }
  Stmt visit_For(const For* op, const Stmt& s) override {
    Var v(op->loop_var.name(), op->loop_var.dtype());
    map_[op->loop_var.node()] = v;
    Stmt base = IRMutator::visit_For(op, s);
    auto* f = base.as<For>();
    return For::make(v, f->min, f->extent, f->kind, f->body, f->thread_tag);
  }
  Stmt visit_Block(const Block* op, const Stmt& s) override {
    std::vector<IterVar> ivs = op->iter_vars;
    for (IterVar& iv : ivs) {
      Var v(iv.var.name(), iv.var.dtype());
      map_[iv.var.node()] = v;
      iv.var = v;
    }
    Stmt base = IRMutator::visit_Block(op, s);
    auto* b = base.as<Block>();
    for (size_t k = 0; k < ivs.size(); ++k)
      ivs[k].min = b->iter_vars[k].min, ivs[k].extent = b->iter_vars[k].extent;
    return Block::make(rename_(op->name_hint), std::move(ivs), b->reads, b->writes, b->body,
                       b->init, b->alloc_buffers, b->annotations);
  }

 private:
  std::function<std::string(const std::string&)> rename_;
  VarMap map_;
};

// A select whose condition is a conjunction, folded by what the analyzer decides: one of its
// terms disproven, the false value; all of them proven, the true value; else the select of the
// terms left (a conv's row terms where the part decided its column terms).
Expr fold_guard(const Expr& e, const arith::Analyzer& ana) {
  auto* sel = e.as<Select>();
  if (!sel) return e;
  Expr left;
  bool proven = false;
  for (const Expr& t : conjuncts(sel->condition)) {
    if (ana.can_prove(!t)) return sel->false_value;
    if (ana.can_prove(t)) {
      proven = true;
    } else {
      left = left.defined() ? (left && t) : t;
    }
  }
  if (!left.defined()) return sel->true_value;
  return proven ? select(left, sel->true_value, sel->false_value) : e;
}

// Simplifies every block under s for the loop ranges known to `ana` (each iter var takes the
// range of its binding); collects the realizes whose block became a no-op in `dead`.
Stmt simplify_blocks(const Stmt& s, arith::Analyzer ana, std::vector<const StmtNode*>* dead) {
  if (auto* f = s.as<For>()) {
    ana.bind(f->loop_var, f->min, f->extent);
    Stmt b = simplify_blocks(f->body, ana, dead);
    return For::make(f->loop_var, f->min, f->extent, f->kind, b, f->thread_tag);
  }
  if (auto* q = s.as<SeqStmt>()) {
    std::vector<Stmt> seq;
    for (const Stmt& x : q->seq) seq.push_back(simplify_blocks(x, ana, dead));
    return SeqStmt::make(std::move(seq));
  }
  if (auto* i = s.as<IfThenElse>())
    return IfThenElse::make(
        i->condition, simplify_blocks(i->then_case, ana, dead),
        i->else_case.defined() ? simplify_blocks(i->else_case, ana, dead) : Stmt());
  auto* br = s.as<BlockRealize>();
  if (!br) return s;
  const Block* b = br->block_node();
  for (size_t k = 0; k < b->iter_vars.size(); ++k) {
    arith::ConstIntBound r = ana.bound_of(br->iter_values[k]);
    const IterVar& iv = b->iter_vars[k];
    arith::ConstIntBound dom = ana.bound_of(iv.min);
    int64_t e = 0;
    if (is_const_int(iv.extent, &e) && dom.is_point()) {
      r.min_value = std::max(r.min_value, dom.min_value);
      r.max_value = std::min(r.max_value, dom.min_value + e - 1);
    }
    ana.bind(iv.var, r);
  }
  Stmt body = simplify_blocks(b->body, ana, dead);
  if (auto* st = body.as<BufferStore>()) {
    std::vector<Expr> idx;
    for (const Expr& x : st->indices) idx.push_back(ana.simplify(x));
    body = BufferStore::make(Buffer(st->buffer), ana.simplify(fold_guard(st->value, ana)), idx);
  }
  Stmt init = b->init;
  if (auto* st = init.defined() ? init.as<BufferStore>() : nullptr)
    init = BufferStore::make(Buffer(st->buffer), ana.simplify(st->value), st->indices);
  Stmt blk = Block::make(b->name_hint, b->iter_vars, b->reads, b->writes, body, init,
                         b->alloc_buffers, b->annotations);
  Stmt out = BlockRealize::make(br->iter_values, br->predicate, blk);
  if (!init.defined() && is_self_store(body)) dead->push_back(out.get());
  return out;
}

}  // namespace

// Preconditions: the loop is serial with constant min and extent; the cuts lie strictly inside
// its range, increasing; with `branch` the loop's body is one loop.
std::vector<LoopRV> Schedule::partition(LoopRV loop, std::vector<int64_t> cuts, bool branch) {
  LoopInfo li = loop_info(*this, loop);
  const For* f = li.node;
  std::string name = f->loop_var.name();
  std::string what = "cannot partition loop " + qname(name);
  // 1. Check the loop and the cuts.
  int64_t lo = 0, extent = 0;
  if (!is_const_int(f->min, &lo) || !is_const_int(f->extent, &extent))
    fail_schedule<PartitionError>("{}: its range is not constant", what);
  if (f->kind != ForKind::kSerial)
    fail_schedule<PartitionError>("{}: it is already {}", what, for_kind_name(f->kind));
  if (cuts.empty()) fail_schedule<PartitionError>("{}: no cut points", what);
  for (size_t k = 0; k < cuts.size(); ++k)
    if (cuts[k] <= lo || cuts[k] >= lo + extent || (k > 0 && cuts[k] <= cuts[k - 1]))
      fail_schedule<PartitionError>("{}: cut {} is not inside [{}, {}) after the previous one",
                                    what, cuts[k], lo, lo + extent);
  if (branch && !f->body.as<For>())
    fail_schedule<PartitionError>("{}: with branches its body must be one loop", what);
  // 2. One simplified copy of the body per part [a, b).
  std::vector<int64_t> ends = cuts;
  ends.push_back(lo + extent);
  DataType dt = f->loop_var.dtype();
  std::vector<Stmt> parts;
  std::vector<LoopRV> out;
  std::vector<std::string> names;
  for (size_t k = 0; k < ends.size(); ++k) {
    int64_t a = k == 0 ? lo : ends[k - 1], b = ends[k];
    std::string suffix = "_p" + std::to_string(k);
    FreshCopy copy(
        [&](const std::string& old) { return unique_block_name(func_.body, old + suffix); });
    arith::Analyzer ana = outer_analyzer(li);
    Var v = branch ? f->loop_var : Var(name + suffix, dt);
    ana.bind(v, make_const(dt, double(branch ? a : 0)), make_const(dt, double(b - a)));
    Stmt body = branch ? f->body : substitute(f->body, f->loop_var, make_const(dt, double(a)) + v);
    std::vector<const StmtNode*> dead;
    body = simplify_blocks(copy.mutate(body), ana, &dead);
    StmtMap drop;
    for (const StmtNode* d : dead) drop[d] = Stmt();
    Stmt part = branch ? body
                       : For::make(v, make_const(dt, 0), make_const(dt, double(b - a)),
                                   ForKind::kSerial, body);
    if (!drop.empty()) part = replace_stmts(part, drop);
    if (part.defined() && part.as<Evaluate>()) part = Stmt();  // all of it removed
    parts.push_back(part);
    const For* top = branch && part.defined() ? part.as<For>() : nullptr;
    out.push_back(new_loop_rv(branch ? (top ? top->loop_var : Var(name + suffix, dt)) : v));
    names.push_back(rv_name(out.back()));
  }
  // 3. Sequential loops, or the loop with its parts behind branches (v < end of each part).
  Stmt result;
  if (branch) {
    // Iterations of a removed part do nothing (they must not fall into the next part).
    auto or_nop = [](const Stmt& p) {
      return p.defined() ? p : Evaluate::make(IntImm::make(DataType::i32(), 0));
    };
    Stmt chain = or_nop(parts.back());
    for (size_t k = parts.size() - 1; k-- > 0;)
      chain =
          IfThenElse::make(f->loop_var < make_const(dt, double(ends[k])), or_nop(parts[k]), chain);
    result = For::make(f->loop_var, f->min, f->extent, f->kind, chain, f->thread_tag);
  } else {
    std::vector<Stmt> seq;
    for (const Stmt& p : parts)
      if (p.defined()) seq.push_back(p);
    result = seq.empty() ? Stmt() : SeqStmt::make(std::move(seq));
  }
  set_body(replace_stmts(func_.body, {{li.loop.get(), result}}));
  // 4. Record.
  record({"partition",
          nlohmann::json::array({rv_name(loop), cuts}),
          nlohmann::json{{"branch", branch}},
          names,
          {}});
  return out;
}

}  // namespace ingot::schedule

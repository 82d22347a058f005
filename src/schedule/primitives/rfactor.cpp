// Primitive rfactor: a reduction split along one of its loops into partial results, one per
// iteration of that loop (TVM's rfactor). The block "<name>_rf" accumulates into a local buffer
// "<buffer>_rf" indexed by the loop, which becomes a spatial iter var of that block (so the loop
// can be vectorized or parallelized); the original block, after the reduction's loops, combines
// the partial results into the output. The combiner must be associative and commutative (+, *,
// max, min): floating-point sums are reassociated, as any vectorized reduction does. Unlike
// TVM's, a reduction block here may also store each step's value elsewhere before combining it
// (softmax writes exp(x - max) and sums it in one pass); those stores move with the steps.
#include "schedule/primitives/common.h"
#include "tir/analysis.h"
#include "tir/op.h"
#include "tir/reduction.h"
#include "tir/region_analysis.h"
#include "tir/structural_equal.h"
#include "tir/substitute.h"

namespace ingot::schedule {

using namespace tir;

class RfactorError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

namespace {

// The reduction of a block body `out[idx] = combine(out[idx], value)`, possibly after stores
// of the step's values into other buffers (`side`: softmax's exponentials, which the sum then
// reads back).
struct Reduction {
  const BufferStore* store = nullptr;
  NodeTag combiner = NodeTag::Add;
  Expr value;  // what each step combines in
  std::vector<Stmt> side;
};

std::optional<Reduction> match_reduction(const Stmt& body) {
  std::vector<Stmt> stmts = {body};
  if (const auto* seq = body.as<SeqStmt>()) stmts = seq->seq;
  const auto* st = stmts.back().as<BufferStore>();
  if (st == nullptr) return std::nullopt;
  std::vector<Stmt> side(stmts.begin(), stmts.end() - 1);
  for (const Stmt& x : side) {
    const auto* other = x.as<BufferStore>();
    if (other == nullptr || other->buffer.get() == st->buffer.get() ||
        loads_buffer(other->value, st->buffer.get()))
      return std::nullopt;
  }
  auto c = match_combining_store(*st);
  if (!c) return std::nullopt;
  return Reduction{st, c->combiner, c->value, side};
}

}  // namespace

bool is_rfactor_reduction(const Stmt& block_body) {
  return match_reduction(block_body).has_value();
}

// Preconditions:
// - `loop` (min 0, constant extent) has exactly one block under it, whose body is
//   `out[idx] = combine(out[idx], value)` with combine one of +, *, max, min and `value` not
//   reading `out`, possibly after stores to other buffers that do not read `out` either (they
//   stay in the rf block and run once per step, in the same order);
// - the loop feeds only reduce iter vars of the block, and so does every loop from it up to
//   the outermost loop (inside the enclosing block) that feeds no spatial iter var: the
//   reduction's loops. The block's spatial iter vars are therefore fixed over them, and the
//   partial results need one element per iteration of `loop`.
BlockRV Schedule::rfactor(LoopRV loop) {
  LoopInfo li = loop_info(*this, loop);
  std::string lname = li.node->loop_var.name();
  // 1. The one block under the loop and its reduction.
  std::vector<Stmt> realizes = child_block_realizes(li.loop);
  if (realizes.size() != 1)
    fail_schedule<RfactorError>("cannot rfactor loop {}: it holds {} blocks, not one", qname(lname),
                                realizes.size());
  const Block* b = realizes[0].as<BlockRealize>()->block_node();
  std::string bname = b->name_hint;
  BlockInfo bi = *find_block(func_.body, bname, nullptr);
  auto red = match_reduction(b->body);
  if (!red)
    fail_schedule<RfactorError>(
        "cannot rfactor block {}: its body is not out[i] = combine(out[i], value) with "
        "combine one of +, *, max, min",
        qname(bname));
  int64_t extent = 0, lmin = -1;
  if (!is_const_int(li.node->extent, &extent) || !is_const_int(li.node->min, &lmin) || lmin != 0)
    fail_schedule<RfactorError>("cannot rfactor loop {}: its range is not [0, constant)",
                                qname(lname));
  // 2. The reduction's loops: the innermost run of loops feeding no spatial iter var.
  std::vector<Var> spatial_loops;
  for (size_t i = 0; i < b->iter_vars.size(); ++i)
    if (b->iter_vars[i].kind == IterKind::kSpatial)
      for (const Var& v : free_vars(bi.br->iter_values[i])) spatial_loops.push_back(v);
  auto feeds_spatial = [&](const For* f) {
    for (const Var& v : spatial_loops)
      if (v.same_as(f->loop_var)) return true;
    return false;
  };
  size_t first = bi.loops.size(), pos = bi.loops.size();
  for (size_t k = bi.loops.size(); k-- > 0;) {
    if (feeds_spatial(bi.loops[k].as<For>())) break;
    first = k;
  }
  for (size_t k = first; k < bi.loops.size(); ++k)
    if (bi.loops[k].same_as(li.loop)) pos = k;
  if (pos == bi.loops.size())
    fail_schedule<RfactorError>(
        "cannot rfactor block {} along loop {}: the loop is not one of its reduction loops",
        qname(bname), qname(lname));
  // 3. The partial results: one per iteration of the loop, allocated around the reduction.
  DataType dt = red->store->buffer->dtype;
  Buffer out(red->store->buffer);
  Buffer rf =
      Buffer::make(out->name + "_rf", dt, std::vector<int64_t>{extent}, StorageScope::kLocal);
  // 4. The rf block: the spatial iter vars, the loop as a spatial iter var, the other
  //    reduction loops as reduce iter vars; its body reads the block's bindings through them.
  // Fresh copies of the block's spatial iter vars with their bindings, for a new block.
  auto copy_spatial = [&](std::vector<IterVar>* ivs, std::vector<Expr>* values, VarMap* map) {
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      const IterVar& iv = b->iter_vars[i];
      if (iv.kind != IterKind::kSpatial) continue;
      Var nv(iv.var.name(), iv.var.dtype());
      ivs->push_back({nv, iv.min, iv.extent, IterKind::kSpatial});
      values->push_back(bi.br->iter_values[i]);
      (*map)[iv.var.node()] = nv;
    }
  };
  std::vector<IterVar> rf_ivs;
  std::vector<Expr> rf_values;
  VarMap loop_to_iv, iv_to_value;
  Var v_rf(lname + "_rf", li.node->loop_var.dtype());
  copy_spatial(&rf_ivs, &rf_values, &iv_to_value);
  rf_ivs.push_back({v_rf, i64(0), i64(extent), IterKind::kSpatial});
  rf_values.push_back(li.node->loop_var);
  loop_to_iv[li.node->loop_var.node()] = v_rf;
  for (size_t k = first; k < bi.loops.size(); ++k) {
    const For* f = bi.loops[k].as<For>();
    if (k == pos) continue;
    Var nv(f->loop_var.name() + "_r", f->loop_var.dtype());
    rf_ivs.push_back({nv, f->min, f->extent, IterKind::kReduce});
    rf_values.push_back(f->loop_var);
    loop_to_iv[f->loop_var.node()] = nv;
  }
  for (size_t i = 0; i < b->iter_vars.size(); ++i)
    if (b->iter_vars[i].kind == IterKind::kReduce)
      iv_to_value[b->iter_vars[i].var.node()] = substitute(bi.br->iter_values[i], loop_to_iv);
  Expr value = substitute(red->value, iv_to_value);
  std::vector<Stmt> rf_stmts;
  for (const Stmt& x : red->side) rf_stmts.push_back(substitute(x, iv_to_value));
  rf_stmts.push_back(BufferStore::make(rf, combine(red->combiner, rf.load({v_rf}), value), {v_rf}));
  Stmt rf_body = SeqStmt::make(rf_stmts);
  Stmt rf_init = BufferStore::make(rf, reduction_identity(red->combiner, dt), {v_rf});
  std::string rf_name = unique_block_name(func_.body, bname + "_rf");
  Stmt rf_realize = BlockRealize::make(rf_values, bi.br->predicate,
                                       make_block(rf_name, rf_ivs, rf_body, rf_init));
  // 5. The write-back: the original block over a new loop, combining the partial results.
  Var l_wb(lname + "_wb", li.node->loop_var.dtype()),
      v_wb(lname + "_wb_v", li.node->loop_var.dtype());
  std::vector<IterVar> wb_ivs;
  std::vector<Expr> wb_values;
  VarMap wb_map;
  copy_spatial(&wb_ivs, &wb_values, &wb_map);
  wb_ivs.push_back({v_wb, i64(0), i64(extent), IterKind::kReduce});
  wb_values.push_back(l_wb);
  std::vector<Expr> out_idx;
  for (const Expr& e : red->store->indices) out_idx.push_back(substitute(e, wb_map));
  Stmt wb_body =
      BufferStore::make(out, combine(red->combiner, out.load(out_idx), rf.load({v_wb})), out_idx);
  Stmt wb_init = b->init.defined() ? substitute(b->init, wb_map) : Stmt();
  Stmt wb_realize =
      BlockRealize::make(wb_values, make_const(DataType::boolean(), 1),
                         make_block(bname, wb_ivs, wb_body, wb_init, {}, b->annotations));
  Stmt wb_loop = For::make(l_wb, i64(0), i64(extent), ForKind::kSerial, wb_realize);
  // 6. Replace the reduction's loops: Allocate(rf) { loops around the rf block; write-back }.
  const Stmt& outer = bi.loops[first];
  Stmt rf_nest = replace_stmts(outer, {{bi.realize.get(), rf_realize}});
  Stmt replacement = Allocate::make(rf, SeqStmt::make({rf_nest, wb_loop}));
  set_body(replace_stmts(func_.body, {{outer.get(), replacement}}));
  // 7. Record.
  BlockRV out_rv = new_block_rv(rf_name);
  record({"rfactor", {rv_name(loop)}, nlohmann::json::object(), {rv_name(out_rv)}, {}});
  return out_rv;
}

}  // namespace ingot::schedule

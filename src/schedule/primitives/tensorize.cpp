// Primitive tensorize: a tile block (made by blockize) whose body computes what a registered
// intrinsic's description computes is given the intrinsic's implementation as its body, with
// the implementation's buffer accesses moved to the tile's buffers and offsets.
#include <unordered_map>

#include <memory>
#include "schedule/intrin/intrin.h"

#include "schedule/primitives/common.h"
#include "tir/analysis.h"
#include "tir/arith/analyzer.h"
#include "tir/arith/linear_form.h"
#include "tir/mutator.h"
#include "tir/op.h"
#include "tir/structural_equal.h"
#include "tir/substitute.h"

namespace ingot::schedule {

using namespace tir;

class TensorizeError : public ScheduleError {
  using ScheduleError::ScheduleError;
};
class UnknownIntrinError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

namespace {

// Loops (outermost first) down to the one BlockRealize at the bottom of a chain, or nullptr.
const BlockRealize* loop_chain(const Stmt& s, std::vector<const For*>* loops) {
  Stmt cur = s;
  while (auto* f = cur.as<For>()) {
    loops->push_back(f);
    cur = f->body;
  }
  return cur.as<BlockRealize>();
}

// Where a description buffer lives in the block: the buffer and an offset per dimension.
struct Placement {
  Buffer buffer;
  std::vector<Expr> offset;
};

// Matches a block body (iter vars replaced by their bindings) against a description body
// (its iter vars replaced by the block's loop vars): same expression tree, buffers mapped one to
// one, every index differing only by an offset free of the tile's loop variables.
class Matcher {
 public:
  explicit Matcher(const std::vector<const For*>& loops) : loops_(loops) {}
  std::unordered_map<const BufferNode*, Placement> placed;
  std::string why;  // set on mismatch

  bool stmt(const Stmt& got, const Stmt& want) {
    auto* g = got.as<BufferStore>();
    auto* w = want.as<BufferStore>();
    if (!g || !w) return fail("the block body is not a single buffer store");
    return access(g->buffer, g->indices, w->buffer, w->indices) && expr(g->value, w->value);
  }

  bool expr(const Expr& g, const Expr& w) {
    if (g.tag() != w.tag() || g.dtype() != w.dtype())
      return fail("expression " + to_string(g) + " does not match " + to_string(w));
    if (auto* gl = g.as<BufferLoad>())
      return access(gl->buffer, gl->indices, w.as<BufferLoad>()->buffer,
                    w.as<BufferLoad>()->indices);
    switch (g.tag()) {
#define INGOT_X(N, op)                           \
  case NodeTag::N: {                             \
    auto* x = g.as<N>();                         \
    auto* y = w.as<N>();                         \
    return expr(x->a, y->a) && expr(x->b, y->b); \
  }
      INGOT_TIR_BINARY_NODES(INGOT_X)
#undef INGOT_X
      case NodeTag::Cast:
        return expr(g.as<Cast>()->value, w.as<Cast>()->value);
      case NodeTag::Select: {
        auto* x = g.as<Select>();
        auto* y = w.as<Select>();
        return expr(x->condition, y->condition) && expr(x->true_value, y->true_value) &&
               expr(x->false_value, y->false_value);
      }
      default:
        if (structural_equal(g, w)) return true;
        return fail("expression " + to_string(g) + " does not match " + to_string(w));
    }
  }

 private:
  bool fail(std::string m) {
    if (why.empty()) why = std::move(m);
    return false;
  }
  bool inner(const VarNode* v) const {
    for (const For* f : loops_)
      if (f->loop_var.node() == v) return true;
    return false;
  }
  bool access(const std::shared_ptr<const BufferNode>& g, const std::vector<Expr>& gi,
              const std::shared_ptr<const BufferNode>& w, const std::vector<Expr>& wi) {
    // Extra leading dimensions of the block's buffer (a batch) are pure offsets.
    if (g->dtype != w->dtype || gi.size() < wi.size())
      return fail("buffer " + g->name + " does not match the intrinsic's " + w->name);
    size_t lead = gi.size() - wi.size();
    std::vector<Expr> off;
    for (size_t d = 0; d < gi.size(); ++d) {
      // Compared as linear forms: (a + i) * 2 + k - (i * 2 + k) = a * 2.
      Expr o = d < lead
                   ? gi[d]
                   : arith::simplify((arith::linear_form(gi[d]) - arith::linear_form(wi[d - lead]))
                                         .to_expr(gi[d].dtype()));
      if (uses_var(o, [&](const VarNode* v) { return inner(v); }))
        return fail("index " + to_string(gi[d]) + " of " + g->name + " does not follow " +
                    (d < lead ? std::string("the tile") : to_string(wi[d - lead])) +
                    " of the intrinsic's " + w->name);
      off.push_back(o);
    }
    auto [it, fresh] = placed.try_emplace(w.get(), Placement{Buffer(g), off});
    if (fresh) {
      for (auto& [d, p] : placed)
        if (d != w.get() && p.buffer.get() == g.get())
          return fail("buffer " + g->name + " plays two parts of the intrinsic");
      return true;
    }
    if (it->second.buffer.get() != g.get())
      return fail("the intrinsic's " + w->name + " is both " + it->second.buffer->name + " and " +
                  g->name);
    for (size_t d = 0; d < off.size(); ++d)
      if (!structural_equal(off[d], it->second.offset[d]))
        return fail("two accesses to " + g->name + " are at different tile origins");
    return true;
  }

  const std::vector<const For*>& loops_;
};

// The implementation moved onto the tile: accesses to description buffers go to the placed
// buffers at offset + index; loops and local buffers are renamed (fresh per instance).
class Instantiate : public IRMutator {
 public:
  explicit Instantiate(std::unordered_map<const BufferNode*, Placement> p)
      : placed_(std::move(p)) {}

  Expr visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
    Expr m = IRMutator::visit_BufferLoad(op, e);
    auto* l = m.as<BufferLoad>();
    auto it = placed_.find(l->buffer.get());
    if (it == placed_.end()) return m;
    return BufferLoad::make(it->second.buffer, moved(l->indices, it->second.offset));
  }
  Stmt visit_BufferStore(const BufferStore* op, const Stmt& s) override {
    Stmt m = IRMutator::visit_BufferStore(op, s);
    auto* st = m.as<BufferStore>();
    auto it = placed_.find(st->buffer.get());
    if (it == placed_.end()) return m;
    return BufferStore::make(it->second.buffer, st->value, moved(st->indices, it->second.offset));
  }
  Stmt visit_For(const For* op, const Stmt&) override {
    Var v(op->loop_var.name(), op->loop_var.dtype());
    Stmt body = mutate(substitute(op->body, op->loop_var, v));
    return For::make(v, op->min, op->extent, op->kind, body, op->thread_tag);
  }
  Stmt visit_Allocate(const Allocate* op, const Stmt&) override {
    const BufferNode& b = *op->buffer;
    Buffer nb = Buffer::make(b.name, b.dtype, b.shape, b.scope, b.strides, b.alignment);
    std::vector<Expr> zero(b.shape.size(), i64(0));
    placed_[op->buffer.get()] = Placement{nb, zero};
    return Allocate::make(nb, mutate(op->body));
  }

 private:
  static std::vector<Expr> moved(const std::vector<Expr>& idx, const std::vector<Expr>& off) {
    size_t lead = off.size() - idx.size();
    std::vector<Expr> out(off.begin(), off.begin() + std::ptrdiff_t(lead));
    for (size_t d = 0; d < idx.size(); ++d) {
      int64_t z = -1;
      const Expr& o = off[lead + d];
      if (is_const_int(o, &z) && z == 0) {
        out.push_back(idx[d]);
      } else if (auto* r = idx[d].as<Ramp>()) {
        out.push_back(Ramp::make(cast(r->base.dtype(), o) + r->base, r->stride, r->lanes));
      } else {
        out.push_back(cast(idx[d].dtype(), o) + idx[d]);
      }
    }
    return out;
  }
  std::unordered_map<const BufferNode*, Placement> placed_;
};

// The predicate with every tile loop at its last iteration: true exactly when the whole tile is
// inside the predicate, provided each conjunct is `e < c` with e a sum of products of loop
// variables and positive constants and c free of the tile's loops (what split's tail masks are:
// c a constant, or a symbolic extent). Undefined otherwise.
bool uses_any(const Expr& e, const std::vector<const For*>& loops) {
  for (const For* f : loops)
    if (uses_var(e, f->loop_var)) return true;
  return false;
}
bool monotone(const Expr& e) {
  if (e.as<VarNode>() || e.as<IntImm>()) {
    int64_t v = 0;
    return !is_const_int(e, &v) || v >= 0;
  }
  if (auto* a = e.as<Add>()) return monotone(a->a) && monotone(a->b);
  if (auto* m = e.as<Mul>()) return monotone(m->a) && monotone(m->b);
  return false;
}
Expr full_tile_condition(const Expr& pred, const std::vector<const For*>& loops) {
  for (const Expr& c : conjuncts(pred))
    if (auto* lt = c.as<LT>(); !(lt && monotone(lt->a) && !uses_any(lt->b, loops))) return Expr();
  VarMap last;
  for (const For* f : loops) last[f->loop_var.node()] = f->min + f->extent - 1;
  return arith::simplify(substitute(pred, last));
}

// A partial tile computed by the implementation on a local copy of the output tile: copy in
// the masked elements (zeros elsewhere), run the intrinsic, copy the masked elements back. Only
// tiles whose first element is inside the mask run. Undefined when the mask also constrains a
// loop that does not index the output (a reduction tail).
Stmt scratch_partial_tile(const BlockRealize* br, const Stmt& bound_body,
                          const std::vector<const For*>& loops, const Buffer& desc_out,
                          const Buffer& impl_out, const Placement& out_place, const Stmt& impl,
                          std::unordered_map<const BufferNode*, Placement> placed) {
  auto* store = bound_body.as<BufferStore>();
  if (store == nullptr) return Stmt();
  const std::vector<Expr>& gi = store->indices;
  size_t lead = gi.size() - desc_out->shape.size();
  // 1. The loops that index the output; the mask must use no other tile loop.
  std::vector<const For*> out_loops;
  for (const For* f : loops) {
    bool used = false;
    for (const Expr& e : gi) used = used || uses_var(e, f->loop_var);
    if (used) {
      out_loops.push_back(f);
    } else if (uses_var(br->predicate, f->loop_var)) {
      return Stmt();
    }
  }
  // 2. The scratch tile, indexed like the intrinsic's output.
  std::vector<int64_t> shape;
  for (const Expr& d : desc_out->shape) {
    int64_t v = 0;
    if (!is_const_int(d, &v)) return Stmt();
    shape.push_back(v);
  }
  Buffer scratch =
      Buffer::make("partial_" + desc_out->name, desc_out->dtype, shape, StorageScope::kLocal);
  std::vector<Expr> si;
  for (size_t d = lead; d < gi.size(); ++d)
    si.push_back(
        arith::simplify((arith::linear_form(gi[d]) - arith::linear_form(out_place.offset[d]))
                            .to_expr(gi[d].dtype())));
  Buffer out(store->buffer);
  auto over_tile = [&](Stmt body) {
    for (auto it = out_loops.rbegin(); it != out_loops.rend(); ++it) {
      Var v((*it)->loop_var.name(), (*it)->loop_var.dtype());
      body = For::make(v, (*it)->min, (*it)->extent, ForKind::kSerial,
                       substitute(body, (*it)->loop_var, v));
    }
    return body;
  };
  const Expr& mask = br->predicate;
  Stmt copy_in =
      over_tile(IfThenElse::make(mask, BufferStore::make(scratch, out.load(gi), si),
                                 BufferStore::make(scratch, make_const(out->dtype, 0), si)));
  Stmt copy_out = over_tile(IfThenElse::make(mask, BufferStore::make(out, scratch.load(si), gi)));
  // 3. The implementation with its output on the scratch tile.
  placed[impl_out.get()] = Placement{scratch, std::vector<Expr>(shape.size(), i64(0))};
  Stmt run = Instantiate(std::move(placed)).mutate(impl);
  VarMap first;
  for (const For* f : loops) first[f->loop_var.node()] = f->min;
  Expr any = arith::simplify(substitute(mask, first));
  return IfThenElse::make(any, Allocate::make(scratch, SeqStmt::make({copy_in, run, copy_out})));
}

}  // namespace

// Preconditions:
// - the intrinsic is registered (or is a name of the x86 FMA family);
// - the block's body is a chain of loops around one block with no init (blockize made it; run
//   decompose_reduction first for a reduction), with the description's loop extents in order;
// - binding the inner iter vars, the inner block's store matches the description's store
//   expression for expression, each buffer standing for one description buffer, each index
//   being the description's plus an offset that does not depend on the tile's loops;
// - the inner predicate is true, or made of `e < c` tail masks (then a partial tile runs the
//   original loops, or with PartialTile::kScratch the implementation on a scratch copy of its
//   output tile, with kTail / kTailRows a second intrinsic, and a full one the
//   implementation).
namespace {

// An intrinsic's implementation instantiated on a tile: the tile's inner block (iter vars bound
// to `bound_body`) matched against the intrinsic's description. `extents` is the description
// loop extents the tile must have (the tile's own, or a tail's); fails with a TensorizeError.
using Placements = std::unordered_map<const BufferNode*, Placement>;
struct Instance {
  Stmt body;
  Placements desc_placed;  // description buffer -> where it lies in the tile
  Placements impl_placed;  // implementation buffer -> the same
};
Placements impl_placement(const TensorIntrin& ti, const Placements& desc_placed) {
  Placements out;
  for (size_t p = 0; p < ti.desc.params.size(); ++p)
    out[ti.impl.params[p].get()] = desc_placed.at(ti.desc.params[p].get());
  return out;
}
Instance instantiate(const TensorIntrin& ti, const std::vector<const For*>& loops,
                     const std::vector<int64_t>& extents, const Stmt& bound_body,
                     const std::string& what) {
  std::vector<const For*> dloops;
  const BlockRealize* dbr = loop_chain(ti.desc.body, &dloops);
  INGOT_ICHECK(dbr != nullptr, "intrinsic {} has a malformed description", ti.name);
  // 1. The loop nests must have the same extents.
  auto show = [](const std::vector<const For*>& ls) {
    std::string s;
    for (const For* f : ls) s += (s.empty() ? "" : ", ") + to_string(f->extent);
    return "[" + s + "]";
  };
  bool same = extents.size() == dloops.size();
  for (size_t k = 0; same && k < dloops.size(); ++k) {
    int64_t c = 0, m = 0;
    same = is_const_int(dloops[k]->extent, &c) && c == extents[k] &&
           is_const_int(loops[k]->min, &m) && m == 0;
  }
  if (!same)
    fail_schedule<TensorizeError>("cannot {}: its loop extents {} differ from the intrinsic's {}",
                                  what, show(loops), show(dloops));
  // 2. Both stores in terms of the tile's loop variables; match them.
  VarMap dbind, dloop;
  for (size_t k = 0; k < dloops.size(); ++k) dloop[dloops[k]->loop_var.node()] = loops[k]->loop_var;
  const Block* db = dbr->block_node();
  for (size_t i = 0; i < db->iter_vars.size(); ++i)
    dbind[db->iter_vars[i].var.node()] = substitute(dbr->iter_values[i], dloop);
  Matcher m(loops);
  if (!m.stmt(bound_body, substitute(db->body, dbind)))
    fail_schedule<TensorizeError>("cannot {}: {}", what, m.why);
  for (const Buffer& p : ti.desc.params)
    if (!m.placed.count(p.get()))
      fail_schedule<TensorizeError>("cannot {}: the block does not access the intrinsic's {}", what,
                                    qname(p->name));
  // 3. The implementation at the tile.
  Instance out;
  out.impl_placed = impl_placement(ti, m.placed);
  out.body = Instantiate(out.impl_placed).mutate(ti.impl.body);
  out.desc_placed = std::move(m.placed);
  return out;
}

// The intrinsic, held for the caller's use (a re-registration of the name cannot free it).
std::shared_ptr<const TensorIntrin> intrin_named(const std::string& name, const Block* b) {
  std::shared_ptr<const TensorIntrin> ti = find_tensor_intrin(name);
  if (!ti)
    fail_schedule<UnknownIntrinError>("cannot tensorize block {}: no intrinsic named {}",
                                      qname(b->name_hint), qname(name));
  return ti;
}

// The one tile loop that `other`'s description shortens (to extent 1 with `to_one`, else to any
// extent from 1 up), with the description's extents; -1 when it is not the tile's with exactly
// one loop shorter.
int shortened_loop(const std::vector<const For*>& loops, const TensorIntrin& other, bool to_one,
                   std::vector<int64_t>* extents) {
  std::vector<const For*> tloops;
  if (!loop_chain(other.desc.body, &tloops) || tloops.size() != loops.size()) return -1;
  int cut = -1;
  for (size_t k = 0; k < loops.size(); ++k) {
    int64_t e = 0, t = 0;
    if (!is_const_int(loops[k]->extent, &e) || !is_const_int(tloops[k]->extent, &t)) return -1;
    if (t != e) {
      if (cut >= 0 || t > e || t < 1 || (to_one && t != 1)) return -1;
      cut = int(k);
    }
    extents->push_back(t);
  }
  return cut;
}

// A partial tile run by `tail`, whose description is the tile's with one loop shorter (extent
// t): valid when the mask uses that loop alone, and only when exactly its first t iterations
// are inside the mask (checked at run time: rows t - 1 in, row t out); otherwise undefined.
Stmt tail_partial_tile(const BlockRealize* br, const std::vector<const For*>& loops,
                       const TensorIntrin& tail, const Stmt& bound_body, const std::string& what) {
  std::vector<int64_t> extents;
  const int cut = shortened_loop(loops, tail, false, &extents);
  if (cut < 0) return Stmt();
  for (size_t k = 0; k < loops.size(); ++k)
    if (int(k) != cut && uses_var(br->predicate, loops[k]->loop_var)) return Stmt();
  const Var& v = loops[size_t(cut)]->loop_var;
  int64_t t = extents[size_t(cut)];
  Expr exact = arith::simplify(substitute(br->predicate, v, i64(t - 1)) &&
                               !substitute(br->predicate, v, i64(t)));
  return IfThenElse::make(exact, instantiate(tail, loops, extents, bound_body, what).body);
}

// A partial tile run one iteration of its masked loop at a time by `one`, whose description is
// the tile's with that loop of extent 1: each iteration inside the mask runs it, so a mask of any
// bound (a symbolic row count) is covered with no copies. Where the mask's conjuncts on other
// tile loops cut the tile too (a column tail), each row runs `one` on a scratch copy of its
// output tile (checked at run time; the caller asserts, as with kScratch, that the other
// operands are padded to whole tiles), or, when those conjuncts constrain a loop that indexes no
// output, the tile keeps its loops (`loops_body`). Undefined when the intrinsic is not the
// tile's with one loop of extent 1.
Stmt rows_partial_tile(const BlockRealize* br, const std::vector<const For*>& loops,
                       const TensorIntrin& one, const Stmt& bound_body, const Stmt& loops_body,
                       const std::string& what) {
  std::vector<int64_t> extents;
  const int cut = shortened_loop(loops, one, true, &extents);
  if (cut < 0) return Stmt();
  const For* cut_loop = loops[size_t(cut)];
  const Var& v = cut_loop->loop_var;
  // The conjuncts on the cut loop (the rows' mask) and the others (whole over the tile, or the
  // tile keeps its loops).
  Expr rows_mask = make_const(DataType::boolean(), 1), others = rows_mask;
  for (const Expr& c : conjuncts(br->predicate)) {
    Expr& side = uses_var(c, v) ? rows_mask : others;
    side = side && c;
  }
  for (size_t k = 0; k < loops.size(); ++k)
    if (int(k) != cut && uses_var(rows_mask, loops[k]->loop_var)) return Stmt();
  // The cut loop v becomes r + v1: r the iteration (an offset to the intrinsic), v1 its loop of
  // extent 1.
  Var r(v.name() + "_row", v.dtype()), v1(v.name() + "_1", v.dtype());
  Stmt unit = For::make(v1, make_const(v.dtype(), 0), make_const(v.dtype(), 1), ForKind::kSerial,
                        Evaluate::make(make_const(v.dtype(), 0)));
  std::vector<const For*> unit_loops = loops;
  unit_loops[size_t(cut)] = unit.as<For>();
  Stmt body = substitute(bound_body, v, Expr(r) + v1);
  Instance row = instantiate(one, unit_loops, extents, body, what);
  Expr inside = arith::simplify(substitute(rows_mask, v, cut_loop->min + r));
  auto over_rows = [&](Stmt run) {
    return For::make(r, cut_loop->min, cut_loop->extent, ForKind::kSerial,
                     IfThenElse::make(inside, run));
  };
  Expr whole = arith::simplify(others);
  int64_t always = 0;
  if (is_const_int(whole, &always) && always != 0) return over_rows(row.body);
  Expr whole_tile = full_tile_condition(whole, loops);
  if (!whole_tile.defined()) return Stmt();
  // A row the other conjuncts cut (a column tail): the intrinsic on a scratch copy of the row's
  // output tile, as PartialTile::kScratch (the caller asserts the other operands are padded to
  // whole tiles: packed panels); a mask on a loop that indexes no output keeps the loops.
  std::vector<const For*> dloops;
  const Block* db = loop_chain(one.desc.body, &dloops)->block_node();
  auto* dstore = db->body.as<BufferStore>();
  Stmt scratch;
  for (size_t p = 0; dstore && p < one.desc.params.size(); ++p) {
    if (one.desc.params[p].get() != dstore->buffer.get()) continue;
    Stmt cut_cols = BlockRealize::make(br->iter_values, whole, br->block);
    scratch = scratch_partial_tile(
        cut_cols.as<BlockRealize>(), body, unit_loops, one.desc.params[p], one.impl.params[p],
        row.desc_placed.at(dstore->buffer.get()), one.impl.body, row.impl_placed);
  }
  if (!scratch.defined()) return IfThenElse::make(whole_tile, over_rows(row.body), loops_body);
  return over_rows(IfThenElse::make(whole_tile, row.body, scratch));
}

}  // namespace

void Schedule::tensorize(BlockRV block, const std::string& intrin, PartialTile partial) {
  INGOT_ICHECK(partial != PartialTile::kTail && partial != PartialTile::kTailRows,
               "tensorize: a tail tile needs its intrinsic's name");
  tensorize_tile(block, intrin, partial, "");
}

void Schedule::tensorize(BlockRV block, const std::string& intrin, const std::string& tail_intrin,
                         PartialTile partial) {
  INGOT_ICHECK(partial == PartialTile::kTail || partial == PartialTile::kTailRows,
               "tensorize: a tail intrinsic serves the tail modes only");
  tensorize_tile(block, intrin, partial, tail_intrin);
}

void Schedule::tensorize_tile(BlockRV block, const std::string& intrin, PartialTile partial,
                              const std::string& tail_intrin) {
  BlockInfo bi = block_info(*this, block);
  const Block* b = bi.block;
  std::string what = "tensorize block " + qname(b->name_hint) + " with " + qname(intrin);
  // 1. The intrinsic and the tile's loops and inner block.
  std::shared_ptr<const TensorIntrin> held = intrin_named(intrin, b);
  const TensorIntrin& ti = *held;
  std::vector<const For*> loops;
  const BlockRealize* br = loop_chain(b->body, &loops);
  if (!br)
    fail_schedule<TensorizeError>(
        "cannot {}: its body is not loops around one block (blockize the tile first)", what);
  const Block* inner = br->block_node();
  if (inner->init.defined())
    fail_schedule<TensorizeError>("cannot {}: block {} has an init (decompose_reduction first)",
                                  what, qname(inner->name_hint));
  std::vector<int64_t> extents;
  for (const For* f : loops) {
    int64_t e = -1;
    is_const_int(f->extent, &e);
    extents.push_back(e);
  }
  VarMap bind;
  for (size_t i = 0; i < inner->iter_vars.size(); ++i)
    bind[inner->iter_vars[i].var.node()] = br->iter_values[i];
  Stmt bound_body = substitute(inner->body, bind);
  // 2. The implementation at the tile; a masked tile keeps its loops for partial tiles.
  Instance full_tile = instantiate(ti, loops, extents, bound_body, what);
  Stmt body = full_tile.body;
  int64_t t = 0;
  if (!(is_const_int(br->predicate, &t) && t != 0)) {
    Expr full = full_tile_condition(br->predicate, loops);
    if (!full.defined())
      fail_schedule<TensorizeError>("cannot {}: its predicate {} is not made of tail masks `e < c`",
                                    what, to_string(br->predicate));
    Stmt partial_tile;
    if (partial == PartialTile::kScratch) {
      std::vector<const For*> dloops;
      const Block* db = loop_chain(ti.desc.body, &dloops)->block_node();
      auto* dstore = db->body.as<BufferStore>();
      for (size_t p = 0; dstore && p < ti.desc.params.size(); ++p) {
        if (ti.desc.params[p].get() != dstore->buffer.get()) continue;
        partial_tile = scratch_partial_tile(
            br, bound_body, loops, ti.desc.params[p], ti.impl.params[p],
            full_tile.desc_placed.at(dstore->buffer.get()), ti.impl.body, full_tile.impl_placed);
        break;
      }
    } else if (partial == PartialTile::kTail) {
      std::shared_ptr<const TensorIntrin> held_tail = intrin_named(tail_intrin, b);
      const TensorIntrin& tail = *held_tail;
      Stmt tail_tile = tail_partial_tile(br, loops, tail, bound_body, what);
      if (!tail_tile.defined())
        fail_schedule<TensorizeError>(
            "cannot {}: its mask {} does not cut the one loop the tail intrinsic {} shortens", what,
            to_string(br->predicate), qname(tail_intrin));
      // Any other partial tile (none in a split's last strip) keeps the loops.
      auto* guarded = tail_tile.as<IfThenElse>();
      partial_tile = IfThenElse::make(guarded->condition, guarded->then_case, b->body);
    } else if (partial == PartialTile::kTailRows) {
      std::shared_ptr<const TensorIntrin> held_one = intrin_named(tail_intrin, b);
      partial_tile = rows_partial_tile(br, loops, *held_one, bound_body, b->body, what);
      if (!partial_tile.defined())
        fail_schedule<TensorizeError>(
            "cannot {}: its mask {} does not cut the one loop the intrinsic {} runs one "
            "iteration of",
            what, to_string(br->predicate), qname(tail_intrin));
    }
    body = IfThenElse::make(full, body, partial_tile.defined() ? partial_tile : b->body);
  }
  // 3. The tile block keeps its iter vars and regions, with the new body.
  auto ann = b->annotations;
  ann["tensorized"] = intrin;
  Stmt nb = Block::make(b->name_hint, b->iter_vars, b->reads, b->writes, body, b->init,
                        b->alloc_buffers, ann);
  set_body(replace_stmts(
      func_.body,
      {{bi.realize.get(), BlockRealize::make(bi.br->iter_values, bi.br->predicate, nb)}}));
  // 4. Record.
  nlohmann::json attrs = {{"intrin", intrin}};
  if (partial == PartialTile::kScratch) attrs["partial"] = "scratch";
  if (partial == PartialTile::kTail || partial == PartialTile::kTailRows) {
    attrs["partial"] = partial == PartialTile::kTail ? "tail" : "tail_rows";
    attrs["tail_intrin"] = tail_intrin;
  }
  record({"tensorize", {rv_name(block)}, attrs, {}, {}});
}

}  // namespace ingot::schedule

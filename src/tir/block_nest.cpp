// Block-form nests (see block_nest.h).
#include "tir/block_nest.h"

#include "tir/mutator.h"
#include "tir/op.h"
#include "tir/region_analysis.h"

namespace ingot::tir {

Stmt block_loop_nest(const std::vector<Var>& loops, const std::vector<IterVar>& ivs, Stmt blk) {
  std::vector<Expr> values(loops.begin(), loops.end());
  Stmt st = BlockRealize::make(values, IntImm::make(DataType::boolean(), 1), std::move(blk));
  for (size_t l = loops.size(); l-- > 0;)
    st = For::make(loops[l], i64(0), ivs[l].extent, ForKind::kSerial, st);
  return st;
}

void append_in_place_block(PrimFunc& f, const std::string& name, const Buffer& y,
                           const std::vector<Var>& loops, const std::vector<IterVar>& ivs,
                           size_t spatial, const InPlaceUpdate& update,
                           const std::vector<Buffer>& params) {
  std::vector<IterVar> eivs(ivs.begin(), ivs.begin() + std::ptrdiff_t(spatial));
  std::vector<Var> eloops(loops.begin(), loops.begin() + std::ptrdiff_t(spatial));
  std::vector<Expr> idx;
  for (size_t k = 0; k < eivs.size(); ++k) {
    eivs[k].var = Var("e" + loops[k].name());
    eloops[k] = Var(loops[k].name());
    idx.push_back(eivs[k].var);
  }
  Stmt upd = BufferStore::make(y, update(y.load(idx), idx), idx);
  Stmt est = block_loop_nest(eloops, eivs, make_block(name, eivs, upd));
  f.body = SeqStmt::make({f.body, est});
  for (const Buffer& b : params) f.params.push_back(b);
}

namespace {

class BufferReplacer : public IRMutator {
 public:
  BufferReplacer(const Buffer& f, const Buffer& t) : from_(f), to_(t) {}
  Expr visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
    Expr r = IRMutator::visit_BufferLoad(op, e);
    auto* l = r.as<BufferLoad>();
    return l->buffer == from_.ptr() ? BufferLoad::make(to_, l->indices) : r;
  }
  Stmt visit_BufferStore(const BufferStore* op, const Stmt& s) override {
    Stmt r = IRMutator::visit_BufferStore(op, s);
    auto* st = r.as<BufferStore>();
    return st->buffer == from_.ptr() ? BufferStore::make(to_, st->value, st->indices) : r;
  }
  Stmt visit_Block(const Block* op, const Stmt& s) override {
    Stmt r = IRMutator::visit_Block(op, s);
    auto* b = r.as<Block>();
    auto fix = [&](std::vector<BufferRegion> v) {
      for (BufferRegion& x : v)
        if (x.buffer.same_as(from_)) x.buffer = to_;
      return v;
    };
    std::vector<Buffer> alloc = b->alloc_buffers;
    for (Buffer& x : alloc)
      if (x.same_as(from_)) x = to_;
    return Block::make(b->name_hint, b->iter_vars, fix(b->reads), fix(b->writes), b->body, b->init,
                       alloc, b->annotations);
  }

 private:
  Buffer from_, to_;
};

}  // namespace

Stmt make_root(Stmt body, std::vector<Buffer> alloc) {
  Stmt block = Block::make("root", {}, {}, {}, std::move(body), Stmt(), std::move(alloc));
  return BlockRealize::make({}, IntImm::make(DataType::boolean(), 1), block);
}

Stmt replace_buffer(const Stmt& s, const Buffer& from, const Buffer& to) {
  return BufferReplacer(from, to).mutate(s);
}

}  // namespace ingot::tir

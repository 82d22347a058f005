// Block-form nests (see block_nest.h).
#include "tir/block_nest.h"

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

}  // namespace ingot::tir

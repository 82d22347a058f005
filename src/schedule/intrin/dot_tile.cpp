// The dot-product tiles' shared implementation (see dot_tile.h).
#include "schedule/intrin/dot_tile.h"

#include <algorithm>

#include "support/error.h"
#include "tir/op.h"
#include "tir/region_analysis.h"

namespace ingot::schedule {

using namespace tir;

int dot_tile_max_rows(int lanes, int nr) {
  const int vecs = std::max(1, nr / lanes), regs = lanes == 16 ? 32 : 16;
  return std::clamp((regs - vecs - 1) / vecs, 1, 8);
}

PrimFunc dot_tile_description(const std::string& name, DataType a_t, DataType b_t, DataType c_t,
                              int group, int mr, int nr, int64_t steps) {
  Buffer A = Buffer::make("A", a_t, std::vector<int64_t>{mr, steps * group});
  Buffer B = Buffer::make("Bp", b_t, std::vector<int64_t>{1, steps, nr, group});
  Buffer C = Buffer::make("C", c_t, std::vector<int64_t>{mr, nr});
  Var vi("vi"), vj("vj"), vk("vk"), vg("vg"), li("i"), lj("j"), lk("k"), lg("g");
  Stmt body = BufferStore::make(C,
                                C.load({vi, vj}) + cast(c_t, A.load({vi, vk * group + vg})) *
                                                       cast(c_t, B.load({i64(0), vk, vj, vg})),
                                {vi, vj});
  std::vector<IterVar> ivs = {{vi, i64(0), i64(mr), IterKind::kSpatial},
                              {vj, i64(0), i64(nr), IterKind::kSpatial},
                              {vk, i64(0), i64(steps), IterKind::kReduce},
                              {vg, i64(0), i64(group), IterKind::kReduce}};
  Stmt st = BlockRealize::make({li, lj, lk, lg}, IntImm::make(DataType::boolean(), 1),
                               make_block("dot_tile", ivs, body));
  st = For::make(lg, i64(0), i64(group), ForKind::kSerial, st);
  st = For::make(lk, i64(0), i64(steps), ForKind::kSerial, st);
  st = For::make(lj, i64(0), i64(nr), ForKind::kSerial, st);
  st = For::make(li, i64(0), i64(mr), ForKind::kSerial, st);
  return PrimFunc{name + "_desc", {A, B, C}, st};
}

PrimFunc dot_tile_impl(const std::string& name, const Buffer& A, const Buffer& B, const Buffer& C,
                       int lanes, int64_t steps, const Var& k, const std::vector<Expr>& rows,
                       const std::function<Expr(int)>& panel, Intrinsic dot) {
  const int64_t mr = int64_t(rows.size());
  int64_t nr = 0;
  INGOT_ICHECK(is_const_int(C->shape.at(1), &nr) && nr % lanes == 0,
               "dot tile {}: C's columns are not whole vectors", name);
  Buffer acc = Buffer::make("acc", C->dtype, std::vector<int64_t>{mr, nr}, StorageScope::kLocal);
  std::vector<Stmt> load, step, store;
  for (int v0 = 0; v0 < int(nr); v0 += lanes) {
    const Expr b = panel(v0);
    for (int64_t r = 0; r < mr; ++r) {
      std::vector<Expr> ai = {i64(r), Ramp::make(i64(v0), i64(1), lanes)};
      step.push_back(BufferStore::make(acc, call(dot, {acc.load(ai), rows[size_t(r)], b}), ai));
      load.push_back(BufferStore::make(acc, C.load(ai), ai));
      store.push_back(BufferStore::make(C, acc.load(ai), ai));
    }
  }
  Stmt loop = For::make(k, i64(0), i64(steps), ForKind::kSerial, SeqStmt::make(step));
  return PrimFunc{
      name + "_impl",
      {A, B, C},
      Allocate::make(acc, SeqStmt::make({SeqStmt::make(load), loop, SeqStmt::make(store)}))};
}

}  // namespace ingot::schedule

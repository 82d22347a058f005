// Primitive fuse: a perfect nest of adjacent loops becomes one loop over the product of their
// extents; each old variable is recovered with floordiv/floormod.
#include "schedule/primitives/common.h"
#include "tir/analysis.h"
#include "tir/arith/analyzer.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace ingot::schedule {

using namespace tir;

class FuseError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// Preconditions:
// - at least one loop; all serial;
// - each loop after the first is the only statement directly inside the one before it;
// - no loop's min or extent uses another of the fused loop variables.
LoopRV Schedule::fuse(std::vector<LoopRV> loops) {
  if (loops.empty()) fail_schedule<FuseError>("cannot fuse an empty list of loops");
  // 1. Resolve and check adjacency.
  std::vector<LoopInfo> ls;
  for (LoopRV l : loops) ls.push_back(loop_info(*this, l));
  for (size_t k = 0; k < ls.size(); ++k) {
    const For* f = ls[k].node;
    if (f->kind != ForKind::kSerial)
      fail_schedule<FuseError>("cannot fuse loop {}: it is {}", qname(f->loop_var.name()),
                               for_kind_name(f->kind));
    if (k > 0 && !ls[k - 1].node->body.same_as(ls[k].loop))
      fail_schedule<FuseError>(
          "cannot fuse loops {} and {}: {} is not the only statement directly inside {}",
          qname(ls[k - 1].node->loop_var.name()), qname(f->loop_var.name()),
          qname(f->loop_var.name()), qname(ls[k - 1].node->loop_var.name()));
    for (size_t j = 0; j < k; ++j)
      if (uses_var(f->min, ls[j].node->loop_var) || uses_var(f->extent, ls[j].node->loop_var))
        fail_schedule<FuseError>("cannot fuse loop {}: its range depends on loop {}",
                                 qname(f->loop_var.name()), qname(ls[j].node->loop_var.name()));
  }
  // 2. The fused variable and each old variable's value: min_k + (fused / stride_k) % extent_k.
  std::string name;
  for (auto& l : ls) name += l.node->loop_var.name() + "_";
  DataType dt = ls[0].node->loop_var.dtype();
  Var fused(name + "fused", dt);
  VarMap vmap;
  Expr stride = make_const(dt, 1);
  for (size_t k = ls.size(); k-- > 0;) {
    const For* f = ls[k].node;
    int64_t unit = 0;
    Expr q = is_const_int(stride, &unit) && unit == 1 ? Expr(fused) : floordiv(fused, stride);
    Expr v = k == 0 ? q : floormod(q, f->extent);
    int64_t m = 0;
    vmap[f->loop_var.node()] = is_const_int(f->min, &m) && m == 0 ? v : f->min + v;
    stride = arith::simplify(stride * f->extent);
  }
  // 3. Substitute in the innermost body and replace the nest.
  Expr extent = arith::simplify(stride);
  Stmt body = substitute(ls.back().node->body, vmap);
  Stmt loop = For::make(fused, make_const(dt, 0), extent, ForKind::kSerial, body);
  set_body(replace_stmts(func_.body, {{ls[0].loop.get(), loop}}));
  // 4. Record.
  LoopRV out = new_loop_rv(fused);
  nlohmann::json in = nlohmann::json::array();
  for (LoopRV l : loops) in.push_back(rv_name(l));
  record({"fuse", nlohmann::json::array({in}), nlohmann::json::object(), {rv_name(out)}, {}});
  return out;
}

}  // namespace ingot::schedule

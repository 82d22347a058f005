// Primitive split: one loop becomes a nest of loops whose extents are the factors. A product
// larger than the extent is allowed: the blocks inside get a predicate masking the tail. A loop of
// symbolic extent (a sequence length) splits too, with its one inferred factor the ceiling of
// the extent over the others' product, and the mask unless the others are all 1.
#include "schedule/primitives/common.h"
#include "tir/arith/analyzer.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace ingot::schedule {

using namespace tir;

class SplitFactorError : public ScheduleError {
  using ScheduleError::ScheduleError;
};
class SplitLoopError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// Preconditions:
// - the loop is serial; its extent is a constant, or symbolic with one factor None;
// - there are at least two factors, each >= 1, at most one of them None (inferred);
// - the factors multiply to at least the extent (a larger product masks the tail).
std::vector<LoopRV> Schedule::split(LoopRV loop, std::vector<Factor> factors) {
  LoopInfo li = loop_info(*this, loop);
  const For* f = li.node;
  std::string name = f->loop_var.name();
  // 1. Check the loop and resolve the factors.
  int64_t extent = 0;
  const bool symbolic = !is_const_int(f->extent, &extent);
  if (f->kind != ForKind::kSerial)
    fail_schedule<SplitLoopError>("cannot split loop {}: it is already {}", qname(name),
                                  for_kind_name(f->kind));
  if (factors.size() < 2)
    fail_schedule<SplitFactorError>("cannot split loop {}: need at least two factors, got {}",
                                    qname(name), factors.size());
  std::vector<int64_t> vals;
  int none = -1;
  int64_t known = 1;
  for (size_t k = 0; k < factors.size(); ++k) {
    const Factor& x = factors[k];
    if (!x.value && !x.rv) {
      if (none >= 0)
        fail_schedule<SplitFactorError>("cannot split loop {}: more than one factor is None",
                                        qname(name));
      none = int(k);
      vals.push_back(0);
      continue;
    }
    int64_t v = x.rv ? value(*x.rv) : *x.value;
    if (v < 1)
      fail_schedule<SplitFactorError>("cannot split loop {}: factor {} is not positive",
                                      qname(name), v);
    vals.push_back(v);
    known *= v;
  }
  if (symbolic && none < 0)
    fail_schedule<SplitFactorError>(
        "cannot split loop {}: its extent {} is symbolic, so one factor must be None", qname(name),
        to_string(f->extent));
  if (none >= 0 && !symbolic) vals[size_t(none)] = (extent + known - 1) / known;
  int64_t product = none >= 0 ? known * vals[size_t(none)] : known;
  if (!symbolic && product < extent)
    fail_schedule<SplitFactorError>(
        "cannot split loop {}: the factors multiply to {}, less than its extent {}", qname(name),
        product, extent);
  // 2. New loop variables; the old variable becomes min + ((v0 * f1 + v1) * f2 + v2)...
  DataType dt = f->loop_var.dtype();
  // The inferred factor of a symbolic extent: ceil(extent / known).
  Expr inferred = symbolic ? arith::simplify(floordiv(f->extent + make_const(dt, double(known - 1)),
                                                      make_const(dt, double(known))))
                           : Expr();
  auto factor = [&](size_t k) {
    return symbolic && int(k) == none ? inferred : make_const(dt, double(vals[k]));
  };
  std::vector<Var> vars;
  Expr fused;
  for (size_t k = 0; k < vals.size(); ++k) {
    vars.emplace_back(name + "_" + std::to_string(k), dt);
    fused = k == 0 ? Expr(vars[0]) : fused * factor(k) + vars[k];
  }
  int64_t m = 0;
  Expr old_value = is_const_int(f->min, &m) && m == 0 ? fused : f->min + fused;
  Stmt body = substitute(f->body, f->loop_var, old_value);
  // 3. A tail (product > extent) masks the blocks inside; a symbolic extent split by factors of 1
  //    (its inferred factor is the extent itself) has none.
  if (symbolic && known != 1) {
    body = add_predicate(body, fused < f->extent);
  } else if (product > extent) {
    body = add_predicate(body, fused < make_const(dt, double(extent)));
  }
  // 4. Build the nest innermost first and replace the loop.
  for (size_t k = vals.size(); k-- > 0;)
    body = For::make(vars[k], make_const(dt, 0), factor(k), ForKind::kSerial, body);
  set_body(replace_stmts(func_.body, {{li.loop.get(), body}}));
  // 5. Record.
  std::vector<LoopRV> out;
  std::vector<std::string> names;
  nlohmann::json fj = nlohmann::json::array();
  for (const Factor& x : factors)
    fj.push_back(x.rv      ? nlohmann::json(rv_name(*x.rv))
                 : x.value ? nlohmann::json(*x.value)
                           : nlohmann::json());
  for (const Var& v : vars) {
    out.push_back(new_loop_rv(v));
    names.push_back(rv_name(out.back()));
  }
  record(
      {"split", nlohmann::json::array({rv_name(loop), fj}), nlohmann::json::object(), names, {}});
  return out;
}

}  // namespace ingot::schedule

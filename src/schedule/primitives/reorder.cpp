// Primitive reorder: permutes loops of one perfect nest into the given order (the loops not
// named keep their positions).
#include <unordered_set>

#include "schedule/primitives/common.h"
#include "tir/analysis.h"

namespace ingot::schedule {

using namespace tir;

class ReorderError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// Preconditions:
// - the loops are distinct and lie on one chain of a single nest, where every loop from the
//   outermost to the innermost named one has exactly one statement (the next loop) in its body;
// - no moved loop's min or extent uses a variable of another loop in that chain.
void Schedule::reorder(std::vector<LoopRV> order) {
  // 1. Resolve; the outermost named loop starts the chain.
  std::vector<LoopInfo> ls;
  std::unordered_set<const VarNode*> named;
  for (LoopRV l : order) {
    ls.push_back(loop_info(*this, l));
    if (!named.insert(ls.back().node->loop_var.node()).second)
      fail_schedule<ReorderError>("cannot reorder: loop {} is named twice",
                                  qname(ls.back().node->loop_var.name()));
  }
  if (ls.empty()) fail_schedule<ReorderError>("cannot reorder an empty list of loops");
  const LoopInfo* top = &ls[0];
  for (const LoopInfo& l : ls)
    if (l.outer.size() < top->outer.size()) top = &l;
  // 2. Walk down the single-child chain until every named loop is seen.
  std::vector<const For*> chain;
  size_t seen = 0;
  Stmt cur = top->loop;
  while (true) {
    auto* f = cur.as<For>();
    if (!f) break;
    chain.push_back(f);
    if (named.count(f->loop_var.node()) && ++seen == named.size()) break;
    cur = f->body;
  }
  if (seen != named.size())
    fail_schedule<ReorderError>(
        "cannot reorder loops {} and {}: they are not in one perfect nest (loop {} does not "
        "contain only the next loop)",
        qname(top->node->loop_var.name()), qname(ls.back().node->loop_var.name()),
        qname(chain.back()->loop_var.name()));
  // 3. Assign the new order to the named positions; check ranges do not depend on the chain.
  std::vector<const For*> slots = chain;
  size_t next = 0;
  for (auto& s : slots)
    if (named.count(s->loop_var.node())) s = ls[next++].node;
  for (const For* f : chain) {
    for (const For* g : chain) {
      if (f != g && (uses_var(f->min, g->loop_var) || uses_var(f->extent, g->loop_var)))
        fail_schedule<ReorderError>("cannot reorder loop {}: its range depends on loop {}",
                                    qname(f->loop_var.name()), qname(g->loop_var.name()));
    }
  }
  // 4. Rebuild the chain innermost first.
  Stmt body = chain.back()->body;
  for (size_t k = slots.size(); k-- > 0;) {
    const For* s = slots[k];
    body = For::make(s->loop_var, s->min, s->extent, s->kind, body, s->thread_tag);
  }
  set_body(replace_stmts(func_.body, {{top->loop.get(), body}}));
  // 5. Record.
  nlohmann::json in = nlohmann::json::array();
  for (LoopRV l : order) in.push_back(rv_name(l));
  record({"reorder", nlohmann::json::array({in}), nlohmann::json::object(), {}, {}});
}

}  // namespace ingot::schedule

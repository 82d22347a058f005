// Handle resolution for primitives.
#include "schedule/primitives/common.h"

namespace ingot::schedule {

std::string qname(const std::string& name) {
  return "\"" + name + "\"";
}

BlockInfo block_info(const Schedule& s, BlockRV b) {
  std::string name = s.name_of(b);
  int count = 0;
  auto info = find_block(s.func().body, name, &count);
  if (!info)
    fail_schedule<UnknownHandleError>("block {} no longer exists in {}", qname(name),
                                      s.func().name);
  INGOT_ICHECK(count == 1, "{} blocks named {}", count, name);
  return *info;
}

LoopInfo loop_info(const Schedule& s, LoopRV l) {
  tir::Var v = s.loop_var(l);
  auto info = find_loop(s.func().body, v.node());
  if (!info)
    fail_schedule<UnknownHandleError>(
        "loop {} no longer exists (a split, fuse or inline replaced it)", qname(v.name()));
  return *info;
}

}  // namespace ingot::schedule

namespace ingot::schedule {
void set_loop_kind(Schedule& s, const LoopInfo& li, tir::ForKind kind, std::string tag) {
  const tir::For* f = li.node;
  tir::Stmt loop = tir::For::make(f->loop_var, f->min, f->extent, kind, f->body, std::move(tag));
  s.set_body(replace_stmts(s.func().body, {{li.loop.get(), loop}}));
}
}  // namespace ingot::schedule

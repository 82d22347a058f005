// Primitive get_child_blocks: handles to the blocks directly inside a block or a loop (not
// those nested in another block).
#include "schedule/primitives/common.h"

namespace ingot::schedule {

namespace {
std::vector<BlockRV> child_handles(Schedule& s, const tir::Stmt& scope, const std::string& in) {
  std::vector<BlockRV> out;
  std::vector<std::string> names;
  for (const tir::Stmt& r : child_block_realizes(scope)) {
    out.push_back(s.new_block_rv(r.as<tir::BlockRealize>()->block_node()->name_hint));
    names.push_back(s.rv_name(out.back()));
  }
  s.record({"get_child_blocks", {in}, nlohmann::json::object(), names, {}});
  return out;
}
}  // namespace

// Preconditions: the block exists.
std::vector<BlockRV> Schedule::get_child_blocks(BlockRV block) {
  return child_handles(*this, block_info(*this, block).realize, rv_name(block));
}

// Preconditions: the loop exists.
std::vector<BlockRV> Schedule::get_child_blocks(LoopRV loop) {
  return child_handles(*this, loop_info(*this, loop).loop, rv_name(loop));
}

}  // namespace ingot::schedule

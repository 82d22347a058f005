// Primitive get_loops: handles to the loops around a block, outermost first.
#include "schedule/primitives/common.h"

namespace ingot::schedule {

// Preconditions: the block exists. Only loops inside the enclosing block are returned.
std::vector<LoopRV> Schedule::get_loops(BlockRV block) {
  // 1. Locate the block and its loop chain.
  BlockInfo info = block_info(*this, block);
  // 2. One new handle per loop; record.
  std::vector<LoopRV> out;
  std::vector<std::string> names;
  for (const tir::Stmt& l : info.loops) {
    out.push_back(new_loop_rv(l.as<tir::For>()->loop_var));
    names.push_back(rv_name(out.back()));
  }
  record({"get_loops", {rv_name(block)}, nlohmann::json::object(), names, {}});
  return out;
}

}  // namespace ingot::schedule

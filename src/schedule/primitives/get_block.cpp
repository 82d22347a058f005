// Primitive get_block: a handle to the block with a given name.
#include "schedule/primitives/common.h"

namespace ingot::schedule {

class NoSuchBlockError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// Preconditions: exactly one block in the function has this name.
BlockRV Schedule::get_block(const std::string& name) {
  // 1. Find the block (names are unique; the root block is not a schedulable block).
  int count = 0;
  auto info = find_block(func_.body, name, &count);
  if (!info || name == "root")
    fail_schedule<NoSuchBlockError>("no block named {} in {}", qname(name), func_.name);
  INGOT_ICHECK(count == 1, "{} blocks named {}", count, name);
  // 2. Record.
  BlockRV b = new_block_rv(name);
  record({"get_block", nlohmann::json::array(), {{"name", name}}, {rv_name(b)}, {}});
  return b;
}

}  // namespace ingot::schedule

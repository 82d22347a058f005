// Shared by the primitive files: resolving handles to IR locations, and recording a call.
#pragma once

#include <string>

#include "schedule/ir_utils.h"
#include "schedule/schedule.h"
#include "tir/analysis.h"
#include "tir/printer.h"
#include "tir/visitor.h"

namespace ingot::schedule {

// The block a handle names (ScheduleError when it no longer exists).
BlockInfo block_info(const Schedule& s, BlockRV b);
// The loop a handle names (ScheduleError when it was replaced, e.g. by split or fuse).
LoopInfo loop_info(const Schedule& s, LoopRV l);
// Quoted names for messages: "i1", "C".
std::string qname(const std::string& name);

}  // namespace ingot::schedule

namespace ingot::schedule {
// cache_read/cache_write: a storage scope that is not "local" or "shared".
class CacheScopeError : public ScheduleError {
  using ScheduleError::ScheduleError;
};
// cache_read/cache_write: the scope named by a string ("local", "shared"), and a block named
// `name` copying all of src into dst inside one loop per dimension.
tir::StorageScope cache_scope(const std::string& scope, const std::string& what);
tir::Stmt copy_nest(const std::string& name, const tir::Buffer& src, const tir::Buffer& dst);
// The loop rebuilt with another kind (and thread tag), replaced in the schedule.
void set_loop_kind(Schedule& s, const LoopInfo& li, tir::ForKind kind, std::string tag = "");
}  // namespace ingot::schedule

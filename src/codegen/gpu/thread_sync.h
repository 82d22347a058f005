// Barriers for shared memory in a device function: where the threads of a block must wait for
// each other because one thread reads (or writes) shared memory that another wrote (or read)
// since the last barrier. Statements are compared by the shared buffers they touch, as TVM's
// storage sync does: in a sequence, a barrier goes before the first statement whose accesses
// conflict with those since the last barrier (a read after a write, a write after a read); a
// loop's body also meets its own accesses from the previous iteration (so a k-slab loop that
// fills a tile and then reads it gets a barrier before the fill and one before the reads).
// Barriers are placed as high as they can go, so never inside the statement that needs them.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "tir/stmt.h"

namespace ingot::codegen {

// The statements of `body` before which a barrier goes. `thread_vars` are the thread indices: a
// barrier needed under a condition or inside a loop whose bounds depend on one (threads would
// not all reach it) is a UserError naming `kernel`.
std::unordered_set<const tir::StmtNode*> plan_thread_syncs(const tir::Stmt& body,
                                                           const std::vector<tir::Var>& thread_vars,
                                                           const std::string& kernel);

}  // namespace ingot::codegen

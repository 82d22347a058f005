// Helpers of compute_at and reverse_compute_at (see region_nest.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schedule/primitives/common.h"
#include "tir/arith/analyzer.h"
#include "tir/region_analysis.h"

namespace ingot::schedule {

// Raised by region_nest for compute_at / reverse_compute_at (predicated block, unbounded or
// non-point accesses).
class ComputeLocationError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// The ranges of every loop inside loop's body.
tir::VarDomain loops_inside(const tir::Stmt& loop);
// An analyzer knowing the ranges of the loop and the loops around it.
tir::arith::Analyzer outer_analyzer(const LoopInfo& li);
// Union of what the realizes read (writes=false) or write of buf, relaxed over dom.
std::optional<std::vector<tir::IntervalSet>> required_region(const std::vector<tir::Stmt>& realizes,
                                                             const tir::BufferNode* buf,
                                                             bool writes,
                                                             const tir::VarDomain& dom);
// A nest of loops ax0, ax1, ... (one per iter var) realizing the block over `region` of the
// buffer it accesses through `access` (each dimension at one iter var or a constant index); iter
// vars not indexing the buffer walk their whole domain. A predicate masks what leaves the block's
// domain.
tir::Stmt region_nest(const BlockInfo& bi, const tir::BufferRegion& access,
                      const std::vector<tir::IntervalSet>& region, const tir::arith::Analyzer& ana,
                      const std::string& what);

}  // namespace ingot::schedule

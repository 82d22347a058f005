// One copy of a constant that several kernels read. A schedule that re-lays out a constant
// parameter (transform_layout: a product's weight panels) makes the module store that layout; a
// kernel that reads the same constant as it is keeps the original stored beside it. A tied
// embedding is the case that matters: GPT-2's token table (154 MB) is read by the LM head, whose
// rule lays it out in column panels, and by the token Gather. So after the default schedules, the
// plain readers that the injective rule scheduled are scheduled again with the same layout first
// (transform_layout in their traces: a gathered row reads its elements along the panels), and
// the original leaves the module (tir/transforms/apply_param_layouts.h drops constants no call
// reads). Where a plain reader cannot take it (another rule, a tuned trace, several calls, a
// layout its accesses refuse), nothing changes.
#pragma once

#include <vector>

#include "schedule/rules/default_rules.h"
#include "tir/module.h"

namespace ingot::schedule {

// `unscheduled[k]` is kernel k before the default-schedule stage; `by_default[k]` whether that
// stage scheduled it (by its rule, not a record's trace).
void share_constant_layouts(tir::IRModule& mod, const std::vector<tir::PrimFunc>& unscheduled,
                            const std::vector<bool>& by_default, const RuleTarget& target);

}  // namespace ingot::schedule

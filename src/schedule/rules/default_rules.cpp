// The default-schedule stage: dispatches each kernel's named rule (see default_rules.h).
#include "schedule/rules/default_rules.h"

#include "schedule/rules/conv2d.h"
#include "schedule/rules/depthwise_conv_nchwc.h"
#include "schedule/rules/matmul.h"
#include "support/error.h"

namespace ingot::schedule {

void apply_default_schedules(tir::IRModule& mod, int vector_bits) {
  apply_default_schedules(mod, CpuVectorIsa::x86(vector_bits));
}

void apply_default_schedules(tir::IRModule& mod, const CpuVectorIsa& isa) {
  for (tir::PrimFunc& f : mod.kernels) {
    if (f.schedule_rule.empty()) continue;
    Schedule s(f);
    if (f.schedule_rule == kPackedMatmulRule) {
      MatmulConfig cfg;
      cfg.vector_bits = isa.vector_bits;
      cfg.arch = isa.arch;
      schedule_packed_matmul(s, "C", cfg);
    } else if (f.schedule_rule == kBlockedConv2dRule) {
      schedule_blocked_conv2d(s, "conv", isa);
    } else if (f.schedule_rule == kDepthwiseConvRule) {
      schedule_depthwise_conv_nchwc(s, isa);
    } else {
      INGOT_ICHECK(false, "kernel {}: unknown schedule rule '{}'", f.name, f.schedule_rule);
    }
    tir::PrimFunc scheduled = s.func();
    scheduled.name = f.name;
    scheduled.flops = f.flops;
    scheduled.bytes_moved = f.bytes_moved;
    scheduled.schedule_rule.clear();
    f = std::move(scheduled);
  }
}

}  // namespace ingot::schedule

// The default-schedule stage: each block-form kernel of a module names the rule that schedules
// it (PrimFunc::schedule_rule, set by lowering); this applies those rules for a target's vector
// width, with no tuning. Kernels without a rule are already in loop form and left as they are.
#pragma once

#include "support/channel_block.h"
#include "tir/module.h"

namespace ingot::schedule {

inline constexpr const char* kPackedMatmulRule = "packed_matmul";    // block "C" (rules/matmul.h)
inline constexpr const char* kBlockedConv2dRule = "blocked_conv2d";  // block "conv" (conv2d.h)
// kDepthwiseConvRule: rules/depthwise_conv_nchwc.h.

// isa: the target's vector ISA (the driver fills it from codegen::Target).
void apply_default_schedules(tir::IRModule& mod, const CpuVectorIsa& isa);
// x86 with that widest vector register (512 AVX-512, 256 AVX2).
void apply_default_schedules(tir::IRModule& mod, int vector_bits);

}  // namespace ingot::schedule

// The default-schedule stage and its rule registry. Each block-form kernel of a module names the
// rule that schedules it (PrimFunc::schedule_rule, set by assign_schedule_rules after lowering:
// the first rule whose pattern matches the kernel, else the injective rule); a rule is
// registered per target kind ("llvm" for CPUs; the GPU targets add theirs beside it) and reads
// the vector widths from the target it is given, so one rule name can have a schedule per kind.
// The stage applies those rules with no tuning and keeps each kernel's trace
// (PrimFunc::schedule_trace), the starting point of a tuner and what `--dump traces` prints.
// Kernels in loop form (no block) get no rule and are left as they are.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "schedule/schedule.h"
#include "support/channel_block.h"
#include "tir/module.h"

namespace ingot::schedule {

inline constexpr const char* kDenseMatmulRule = "dense_matmul";      // is_dense_matmul (matmul.h)
inline constexpr const char* kBlockedConv2dRule = "blocked_conv2d";  // block "conv" (conv2d.h)
// is_symbolic_rows_matmul (matmul_symbolic_rows.h)
inline constexpr const char* kSymbolicRowsMatmulRule = "symbolic_rows_matmul";
// is_dequant_matmul (matmul_dequant.h)
inline constexpr const char* kDequantMatmulRule = "dequant_matmul";
// is_int8_matmul (int8_matmul.h)
inline constexpr const char* kInt8MatmulRule = "int8_matmul";
// is_bf16_matmul (bf16_matmul.h)
inline constexpr const char* kBFloat16MatmulRule = "bf16_matmul";
// is_block_product (row_product.h; the c target)
inline constexpr const char* kRowProductRule = "row_product";
// kDepthwiseConvRule: rules/depthwise_conv_nchwc.h; kInjectiveRule: rules/injective.h.

// What a rule reads of the target: its kind and, for CPU kinds, the vector ISA; for GPU kinds
// (cuda, opencl) the most threads per block.
struct RuleTarget {
  std::string kind = "llvm";
  CpuVectorIsa isa;
  int max_threads = 256;
  // CUDA from sm_80: float16 products may use the m16n8k16 tensor-core instruction.
  bool tensor_cores = false;
  // CPU kinds: the vectors multiply uint8 x int8 in groups of four into int32 lanes at the
  // vector width (x86 AVX-VNNI, or AVX512-VNNI with the 512-bit width or AVX512VL; AArch64
  // dotprod or i8mm): the int8 rule's group (rules/int8_matmul.h).
  bool int8_quads = false;
  // The same for int8 x int8 (AArch64 SDOT).
  bool int8_signed_quads = false;
  // x86 AMX tiles: uint8 x int8 (TDPBUSD), bfloat16 pairs (TDPBF16PS); the 8-bit and bfloat16
  // product rules then take the AMX micro-kernel (intrin/amx_tile.h).
  bool amx_int8 = false;
  bool amx_bf16 = false;
};

struct ScheduleRule {
  std::string name;         // the PrimFunc::schedule_rule it serves
  std::string target_kind;  // "llvm"
  std::function<void(Schedule&, const RuleTarget&)> apply;
  // A rule chosen by the kernel's pattern (assign_schedule_rules) rather than by the name
  // lowering gave it: whether it takes this kernel. Empty: chosen by name only.
  std::function<bool(const tir::PrimFunc&)> matches = {};
};

// Every registered rule, in a fixed order.
const std::vector<ScheduleRule>& schedule_rules();
// The rule of that name for that target kind, or nullptr.
const ScheduleRule* find_schedule_rule(std::string_view name, std::string_view target_kind);

// Gives each block-form kernel without a trace the first pattern rule of the target kind that
// matches it, else the injective rule (kernels in loop form get none); run after lowering,
// before tuning or scheduling. Lowering names no rule.
void assign_schedule_rules(tir::IRModule& mod, std::string_view target_kind);

// Schedules every kernel that names a rule; an unknown rule for the kind is an internal error.
void apply_default_schedules(tir::IRModule& mod, const RuleTarget& target);
// A CPU target ("llvm") with that vector ISA.
void apply_default_schedules(tir::IRModule& mod, const CpuVectorIsa& isa);
// x86 with that widest vector register (512 AVX-512, 256 AVX2).
void apply_default_schedules(tir::IRModule& mod, int vector_bits);

// The scheduled form of `original` from schedule `s` of it: its function, with the original's
// name, cost figures, source ops and rule, and the schedule's trace.
tir::PrimFunc scheduled_kernel(const tir::PrimFunc& original, const Schedule& s);

// Each scheduled kernel's trace as the Python-like printout, headed `# kernel NAME: rule RULE`.
std::string schedule_traces_to_python(const tir::IRModule& mod);

}  // namespace ingot::schedule

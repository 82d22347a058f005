// The default-schedule stage: the rule registry and its dispatch (see default_rules.h).
#include "schedule/rules/default_rules.h"

#include "schedule/rules/bf16_matmul.h"
#include "schedule/rules/conv2d.h"
#include "schedule/rules/conv_weight_layout.h"
#include "schedule/rules/depthwise_conv_nchwc.h"
#include "schedule/rules/direct_conv.h"
#include "schedule/rules/gpu_injective.h"
#include "schedule/rules/injective.h"
#include "schedule/rules/int8_matmul.h"
#include "schedule/rules/matmul.h"
#include "schedule/rules/matmul_dequant.h"
#include "schedule/rules/matmul_symbolic_rows.h"
#include "schedule/rules/nest_utils.h"
#include "schedule/rules/row_product.h"
#include "schedule/rules/shared_constant_layouts.h"
#include "support/error.h"
#include "tir/analysis.h"
#include "tir/transforms/apply_param_layouts.h"

namespace ingot::schedule {

const std::vector<ScheduleRule>& schedule_rules() {
  static const std::vector<ScheduleRule> rules = {
      {kDenseMatmulRule, "llvm",
       [](Schedule& s, const RuleTarget& t) {
         schedule_dense_matmul(s,
                               dense_matmul_config(t.isa));  // (its epilogue and other blocks too)
       },
       is_dense_matmul},
      {kInt8MatmulRule, "llvm", schedule_int8_matmul, is_int8_matmul},
      {kBFloat16MatmulRule, "llvm", schedule_bf16_matmul, is_bf16_matmul},
      {kSymbolicRowsMatmulRule, "llvm",
       [](Schedule& s, const RuleTarget& t) {
         MatmulConfig cfg;
         cfg.vector_bits = t.isa.vector_bits;
         cfg.arch = t.isa.arch;
         schedule_symbolic_rows_matmul(s, cfg);  // (its epilogue and other blocks too)
       },
       is_symbolic_rows_matmul},
      {kDequantMatmulRule, "llvm",
       [](Schedule& s, const RuleTarget& t) {
         MatmulConfig cfg;
         cfg.vector_bits = t.isa.vector_bits;
         cfg.arch = t.isa.arch;
         schedule_dequant_matmul(s, cfg);
       },
       is_dequant_matmul},
      {kRowProductRule, "llvm",
       [](Schedule& s, const RuleTarget& t) { schedule_row_product(s, t.isa); }, is_block_product},
      {kBlockedConv2dRule, "llvm",
       [](Schedule& s, const RuleTarget& t) {
         schedule_blocked_conv2d(s, "conv", t.isa, t.int8_quads ? 4 : 2,
                                 ConvTiles{t.amx_int8, t.amx_bf16});
       },
       is_blocked_conv},
      {kDepthwiseConvRule, "llvm",
       [](Schedule& s, const RuleTarget& t) { schedule_depthwise_conv_nchwc(s, t.isa); },
       is_depthwise_conv_nchwc},
      {kDirectConvRule, "llvm",
       [](Schedule& s, const RuleTarget& t) { schedule_direct_conv(s, t.isa); }, is_direct_conv},
      {kInjectiveRule, "llvm",
       [](Schedule& s, const RuleTarget& t) { schedule_injective(s, t.isa); }},
      // The c target: a product block in row order (its epilogue after each row);
      {kRowProductRule, "c", [](Schedule& s, const RuleTarget&) { schedule_row_product(s); },
       is_block_product},
      // a conv block as a direct conv in row order, its padding partitioned away;
      {kDirectConvRule, "c", [](Schedule& s, const RuleTarget&) { schedule_direct_conv(s); },
       is_direct_conv},
      // the elementwise members of a fused kernel inlined into their readers,
      // every loop left serial (the C compiler vectorizes for its -mcpu; a microcontroller has
      // one core).
      {kInjectiveRule, "c", [](Schedule& s, const RuleTarget&) { inline_intermediates(s); }},
      {kInjectiveRule, "opencl",
       [](Schedule& s, const RuleTarget& t) { schedule_gpu_kernel(s, t.max_threads); }},
      {kInjectiveRule, "cuda",
       [](Schedule& s, const RuleTarget& t) {
         schedule_gpu_kernel(s, t.max_threads, t.tensor_cores);
       }},
  };
  return rules;
}

const ScheduleRule* find_schedule_rule(std::string_view name, std::string_view target_kind) {
  for (const ScheduleRule& r : schedule_rules())
    if (r.name == name && r.target_kind == target_kind) return &r;
  return nullptr;
}

void assign_schedule_rules(tir::IRModule& mod, std::string_view target_kind) {
  for (tir::PrimFunc& f : mod.kernels) {
    // Scheduled already (a tuning record), or in loop form: nothing to name.
    if (!f.schedule_trace.empty() || (f.schedule_rule.empty() && !tir::has_blocks(f.body)))
      continue;
    for (const ScheduleRule& r : schedule_rules())
      if (r.target_kind == target_kind && r.matches && r.matches(f)) {
        f.schedule_rule = r.name;
        break;
      }
    if (f.schedule_rule.empty()) f.schedule_rule = kInjectiveRule;
  }
}

void apply_default_schedules(tir::IRModule& mod, int vector_bits) {
  apply_default_schedules(mod, CpuVectorIsa::x86(vector_bits));
}

void apply_default_schedules(tir::IRModule& mod, const CpuVectorIsa& isa) {
  apply_default_schedules(mod, RuleTarget{"llvm", isa});
}

void apply_default_schedules(tir::IRModule& mod, const RuleTarget& target) {
  assign_schedule_rules(mod, target.kind);
  const std::vector<tir::PrimFunc> unscheduled = mod.kernels;
  std::vector<bool> by_default(mod.kernels.size(), false);
  for (size_t k = 0; k < mod.kernels.size(); ++k) {
    tir::PrimFunc& f = mod.kernels[k];
    if (f.schedule_rule.empty() || !f.schedule_trace.empty()) continue;  // none, or scheduled
    const ScheduleRule* rule = find_schedule_rule(f.schedule_rule, target.kind);
    INGOT_ICHECK(rule != nullptr, "kernel {}: no schedule rule '{}' for target kind {}", f.name,
                 f.schedule_rule, target.kind);
    Schedule s(f);
    rule->apply(s, target);
    f = scheduled_kernel(f, s);
    by_default[k] = true;
  }
  share_constant_layouts(mod, unscheduled, by_default, target);
  tir::apply_param_layouts(mod);
}

tir::PrimFunc scheduled_kernel(const tir::PrimFunc& original, const Schedule& s) {
  tir::PrimFunc scheduled = s.func();
  scheduled.name = original.name;
  scheduled.flops = original.flops;
  scheduled.bytes_moved = original.bytes_moved;
  scheduled.source_ops = original.source_ops;
  scheduled.schedule_rule = original.schedule_rule;
  scheduled.schedule_trace = s.trace().to_json().dump();
  return scheduled;
}

std::string schedule_traces_to_python(const tir::IRModule& mod) {
  std::string out;
  for (const tir::PrimFunc& f : mod.kernels) {
    if (f.schedule_trace.empty()) continue;
    out += "# kernel " + f.name + ": rule " + f.schedule_rule + "\n";
    out += Trace::from_json(nlohmann::json::parse(f.schedule_trace)).to_python_script() + "\n";
  }
  return out;
}

}  // namespace ingot::schedule

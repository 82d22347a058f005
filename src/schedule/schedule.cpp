// Schedule state: the function being scheduled, the random-variable table and the trace.
#include "schedule/schedule.h"

#include "schedule/instruction.h"
#include "schedule/ir_utils.h"
#include "support/error.h"

namespace ingot::schedule {

using namespace tir;

Schedule::Schedule(PrimFunc f, uint64_t seed) : func_(std::move(f)), rng_(seed) {
  auto* br = func_.body.as<BlockRealize>();
  bool rooted = br && br->iter_values.empty() && br->block_node()->name_hint == "root";
  if (!rooted) func_.body = make_root(func_.body);
}

const Schedule::RV& Schedule::rv(int id, const char* kind) const {
  if (id < 0 || size_t(id) >= rvs_.size())
    fail_schedule<UnknownHandleError>("{} handle {} does not belong to this schedule", kind, id);
  return rvs_[size_t(id)];
}

std::string Schedule::name_of(BlockRV b) const {
  auto* s = std::get_if<std::string>(&rv(b.id, "block"));
  if (!s) fail_schedule<UnknownHandleError>("handle {} is not a block", b.id);
  return *s;
}

Var Schedule::loop_var(LoopRV l) const {
  auto* v = std::get_if<Var>(&rv(l.id, "loop"));
  if (!v) fail_schedule<UnknownHandleError>("handle {} is not a loop", l.id);
  return *v;
}

int64_t Schedule::value(ExprRV e) const {
  auto* v = std::get_if<int64_t>(&rv(e.id, "value"));
  if (!v) fail_schedule<UnknownHandleError>("handle {} is not a sampled value", e.id);
  return *v;
}

BlockRV Schedule::new_block_rv(const std::string& name) {
  rvs_.emplace_back(name);
  return BlockRV{int(rvs_.size()) - 1};
}

LoopRV Schedule::new_loop_rv(const Var& var) {
  rvs_.emplace_back(var);
  return LoopRV{int(rvs_.size()) - 1};
}

ExprRV Schedule::new_expr_rv(int64_t value) {
  rvs_.emplace_back(value);
  return ExprRV{int(rvs_.size()) - 1};
}

std::optional<nlohmann::json> Schedule::policy_decision(std::optional<nlohmann::json> given) {
  int k = sampled_++;
  auto it = policy_.forced.find(k);
  if (it != policy_.forced.end()) return it->second;
  if (policy_.ignore_given) return std::nullopt;
  return given;
}

void Schedule::record(Instruction inst) {
  // A primitive that records what its schema does not describe is a bug here, not a user error.
  try {
    checked_instruction_kind(inst);
  } catch (const ScheduleError& e) {
    INGOT_ICHECK(false, "recorded instruction breaks its schema: {}", e.what());
  }
  trace_.instructions.push_back(std::move(inst));
}

}  // namespace ingot::schedule

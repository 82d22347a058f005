// Tuning tasks of a module (see task.h).
#include "tune/task.h"

#include <fmt/format.h>

#include <map>

#include "tir/structural_hash.h"

namespace ingot::tune {

std::string task_key(const tir::PrimFunc& unscheduled, const std::string& target) {
  tir::PrimFunc f = unscheduled;
  f.name.clear();  // the layer's name is not part of the computation
  uint64_t h = tir::structural_hash(f);
  auto mix = [&h](uint64_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
  for (const tir::Buffer& b : f.params) {
    mix((uint64_t(b->dtype.code) << 16) | b->dtype.bits);
    for (const tir::Expr& d : b->shape)
      if (auto* imm = d.as<tir::IntImm>()) mix(uint64_t(imm->value));
  }
  mix(std::hash<std::string>()(f.schedule_rule));
  mix(std::hash<std::string>()(target));
  return fmt::format("{:016x}", h);
}

std::vector<Task> extract_tasks(const tir::IRModule& mod, const std::string& target) {
  std::vector<Task> tasks;
  std::map<std::string, size_t> by_key;
  for (size_t k = 0; k < mod.kernels.size(); ++k) {
    const tir::PrimFunc& f = mod.kernels[k];
    if (f.schedule_rule.empty()) continue;
    std::string key = task_key(f, target);
    auto [it, fresh] = by_key.emplace(key, tasks.size());
    if (fresh) tasks.push_back({key, f.schedule_rule, {}, f.flops});
    tasks[it->second].kernels.push_back(int(k));
  }
  return tasks;
}

}  // namespace ingot::tune

// Trace replay: applies each recorded instruction to a fresh Schedule through the instruction
// registry, mapping the trace's random-variable names to the new schedule's handles.
#include <map>

#include "schedule/instruction.h"
#include "schedule/schedule.h"

namespace ingot::schedule {

using nlohmann::json;

namespace {

class ReplayError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

class Replayer {
 public:
  explicit Replayer(Schedule& s) : s_(s) {}

  void apply(const Instruction& i) {
    const InstructionKind& k = checked_instruction_kind(i);
    std::vector<InstructionInput> inputs;
    for (size_t n = 0; n < k.inputs.size(); ++n)
      inputs.push_back(resolve(i.inputs[n], k.inputs[n].kind));
    std::vector<int> ids = k.apply(s_, inputs, i);
    if (ids.size() != i.outputs.size())
      fail_schedule<ReplayError>("trace instruction {} names {} outputs, replay made {}", i.kind,
                                 i.outputs.size(), ids.size());
    for (size_t n = 0; n < ids.size(); ++n) names_[i.outputs[n]] = ids[n];
  }

 private:
  int lookup(const std::string& name) {
    auto it = names_.find(name);
    if (it == names_.end())
      fail_schedule<ReplayError>("trace uses handle {} before defining it", name);
    return it->second;
  }
  // An input checked against its kind (checked_instruction_kind) as the schedule's handles.
  InstructionInput resolve(const json& v, InputKind kind) {
    switch (kind) {
      case InputKind::kBlock:
        return BlockRV{lookup(v.get<std::string>())};
      case InputKind::kLoop:
        return LoopRV{lookup(v.get<std::string>())};
      case InputKind::kBlockOrLoop: {
        std::string name = v.get<std::string>();
        if (name[0] == 'b') return BlockRV{lookup(name)};
        return LoopRV{lookup(name)};
      }
      case InputKind::kLoops: {
        std::vector<LoopRV> loops;
        for (const json& x : v) loops.push_back(LoopRV{lookup(x.get<std::string>())});
        return loops;
      }
      case InputKind::kFactors: {
        std::vector<Factor> factors;
        for (const json& f : v) {
          if (f.is_null())
            factors.emplace_back(std::nullopt);
          else if (f.is_string())
            factors.emplace_back(ExprRV{lookup(f.get<std::string>())});
          else
            factors.emplace_back(f.get<int64_t>());
        }
        return factors;
      }
      case InputKind::kInts:
        return v.get<std::vector<int64_t>>();
    }
    fail_schedule<ReplayError>("trace input {} has an unknown kind", v.dump());
  }

  Schedule& s_;
  std::map<std::string, int> names_;
};

}  // namespace

Schedule Trace::replay(const tir::PrimFunc& f) const {
  Schedule s(f);
  Replayer r(s);
  try {
    for (const Instruction& i : instructions) r.apply(i);
  } catch (const nlohmann::json::exception& e) {
    fail_schedule<ReplayError>("malformed trace: {}", e.what());
  }
  return s;
}

}  // namespace ingot::schedule

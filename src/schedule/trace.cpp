// Trace serialization (JSON, each instruction checked against the instruction registry) and its
// Python-like printout.
#include "schedule/trace.h"

#include "schedule/error.h"
#include "schedule/instruction.h"

namespace ingot::schedule {

using nlohmann::json;

namespace {

class TraceFormatError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

}  // namespace

json Trace::to_json() const {
  json insts = json::array();
  for (const Instruction& i : instructions) {
    insts.push_back({{"kind", i.kind},
                     {"inputs", i.inputs},
                     {"attrs", i.attrs},
                     {"outputs", i.outputs},
                     {"decision", i.decision}});
  }
  return {{"version", 1}, {"instructions", insts}};
}

Trace Trace::from_json(const json& j) {
  Trace t;
  try {
    if (j.at("version").get<int>() != 1)
      fail_schedule<TraceFormatError>("trace version {} is not supported (expected 1)",
                                      j.at("version").dump());
    for (const json& i : j.at("instructions")) {
      Instruction inst;
      inst.kind = i.at("kind").get<std::string>();
      inst.inputs = i.at("inputs");
      inst.attrs = i.value("attrs", json::object());
      inst.outputs = i.at("outputs").get<std::vector<std::string>>();
      inst.decision = i.value("decision", json());
      checked_instruction_kind(inst);
      t.instructions.push_back(std::move(inst));
    }
  } catch (const json::exception& e) {
    fail_schedule<TraceFormatError>("malformed trace: {}", e.what());
  }
  return t;
}

std::string Trace::to_python_script() const {
  std::string out;
  for (const Instruction& i : instructions) out += instruction_to_python(i) + "\n";
  return out;
}

}  // namespace ingot::schedule

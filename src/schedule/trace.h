// Trace: every schedule primitive call and sampling decision, recorded as data. A trace
// serializes to JSON, replays on the original PrimFunc to a structurally equal result and prints
// as a readable Python-like script (`l1, l2 = sch.split(l0, factors=[None, 16])`).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tir/prim_func.h"

namespace ingot::schedule {

class Schedule;

// One primitive call. Inputs are positional: a string is a random-variable name ("b0", "l1",
// "v2"), other values (ints, null, nested lists of them) are literals; attrs are literal keyword
// arguments; decision is the sampled value of a sampling instruction (null otherwise).
struct Instruction {
  std::string kind;
  nlohmann::json inputs = nlohmann::json::array();
  nlohmann::json attrs = nlohmann::json::object();
  std::vector<std::string> outputs;
  nlohmann::json decision;
};

class Trace {
 public:
  std::vector<Instruction> instructions;

  nlohmann::json to_json() const;
  // ScheduleError on a malformed trace (unknown instruction, bad field).
  static Trace from_json(const nlohmann::json& j);
  // Applies every instruction to a fresh Schedule of f (sampling uses the recorded decisions).
  Schedule replay(const tir::PrimFunc& f) const;
  std::string to_python_script() const;
};

}  // namespace ingot::schedule

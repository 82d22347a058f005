// The instruction registry: one entry per schedule primitive (name, the schema of its inputs,
// attributes and decision, how to apply it to a Schedule, how it prints). Trace parsing checks
// instructions against it, replay applies them through it, the Python-like printout reads its
// parameter names, and Schedule::record checks every recorded call against it, so the list of
// primitives is written down once. A tuner reads from it which instructions are sampling
// instructions (their decisions are what it mutates) and which leave the IR unchanged.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "schedule/schedule.h"
#include "schedule/trace.h"

namespace ingot::schedule {

// What one positional input of an instruction is, in the trace's JSON.
enum class InputKind {
  kBlock,        // a block handle "b<k>"
  kLoop,         // a loop handle "l<k>"
  kBlockOrLoop,  // either
  kLoops,        // a list of loop handles (printed as separate arguments)
  kFactors,      // a list of split factors: null, an int, or a value handle "v<k>"
  kInts,         // a list of int literals
};

// The type of a keyword attribute.
enum class AttrKind { kInt, kBool, kString, kInts, kReals };

// The type of a sampling instruction's decision.
enum class DecisionKind { kNone, kInt, kInts };

struct InputParam {
  std::string name;  // keyword in the printout ("" positional)
  InputKind kind;
};

struct AttrParam {
  std::string name;
  AttrKind kind;
  bool required = true;
  bool positional = false;  // printed without its keyword (get_block's name, bind's thread)
};

// An input resolved against the schedule being replayed.
using InstructionInput =
    std::variant<BlockRV, LoopRV, std::vector<LoopRV>, std::vector<Factor>, std::vector<int64_t>>;

struct InstructionKind {
  std::string name;
  std::vector<InputParam> inputs;
  std::vector<AttrParam> attrs;
  DecisionKind decision = DecisionKind::kNone;
  // Leaves the IR as it is (queries and sampling): a tuner may drop one whose outputs are unused.
  bool pure = false;
  // Applies the instruction (inputs resolved, attrs and decision checked against the schema) and
  // returns the handle ids of its outputs, in order.
  std::function<std::vector<int>(Schedule&, const std::vector<InstructionInput>&,
                                 const Instruction&)>
      apply;

  bool is_sampling() const { return decision != DecisionKind::kNone; }
};

// Every registered instruction kind, in a fixed order.
const std::vector<InstructionKind>& instruction_kinds();
// The kind of that name, or nullptr.
const InstructionKind* find_instruction_kind(std::string_view name);
// The kind of i, after checking i against its schema: a known name, the inputs' count and JSON
// shapes, the attributes' presence and types (unknown ones refused), the decision's type.
// ScheduleError (naming the instruction and the field) otherwise.
const InstructionKind& checked_instruction_kind(const Instruction& i);
// i as a line of the Python-like printout (no newline): `l1, l2 = sch.split(l0, factors=[...])`.
std::string instruction_to_python(const Instruction& i);

}  // namespace ingot::schedule

// The instruction registry (see instruction.h): the table of schedule primitives with their
// schemas and appliers, the schema check and the Python-like printout of one instruction.
#include "schedule/instruction.h"

#include <fmt/format.h>

#include <map>

namespace ingot::schedule {

using nlohmann::json;

namespace {

class TraceSchemaError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

using Inputs = std::vector<InstructionInput>;

template <typename T>
T in(const Inputs& v, size_t k) {
  return std::get<T>(v[k]);
}
template <typename T>
T attr(const Instruction& i, const char* key) {
  return i.attrs.at(key).get<T>();
}
template <typename RV>
std::vector<int> ids(const std::vector<RV>& rvs) {
  std::vector<int> out;
  for (const RV& r : rvs) out.push_back(r.id);
  return out;
}
std::vector<int> none() {
  return {};
}

// A loop-only instruction with no outputs (parallel, vectorize, unroll, outline).
InstructionKind loop_mark(const char* name, void (Schedule::*mark)(LoopRV)) {
  return {name,
          {{"", InputKind::kLoop}},
          {},
          DecisionKind::kNone,
          false,
          [mark](Schedule& s, const Inputs& v, const Instruction&) {
            (s.*mark)(in<LoopRV>(v, 0));
            return none();
          }};
}

// A loop-only instruction whose output is a new block (rfactor, blockize).
InstructionKind loop_to_block(const char* name, BlockRV (Schedule::*op)(LoopRV)) {
  return {name,
          {{"", InputKind::kLoop}},
          {},
          DecisionKind::kNone,
          false,
          [op](Schedule& s, const Inputs& v, const Instruction&) {
            return std::vector<int>{(s.*op)(in<LoopRV>(v, 0)).id};
          }};
}

// A block-only instruction with no outputs (compute_inline, reverse_compute_inline).
InstructionKind block_op(const char* name, void (Schedule::*op)(BlockRV)) {
  return {name,
          {{"", InputKind::kBlock}},
          {},
          DecisionKind::kNone,
          false,
          [op](Schedule& s, const Inputs& v, const Instruction&) {
            (s.*op)(in<BlockRV>(v, 0));
            return none();
          }};
}

// A (block, loop) instruction with no outputs (compute_at, reverse_compute_at).
InstructionKind block_at_loop(const char* name, void (Schedule::*op)(BlockRV, LoopRV)) {
  return {name,
          {{"", InputKind::kBlock}, {"", InputKind::kLoop}},
          {},
          DecisionKind::kNone,
          false,
          [op](Schedule& s, const Inputs& v, const Instruction&) {
            (s.*op)(in<BlockRV>(v, 0), in<LoopRV>(v, 1));
            return none();
          }};
}

PartialTile partial_tile(const Instruction& i) {
  if (!i.attrs.contains("partial")) return PartialTile::kLoops;
  std::string p = attr<std::string>(i, "partial");
  if (p == "loops") return PartialTile::kLoops;
  if (p == "scratch") return PartialTile::kScratch;
  if (p == "tail") return PartialTile::kTail;
  if (p == "tail_rows") return PartialTile::kTailRows;
  fail_schedule<TraceSchemaError>("trace instruction tensorize: unknown partial tile mode \"{}\"",
                                  p);
}

std::vector<InstructionKind> make_kinds() {
  using K = InputKind;
  using A = AttrKind;
  std::vector<InstructionKind> k;
  // Queries.
  k.push_back({"get_block",
               {},
               {{"name", A::kString, true, true}},
               DecisionKind::kNone,
               true,
               [](Schedule& s, const Inputs&, const Instruction& i) {
                 return std::vector<int>{s.get_block(attr<std::string>(i, "name")).id};
               }});
  k.push_back({"get_loops",
               {{"", K::kBlock}},
               {},
               DecisionKind::kNone,
               true,
               [](Schedule& s, const Inputs& v, const Instruction&) {
                 return ids(s.get_loops(in<BlockRV>(v, 0)));
               }});
  k.push_back({"get_child_blocks",
               {{"", K::kBlockOrLoop}},
               {},
               DecisionKind::kNone,
               true,
               [](Schedule& s, const Inputs& v, const Instruction&) {
                 if (auto* b = std::get_if<BlockRV>(&v[0])) return ids(s.get_child_blocks(*b));
                 return ids(s.get_child_blocks(in<LoopRV>(v, 0)));
               }});
  // Loop transformations.
  k.push_back({"split",
               {{"", K::kLoop}, {"factors", K::kFactors}},
               {},
               DecisionKind::kNone,
               false,
               [](Schedule& s, const Inputs& v, const Instruction&) {
                 return ids(s.split(in<LoopRV>(v, 0), in<std::vector<Factor>>(v, 1)));
               }});
  k.push_back({"fuse",
               {{"", K::kLoops}},
               {},
               DecisionKind::kNone,
               false,
               [](Schedule& s, const Inputs& v, const Instruction&) {
                 return std::vector<int>{s.fuse(in<std::vector<LoopRV>>(v, 0)).id};
               }});
  k.push_back({"reorder",
               {{"", K::kLoops}},
               {},
               DecisionKind::kNone,
               false,
               [](Schedule& s, const Inputs& v, const Instruction&) {
                 s.reorder(in<std::vector<LoopRV>>(v, 0));
                 return none();
               }});
  k.push_back({"partition",
               {{"", K::kLoop}, {"cuts", K::kInts}},
               {{"branch", A::kBool}},
               DecisionKind::kNone,
               false,
               [](Schedule& s, const Inputs& v, const Instruction& i) {
                 return ids(s.partition(in<LoopRV>(v, 0), in<std::vector<int64_t>>(v, 1),
                                        attr<bool>(i, "branch")));
               }});
  k.push_back(loop_mark("parallel", &Schedule::parallel));
  k.push_back(loop_mark("vectorize", &Schedule::vectorize));
  k.push_back(loop_mark("unroll", &Schedule::unroll));
  k.push_back(loop_mark("outline", &Schedule::outline));
  k.push_back(loop_mark("warp_mma", &Schedule::warp_mma));
  k.push_back(loop_mark("double_buffer", &Schedule::double_buffer));
  k.push_back({"bind",
               {{"", K::kLoop}},
               {{"thread", A::kString, true, true}},
               DecisionKind::kNone,
               false,
               [](Schedule& s, const Inputs& v, const Instruction& i) {
                 s.bind(in<LoopRV>(v, 0), attr<std::string>(i, "thread"));
                 return none();
               }});
  k.push_back({"annotate",
               {{"", K::kBlock}},
               {{"key", A::kString}, {"value", A::kString}},
               DecisionKind::kNone,
               false,
               [](Schedule& s, const Inputs& v, const Instruction& i) {
                 s.annotate(in<BlockRV>(v, 0), attr<std::string>(i, "key"),
                            attr<std::string>(i, "value"));
                 return none();
               }});
  // Sampling (the decision is applied as recorded).
  k.push_back({"sample_perfect_tile",
               {{"", K::kLoop}},
               {{"n", A::kInt}, {"max_innermost_factor", A::kInt}},
               DecisionKind::kInts,
               true,
               [](Schedule& s, const Inputs& v, const Instruction& i) {
                 return ids(s.sample_perfect_tile(in<LoopRV>(v, 0), attr<int>(i, "n"),
                                                  attr<int>(i, "max_innermost_factor"),
                                                  i.decision.get<std::vector<int64_t>>()));
               }});
  k.push_back({"sample_categorical",
               {},
               {{"candidates", A::kInts}, {"probs", A::kReals}},
               DecisionKind::kInt,
               true,
               [](Schedule& s, const Inputs&, const Instruction& i) {
                 return std::vector<int>{
                     s.sample_categorical(attr<std::vector<int64_t>>(i, "candidates"),
                                          attr<std::vector<double>>(i, "probs"),
                                          i.decision.get<int64_t>())
                         .id};
               }});
  // Block transformations.
  k.push_back({"decompose_reduction",
               {{"", K::kBlock}, {"", K::kLoop}},
               {},
               DecisionKind::kNone,
               false,
               [](Schedule& s, const Inputs& v, const Instruction&) {
                 return std::vector<int>{
                     s.decompose_reduction(in<BlockRV>(v, 0), in<LoopRV>(v, 1)).id};
               }});
  k.push_back(loop_to_block("rfactor", &Schedule::rfactor));
  for (bool read : {true, false})
    k.push_back({read ? "cache_read" : "cache_write",
                 {{"", K::kBlock}},
                 {{"buffer_index", A::kInt}, {"scope", A::kString}},
                 DecisionKind::kNone,
                 false,
                 [read](Schedule& s, const Inputs& v, const Instruction& i) {
                   BlockRV b = in<BlockRV>(v, 0);
                   int index = attr<int>(i, "buffer_index");
                   std::string scope = attr<std::string>(i, "scope");
                   return std::vector<int>{read ? s.cache_read(b, index, scope).id
                                                : s.cache_write(b, index, scope).id};
                 }});
  k.push_back(block_op("compute_inline", &Schedule::compute_inline));
  k.push_back(block_op("reverse_compute_inline", &Schedule::reverse_compute_inline));
  k.push_back(block_at_loop("compute_at", &Schedule::compute_at));
  k.push_back(block_at_loop("reverse_compute_at", &Schedule::reverse_compute_at));
  k.push_back({"transform_layout",
               {{"", K::kBlock}},
               {{"buffer_index", A::kInt}, {"splits", A::kInts}, {"perm", A::kInts}},
               DecisionKind::kNone,
               false,
               [](Schedule& s, const Inputs& v, const Instruction& i) {
                 s.transform_layout(in<BlockRV>(v, 0), attr<int>(i, "buffer_index"),
                                    attr<std::vector<int64_t>>(i, "splits"),
                                    attr<std::vector<int64_t>>(i, "perm"));
                 return none();
               }});
  k.push_back({"split_block_iter",
               {{"", K::kBlock}, {"", K::kLoop}},
               {{"factor", A::kInt}},
               DecisionKind::kNone,
               false,
               [](Schedule& s, const Inputs& v, const Instruction& i) {
                 std::vector<int> out;
                 for (LoopRV l : s.split_block_iter(in<BlockRV>(v, 0), in<LoopRV>(v, 1),
                                                    attr<int64_t>(i, "factor")))
                   out.push_back(l.id);
                 return out;
               }});
  k.push_back(
      {"storage_align",
       {{"", K::kBlock}},
       {{"buffer_index", A::kInt}, {"axis", A::kInt}, {"factor", A::kInt}, {"offset", A::kInt}},
       DecisionKind::kNone,
       false,
       [](Schedule& s, const Inputs& v, const Instruction& i) {
         s.storage_align(in<BlockRV>(v, 0), attr<int>(i, "buffer_index"), attr<int>(i, "axis"),
                         attr<int>(i, "factor"), attr<int>(i, "offset"));
         return none();
       }});
  k.push_back({"set_scope",
               {{"", K::kBlock}},
               {{"buffer_index", A::kInt}, {"scope", A::kString}},
               DecisionKind::kNone,
               false,
               [](Schedule& s, const Inputs& v, const Instruction& i) {
                 s.set_scope(in<BlockRV>(v, 0), attr<int>(i, "buffer_index"),
                             attr<std::string>(i, "scope"));
                 return none();
               }});
  k.push_back(loop_to_block("blockize", &Schedule::blockize));
  k.push_back(
      {"tensorize",
       {{"", K::kBlock}},
       {{"intrin", A::kString}, {"partial", A::kString, false}, {"tail_intrin", A::kString, false}},
       DecisionKind::kNone,
       false,
       [](Schedule& s, const Inputs& v, const Instruction& i) {
         PartialTile partial = partial_tile(i);
         BlockRV b = in<BlockRV>(v, 0);
         std::string intrin = attr<std::string>(i, "intrin");
         if (partial != PartialTile::kTail && partial != PartialTile::kTailRows) {
           s.tensorize(b, intrin, partial);
         } else {
           if (!i.attrs.contains("tail_intrin"))
             fail_schedule<TraceSchemaError>(
                 "trace instruction tensorize: partial \"{}\" needs tail_intrin",
                 attr<std::string>(i, "partial"));
           s.tensorize(b, intrin, attr<std::string>(i, "tail_intrin"), partial);
         }
         return none();
       }});
  return k;
}

bool is_handle(const json& v, char prefix) {
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  return s.size() > 1 && s[0] == prefix &&
         s.find_first_not_of("0123456789", 1) == std::string::npos;
}

bool is_int_list(const json& v) {
  if (!v.is_array()) return false;
  for (const json& x : v)
    if (!x.is_number_integer()) return false;
  return true;
}

bool input_ok(const json& v, InputKind kind) {
  switch (kind) {
    case InputKind::kBlock:
      return is_handle(v, 'b');
    case InputKind::kLoop:
      return is_handle(v, 'l');
    case InputKind::kBlockOrLoop:
      return is_handle(v, 'b') || is_handle(v, 'l');
    case InputKind::kLoops:
      if (!v.is_array()) return false;
      for (const json& x : v)
        if (!is_handle(x, 'l')) return false;
      return true;
    case InputKind::kFactors:
      if (!v.is_array()) return false;
      for (const json& x : v)
        if (!x.is_null() && !x.is_number_integer() && !is_handle(x, 'v')) return false;
      return true;
    case InputKind::kInts:
      return is_int_list(v);
  }
  return false;
}

bool attr_ok(const json& v, AttrKind kind) {
  switch (kind) {
    case AttrKind::kInt:
      return v.is_number_integer();
    case AttrKind::kBool:
      return v.is_boolean();
    case AttrKind::kString:
      return v.is_string();
    case AttrKind::kInts:
      return is_int_list(v);
    case AttrKind::kReals:
      if (!v.is_array()) return false;
      for (const json& x : v)
        if (!x.is_number()) return false;
      return true;
  }
  return false;
}

const char* input_kind_name(InputKind kind) {
  switch (kind) {
    case InputKind::kBlock:
      return "a block handle";
    case InputKind::kLoop:
      return "a loop handle";
    case InputKind::kBlockOrLoop:
      return "a block or loop handle";
    case InputKind::kLoops:
      return "a list of loop handles";
    case InputKind::kFactors:
      return "a list of factors (null, int or value handle)";
    case InputKind::kInts:
      return "a list of ints";
  }
  return "?";
}

const char* attr_kind_name(AttrKind kind) {
  switch (kind) {
    case AttrKind::kInt:
      return "an int";
    case AttrKind::kBool:
      return "a bool";
    case AttrKind::kString:
      return "a string";
    case AttrKind::kInts:
      return "a list of ints";
    case AttrKind::kReals:
      return "a list of numbers";
  }
  return "?";
}

// A literal or handle as Python text: strings among inputs are handle names.
std::string py(const json& v, bool handle_strings) {
  if (v.is_null()) return "None";
  if (v.is_string())
    return handle_strings ? v.get<std::string>() : "\"" + v.get<std::string>() + "\"";
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_array()) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + py(v[i], handle_strings);
    return s + "]";
  }
  return v.dump();
}

}  // namespace

const std::vector<InstructionKind>& instruction_kinds() {
  static const std::vector<InstructionKind> kinds = make_kinds();
  return kinds;
}

const InstructionKind* find_instruction_kind(std::string_view name) {
  static const std::map<std::string, const InstructionKind*, std::less<>> by_name = [] {
    std::map<std::string, const InstructionKind*, std::less<>> m;
    for (const InstructionKind& k : instruction_kinds()) m[k.name] = &k;
    return m;
  }();
  auto it = by_name.find(name);
  return it == by_name.end() ? nullptr : it->second;
}

const InstructionKind& checked_instruction_kind(const Instruction& i) {
  const InstructionKind* k = find_instruction_kind(i.kind);
  if (!k)
    fail_schedule<TraceSchemaError>("trace instruction \"{}\" is not a schedule primitive", i.kind);
  if (!i.inputs.is_array() || i.inputs.size() != k->inputs.size())
    fail_schedule<TraceSchemaError>("trace instruction {} takes {} inputs, got {}", i.kind,
                                    k->inputs.size(), i.inputs.is_array() ? i.inputs.size() : 0);
  for (size_t n = 0; n < k->inputs.size(); ++n)
    if (!input_ok(i.inputs[n], k->inputs[n].kind))
      fail_schedule<TraceSchemaError>("trace instruction {}: input {} ({}) is not {}", i.kind, n,
                                      i.inputs[n].dump(), input_kind_name(k->inputs[n].kind));
  if (!i.attrs.is_object())
    fail_schedule<TraceSchemaError>("trace instruction {}: attrs must be an object", i.kind);
  for (const AttrParam& a : k->attrs) {
    if (!i.attrs.contains(a.name)) {
      if (a.required)
        fail_schedule<TraceSchemaError>("trace instruction {} lacks attribute {}", i.kind, a.name);
      continue;
    }
    if (!attr_ok(i.attrs.at(a.name), a.kind))
      fail_schedule<TraceSchemaError>("trace instruction {}: attribute {} ({}) is not {}", i.kind,
                                      a.name, i.attrs.at(a.name).dump(), attr_kind_name(a.kind));
  }
  for (auto it = i.attrs.begin(); it != i.attrs.end(); ++it) {
    bool known = false;
    for (const AttrParam& a : k->attrs) known = known || a.name == it.key();
    if (!known)
      fail_schedule<TraceSchemaError>("trace instruction {}: unknown attribute {}", i.kind,
                                      it.key());
  }
  bool decision_ok = k->decision == DecisionKind::kNone  ? i.decision.is_null()
                     : k->decision == DecisionKind::kInt ? i.decision.is_number_integer()
                                                         : is_int_list(i.decision);
  if (!decision_ok)
    fail_schedule<TraceSchemaError>("trace instruction {}: decision {} is not {}", i.kind,
                                    i.decision.dump(),
                                    k->decision == DecisionKind::kNone  ? "null"
                                    : k->decision == DecisionKind::kInt ? "an int"
                                                                        : "a list of ints");
  return *k;
}

std::string instruction_to_python(const Instruction& i) {
  const InstructionKind& k = checked_instruction_kind(i);
  std::string lhs;
  for (const std::string& o : i.outputs) lhs += (lhs.empty() ? "" : ", ") + o;
  std::string args;
  auto add = [&](const std::string& a) { args += (args.empty() ? "" : ", ") + a; };
  for (size_t n = 0; n < k.inputs.size(); ++n) {
    const InputParam& p = k.inputs[n];
    if (p.kind == InputKind::kLoops) {
      for (const json& x : i.inputs[n]) add(py(x, true));
    } else {
      add((p.name.empty() ? "" : p.name + "=") + py(i.inputs[n], true));
    }
  }
  for (const AttrParam& a : k.attrs)
    if (i.attrs.contains(a.name))
      add((a.positional ? "" : a.name + "=") + py(i.attrs.at(a.name), false));
  if (k.is_sampling()) add("decision=" + py(i.decision, false));
  return (lhs.empty() ? "" : lhs + " = ") + fmt::format("sch.{}({})", i.kind, args);
}

}  // namespace ingot::schedule

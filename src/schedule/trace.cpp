// Trace serialization (JSON) and its Python-like printout.
#include "schedule/trace.h"

#include <fmt/format.h>

#include "schedule/error.h"

namespace ingot::schedule {

using nlohmann::json;

namespace {

class TraceFormatError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// Parameter names of instruction inputs, for the printout ("" = positional).
std::vector<std::string> input_names(const std::string& kind) {
  if (kind == "split") return {"", "factors"};
  if (kind == "partition") return {"", "cuts"};
  if (kind == "fuse" || kind == "reorder") return {"*"};
  return {};
}

// A literal or RV reference as Python text: strings in inputs are RV names.
std::string py(const json& v, bool rv_strings) {
  if (v.is_null()) return "None";
  if (v.is_string()) return rv_strings ? v.get<std::string>() : "\"" + v.get<std::string>() + "\"";
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_array()) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + py(v[i], rv_strings);
    return s + "]";
  }
  return v.dump();
}

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
      if (!inst.inputs.is_array() || !inst.attrs.is_object())
        fail_schedule<TraceFormatError>(
            "trace instruction {}: inputs must be a list and attrs "
            "an object",
            inst.kind);
      t.instructions.push_back(std::move(inst));
    }
  } catch (const json::exception& e) {
    fail_schedule<TraceFormatError>("malformed trace: {}", e.what());
  }
  return t;
}

std::string Trace::to_python_script() const {
  std::string out;
  for (const Instruction& i : instructions) {
    std::string lhs;
    for (const std::string& o : i.outputs) lhs += (lhs.empty() ? "" : ", ") + o;
    std::vector<std::string> names = input_names(i.kind);
    std::string args;
    auto add = [&](const std::string& a) { args += (args.empty() ? "" : ", ") + a; };
    for (size_t k = 0; k < i.inputs.size(); ++k) {
      std::string name = k < names.size() ? names[k] : "";
      if (name == "*" && i.inputs[k].is_array()) {
        for (const json& x : i.inputs[k]) add(py(x, true));
      } else {
        add((name.empty() || name == "*" ? "" : name + "=") + py(i.inputs[k], true));
      }
    }
    for (auto it = i.attrs.begin(); it != i.attrs.end(); ++it) {
      bool positional = it.key() == "name" || it.key() == "thread";
      add((positional ? "" : it.key() + "=") + py(it.value(), false));
    }
    if (!i.decision.is_null()) add("decision=" + py(i.decision, false));
    out += (lhs.empty() ? "" : lhs + " = ") + fmt::format("sch.{}({})\n", i.kind, args);
  }
  return out;
}

}  // namespace ingot::schedule

// `ingot inspect ART.so [--json]`: prints an artifact's record: model name, target, device,
// inputs and outputs (dtype, shape with symbols as `N=1`), workspace/constant sizes and kernels.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ingot/runtime.hpp"
#include "support/error.h"
#include "tools/ingot/commands.h"
#include "tools/ingot/mlf_artifact.h"

namespace ingot::cli {
namespace {

struct InspectOptions {
  std::string artifact;
  bool json = false;
};

std::string device_name(int32_t device_type) {
  switch (device_type) {
    case 1:
      return "cpu";
    case 2:
      return "cuda";
    case 4:
      return "opencl";
    default:
      return fmt::format("device type {}", device_type);
  }
}

std::string dtype_string(IngotDType dtype) {
  char buf[64];
  return ingot_dtype_name(dtype, buf, sizeof(buf));
}

// "[N=1,3,224,224]": a dimension that came from an ONNX symbol shows the symbol and its value;
// a symbolic one ("[1,seq]", "[past+seq,4]") the symbol or expression alone.
std::string shape_string(const IngotTensorInfo& t) {
  std::string s = "[";
  for (int i = 0; i < t.ndim; ++i) {
    const char* sym = t.dim_names ? t.dim_names[i] : nullptr;
    s += i ? "," : "";
    if (t.shape[i] == -1 && sym)
      s += sym;
    else
      s += sym && *sym ? fmt::format("{}={}", sym, t.shape[i]) : fmt::format("{}", t.shape[i]);
  }
  return s + "]";
}

nlohmann::json symbols_json(const IngotArtifact& a) {
  nlohmann::json out = nlohmann::json::array();
  for (int i = 0; i < a.num_symbols; ++i)
    out.push_back({{"name", a.symbols[i].name},
                   {"min", a.symbols[i].min_value},
                   {"max", a.symbols[i].max_value}});
  return out;
}

nlohmann::json tensor_json(const IngotTensorInfo& t) {
  nlohmann::json shape = nlohmann::json::array(), dims = nlohmann::json::array();
  for (int i = 0; i < t.ndim; ++i) {
    shape.push_back(t.shape[i]);
    dims.push_back(t.dim_names && t.dim_names[i] ? t.dim_names[i] : "");
  }
  return {{"name", t.name},
          {"dtype", dtype_string(t.dtype)},
          {"shape", shape},
          {"dim_names", dims},
          {"specialized", t.specialized_value != nullptr}};
}

std::vector<std::string> isa_list(const IngotArtifact& a) {
  std::vector<std::string> out;
  std::string s = a.isa_features ? a.isa_features : "";
  for (size_t start = 0; start < s.size();) {
    size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// The required features this CPU lacks (or that this runtime cannot test).
std::vector<std::string> isa_missing(const IngotArtifact& a) {
  std::vector<std::string> out;
  for (const std::string& f : isa_list(a))
    if (ingot_cpu_supports(f.c_str()) != 1) out.push_back(f);
  return out;
}

std::string isa_status(const IngotArtifact& a) {
  std::vector<std::string> missing = isa_missing(a);
  if (missing.empty()) return "this CPU has them all";
  std::string s;
  for (const std::string& f : missing) s += (s.empty() ? "" : ", ") + f;
  return "this CPU lacks " + s + ": it cannot run here";
}

// "past_key_0 float32 [1,12,1024,64], entries along dim 2, length 'past', grows by 'seq'".
std::string state_line(const IngotArtifact& a, const IngotStateInfo& st) {
  return fmt::format("{} {} {}, entries along dim {}, length '{}', grows by {}", st.info.name,
                     dtype_string(st.info.dtype), shape_string(st.info), st.axis,
                     a.symbols[st.length_symbol].name,
                     st.step_symbol >= 0 ? fmt::format("'{}'", a.symbols[st.step_symbol].name)
                                         : std::to_string(st.step));
}

void print_json(const IngotArtifact& a) {
  nlohmann::json inputs = nlohmann::json::array(), outputs = nlohmann::json::array();
  nlohmann::json kernels = nlohmann::json::array();
  for (int i = 0; i < a.num_inputs; ++i) inputs.push_back(tensor_json(a.inputs[i]));
  for (int i = 0; i < a.num_outputs; ++i) outputs.push_back(tensor_json(a.outputs[i]));
  nlohmann::json states = nlohmann::json::array();
  for (int i = 0; i < a.num_states; ++i) {
    const IngotStateInfo& st = a.states[i];
    nlohmann::json j = tensor_json(st.info);
    j["axis"] = st.axis;
    j["length_symbol"] = a.symbols[st.length_symbol].name;
    if (st.step_symbol >= 0)
      j["step_symbol"] = a.symbols[st.step_symbol].name;
    else
      j["step"] = st.step;
    states.push_back(j);
  }
  for (int i = 0; i < a.num_kernels; ++i) {
    const IngotKernelInfo& k = a.kernels[i];
    kernels.push_back({{"name", k.name ? k.name : ""},
                       {"ops", k.ops ? k.ops : ""},
                       {"flops", k.flops},
                       {"bytes_moved", k.bytes_moved}});
  }
  nlohmann::json j = {{"model_name", a.model_name ? a.model_name : ""},
                      {"target", a.target ? a.target : ""},
                      {"device", device_name(a.device_type)},
                      {"isa_features", isa_list(a)},
                      {"runs_on_this_cpu", isa_missing(a).empty()},
                      {"abi_version", a.abi_version},
                      {"inputs", inputs},
                      {"outputs", outputs},
                      {"states", states},
                      {"symbols", symbols_json(a)},
                      {"workspace_bytes", a.workspace_bytes},
                      {"constant_bytes", a.constant_bytes},
                      {"num_kernels", a.num_kernels},
                      {"kernels", kernels}};
  fmt::print("{}\n", j.dump(2));
}

void print_tensors(const char* title, int32_t n, const IngotTensorInfo* ts) {
  size_t width = 4;
  for (int i = 0; i < n; ++i) width = std::max(width, std::string(ts[i].name).size());
  fmt::print("{} ({}):\n", title, n);
  for (int i = 0; i < n; ++i) {
    fmt::print(
        "  {:<{}}  {:<8} {}{}\n", ts[i].name, width, dtype_string(ts[i].dtype), shape_string(ts[i]),
        ts[i].specialized_value ? "  specialised (runs only with its compile-time value)" : "");
  }
}

void print_text(const IngotArtifact& a) {
  fmt::print("model:      {}\n", a.model_name ? a.model_name : "");
  fmt::print("target:     {}\n", a.target ? a.target : "");
  fmt::print("device:     {}\n", device_name(a.device_type));
  if (isa_list(a).empty()) {
    fmt::print("requires:   the architecture's baseline only\n");
  } else {
    fmt::print("requires:   {} ({})\n", a.isa_features, isa_status(a));
  }
  print_tensors("inputs", a.num_inputs, a.inputs);
  print_tensors("outputs", a.num_outputs, a.outputs);
  if (a.num_states > 0) {
    fmt::print("states ({}): key/value caches the session keeps between runs (--kv-cache)\n",
               a.num_states);
    for (int i = 0; i < a.num_states; ++i) fmt::print("  {}\n", state_line(a, a.states[i]));
  }
  if (a.num_symbols > 0) {
    std::string syms;
    for (int i = 0; i < a.num_symbols; ++i)
      syms += fmt::format("{}{} in [{}, {}]", i ? ", " : "", a.symbols[i].name,
                          a.symbols[i].min_value, a.symbols[i].max_value);
    fmt::print("symbols:    {} (bound by the input shapes of each run{})\n", syms,
               a.num_states > 0 ? "; the cache length by the session" : "");
  }
  fmt::print("workspace:  {} bytes{}\n", a.workspace_bytes,
             a.num_symbols > 0 ? " (at the symbols' largest values)" : "");
  fmt::print("constants:  {} bytes\n", a.constant_bytes);
  fmt::print("kernels:    {}\n", a.num_kernels);
}

int inspect_artifact(const InspectOptions& opts) {
  try {
    LoadableArtifact artifact(opts.artifact);
    rt::Model model(artifact.path(), rt::Model::ForInspection{});
    if (opts.json) {
      print_json(model.artifact());
    } else {
      print_text(model.artifact());
    }
  } catch (const rt::Error& e) {
    throw UserError(e.what());
  }
  return 0;
}

}  // namespace

void add_inspect_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<InspectOptions>();
  CLI::App* cmd =
      app.add_subcommand("inspect", "Show a compiled artifact's inputs, outputs and sizes");
  cmd->add_option("artifact", opts->artifact, "compiled artifact (.so, or an MLF .tar)")
      ->required();
  cmd->add_flag("--json", opts->json, "print JSON instead of text");
  cmd->callback([opts, &exit_code] { exit_code = inspect_artifact(*opts); });
}

}  // namespace ingot::cli

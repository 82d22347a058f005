// The c target's memory report, limits and outputs, and MLF builds for the host (see
// c_artifact.h).
#include "driver/c_artifact.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>

#include <nlohmann/json.hpp>

#include "codegen/build.h"
#include "codegen/c/c_library.h"
#include "codegen/c/c_model_source.h"
#include "codegen/c/object_size.h"
#include "codegen/link.h"
#include "codegen/llvm/codegen_llvm.h"
#include "ingot/abi.h"
#include "support/error.h"
#include "support/subprocess.h"
#include "support/tar_archive.h"
#include "tir/op.h"

namespace ingot::driver {
namespace {

using nlohmann::json;

constexpr int kMlfVersion = 1;

int64_t tensor_bytes(const tir::TensorDesc& t) {
  int64_t n = t.dtype.bytes();
  for (int64_t d : t.shape) n *= d;
  return n;
}

bool arm_target(const codegen::Target& t) {
  for (const std::string& f : t.c_flags)
    if (f.starts_with("-mcpu=cortex-") || f.starts_with("-march=armv") ||
        f.starts_with("-mcpu=arm"))
      return true;
  return false;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail_user("cannot read '{}'", path);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

std::string base_name(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Bytes of the workspace each call's arguments take (the per-kernel workspace of the metadata).
std::vector<int64_t> workspace_per_kernel(const tir::IRModule& mod) {
  std::vector<int64_t> out(mod.kernels.size(), 0);
  for (const tir::KernelCall& call : mod.entry) {
    if (!call.is_call()) continue;
    const tir::PrimFunc& f = mod.kernels[size_t(call.kernel)];
    int64_t bytes = 0;
    for (size_t i = 0; i < call.args.size(); ++i) {
      if (call.args[i].kind != tir::ArgRef::kWorkspace) continue;
      int64_t n = f.params[i]->dtype.bytes();
      for (const tir::Expr& d : f.params[i]->shape) {
        int64_t v = 0;
        if (tir::is_const_int(d, &v)) n *= v;
      }
      bytes += n;
    }
    out[size_t(call.kernel)] = std::max(out[size_t(call.kernel)], bytes);
  }
  return out;
}

json tensors_json(const std::vector<tir::TensorDesc>& ts, const std::vector<std::string>& fields) {
  json a = json::array();
  for (size_t i = 0; i < ts.size(); ++i)
    a.push_back({{"name", ts[i].name},
                 {"field", fields[i]},
                 {"dtype", ts[i].dtype.str()},
                 {"dtype_code", ts[i].dtype.code},
                 {"dtype_bits", ts[i].dtype.bits},
                 {"shape", ts[i].shape},
                 {"dim_names", ts[i].dim_names},
                 {"bytes", tensor_bytes(ts[i])}});
  return a;
}

json metadata(const tir::IRModule& mod, const codegen::Target& target,
              const codegen::CModelSource& src, const MemoryReport& m) {
  json kernels = json::array();
  std::vector<int64_t> ws = workspace_per_kernel(mod);
  for (size_t k = 0; k < mod.kernels.size(); ++k) {
    const tir::PrimFunc& f = mod.kernels[k];
    kernels.push_back({{"name", f.name},
                       {"ops", f.source_ops},
                       {"flops", f.flops},
                       {"bytes_moved", f.bytes_moved},
                       {"workspace_bytes", ws[k]},
                       {"stack_bytes", src.kernel_stack_bytes[k]}});
  }
  return {{"version", kMlfVersion},
          {"abi_version", INGOT_ABI_VERSION},
          {"model_name", mod.model_name},
          {"c_name", src.name},
          {"target", target.str()},
          {"c_flags", mlf_c_flags(target)},
          {"files",
           {{"header", "codegen/host/include/" + src.header_file},
            {"source", "codegen/host/src/" + src.source_file},
            {"constants", "parameters/" + src.constants_file}}},
          {"entry", {{"run", src.prefix + "_run"}, {"run_arrays", src.run_arrays_symbol}}},
          {"inputs", tensors_json(mod.inputs, src.input_fields)},
          {"outputs", tensors_json(mod.outputs, src.output_fields)},
          {"memory",
           {{"workspace_bytes", m.workspace_bytes},
            {"workspace_bytes_without_reuse", m.workspace_unshared_bytes},
            {"workspace_alignment", codegen::kCWorkspaceAlignment},
            {"constant_bytes", m.constant_bytes},
            {"io_bytes", m.io_bytes},
            {"max_stack_bytes", m.max_stack_bytes},
            {"code_bytes", m.code_bytes < 0 ? json(nullptr) : json(m.code_bytes)},
            {"code_compiler", m.code_compiler},
            {"flash_bytes", m.flash_bytes()},
            {"sram_bytes", m.sram_bytes()}}},
          {"kernels", kernels}};
}

}  // namespace

std::string target_c_compiler(const codegen::Target& target) {
  if (const char* cc = std::getenv("INGOT_TARGET_CC"); cc != nullptr && *cc != '\0')
    return find_program({cc});
  if (arm_target(target)) return find_program({"arm-none-eabi-gcc"});
  if (target.c_flags.empty()) {
    try {
      return codegen::host_c_compiler();
    } catch (const UserError&) {
      return "";
    }
  }
  return "";
}

std::vector<std::string> mlf_c_flags(const codegen::Target& target) {
  std::vector<std::string> flags = {"-std=c99", "-O2", "-fno-strict-aliasing",
                                    "-ffunction-sections", "-fdata-sections"};
  flags.insert(flags.end(), target.c_flags.begin(), target.c_flags.end());
  if (arm_target(target)) flags.push_back("-mthumb");
  return flags;
}

void check_workspace_limit(int64_t need, int64_t limit) {
  if (limit >= 0 && need > limit)
    fail_user(
        "--workspace-bytes-limit: the model needs a workspace of {} bytes, over the limit of {}",
        need, limit);
}

std::string describe_memory(const MemoryReport& m) {
  std::string code = m.code_bytes >= 0
                         ? fmt::format("code {} bytes ({})", m.code_bytes, m.code_compiler)
                         : fmt::format("code not measured ({})", m.code_compiler);
  const int64_t saved = m.workspace_unshared_bytes - m.workspace_bytes;
  return fmt::format(
      "flash: {} bytes = {} + constants {} bytes\n"
      "sram:  {} bytes = workspace {} bytes (static plan; {} bytes without reuse, {:.0f}% saved) "
      "+ inputs and outputs {} bytes\n"
      "stack: {} bytes of local arrays in the largest kernel\n",
      m.flash_bytes(), code, m.constant_bytes, m.sram_bytes(), m.workspace_bytes,
      m.workspace_unshared_bytes,
      m.workspace_unshared_bytes > 0 ? 100.0 * double(saved) / double(m.workspace_unshared_bytes)
                                     : 0.0,
      m.io_bytes, m.max_stack_bytes);
}

MemoryReport write_c_artifact(const tir::IRModule& mod, const codegen::Target& target,
                              const std::string& out_path, const COutput& output) {
  const bool mlf = output.format == "mlf";
  codegen::CModelSource src =
      codegen::print_c_model(mod, codegen::c_model_name(mod.model_name), mlf);
  MemoryReport m;
  m.constant_bytes = int64_t(mod.constants.size());
  m.workspace_bytes = int64_t(mod.workspace_bytes);
  m.workspace_unshared_bytes = int64_t(mod.workspace_bytes_unshared);
  for (const auto& t : mod.inputs) m.io_bytes += tensor_bytes(t);
  for (const auto& t : mod.outputs) m.io_bytes += tensor_bytes(t);
  for (int64_t s : src.kernel_stack_bytes) m.max_stack_bytes = std::max(m.max_stack_bytes, s);

  auto measure = [&m](const std::string& object, const std::string& compiler) {
    codegen::SectionSizes s = codegen::elf_section_sizes(object);
    m.code_bytes = s.text + s.rodata + s.data;
    m.code_compiler = base_name(compiler);
  };
  // Limits, before anything is written.
  auto check_limits = [&] {
    check_workspace_limit(m.workspace_bytes, output.workspace_bytes_limit);
    if (output.flash_bytes_limit < 0) return;
    if (m.code_bytes < 0)
      fail_user("--flash-bytes-limit: the code size cannot be measured ({})", m.code_compiler);
    if (m.flash_bytes() > output.flash_bytes_limit)
      fail_user(
          "--flash-bytes-limit: the model needs {} bytes of flash (code {} + constants {}), over "
          "the limit of {}",
          m.flash_bytes(), m.code_bytes, m.constant_bytes, output.flash_bytes_limit);
  };

  if (!mlf) {  // the code as the host's compiler builds the library
    codegen::build_c_shared_library(mod, target, out_path, [&](const std::string& object) {
      measure(object, codegen::host_c_compiler());
      check_limits();
    });
    return m;
  }
  // The code as the target's compiler builds the MLF's C.
  const std::string cc = target_c_compiler(target);
  if (cc.empty()) {
    m.code_compiler = "no C compiler for this target: set INGOT_TARGET_CC";
  } else {
    codegen::ScratchDir scratch;
    std::ofstream(scratch.file(src.header_file), std::ios::binary) << src.header;
    const std::string object = scratch.file("model.o");
    codegen::compile_c_file(src.source_file, src.source, cc, mlf_c_flags(target), scratch.path(),
                            object);
    measure(object, cc);
  }
  check_limits();
  ArchiveFiles files = {
      {"metadata.json", metadata(mod, target, src, m).dump(2) + "\n"},
      {"codegen/host/include/" + src.header_file, src.header},
      {"codegen/host/src/" + src.source_file, src.source},
      {"parameters/" + src.constants_file, src.constants},
      {"src/" + base_name(output.model_path), read_file(output.model_path)},
      {"src/graph.txt", output.graph_text},
  };
  write_tar(out_path, files);
  return m;
}

void build_mlf_for_host(const std::string& mlf_path, const std::string& so_path) {
  ArchiveFiles files = read_tar(mlf_path);
  std::map<std::string, std::string> by_name(files.begin(), files.end());
  auto member = [&](const std::string& name) -> const std::string& {
    auto it = by_name.find(name);
    if (it == by_name.end())
      fail_user("'{}' is not an ingot Model Library Format archive: it has no {}", mlf_path, name);
    return it->second;
  };
  json meta;
  try {
    meta = json::parse(member("metadata.json"));
    if (meta.at("version").get<int>() != kMlfVersion)
      fail_user("'{}': MLF version {} (this ingot reads version {})", mlf_path,
                meta.at("version").get<int>(), kMlfVersion);
  } catch (const json::exception& e) {
    fail_user("'{}': metadata.json is not valid: {}", mlf_path, e.what());
  }
  // The interface the record describes, from the metadata.
  tir::IRModule mod;
  codegen::CModelSource src;
  std::string header_path, source_path, constants_path;
  try {
    mod.model_name = meta.at("model_name").get<std::string>();
    mod.workspace_bytes = meta.at("memory").at("workspace_bytes").get<uint64_t>();
    mod.constants.resize(meta.at("memory").at("constant_bytes").get<size_t>());
    auto tensors = [](const json& a) {
      std::vector<tir::TensorDesc> out;
      for (const json& t : a) {
        tir::TensorDesc d;
        d.name = t.at("name").get<std::string>();
        d.dtype = tir::DataType{tir::DataType::Code(t.at("dtype_code").get<int>()),
                                uint8_t(t.at("dtype_bits").get<int>()), 1};
        d.shape = t.at("shape").get<std::vector<int64_t>>();
        d.dim_names = t.at("dim_names").get<std::vector<std::string>>();
        out.push_back(std::move(d));
      }
      return out;
    };
    mod.inputs = tensors(meta.at("inputs"));
    mod.outputs = tensors(meta.at("outputs"));
    for (const json& k : meta.at("kernels")) {
      tir::PrimFunc f;
      f.name = k.at("name").get<std::string>();
      f.source_ops = k.at("ops").get<std::vector<std::string>>();
      f.flops = k.at("flops").get<double>();
      f.bytes_moved = k.at("bytes_moved").get<double>();
      mod.kernels.push_back(std::move(f));
    }
    src.run_arrays_symbol = meta.at("entry").at("run_arrays").get<std::string>();
    src.constants_symbol = "ingot_" + meta.at("c_name").get<std::string>() + "_constants";
    header_path = meta.at("files").at("header").get<std::string>();
    source_path = meta.at("files").at("source").get<std::string>();
    constants_path = meta.at("files").at("constants").get<std::string>();
  } catch (const json::exception& e) {
    fail_user("'{}': metadata.json is not valid: {}", mlf_path, e.what());
  }
  codegen::ScratchDir scratch;
  const std::string cc = codegen::host_c_compiler();
  std::ofstream(scratch.file(base_name(header_path)), std::ios::binary) << member(header_path);
  std::vector<std::string> objects = {scratch.file("model.o"), scratch.file("constants.o")};
  codegen::compile_c_file(base_name(source_path), member(source_path), cc, codegen::c_build_flags(),
                          scratch.path(), objects[0]);
  codegen::compile_c_file(base_name(constants_path), member(constants_path), cc,
                          codegen::c_build_flags(), scratch.path(), objects[1]);
  for (const std::string& o : objects)
    if (codegen::references_got(o))
      fail_user(
          "'{}': its C references the global offset table (was it written by this ingot? its "
          "sources declare the model's symbols hidden under INGOT_HIDDEN_SYMBOLS)",
          mlf_path);
  std::vector<std::string> record = codegen::emit_c_artifact_record_objects(
      mod, src.run_arrays_symbol, src.constants_symbol,
      meta.value("target", std::string("c")) + " (MLF built for the host)", scratch, false);
  objects.insert(objects.end(), record.begin(), record.end());
  codegen::link_object_files(objects, codegen::Target::host(), so_path);
}

}  // namespace ingot::driver

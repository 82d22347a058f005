// The conv algorithm choice of `ingot tune` (see tune_conv_algorithms.h).
#include "driver/tune_conv_algorithms.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "driver/compile.h"
#include "driver/tune_model_variants.h"
#include "graph/transforms/winograd_conv.h"
#include "lower/graph_values.h"
#include "tune/measure.h"

namespace ingot::driver {

namespace {

// For each kernel whose first argument a Pad kernel wrote (the explicit zero padding
// layout_nchwc puts before a direct conv): kernel name -> that Pad kernel's name, the last
// writer of the place before it in the entry program's order.
std::map<std::string, std::string> padded_inputs(const tir::IRModule& m) {
  std::map<std::pair<int, int64_t>, const tir::PrimFunc*> last_writer;  // (kind, offset) ->
  std::map<std::string, std::string> pads;
  for (const tir::KernelCall& c : m.entry) {
    if (!c.is_call() || c.args.empty()) continue;
    const tir::PrimFunc& f = m.kernels[size_t(c.kernel)];
    const tir::ArgRef& in = c.args.front();
    auto w = last_writer.find({in.kind, in.value});
    if (w != last_writer.end() && w->second->source_ops == std::vector<std::string>{"Pad"})
      pads[f.name] = w->second->name;
    const tir::ArgRef& out = c.args.back();  // (single-output kernels: the Pad, the conv)
    last_writer[{out.kind, out.value}] = &f;
  }
  return pads;
}

}  // namespace

std::vector<tune::TuningRecord> choose_conv_algorithms(
    const std::string& model_path, const std::string& model_digest, const TuneOptions& options,
    const codegen::Target& target, const std::filesystem::path& dir, TuneReport& report,
    bool& fresh, std::ostream& log) {
  fresh = false;
  const CompileOptions& base = options.compile;
  if (base.conv_algorithm != "auto" || !base.default_schedules || target.is_gpu() ||
      target.kind != codegen::Target::kLLVM)
    return {};
  const std::string tstr = target.str();
  std::vector<tune::TuningRecord> decisions =
      tune::recorded_decisions(options.records, tune::kConvAlgorithmRule, tstr, model_digest);
  if (!decisions.empty()) {
    log << fmt::format("conv algorithms: {} from the records\n", decisions.size());
    report.conv_choices = int(decisions.size());
    for (const tune::TuningRecord& r : decisions)
      report.conv_winograd += r.trace.value("tile", 0) != 0;
    return decisions;
  }
  const std::vector<std::pair<std::string, int>> variants = {
      {"direct", 0}, {"winograd_f2", 2}, {"winograd_f4", 4}};
  std::vector<tune::MeasureJob> jobs(variants.size());
  std::vector<std::string> convs;           // the eligible convs' node names
  std::map<std::string, std::string> pads;  // (padded_inputs of the direct build)
  // F(4x4) first: it names the eligible convs; without any, nothing else is built.
  for (size_t v = variants.size(); v-- > 0;) {
    const auto& [name, tile] = variants[v];
    CompileOptions co = base;
    co.conv_algorithm = name;
    co.tuning_records.clear();
    co.static_shapes_only = true;
    std::ostringstream quiet;
    std::string so = (dir / ("model_" + name + ".so")).string();
    if (tile == 0)
      co.after_lower = [&pads](const tir::IRModule& m) {
        pads = padded_inputs(m);
        return true;
      };
    CompileReport cr = compile_model(model_path, so, co, quiet);
    if (tile == 4) convs = cr.winograd_convs;
    jobs[v] = {so, (dir / ("model_" + name + ".npz")).string()};
    if (convs.empty()) {
      log << "conv algorithms: no 3x3, 1x3 or 3x1 stride-1 convolution to choose for\n";
      return {};
    }
  }
  std::vector<std::string> names;
  for (const auto& [name, tile] : variants) names.push_back(name);
  std::optional<VariantTimes> times = time_model_variants(
      jobs, names, options.measure, "conv algorithms", "the default policy", log);
  if (!times) return {};
  const std::vector<tune::Measurement>& m = times->runs;
  const std::vector<bool>& usable = times->usable;
  int counts[3] = {0, 0, 0};
  for (const std::string& conv : convs) {
    // The direct conv, and the explicit zero Pad before it (the transforms pad themselves).
    using ops::OpKind;
    std::vector<std::string> direct = {lower::kernel_name(conv, OpKind::ConvNCHWc)};
    if (auto pad = pads.find(direct[0]); pad != pads.end()) direct.push_back(pad->second);
    const std::vector<std::vector<std::string>> kernels = {
        direct,
        {lower::kernel_name(conv + graph::kWinogradInputSuffix, OpKind::WinogradInputTransform),
         lower::kernel_name(conv + graph::kWinogradProductSuffix, OpKind::MatMul),
         lower::kernel_name(conv + graph::kWinogradOutputSuffix, OpKind::WinogradOutputTransform)}};
    std::vector<double> ms(variants.size(), -1);
    for (size_t v = 0; v < variants.size(); ++v) {
      if (!usable[v]) continue;
      double sum = 0;
      bool all = true;
      for (const std::string& k : kernels[v == 0 ? 0 : 1]) {
        auto it = m[v].kernel_ms.find(k);
        all = all && it != m[v].kernel_ms.end();
        if (all) sum += it->second;
      }
      if (all) ms[v] = sum;
    }
    size_t pick = 0;
    for (size_t v = 0; v < variants.size(); ++v)
      if (ms[v] > 0 && (ms[pick] <= 0 || ms[v] < ms[pick])) pick = v;
    if (ms[pick] <= 0) continue;  // (not found in the profiles: the default policy decides)
    ++counts[pick];
    tune::TuningRecord rec{"conv_algorithm:" + conv,
                           tstr,
                           tune::kConvAlgorithmRule,
                           conv,
                           nlohmann::json{{"tile", variants[pick].second}},
                           ms[pick] * 1e-3,
                           ""};
    rec.confirmed = true;
    rec.origin = "in-model";
    rec.model = model_digest;
    decisions.push_back(rec);
    auto cell = [&](size_t v) {
      return ms[v] > 0 ? fmt::format("{:.4f}", ms[v]) : std::string("-");
    };
    log << fmt::format("conv {}: direct {} ms{}, F(2x2) {}, F(4x4) {} in the model -> {}\n", conv,
                       cell(0), direct.size() > 1 ? " (with its Pad)" : "", cell(1), cell(2),
                       variants[pick].first);
  }
  fresh = !decisions.empty();
  report.conv_choices = counts[0] + counts[1] + counts[2];
  report.conv_winograd = counts[1] + counts[2];
  log << fmt::format("conv algorithms: {} direct, {} F(2x2, 3x3), {} F(4x4, 3x3)\n", counts[0],
                     counts[1], counts[2]);
  return decisions;
}

}  // namespace ingot::driver

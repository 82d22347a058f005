// The layout plan step of `ingot tune` (see tune_conv_layouts.h).
#include "driver/tune_conv_layouts.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "driver/compile.h"
#include "driver/tune_model_variants.h"
#include "tune/measure.h"

namespace ingot::driver {

std::vector<std::string> layout_class_kernels(const graph::ConvLayoutClass& c,
                                              const std::map<std::string, double>& kernel_ms) {
  std::vector<std::string> prefixes;
  for (const std::string& n : c.nodes) prefixes.push_back(n + "_");
  for (const std::string& v : c.values) prefixes.push_back(v + "_");
  std::vector<std::string> kernels;
  for (const auto& [name, ms] : kernel_ms)
    for (const std::string& p : prefixes)
      if (name.starts_with(p)) {
        kernels.push_back(name);
        break;
      }
  return kernels;
}

namespace {

// How much faster than the default blocks a class's kernels must run to take another block.
constexpr double kLayoutMargin = 0.02;

// The class's kernels' time in one build (-1 when none of them is in its profile).
double class_ms(const graph::ConvLayoutClass& c, const tune::Measurement& m) {
  std::vector<std::string> kernels = layout_class_kernels(c, m.kernel_ms);
  if (kernels.empty()) return -1;
  double sum = 0;
  for (const std::string& k : kernels) sum += m.kernel_ms.at(k);
  return sum;
}

}  // namespace

std::vector<tune::TuningRecord> choose_conv_layouts(
    const std::string& model_path, const std::string& model_digest, const TuneOptions& options,
    const codegen::Target& target, const std::map<std::string, int>& conv_tiles,
    const std::filesystem::path& dir, TuneReport& report, bool& fresh, std::ostream& log) {
  fresh = false;
  const CompileOptions& base = options.compile;
  if (options.conv_layout != "auto" || !base.default_schedules || target.is_gpu() ||
      target.kind != codegen::Target::kLLVM)
    return {};
  const std::string tstr = target.str();
  std::vector<tune::TuningRecord> decisions =
      tune::recorded_decisions(options.records, tune::kConvLayoutRule, tstr, model_digest);
  if (!decisions.empty()) {
    log << fmt::format("conv layouts: {} convs' blocks from the records\n", decisions.size());
    return decisions;
  }
  // The default build names the classes; then one build per other block.
  CompileOptions co = base;
  co.conv_tiles = conv_tiles;
  co.tuning_records.clear();
  co.static_shapes_only = true;
  std::ostringstream quiet;
  std::vector<tune::MeasureJob> jobs = {
      {(dir / "model_layout_default.so").string(), (dir / "model_layout_default.npz").string()}};
  CompileReport cr = compile_model(model_path, jobs[0].artifact, co, quiet);
  std::vector<graph::ConvLayoutClass> classes;
  std::set<int64_t> others;
  for (graph::ConvLayoutClass& c : cr.conv_layout_classes)
    if (c.blocks.size() > 1) {
      others.insert(c.blocks.begin() + 1, c.blocks.end());
      classes.push_back(std::move(c));
    }
  if (classes.empty()) {
    log << "conv layouts: no convolutions with a choice of channel block\n";
    return {};
  }
  // Neighbouring classes (a node of one reads the other's values: a conv between them) get
  // different colours, and each build changes the classes of one colour only, so a class's
  // kernels are timed with its own block changed and its neighbours' at their defaults.
  std::vector<int> colour(classes.size(), 0);
  int colours = 0;
  for (size_t i = 0; i < classes.size(); ++i) {
    std::set<std::string> mine(classes[i].nodes.begin(), classes[i].nodes.end());
    std::set<int> taken;
    for (size_t j = 0; j < i; ++j)
      for (const std::string& n : classes[j].nodes)
        if (mine.count(n)) {
          taken.insert(colour[j]);
          break;
        }
    while (taken.count(colour[i])) ++colour[i];
    colours = std::max(colours, colour[i] + 1);
  }
  struct Variant {
    int colour = -1;  // -1: the default blocks
    int64_t block = 0;
  };
  std::vector<Variant> variants = {{}};
  for (int k = 0; k < colours; ++k)
    for (int64_t b : others) {
      co.conv_blocks.clear();
      for (size_t i = 0; i < classes.size(); ++i) {
        const graph::ConvLayoutClass& c = classes[i];
        if (colour[i] == k && b != c.blocks.front() &&
            std::find(c.blocks.begin(), c.blocks.end(), b) != c.blocks.end())
          for (const std::string& conv : c.convs) co.conv_blocks[conv] = b;
      }
      if (co.conv_blocks.empty()) continue;
      std::string stem = fmt::format("model_layout_{}_{}", k, b);
      jobs.push_back({(dir / (stem + ".so")).string(), (dir / (stem + ".npz")).string()});
      compile_model(model_path, jobs.back().artifact, co, quiet);
      variants.push_back({k, b});
    }
  std::vector<std::string> names = {"default blocks"};
  for (size_t v = 1; v < variants.size(); ++v)
    names.push_back(fmt::format("blocks of {} (colour {})", variants[v].block, variants[v].colour));
  std::optional<VariantTimes> times =
      time_model_variants(jobs, names, options.measure, "conv layouts", "the default", log);
  if (!times) return {};
  const std::vector<tune::Measurement>& m = times->runs;
  const std::vector<bool>& usable = times->usable;
  int changed = 0;
  for (size_t i = 0; i < classes.size(); ++i) {
    const graph::ConvLayoutClass& c = classes[i];
    std::vector<double> ms(variants.size(), -1);
    std::vector<int64_t> block(variants.size(), c.blocks.front());
    for (size_t v = 0; v < variants.size(); ++v) {
      // (The builds that change other colours' classes, or keep this one's default, measure
      // the others.)
      bool mine =
          v == 0 ||
          (variants[v].colour == colour[i] && variants[v].block != c.blocks.front() &&
           std::find(c.blocks.begin(), c.blocks.end(), variants[v].block) != c.blocks.end());
      if (!usable[v] || !mine) continue;
      if (v > 0) block[v] = variants[v].block;
      ms[v] = class_ms(c, m[v]);
    }
    if (ms[0] <= 0) continue;  // (not found in the profile: the default stays)
    // The fastest, where it beats the default by the margin (a class's kernels time within a
    // few percent from build to build on a busy host: a smaller gain is as likely noise).
    size_t pick = 0;
    for (size_t v = 1; v < variants.size(); ++v)
      if (ms[v] > 0 && ms[v] < ms[pick]) pick = v;
    if (ms[pick] > ms[0] * (1 - kLayoutMargin)) pick = 0;
    changed += pick != 0;
    for (const std::string& conv : c.convs) {
      tune::TuningRecord rec{"conv_layout:" + conv,
                             tstr,
                             tune::kConvLayoutRule,
                             conv,
                             nlohmann::json{{"block", block[pick]}},
                             ms[pick] * 1e-3,
                             ""};
      rec.confirmed = true;
      rec.origin = "in-model";
      rec.model = model_digest;
      decisions.push_back(rec);
    }
    std::string cells;
    for (size_t v = 0; v < variants.size(); ++v)
      if (ms[v] > 0)
        cells += fmt::format("{}block {} {:.6f} ms", cells.empty() ? "" : ", ", block[v], ms[v]);
    log << fmt::format("conv layout of {} ({} convs, {} kernels): {} in the model -> block {}\n",
                       c.convs.front(), c.convs.size(),
                       layout_class_kernels(c, m[0].kernel_ms).size(), cells, block[pick]);
  }
  fresh = !decisions.empty();
  report.layout_classes = int(classes.size());
  report.layout_changed = changed;
  log << fmt::format(
      "conv layouts: {} of {} classes of convolutions take another block ({} builds, {} "
      "colours)\n",
      changed, classes.size(), variants.size(), colours);
  return decisions;
}

}  // namespace ingot::driver

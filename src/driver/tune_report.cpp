// The tuning report: the final table (text) and `--report tune.html` with the tuning curve.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <ostream>

#include "driver/tune.h"
#include "support/error.h"

namespace ingot::driver {

namespace {

std::string speedup(const TaskTuning& t) {
  return t.default_s > 0 && t.best_s > 0 ? fmt::format("{:.2f}x", t.default_s / t.best_s) : "-";
}

// The estimated speed-up of all tasks after each trial, from single measurements (each task's
// first trial is its default): tasks before the current one at their best, the current one at
// its best so far, later ones at their default.
std::vector<double> total_curve(const TuneReport& r) {
  auto at = [](const TaskTuning& t, size_t i) {
    return t.curve.empty() || t.curve[std::min(i, t.curve.size() - 1)] <= 0
               ? 0.0
               : t.weight * t.curve[std::min(i, t.curve.size() - 1)];
  };
  double defaults = 0;
  for (const TaskTuning& t : r.tasks) defaults += at(t, 0);
  std::vector<double> out;
  double done = 0;  // tasks already tuned, at their best
  for (size_t k = 0; k < r.tasks.size(); ++k) {
    double later = 0;
    for (size_t u = k + 1; u < r.tasks.size(); ++u) later += at(r.tasks[u], 0);
    const TaskTuning& t = r.tasks[k];
    for (size_t i = 0; i < t.curve.size(); ++i) {
      double now = done + at(t, i) + later;
      out.push_back(now > 0 ? defaults / now : 1.0);
    }
    done += at(t, t.curve.size());
  }
  return out;
}

// A polyline of `ys` over [0, n) in a w x h box (y from lo to hi), as SVG points.
std::string points(const std::vector<double>& ys, double w, double h, double lo, double hi) {
  std::string p;
  double n = std::max<double>(1, double(ys.size()) - 1);
  for (size_t i = 0; i < ys.size(); ++i)
    p += fmt::format("{:.1f},{:.1f} ", 50 + w * double(i) / n,
                     10 + h - h * (ys[i] - lo) / std::max(1e-9, hi - lo));
  return p;
}

}  // namespace

std::string format_ms(double seconds) {
  return seconds > 0 ? fmt::format("{:.4f} ms", seconds * 1e3) : "-";
}

void print_tune_report(const TuneReport& r, std::ostream& out) {
  size_t w = 6;
  for (const TaskTuning& t : r.tasks) w = std::max(w, t.kernel.size());
  out << fmt::format("{:<4} {:<{}} {:>6} {:>8} {:>12} {:>12} {:>8}\n", "task", "kernel", w,
                     "weight", "trials", "default", "best", "speedup");
  double before = 0, after = 0;
  for (const TaskTuning& t : r.tasks) {
    out << fmt::format("{:<4} {:<{}} {:>6} {:>8} {:>12} {:>12} {:>8}\n", t.index, t.kernel, w,
                       t.weight, fmt::format("{}/{}", t.trials - t.failed, t.trials),
                       format_ms(t.default_s), format_ms(t.best_s), speedup(t));
    if (t.default_s > 0 && t.best_s > 0)
      before += t.weight * t.default_s, after += t.weight * t.best_s;
  }
  out << fmt::format("tuned kernels, weighted by calls: {} -> {}{} (target '{}', {:.0f} s{})\n",
                     format_ms(before), format_ms(after),
                     after > 0 ? fmt::format(" ({:.2f}x)", before / after) : "", r.target, r.wall_s,
                     r.cache_state.empty() ? "" : ", timed from a " + r.cache_state + " cache");
  if (r.conv_choices > 0)
    out << fmt::format("conv algorithms chosen in the model: {} of {} 3x3 convs Winograd\n",
                       r.conv_winograd, r.conv_choices);
  if (r.layout_classes > 0)
    out << fmt::format("channel blocks chosen in the model: {} of {} classes of convs changed\n",
                       r.layout_changed, r.layout_classes);
  if (r.model_default_s > 0 && r.model_tuned_s > 0)
    out << fmt::format(
        "in the model, fastest of {} alternating calls: default {}, tuned {} ({:.2f}x); {} of {} "
        "changed tasks slower there keep their default\n",
        r.model_calls, format_ms(r.model_default_s), format_ms(r.model_tuned_s),
        r.model_default_s / r.model_tuned_s, r.model_kept_default, r.model_checked);
}

void write_tune_html(const TuneReport& r, const std::string& path) {
  std::vector<double> curve = total_curve(r);
  double lo = 1.0, hi = 1.0;
  for (double y : curve) lo = std::min(lo, y), hi = std::max(hi, y);
  hi = hi * 1.02 + 0.01;
  const double w = 560, h = 220;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"270\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n"
      "<rect x=\"50\" y=\"10\" width=\"{0}\" height=\"{1}\" fill=\"none\" stroke=\"#999\"/>\n"
      "<text x=\"5\" y=\"{2}\">{8:.2f}x</text><text x=\"5\" y=\"18\">{3:.2f}x</text>\n"
      "<text x=\"50\" y=\"{4}\">trial 1</text><text x=\"{5}\" y=\"{4}\" "
      "text-anchor=\"end\">trial {6}</text>\n"
      "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"{7}\"/>\n"
      "</svg>\n",
      w, h, 10 + h, hi, 10 + h + 15, 50 + w, curve.size(), points(curve, w, h, lo, hi), lo);
  std::string rows;
  for (const TaskTuning& t : r.tasks)
    rows += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}/{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td></tr>\n",
        t.index, t.kernel, t.rule, t.weight, t.trials - t.failed, t.trials, format_ms(t.default_s),
        format_ms(t.best_s), speedup(t));
  // The whole model, default against tuned (the check in the model), and the conv algorithms.
  std::string model;
  if (r.conv_choices > 0)
    model += fmt::format(
        "<p>Convolution algorithms chosen in the model: {} of {} 3x3 stride-1 "
        "convolutions run as Winograd.</p>\n",
        r.conv_winograd, r.conv_choices);
  if (r.layout_classes > 0)
    model += fmt::format(
        "<p>Channel blocks chosen in the model: {} of {} classes of convolutions that share a "
        "block take another than the default.</p>\n",
        r.layout_changed, r.layout_classes);
  if (r.model_default_s > 0 && r.model_tuned_s > 0)
    model += fmt::format(
        "<p>The whole model, fastest of {} alternating calls: default {}, tuned {} "
        "(<b>{:.2f}x</b>); {} of {} changed tasks slower there keep their default.</p>\n",
        r.model_calls, format_ms(r.model_default_s), format_ms(r.model_tuned_s),
        r.model_default_s / r.model_tuned_s, r.model_kept_default, r.model_checked);
  std::string html = fmt::format(
      "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>ingot tune</title>"
      "<style>body{{font-family:sans-serif}} td,th{{padding:2px 8px;text-align:right}}"
      "</style></head><body>\n<h1>ingot tune</h1>\n<p>target <code>{}</code>, {} trials in "
      "{:.0f} s, candidates timed from a {} cache</p>\n{}<h2>Tuning curve</h2>\n<p>Estimated "
      "speed-up of the tuned kernels "
      "(weighted by calls) over their default schedules after each trial; single "
      "measurements, before the confirmation rounds.</p>\n{}<h2>Tasks</h2>\n<table>\n"
      "<tr><th>task</th><th>kernel</th><th>rule</th><th>weight</th><th>trials</th>"
      "<th>default</th><th>best (confirmed)</th><th>speed-up</th></tr>\n{}</table>\n"
      "</body></html>\n",
      r.target, curve.size(), r.wall_s, r.cache_state.empty() ? "warm" : r.cache_state, model, svg,
      rows);
  std::ofstream out(path, std::ios::trunc);
  out << html;
  if (!out) fail_user("--report: cannot write '{}'", path);
}

}  // namespace ingot::driver

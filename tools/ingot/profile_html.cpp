// `ingot run --report report.html`: the profile as one self-contained page (no network, no
// external script). The report's JSON sits in the page; inline script draws the roofline (log-log
// SVG: the bandwidth slope and the FMA peak, one circle per kernel sized by its share of the
// time), a time breakdown of the largest kernels, and a table sortable by any column.
#include <fmt/format.h>

#include "support/atomic_file.h"
#include "tools/ingot/profile_report.h"

namespace ingot::cli {
namespace {

constexpr const char* kPage = R"HTML(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>ingot profile: @TITLE@</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; margin: 0 0 4px; } .sub { color: #666; margin-bottom: 16px; }
svg text { font: 11px system-ui, sans-serif; fill: #333; }
.axis line, .axis path { stroke: #999; } .grid { stroke: #eee; }
.roof { fill: none; stroke: #c0392b; stroke-width: 2; }
.kernel { fill: #2e86de; fill-opacity: 0.6; stroke: #1b4f72; }
.kernel.memory { fill: #e67e22; } .share { fill: #2e86de; } .share.memory { fill: #e67e22; }
table { border-collapse: collapse; margin-top: 16px; } th, td { padding: 3px 8px; text-align: right; }
th { cursor: pointer; border-bottom: 2px solid #999; } td.l, th.l { text-align: left; }
tr:nth-child(even) td { background: #f6f6f6; } .note { color: #a00; }
</style></head><body>
<h1>ingot profile: <span id="model"></span></h1>
<div class="sub" id="summary"></div>
<h2>Roofline</h2>
<svg id="roofline" width="760" height="460" role="img" aria-label="roofline plot"></svg>
<h2>Time breakdown</h2>
<svg id="breakdown" width="760" height="40" role="img" aria-label="time per kernel"></svg>
<h2>Kernels</h2>
<table id="kernels"><thead></thead><tbody></tbody></table>
<script type="application/json" id="profile-data">@DATA@</script>
<script>
"use strict";
const R = JSON.parse(document.getElementById("profile-data").textContent);
const NS = "http://www.w3.org/2000/svg";
function el(parent, tag, attrs, text) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  parent.appendChild(e);
  return e;
}
const fmt = (v, d) => (v === undefined || v < 0) ? "-" : Number(v).toFixed(d);
document.getElementById("model").textContent = R.model;
const roof = R.roofline;
document.getElementById("summary").textContent =
  `${R.target} · ${R.device} · ${R.threads} threads · ${R.runs} runs · ` +
  `${fmt(R.total_ms, 3)} ms per run` +
  (roof ? ` · ${roof.isa} peak ${fmt(roof.peak_gflops, 1)} GFLOP/s, memory ` +
          `${fmt(roof.bandwidth_gbs, 1)} GB/s` : " · no machine numbers: times only");

// Roofline: x = FLOP/byte, y = GFLOP/s, both log10.
(function () {
  const svg = document.getElementById("roofline");
  const W = 760, H = 460, L = 70, B = 50, T = 20, Rm = 20;
  const ks = R.kernels.filter(k => k.flops > 0 && k.bytes > 0 && k.median_ms > 0);
  const ai = k => k.flops / k.bytes;
  let xs = ks.map(ai), ys = ks.map(k => k.gflops);
  if (roof) { xs.push(roof.peak_gflops / roof.bandwidth_gbs); ys.push(roof.peak_gflops); }
  if (xs.length === 0) { xs = [0.1, 10]; ys = [0.1, 10]; }
  const lx0 = Math.floor(Math.log10(Math.min(...xs)) - 0.5), lx1 = Math.ceil(Math.log10(Math.max(...xs)) + 0.5);
  const ly0 = Math.floor(Math.log10(Math.max(1e-6, Math.min(...ys))) - 0.3), ly1 = Math.ceil(Math.log10(Math.max(...ys)) + 0.3);
  const X = v => L + (Math.log10(v) - lx0) / (lx1 - lx0) * (W - L - Rm);
  const Y = v => H - B - (Math.log10(v) - ly0) / (ly1 - ly0) * (H - B - T);
  const axis = el(svg, "g", {class: "axis"});
  for (let e = lx0; e <= lx1; ++e) {
    el(axis, "line", {class: "grid", x1: X(10 ** e), x2: X(10 ** e), y1: T, y2: H - B});
    el(axis, "text", {x: X(10 ** e), y: H - B + 16, "text-anchor": "middle"}, `1e${e}`);
  }
  for (let e = ly0; e <= ly1; ++e) {
    el(axis, "line", {class: "grid", x1: L, x2: W - Rm, y1: Y(10 ** e), y2: Y(10 ** e)});
    el(axis, "text", {x: L - 6, y: Y(10 ** e) + 4, "text-anchor": "end"}, `1e${e}`);
  }
  el(axis, "line", {x1: L, x2: W - Rm, y1: H - B, y2: H - B});
  el(axis, "line", {x1: L, x2: L, y1: T, y2: H - B});
  el(axis, "text", {x: (L + W) / 2, y: H - 10, "text-anchor": "middle"}, "arithmetic intensity (FLOP / byte)");
  el(axis, "text", {x: 14, y: (T + H - B) / 2, transform: `rotate(-90 14 ${(T + H - B) / 2})`, "text-anchor": "middle"}, "GFLOP/s");
  if (roof) {
    const ridge = roof.peak_gflops / roof.bandwidth_gbs, x1 = 10 ** lx1;
    // The slope enters the plot at its left edge or its floor, whichever it meets first.
    const xin = Math.max(10 ** lx0, 10 ** ly0 / roof.bandwidth_gbs);
    const pts = [[xin, xin * roof.bandwidth_gbs], [ridge, roof.peak_gflops], [x1, roof.peak_gflops]];
    el(svg, "polyline", {class: "roof", points: pts.map(p => `${X(p[0])},${Y(p[1])}`).join(" ")});
    el(svg, "text", {x: W - Rm - 4, y: Y(roof.peak_gflops) - 20, "text-anchor": "end"},
       `${roof.isa} peak ${fmt(roof.peak_gflops, 1)} GFLOP/s`);
    const xm = Math.sqrt(xin * ridge);
    el(svg, "text", {x: X(xm) - 6, y: Y(xm * roof.bandwidth_gbs) - 6, "text-anchor": "end"},
       `memory ${fmt(roof.bandwidth_gbs, 1)} GB/s`);
  }
  const maxShare = Math.max(1e-9, ...ks.map(k => k.share));
  for (const k of ks) {
    const c = el(svg, "circle", {class: "kernel " + (k.bound || ""), cx: X(ai(k)), cy: Y(Math.max(k.gflops, 10 ** ly0)),
                                 r: 3 + 12 * Math.sqrt(k.share / maxShare), "data-kernel": k.name});
    el(c, "title", {}, `${k.name} (${k.ops})\n${fmt(k.median_ms, 4)} ms, ${fmt(100 * k.share, 1)}% of the time\n` +
       `${fmt(k.gflops, 2)} GFLOP/s, ${fmt(k.gbs, 2)} GB/s, ${fmt(ai(k), 2)} FLOP/byte` +
       (k.bound ? `\n${k.bound}-bound, ${fmt(k.pct_roof, 1)}% of its roof` : ""));
  }
})();

// Time breakdown: the 20 largest kernels, then the rest.
(function () {
  const svg = document.getElementById("breakdown");
  const ks = R.kernels.slice().sort((a, b) => b.median_ms - a.median_ms);
  const shown = ks.slice(0, 20), rest = ks.slice(20).reduce((s, k) => s + k.share, 0);
  const rows = shown.map(k => ({label: `${k.name} (${k.ops})`, share: k.share, bound: k.bound || ""}));
  if (rest > 0) rows.push({label: `${ks.length - 20} other kernels`, share: rest, bound: ""});
  svg.setAttribute("height", 20 * rows.length + 10);
  const maxShare = Math.max(1e-9, ...rows.map(r => r.share));
  rows.forEach((r, i) => {
    const w = 360 * r.share / maxShare;
    el(svg, "rect", {class: "share " + r.bound, x: 0, y: 20 * i + 4, width: Math.max(w, 1), height: 14});
    el(svg, "text", {x: w + 6, y: 20 * i + 15}, `${fmt(100 * r.share, 1)}%  ${r.label}`);
  });
})();

// The table, sortable by any column.
(function () {
  const cols = [["name", "kernel", 0, true], ["ops", "ops", 0, true], ["calls_per_run", "calls", 0],
                ["median_ms", "median (ms)", 4], ["share", "time %", 1, false, 100], ["gflops", "GFLOP/s", 2],
                ["gbs", "GB/s", 2], ["intensity", "FLOP/byte", 2], ["pct_peak", "% peak", 1],
                ["pct_roof", "% roof", 1], ["bound", "bound", 0, true]];
  const table = document.getElementById("kernels");
  const head = table.tHead.insertRow();
  let rows = R.kernels.slice(), key = "median_ms", desc = true;
  function draw() {
    rows.sort((a, b) => {
      const x = a[key], y = b[key];
      const c = (typeof x === "string") ? String(x).localeCompare(String(y)) : (x ?? -1) - (y ?? -1);
      return desc ? -c : c;
    });
    const body = table.tBodies[0];
    body.innerHTML = "";
    for (const k of rows) {
      const tr = body.insertRow();
      for (const [f, , d, text, scale] of cols) {
        const td = tr.insertCell();
        if (text) { td.className = "l"; td.textContent = k[f] ?? "-"; }
        else td.textContent = fmt(k[f] === undefined ? undefined : k[f] * (scale || 1), d);
      }
    }
  }
  for (const [f, label, , text] of cols) {
    const th = document.createElement("th");
    th.textContent = label;
    if (text) th.className = "l";
    th.onclick = () => { desc = key === f ? !desc : true; key = f; draw(); };
    head.appendChild(th);
  }
  draw();
})();
</script></body></html>
)HTML";

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

}  // namespace

void write_profile_html(const std::string& path, const ProfileReport& report) {
  // JSON inside <script>: "</" would end the element early.
  std::string data = replace_all(report.to_json().dump(), "</", "<\\/");
  std::string page = replace_all(kPage, "@TITLE@", html_escape(report.model));
  page = replace_all(page, "@DATA@", data);
  write_file_atomic(path, page);
}

}  // namespace ingot::cli

// `ingot device-info`: this machine's float32 peak per ISA and memory bandwidth, the roofline's
// limits for `ingot run --profile`; measured once and cached (see device_info.h).
#include <fmt/format.h>

#include <memory>

#include "ingot/runtime.h"
#include "tools/ingot/commands.h"
#include "tools/ingot/device_info.h"

namespace ingot::cli {
namespace {

struct DeviceInfoOptions {
  bool refresh = false;
  bool json = false;
  int num_threads = 0;
};

int device_info(const DeviceInfoOptions& opts) {
  if (opts.num_threads > 0) ingot_set_num_threads(opts.num_threads);
  MachineInfo m = load_or_measure_machine(!opts.json, opts.refresh);
  if (opts.json) {
    nlohmann::json j = m.to_json();
    j["cache"] = m.cache_path;
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("cpu:        {}\n", m.cpu);
  fmt::print("features:   {}\n", m.features);
  fmt::print("threads:    {}\n", m.threads);
  fmt::print("float32 peak (GFLOP/s):\n");
  fmt::print("  {:<10} {:>12} {:>14}\n", "isa", "1 thread", fmt::format("{} threads", m.threads));
  for (const IsaPeak& p : m.peaks)
    fmt::print("  {:<10} {:>12.1f} {:>14.1f}\n", p.isa, p.gflops_1, p.gflops_all);
  fmt::print("memory (GB/s): read {:.1f} ({:.1f} on 1 thread), triad {:.1f}\n", m.read_gbs,
             m.read_gbs_1, m.triad_gbs);
  if (m.cache_reach_bytes > 0)
    fmt::print("last-level cache: {:.1f} MiB reported, reads keep its bandwidth up to {:.1f} MiB\n",
               double(m.llc_reported_bytes) / double(1 << 20),
               double(m.cache_reach_bytes) / double(1 << 20));
  if (!m.peaks.empty() && m.triad_gbs > 0) {
    fmt::print("ridge point: {:.1f} FLOP/byte ({} peak over triad bandwidth)\n",
               m.peaks.back().gflops_all / m.triad_gbs, m.peaks.back().isa);
  }
  fmt::print("measured:   {}{}\n", m.measured_at,
             m.cache_path.empty() ? "" : fmt::format(" (cache: {})", m.cache_path));
  return 0;
}

}  // namespace

void add_device_info_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<DeviceInfoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "device-info", "Measure (once, then cached) this CPU's float32 peak and memory bandwidth");
  cmd->add_flag("--refresh", opts->refresh, "measure again even when cached");
  cmd->add_flag("--json", opts->json, "print JSON");
  cmd->add_option("--num-threads", opts->num_threads,
                  "threads of the all-core numbers (default: physical cores)");
  cmd->callback([opts, &exit_code] { exit_code = device_info(*opts); });
}

}  // namespace ingot::cli

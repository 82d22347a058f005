// `ingot run` (placeholder until the subcommand lands).
#include "tools/ingot/commands.h"

namespace ingot::cli {

void add_run_command(CLI::App& app, int& exit_code) { app.add_subcommand("run", "not yet available"); }

}  // namespace ingot::cli

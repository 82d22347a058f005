// `ingot inspect` (placeholder until the subcommand lands).
#include "tools/ingot/commands.h"

namespace ingot::cli {

void add_inspect_command(CLI::App& app, int& exit_code) { app.add_subcommand("inspect", "not yet available"); }

}  // namespace ingot::cli

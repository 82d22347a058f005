// `ingot compile` (placeholder until the subcommand lands).
#include "tools/ingot/commands.h"

namespace ingot::cli {

void add_compile_command(CLI::App& app, int& exit_code) { app.add_subcommand("compile", "not yet available"); }

}  // namespace ingot::cli

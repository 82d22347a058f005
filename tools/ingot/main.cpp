// `ingot` entry point: registers the subcommands and turns every error into one "error: ..." line
// on stderr with a non-zero exit (internal errors are labelled as bugs).
#include <cstdio>
#include <exception>
#include <string>

#include "ingot/abi.h"

#include "tools/ingot/commands.h"
#include "tools/ingot/error_exit.h"

int main(int argc, char** argv) {
  CLI::App app{"ingot: ahead-of-time compiler for ONNX models"};
  app.set_version_flag("--version", "ingot " INGOT_VERSION " (artifact ABI " +
                                        std::to_string(INGOT_ABI_VERSION) + ")");
  app.require_subcommand(1);
  int exit_code = 0;
  ingot::cli::add_compile_command(app, exit_code);
  ingot::cli::add_run_command(app, exit_code);
  ingot::cli::add_inspect_command(app, exit_code);
  ingot::cli::add_tune_command(app, exit_code);
  ingot::cli::add_tune_worker_command(app, exit_code);
  ingot::cli::add_measure_command(app, exit_code);
  ingot::cli::add_device_info_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (...) {
    return ingot::cli::report_error(std::current_exception(), stderr);
  }
  return exit_code;
}

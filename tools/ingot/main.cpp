// `ingot` entry point: registers the subcommands and turns every error into one "error: ..." line
// on stderr with a non-zero exit (internal errors are labelled as bugs).
#include <cstdio>
#include <exception>
#include <string>

#include "ingot/abi.h"

#include "support/error.h"
#include "tools/ingot/commands.h"

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
  } catch (const ingot::UserError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  } catch (const ingot::InternalError& e) {
    std::fprintf(stderr, "error: internal error (this is a bug in ingot): %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "error: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return exit_code;
}

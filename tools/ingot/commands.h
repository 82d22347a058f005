// The CLI's subcommands. Each registers its options on the app and returns the callback's
// exit code through the shared `exit_code`; main.cpp only dispatches and prints errors.
#pragma once

#include <CLI/CLI.hpp>

namespace ingot::cli {

void add_compile_command(CLI::App& app, int& exit_code);
void add_run_command(CLI::App& app, int& exit_code);
void add_inspect_command(CLI::App& app, int& exit_code);
void add_tune_command(CLI::App& app, int& exit_code);
void add_tune_worker_command(CLI::App& app, int& exit_code);
void add_measure_command(CLI::App& app, int& exit_code);
void add_device_info_command(CLI::App& app, int& exit_code);

}  // namespace ingot::cli

#pragma once
// `mcp-warden [SUBCOMMAND] [options] [--] COMMAND [ARGS...]` with CLI11: options end at the first
// word that is not one of the command's own options (config::split_command_line), so launchers that
// drop "--" still work, and every word from COMMAND on reaches the server untouched.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "config/command_line.hpp"

namespace warden::app {

// The option table of `cli` (its named options, help and version flags included).
config::option_lookup option_lookup_of(const CLI::App& cli);

// Splits `args` at COMMAND with cli's table, parses the options part with `cli` and returns
// COMMAND [ARGS...] (empty when none was given). Throws what cli.parse throws (CLI::ParseError,
// CLI::CallForHelp, CLI::CallForVersion); an unknown option before COMMAND or a missing value is a
// CLI::ParseError too, with a message that says so.
std::vector<std::string> parse_options_then_command(CLI::App& cli, const std::vector<std::string>& args);

}  // namespace warden::app

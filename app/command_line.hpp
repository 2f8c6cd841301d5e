#pragma once
// `mcp-warden [SUBCOMMAND] [options] [--] COMMAND [ARGS...]` with CLI11: options end at the first
// word that is not one of the command's own options (clients::split_command_line), so launchers that
// drop "--" still work, and every word from COMMAND on reaches the server untouched.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "clients/command_line.hpp"

namespace warden::app {

// The option table of `cli` (its named options, help and version flags included).
clients::option_lookup option_lookup_of(const CLI::App& cli);

// Splits `args` at COMMAND with cli's table, parses the options part with `cli` and returns
// COMMAND [ARGS...] (empty when none was given). Throws what cli.parse throws (CLI::ParseError,
// CLI::CallForHelp, CLI::CallForVersion); an unknown option before COMMAND or a missing value is a
// CLI::ParseError too, with a message that says so.
std::vector<std::string> parse_options_then_command(CLI::App& cli, const std::vector<std::string>& args);

// The same for a settings parser that returns a result: COMMAND [ARGS...] goes to `command`. The
// help (printed on stdout) and, with `version`, the version (printed too) end in an empty error,
// which means exit 0; a parse error ends in its message.
result<bool> parse_command_into(CLI::App& cli, const std::vector<std::string>& args, std::vector<std::string>& command,
                                const char* version = nullptr);

// The usual way to parse a subcommand's arguments: with `command`, options end at COMMAND (as
// above) and COMMAND [ARGS...] goes to *command; without, every word is parsed. Returns nothing to
// go on, or the exit code that ends the subcommand: 0 after printing the help on stdout, 2 after
// printing `prefix`, CLI11's message and `suffix` on stderr.
std::optional<int> parse_or_exit(CLI::App& cli, const std::vector<std::string>& args, std::string_view prefix,
                                 std::string_view suffix = "", std::vector<std::string>* command = nullptr);

}  // namespace warden::app

#pragma once
// `PROGRAM [options] [--] COMMAND [ARGS...]`: where a launcher's own options end and the command it
// starts begins, read the way env, nice, timeout and strace read theirs. Pure; no I/O.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace warden::clients {

enum class option_kind { flag,
                         takes_value };

// What a command knows about one of its options, by spelling ("--env", "-o"); nullopt: no such option.
using option_lookup = std::function<std::optional<option_kind>(std::string_view spelling)>;

struct command_line {
  std::vector<std::string> options;  // our own options with their values, as given, in order
  std::vector<std::string> command;  // COMMAND [ARGS...], untouched; empty when none was given
  std::vector<std::string> given;    // the options' spellings ("--env", "-o"), without values, in order
  bool separator = false;            // a "--" ended the options (and is in neither list)
};

// Options end at the first word that is neither an option nor an option's value, or at the first
// "--", which is dropped. A value is the rest of "--name=value" or "-nVALUE", else the next word,
// whatever it looks like (but "--": that is a missing value). Short flags may be grouped ("-ab").
// Errors (for the user, without a program name): an unknown option before COMMAND, a missing value.
result<command_line> split_command_line(const std::vector<std::string>& args, const option_lookup& lookup);

// The stdio proxy's options as far as a client config entry `mcp-warden ARGS...` needs them: every
// word starting with '-' is an option, a value option unless it is one of the proxy's flags. For
// reading wrapped entries (clients/client_configs); the proxy itself uses its full option table.
option_lookup proxy_entry_options();

}  // namespace warden::clients

#include "clients/command_line.hpp"

#include <array>

namespace warden::clients {

namespace {

bool is_option_word(std::string_view word) { return word.size() > 1 && word.front() == '-'; }

error unknown_option(std::string_view spelling) {
  return error{"unknown option '" + std::string(spelling) +
               "' (options come before COMMAND; a COMMAND that starts with '-' goes after '--')"};
}

error missing_value(std::string_view spelling) { return error{"option " + std::string(spelling) + " needs a value"}; }

}  // namespace

result<command_line> split_command_line(const std::vector<std::string>& args, const option_lookup& lookup) {
  command_line out;
  std::size_t i = 0;
  // The next word as the value of `spelling`, or the error for its absence.
  auto take_value = [&](std::string_view spelling) -> result<bool> {
    if (i + 1 >= args.size() || args[i + 1] == "--") return missing_value(spelling);
    out.options.push_back(args[++i]);
    return true;
  };
  for (; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") {
      out.separator = true;
      ++i;
      break;
    }
    if (!is_option_word(word)) break;  // COMMAND
    out.options.push_back(word);
    if (word.starts_with("--")) {
      const auto eq = word.find('=');
      const std::string_view spelling = std::string_view(word).substr(0, eq);
      const auto kind = lookup(spelling);
      if (!kind) return unknown_option(spelling);
      out.given.emplace_back(spelling);
      if (*kind == option_kind::takes_value && eq == std::string::npos)
        if (auto taken = take_value(spelling); !taken) return error{taken.error_message()};
      continue;
    }
    // -x, -xVALUE, -abc (grouped flags, the last of which may take the rest or the next word).
    for (std::size_t at = 1; at < word.size(); ++at) {
      const std::string spelling{'-', word[at]};
      const auto kind = lookup(spelling);
      if (!kind) return unknown_option(spelling);
      out.given.push_back(spelling);
      if (*kind == option_kind::flag) continue;
      if (at + 1 == word.size())
        if (auto taken = take_value(spelling); !taken) return error{taken.error_message()};
      break;  // the rest of the word is the value
    }
  }
  out.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  return out;
}

option_lookup proxy_entry_options() {
  // The proxy's flags (app/proxy_command.cpp, app/upstream_options.cpp, app/policy_setup.cpp);
  // tests/e2e/clients-launch.test.mjs checks this list against `mcp-warden --help`.
  static constexpr std::array<std::string_view, 7> flags = {
      "-h", "--help", "--version", "--scrub-env", "--no-enumerate", "--no-oauth-token-cache", "--oauth-no-browser"};
  return [](std::string_view spelling) -> std::optional<option_kind> {
    for (const auto flag : flags)
      if (spelling == flag) return option_kind::flag;
    return option_kind::takes_value;
  };
}

}  // namespace warden::clients

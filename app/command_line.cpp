#include "app/command_line.hpp"

#include <cstdio>

namespace warden::app {

clients::option_lookup option_lookup_of(const CLI::App& cli) {
  return [&cli](std::string_view spelling) -> std::optional<clients::option_kind> {
    const bool is_long = spelling.starts_with("--");
    const std::string name(spelling.substr(is_long ? 2 : 1));
    for (const CLI::Option* option : cli.get_options()) {
      if (!option->nonpositional()) continue;
      if (!(is_long ? option->check_lname(name) : option->check_sname(name))) continue;
      // CLI11 takes at least min(type size, expected) words after the name; an option that may
      // take none (a flag, or an optional value) gets a value only as --name=value here.
      const int least = std::min(option->get_type_size_min(), option->get_items_expected_min());
      return option->get_items_expected_max() == 0 || least == 0 ? clients::option_kind::flag
                                                                 : clients::option_kind::takes_value;
    }
    return std::nullopt;
  };
}

std::vector<std::string> parse_options_then_command(CLI::App& cli, const std::vector<std::string>& args) {
  auto split = clients::split_command_line(args, option_lookup_of(cli));
  if (!split) throw CLI::ExtrasError(split.error_message(), CLI::ExitCodes::ExtrasError);
  std::vector<std::string> reversed(split->options.rbegin(), split->options.rend());  // CLI11 parses it reversed
  cli.parse(reversed);
  return std::move(split->command);
}

result<bool> parse_command_into(CLI::App& cli, const std::vector<std::string>& args, std::vector<std::string>& command,
                                const char* version) {
  try {
    command = parse_options_then_command(cli, args);
  } catch (const CLI::CallForHelp&) {
    std::fputs(cli.help().c_str(), stdout);
    return error{""};
  } catch (const CLI::CallForVersion& e) {
    if (!version) return error{e.what()};
    std::printf("mcp-warden %s\n", version);
    return error{""};
  } catch (const CLI::ParseError& e) {
    return error{e.what()};
  }
  return true;
}

std::optional<int> parse_or_exit(CLI::App& cli, const std::vector<std::string>& args, std::string_view prefix,
                                 std::string_view suffix, std::vector<std::string>* command) {
  try {
    if (command) {
      *command = parse_options_then_command(cli, args);
    } else {
      std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses it reversed
      cli.parse(reversed);
    }
  } catch (const CLI::CallForHelp&) {
    std::fputs(cli.help().c_str(), stdout);
    return 0;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%.*s%s%.*s\n", static_cast<int>(prefix.size()), prefix.data(), e.what(), static_cast<int>(suffix.size()),
                 suffix.data());
    return 2;
  }
  return std::nullopt;
}

}  // namespace warden::app

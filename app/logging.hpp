#pragma once
// mcp-warden's own diagnostics: stderr or a file, never stdout (stdout carries MCP messages).
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "base/result.hpp"

namespace warden::app {

// level: trace|debug|info|warn|error|off. Empty file: stderr.
result<bool> configure_logging(const std::string& level, const std::string& file);

// The start of a command that runs a proxy: its parsed settings (an empty error is --help or
// --version, exit 0) and then its logging. Returns the exit code when it must stop there, after
// printing why with `who` ("mcp-warden", "mcp-warden serve").
template <typename Settings>
std::optional<int> stop_before_start(const result<Settings>& settings, const char* who) {
  if (!settings) {
    if (settings.error_message().empty()) return 0;
    std::fprintf(stderr, "%s: %s\n", who, settings.error_message().c_str());
    return 2;
  }
  if (auto logging = configure_logging(settings->process.log_level, settings->process.log_file); !logging) {
    std::fprintf(stderr, "mcp-warden: %s\n", logging.error_message().c_str());
    return 2;
  }
  return std::nullopt;
}

// A command that runs a proxy, from its parsed settings: stops as stop_before_start says, or runs
// `run` with the settings and returns its exit code.
template <typename Settings, typename Run>
int start_then_run(result<Settings> settings, const char* who, Run run) {
  if (const auto code = stop_before_start(settings, who)) return *code;
  return run(std::move(*settings));
}

}  // namespace warden::app

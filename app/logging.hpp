#pragma once
// mcp-warden's own diagnostics: stderr or a file, never stdout (stdout carries MCP messages).
#include <string>

#include "base/result.hpp"

namespace warden::app {

// level: trace|debug|info|warn|error|off. Empty file: stderr.
result<bool> configure_logging(const std::string& level, const std::string& file);

}  // namespace warden::app

#pragma once
// Command-line options shared by the stdio proxy and serve: the server process mcp-warden starts
// (--env, --server-log, --max-message-bytes, the shutdown grace times), --no-enumerate, and
// mcp-warden's own log (--log-file, --log-level).
#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "proxy/session.hpp"
#include "transports/child_process.hpp"

namespace warden::app {

struct server_process_settings {
  std::vector<std::string> env_pairs;  // --env NAME=VALUE
  std::string server_log_path;
  std::string log_file;
  std::string log_level = "info";
  std::size_t stdin_grace_ms = 2000, term_grace_ms = 2000;
  bool no_enumerate = false;
};

// `serving`: worded for serve (a server per session) instead of the stdio proxy (one server).
// --max-message-bytes sets session.max_message_bytes.
void add_server_process_options(CLI::App& cli, server_process_settings& settings, proxy::session_options& session, bool serving);

// After parsing: the environment into `server`, the grace times, enumeration and the message
// limit into `session` and `server`; an error names a malformed --env.
result<bool> apply_server_process_options(const server_process_settings& settings, transports::child_spec& server,
                                          proxy::session_options& session);

}  // namespace warden::app

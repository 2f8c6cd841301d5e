#include "app/server_options.hpp"

#include <chrono>

namespace warden::app {

void add_server_process_options(CLI::App& cli, server_process_settings& s, proxy::session_options& session, bool serving) {
  cli.add_option("--env", s.env_pairs, "Add K=V to the server's environment (repeatable)");
  cli.add_option("--server-log", s.server_log_path,
                 serving ? "Append the servers' stderr to FILE (default: our stderr)" : "Append the server's stderr to FILE (default: our stderr)");
  cli.add_option("--log-file", s.log_file, "mcp-warden's own log (default: stderr)");
  cli.add_option("--log-level", s.log_level, "trace|debug|info|warn|error|off")->capture_default_str();
  cli.add_option("--max-message-bytes", session.max_message_bytes,
                 serving ? "Largest message accepted from the server" : "Largest message accepted either way")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  const std::string when = serving ? "Session end" : "Shutdown";
  cli.add_option("--stdin-grace-ms", s.stdin_grace_ms, when + ": wait after closing the server's stdin")->capture_default_str();
  cli.add_option("--term-grace-ms", s.term_grace_ms, when + ": wait after SIGTERM before SIGKILL")->capture_default_str();
  cli.add_flag("--no-enumerate", s.no_enumerate, "Do not list the surface on our own; record only what the client lists");
}

result<bool> apply_server_process_options(const server_process_settings& s, transports::child_spec& server,
                                          proxy::session_options& session) {
  for (const auto& pair : s.env_pairs) {
    const auto eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) return error{"--env expects NAME=VALUE, got '" + pair + "'"};
    server.extra_env[pair.substr(0, eq)] = pair.substr(eq + 1);
  }
  session.enumerate = !s.no_enumerate;
  session.stdin_grace = std::chrono::milliseconds(s.stdin_grace_ms);
  session.term_grace = std::chrono::milliseconds(s.term_grace_ms);
  server.max_message_bytes = session.max_message_bytes;
  return true;
}

}  // namespace warden::app

#pragma once
// One-shot live enumeration: start a server, run the initialize handshake as a client would, list
// every tool, prompt, resource and template (following nextCursor), shut the server down.
// Used by `mcp-warden scan -- COMMAND...`. Blocking; runs its own io_context.
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "analysis/surface.hpp"
#include "transports/http_upstream.hpp"

namespace warden::proxy {

struct enumerate_options {
  std::vector<std::string> argv;                 // COMMAND and its arguments, passed exactly
  std::map<std::string, std::string> extra_env;  // added to the inherited environment
  std::chrono::milliseconds timeout{30000};      // whole enumeration, start to shutdown
  std::string server_log_path;                   // child's stderr; empty: discarded
  // Set: enumerate a remote server over HTTP instead of starting argv (scan --upstream URL).
  std::optional<transports::http_upstream_options> upstream;
};

// error() says why: the server could not start, exited, timed out, or answered with an error.
result<analysis::server_surface> enumerate_server(const enumerate_options& options);

}  // namespace warden::proxy

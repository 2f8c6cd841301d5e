#pragma once
// Command-line options for a remote (HTTP) MCP server, shared by the proxy, serve and scan
// commands: --upstream URL, --header, --transport, TLS files, timeouts and OAuth.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "transports/http_upstream.hpp"

namespace warden::app {

struct upstream_settings {
  std::string url;
  std::vector<std::string> headers;
  std::string transport = "auto";
  std::string ca_file;
  std::string client_cert;
  std::string client_key;
  std::size_t connect_timeout_ms = 10000;
  std::size_t read_timeout_ms = 60000;
  // OAuth (see transports/oauth_client.hpp)
  std::string oauth_mode = "interactive";
  std::string oauth_grant = "authorization-code";
  std::string oauth_client_id;
  std::string oauth_client_secret;  // else $MCP_WARDEN_OAUTH_CLIENT_SECRET
  std::string oauth_client_metadata_url;
  std::string oauth_scope;
  std::string oauth_token_cache;  // default: transports::oauth::default_cache_path()
  bool no_oauth_token_cache = false;
  bool oauth_no_browser = false;
  std::uint16_t oauth_callback_port = 0;
  bool enabled() const { return !url.empty(); }
};

void add_upstream_options(CLI::App& cli, upstream_settings& settings);

// Validates the values (header syntax, transport name) into the transport's options; the limits
// are the session's (the upstream classifies what the server sends for it).
result<transports::http_upstream_options> resolve_upstream(const upstream_settings& settings,
                                                           std::size_t max_message_bytes, std::size_t max_depth = 512);

}  // namespace warden::app

#pragma once
// Command-line options for a remote (HTTP) MCP server, shared by the proxy, serve and scan
// commands: --upstream URL, --header, --transport, TLS files and timeouts.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "analysis/result.hpp"
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
  bool enabled() const { return !url.empty(); }
};

void add_upstream_options(CLI::App& cli, upstream_settings& settings);

// Validates the values (header syntax, transport name) into the transport's options.
result<transports::http_upstream_options> resolve_upstream(const upstream_settings& settings,
                                                           std::size_t max_message_bytes);

}  // namespace warden::app

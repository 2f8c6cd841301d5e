#include "app/upstream_options.hpp"

namespace warden::app {

void add_upstream_options(CLI::App& cli, upstream_settings& s) {
  cli.add_option("--upstream", s.url, "Connect to a remote MCP server at URL (http:// or https://) instead of starting COMMAND");
  cli.add_option("--header", s.headers, "Send 'Name: value' with every request to the upstream (repeatable)");
  cli.add_option("--transport", s.transport, "Upstream transport: auto|streamable-http|sse")->capture_default_str();
  cli.add_option("--ca-file", s.ca_file, "Trust the CA certificates in this PEM file instead of the system store");
  cli.add_option("--client-cert", s.client_cert, "Client certificate (PEM chain) for mutual TLS");
  cli.add_option("--client-key", s.client_key, "Private key (PEM) of --client-cert");
  cli.add_option("--connect-timeout-ms", s.connect_timeout_ms, "Upstream: give up connecting after N ms")->capture_default_str()->check(CLI::PositiveNumber);
  cli.add_option("--read-timeout-ms", s.read_timeout_ms, "Upstream: wait at most N ms for response headers or a JSON body")->capture_default_str()->check(CLI::PositiveNumber);
}

result<transports::http_upstream_options> resolve_upstream(const upstream_settings& s, std::size_t max_message_bytes) {
  transports::http_upstream_options options;
  options.url = s.url;
  auto mode = transports::parse_transport_option(s.transport);
  if (!mode) return error{mode.error_message()};
  options.transport = *mode;
  for (const auto& text : s.headers) {
    auto header = transports::parse_header_option(text);
    if (!header) return error{header.error_message()};
    options.headers.push_back(*header);
  }
  if (!s.client_key.empty() && s.client_cert.empty()) return error{"--client-key needs --client-cert"};
  options.ca_file = s.ca_file;
  options.client_cert = s.client_cert;
  options.client_key = s.client_key;
  options.connect_timeout = std::chrono::milliseconds(s.connect_timeout_ms);
  options.read_timeout = std::chrono::milliseconds(s.read_timeout_ms);
  options.max_message_bytes = max_message_bytes;
  return options;
}

}  // namespace warden::app

#pragma once
// A remote MCP server as the server side of a session: Streamable HTTP (POST with JSON or SSE
// answers, the GET stream, Mcp-Session-Id, MCP-Protocol-Version, resumption with Last-Event-ID,
// DELETE on close, re-initialisation after 404) or the legacy HTTP+SSE transport of 2024-11-05,
// chosen as the specification's backwards-compatibility section says. HTTPS via OpenSSL.
// Single-threaded like every stream; the link may be destroyed while operations are pending
// (they are aborted and keep their own state alive). HTTPS_PROXY is not supported.
#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/result.hpp"
#include "transports/server_link.hpp"

namespace warden::transports {

namespace oauth {
class client;
}

enum class http_transport { auto_detect,
                            streamable_http,
                            sse };

struct http_upstream_options {
  std::string url;
  http_transport transport = http_transport::auto_detect;
  std::vector<std::pair<std::string, std::string>> headers;  // sent on every request
  std::string ca_file;                                       // trust these CAs instead of the system store
  std::string client_cert;                                   // PEM chain and key for mutual TLS
  std::string client_key;
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds read_timeout{60000};  // until response headers / a JSON body arrive
  std::size_t max_message_bytes = 64u << 20;
  std::size_t max_depth = 512;  // JSON nesting of a server message (the session's limit)
  std::size_t max_header_bytes = 64u << 10;
  unsigned max_reconnects = 5;           // per stream, without progress in between
  std::shared_ptr<oauth::client> oauth;  // authorises on 401 / insufficient_scope 403 (null: off)
};

// Checks the URL, headers and TLS files now; connects lazily on the first message.
result<std::unique_ptr<server_link>> connect_http_upstream(boost::asio::any_io_executor executor,
                                                           const http_upstream_options& options);

// Parses "Name: value" as given to --header.
result<std::pair<std::string, std::string>> parse_header_option(const std::string& text);
result<http_transport> parse_transport_option(const std::string& text);

}  // namespace warden::transports

#pragma once
// An HTTP/1.1 listener, shared by serve's front and the metrics endpoint: binds (TLS optional),
// accepts up to max_connections, reads each request within size and time limits, answers the
// health probes (/healthz, /readyz), refuses foreign Host/Origin (DNS rebinding) and requests
// without the bearer token, and hands every other request to a handler.
// Single-threaded: runs on the executor given. Pulls in Beast: include from .cpp files only.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <functional>
#include <memory>
#include <string>

#include "base/result.hpp"
#include "transports/beast_stream.hpp"
#include "transports/http_listen.hpp"

namespace warden::transports {

using http_request = boost::beast::http::request<boost::beast::http::string_body>;
using http_response = boost::beast::http::response<boost::beast::http::string_body>;
// Answers one request; returns whether the connection may carry another.
using http_handler = std::function<boost::asio::awaitable<bool>(any_stream&, http_request&)>;
// How the listener's own refusals read: JSON-RPC errors for MCP clients, plain text for others.
enum class refusal_style { jsonrpc,
                           text };

// A response to `req` (same version and keep-alive), with Server: mcp-warden.
http_response make_http_response(const http_request& req, boost::beast::http::status status, std::string body,
                                 std::string_view content_type = "application/json");

class http_server {
 public:
  http_server(boost::asio::any_io_executor executor, http_listen_options options, refusal_style style);
  ~http_server();
  http_server(const http_server&) = delete;
  http_server& operator=(const http_server&) = delete;

  // Loads the TLS files, binds and listens; fails with a message naming the option at fault.
  result<bool> listen();
  std::string base_url() const;  // e.g. "https://127.0.0.1:8443", valid after listen()
  // /readyz answers 200 while `ready` says so, else 503; by default, while accepting.
  void set_readiness(std::function<bool()> ready);
  bool accepting() const;
  // Accepts until stop(); completes when accepting ends (connections may still be open).
  boost::asio::awaitable<void> run(http_handler handler);
  void stop();               // no new connections; open ones end after their current request
  void close_connections();  // abrupt close of every open connection
  // Writes `res`; returns whether the connection may carry another request.
  boost::asio::awaitable<bool> send(any_stream& stream, http_response&& res);
  // A refusal worded in this listener's style.
  http_response refusal(const http_request& req, boost::beast::http::status status, const std::string& message) const;

 private:
  class impl;
  std::shared_ptr<impl> impl_;
};

}  // namespace warden::transports

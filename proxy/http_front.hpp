#pragma once
// The HTTP front of `mcp-warden serve`: Streamable HTTP on one endpoint (/mcp) and the legacy
// HTTP+SSE endpoints (/sse + /message), optionally over TLS. Every MCP session gets its own
// proxy::session and its own server (a child process per session for stdio servers, never
// shared); stateless (2026-07-28) requests get a one-shot session each. Validates Host/Origin
// (DNS rebinding), optional bearer auth, and bounds header and body sizes, sessions,
// connections, idle time and per-stream buffers (the listener is transports::http_server, which
// also answers /healthz and /readyz). Single-threaded: runs on the executor given.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "base/result.hpp"
#include "proxy/session.hpp"
#include "transports/http_listen.hpp"
#include "transports/server_link.hpp"

namespace warden::metrics {
struct warden_metrics;
}

namespace warden::proxy {

struct http_front_options {
  // Address, TLS, bearer token, Host/Origin, header and body limits, connections, header timeout.
  transports::http_listen_options listen;
  std::string mcp_path = "/mcp";
  std::string sse_path = "/sse";          // legacy HTTP+SSE: GET here ...
  std::string message_path = "/message";  // ... and POST here
  std::size_t max_sessions = 64;
  std::size_t stream_buffer_bytes = 16u << 20;     // unsent output per SSE stream before the client is dropped
  std::size_t replay_bytes = 1u << 20;             // kept for Last-Event-ID: per stream, and by all finished ones
  std::chrono::milliseconds idle_timeout{600000};  // a session with no requests and no stream is ended
  std::chrono::milliseconds shutdown_grace{8000};  // on stop(): wait for sessions to end
  metrics::warden_metrics* metrics = nullptr;      // sessions opened and active; null: not counted
};

// Makes the server side of a new session; the error is shown to the client (HTTP 502).
using server_factory = std::function<result<std::unique_ptr<transports::server_link>>()>;
// Called for each new session before it runs (inspectors, surface callbacks).
using session_hook = std::function<void(session&, const std::string& session_id)>;

class http_front {
 public:
  http_front(boost::asio::any_io_executor executor, http_front_options options, session_options session,
             server_factory factory, session_hook hook = {});
  ~http_front();
  http_front(const http_front&) = delete;
  http_front& operator=(const http_front&) = delete;

  // Binds and listens; fails with a clear message (address in use, bad TLS files ...).
  result<bool> listen();
  std::string url() const;  // e.g. "http://127.0.0.1:8080/mcp", valid after listen()
  bool accepting() const;   // listening and not stopped: what /readyz reports
  // Accepts until stop(); completes once every session has ended (or the grace ran out).
  boost::asio::awaitable<void> run();
  void stop();

 private:
  class impl;
  std::shared_ptr<impl> impl_;
};

}  // namespace warden::proxy

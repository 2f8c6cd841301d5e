#pragma once
// One client-server pair: relays messages both ways, keeps per-direction request bookkeeping,
// records the confirmed surface (enumerating on its own), runs the inspection chain, and owns the
// shutdown sequence. Single-threaded: everything runs on the executor given at construction.
// The session must outlive the io_context run that drives it.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "analysis/surface.hpp"
#include "proxy/inspection.hpp"
#include "transports/server_link.hpp"
#include "transports/stream.hpp"

namespace warden::proxy {

struct session_options {
  std::size_t max_message_bytes = 64u << 20;
  std::size_t max_depth = 512;
  std::size_t max_pending = 4096;                // client requests awaiting an answer
  std::size_t queue_depth = 256;                 // messages buffered per direction before back-pressure
  std::size_t queue_bytes = 8u << 20;            // bytes buffered per direction before back-pressure
  std::chrono::milliseconds request_timeout{0};  // 0: wait for the server as long as the client does
  bool enumerate = true;                         // list the surface ourselves after notifications/initialized
  std::chrono::milliseconds stdin_grace{2000};   // after closing the child's stdin
  std::chrono::milliseconds term_grace{2000};    // after SIGTERM, before SIGKILL
  std::chrono::milliseconds output_drain{1000};  // child exited: wait this long for its stdout EOF
  std::chrono::milliseconds client_flush{5000};  // at exit: wait this long for the client to read
};

struct session_counters {
  std::uint64_t client_messages = 0;
  std::uint64_t server_messages = 0;
  std::uint64_t client_rejected = 0;  // malformed / over-size / over-limit lines from the client
  std::uint64_t server_dropped = 0;   // malformed / over-size lines from the server
  std::uint64_t inspector_failures = 0;
  std::uint64_t internal_requests = 0;
};

struct session_outcome {
  int exit_code = 0;
  std::string reason;
};

class session {
 public:
  session(boost::asio::any_io_executor executor, session_options options,
          std::unique_ptr<transports::message_reader> client_in,
          std::unique_ptr<transports::message_writer> client_out,
          std::unique_ptr<transports::server_link> server);
  ~session();
  session(const session&) = delete;
  session& operator=(const session&) = delete;

  void add_inspector(std::unique_ptr<inspector> next);
  // Called each time a listing completes or initialize is recorded.
  void on_surface_changed(std::function<void(const analysis::server_surface&)> callback);

  // Relays until both sides are done; completes with the exit code mcp-warden should return.
  boost::asio::awaitable<session_outcome> run();

  const analysis::server_surface& surface() const;
  // The server has answered initialize (with a result).
  bool initialized() const;
  // initialize was answered and every list the server offers has been listed completely.
  bool surface_complete() const;
  const session_counters& counters() const;

 private:
  class impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace warden::proxy

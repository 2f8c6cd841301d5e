#pragma once
// The server side of a session: a message stream plus a lifetime. A child process over stdio is
// one kind; an HTTP connection to a remote server is another. Single-threaded, like the streams.
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <string>

#include "transports/stream.hpp"

namespace warden::transports {

class server_link {
 public:
  virtual ~server_link() = default;
  virtual message_reader& output() = 0;      // messages from the server
  virtual message_writer& input() = 0;       // messages to the server; close() = no more input
  virtual std::string describe() const = 0;  // for logs: "server process 1234", "https://host/mcp"
  // Completes once when the server is gone for good; yields a status as a shell would report it
  // (exit code, or 128 + signal number; 0 for a remote server that closed cleanly). Call once.
  virtual boost::asio::awaitable<int> async_wait_exit() = 0;
  virtual void request_exit() = 0;  // polite stop (SIGTERM, HTTP DELETE ...)
  virtual void kill() = 0;          // forced stop
  // After the server is gone: stop whatever it left running (a wrapper's grandchildren), politely
  // and then by force after `grace`. Nothing to do for most links.
  virtual boost::asio::awaitable<void> async_stop_leftovers(std::chrono::milliseconds grace) {
    (void)grace;
    co_return;
  }
};

}  // namespace warden::transports

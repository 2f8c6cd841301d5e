#pragma once
// In-process fakes for driving a real proxy::session: message streams held in memory and a server
// link whose exit the test decides, plus a harness that runs a session and a test script on one
// io_context. Everything runs on the io_context's one thread; nothing here is thread-safe.
// Waiting is event-driven (every change wakes the waiters, who re-check what they wait for); a
// test that waits for something that never happens fails at the harness's deadline.
#include <doctest/doctest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "proxy/session.hpp"
#include "transports/server_link.hpp"
#include "transports/stream.hpp"

namespace warden::test {

namespace asio = boost::asio;
using boost::system::error_code;

// Wakes every coroutine waiting for a change: one timer that never expires, cancelled on change.
class activity {
 public:
  explicit activity(asio::any_io_executor executor) : timer_(executor, std::chrono::steady_clock::time_point::max()) {}
  void poke() { timer_.cancel(); }
  asio::awaitable<void> until(std::function<bool()> done) {
    while (!done()) {
      error_code ignored;
      co_await timer_.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
    }
  }

 private:
  asio::steady_timer timer_;
};

// Messages from a peer: pushed by the test, read by the session. end() is the peer's EOF (after what
// was pushed); cancel() makes the pending and every later read fail with operation_aborted.
class fake_reader final : public transports::message_reader {
 public:
  explicit fake_reader(activity& changes) : changes_(changes) {}
  void push(std::string line) {
    transports::frame next;
    next.size = line.size();
    next.bytes = std::move(line);
    frames_.push_back(std::move(next));
    changes_.poke();
  }
  // A line longer than the reader's limit, as the line framer reports it: size and excerpts only.
  void push_oversized(std::size_t size, std::string head, std::string tail) {
    transports::frame next;
    next.size = size;
    next.oversized = true;
    next.head = std::move(head);
    next.tail = std::move(tail);
    frames_.push_back(std::move(next));
    changes_.poke();
  }
  void end() {
    ended_ = true;
    changes_.poke();
  }
  bool cancelled() const { return cancelled_; }

  asio::awaitable<transports::read_outcome> async_read_message() override {
    co_await changes_.until([this] { return cancelled_ || !frames_.empty() || ended_; });
    transports::read_outcome out;
    if (cancelled_) {
      out.ec = asio::error::operation_aborted;
    } else if (!frames_.empty()) {
      out.message = std::move(frames_.front());
      frames_.pop_front();
    } else {
      out.ec = asio::error::eof;
    }
    co_return out;
  }
  void cancel() override {
    cancelled_ = true;
    changes_.poke();
  }

 private:
  activity& changes_;
  std::deque<transports::frame> frames_;
  bool ended_ = false;
  bool cancelled_ = false;
};

// Messages to a peer: kept in order, and passed to on_write (a scripted peer's answers).
// fail_with makes every later write fail (a peer that is gone).
class fake_writer final : public transports::message_writer {
 public:
  explicit fake_writer(activity& changes) : changes_(changes) {}
  std::vector<std::string> written;
  bool closed = false;
  error_code fail_with;
  std::function<void()> on_close;
  std::function<void(const std::string&)> on_write;

  asio::awaitable<error_code> async_write_message(std::string_view bytes) override {
    if (fail_with) co_return fail_with;
    if (closed) co_return asio::error::broken_pipe;
    written.emplace_back(bytes);
    changes_.poke();
    if (on_write) on_write(written.back());
    co_return error_code{};
  }
  void close() override {
    if (closed) return;
    closed = true;
    changes_.poke();
    if (on_close) on_close();
  }
  nlohmann::json message(std::size_t index) const { return nlohmann::json::parse(written.at(index)); }

 private:
  activity& changes_;
};

// A server behind a link: its output is what the test pushes, its input what the session wrote. By
// default it behaves like a well-mannered stdio server: it exits (status 0) once its input closes.
class fake_server_link final : public transports::server_link {
 public:
  explicit fake_server_link(activity& changes) : changes_(changes), output_(changes), input_(changes) {
    input_.on_close = [this] {
      if (exits_when_input_closes) exit(0);
    };
  }
  bool exits_when_input_closes = true;
  bool obeys_request_exit = true;
  int request_exit_calls = 0;
  int kill_calls = 0;

  fake_reader& out() { return output_; }
  fake_writer& in() { return input_; }
  // The server process ends: its output reaches EOF and async_wait_exit() yields `status`.
  void exit(int status) {
    if (status_ >= 0) return;
    status_ = status;
    output_.end();
  }

  transports::message_reader& output() override { return output_; }
  transports::message_writer& input() override { return input_; }
  std::string describe() const override { return "fake server"; }
  asio::awaitable<int> async_wait_exit() override {
    co_await changes_.until([this] { return status_ >= 0; });
    co_return status_;
  }
  void request_exit() override {
    ++request_exit_calls;
    if (obeys_request_exit) exit(128 + 15);
  }
  void kill() override {
    ++kill_calls;
    exit(128 + 9);
  }

 private:
  activity& changes_;
  fake_reader output_;
  fake_writer input_;
  int status_ = -1;
};

// The handshake's messages as the tests send them, byte for byte: a client's initialize (with its
// capabilities), a server's answer (with its), and the client's notification.
inline std::string initialize_request(int id, std::string_view capabilities = "{}") {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
         R"(,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":)" + std::string(capabilities) +
         R"(,"clientInfo":{"name":"c","version":"1"}}})";
}
inline std::string initialize_response(int id, std::string_view capabilities) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"result":{"protocolVersion":"2025-06-18","capabilities":)" +
         std::string(capabilities) + R"(,"serverInfo":{"name":"fake","version":"1"}}})";
}
inline const std::string initialized_notification = R"({"jsonrpc":"2.0","method":"notifications/initialized"})";

// Session options for tests: short grace times, no enumeration of our own unless asked for.
inline proxy::session_options quick_options() {
  proxy::session_options options;
  options.enumerate = false;
  options.stdin_grace = std::chrono::milliseconds(50);
  options.term_grace = std::chrono::milliseconds(50);
  options.output_drain = std::chrono::milliseconds(50);
  options.client_flush = std::chrono::milliseconds(200);
  return options;
}

// One session between a fake client and a fake server. run(script) drives both until the session
// and the script are done (or the deadline passes, which fails the test).
struct session_harness {
  asio::io_context io;
  activity changes{io.get_executor()};
  fake_reader* client_in = nullptr;  // owned by the session
  fake_writer* client_out = nullptr;
  fake_server_link* server = nullptr;
  std::unique_ptr<proxy::session> session;
  std::optional<proxy::session_outcome> outcome;

  explicit session_harness(proxy::session_options options = quick_options()) {
    auto in = std::make_unique<fake_reader>(changes);
    auto out = std::make_unique<fake_writer>(changes);
    auto link = std::make_unique<fake_server_link>(changes);
    client_in = in.get();
    client_out = out.get();
    server = link.get();
    session = std::make_unique<proxy::session>(io.get_executor(), options, std::move(in), std::move(out), std::move(link));
  }
  ~session_harness() { session.reset(); }  // before the io_context its timers belong to

  // Waits until `done()` holds (checked after every change of a fake).
  asio::awaitable<void> until(std::function<bool()> done) { return changes.until(std::move(done)); }
  // Waits until the client has received `count` messages / the server has.
  asio::awaitable<void> client_has(std::size_t count) {
    return until([this, count] { return client_out->written.size() >= count; });
  }
  asio::awaitable<void> server_has(std::size_t count) {
    return until([this, count] { return server->in().written.size() >= count; });
  }

  using script = std::function<asio::awaitable<void>(session_harness&)>;
  void run(script steps, std::chrono::milliseconds deadline = std::chrono::seconds(10)) {
    script_ = std::move(steps);  // kept alive for as long as its coroutine runs
    bool script_done = false;
    std::exception_ptr script_failure;
    asio::co_spawn(io, session->run(), [this](std::exception_ptr failure, proxy::session_outcome result) {
      if (!failure) outcome = std::move(result);
      changes.poke();
    });
    asio::co_spawn(io, script_(*this), [&](std::exception_ptr failure) {
      script_failure = failure;
      script_done = true;
    });
    io.run_for(deadline);
    if (script_failure) std::rethrow_exception(script_failure);
    REQUIRE_MESSAGE(script_done, "the test script did not finish in time");
    REQUIRE_MESSAGE(outcome.has_value(), "the session did not end in time");
  }

 private:
  script script_;
};

}  // namespace warden::test

#include "proxy/enumerate.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

#include "protocol/jsonrpc.hpp"
#include "proxy/session.hpp"
#include "proxy/surface_recorder.hpp"
#include "transports/child_process.hpp"
#include "transports/http_upstream.hpp"

namespace warden::proxy {

using namespace protocol;

namespace asio = boost::asio;
using nlohmann::json;

namespace {

// The session under a scripted client: the same relay, enumeration and shutdown code that wraps
// a real client, driven over a pair of pipes.
struct scripted_client {
  std::unique_ptr<transports::message_writer> to_session;
  std::unique_ptr<transports::message_reader> from_session;
  std::string failure;
  bool handshake_done = false;
  bool surface_complete = false;
  asio::steady_timer* wakeup = nullptr;

  // Reads what the server sends after the handshake, and answers its requests as a client that
  // declared no capabilities would: some servers ask for roots first and hold tools/list until
  // they are answered. roots/list gets an empty list, ping an empty result, anything else
  // "method not found".
  asio::awaitable<void> drain() {
    for (;;) {
      auto in = co_await from_session->async_read_message();
      if (in.ec) co_return;
      auto parsed = parse_message(in.message.bytes, parse_limits{});
      if (!parsed.ok || parsed.value.kind != message_kind::request) continue;
      const std::string& method = parsed.value.method;
      json reply = {{"jsonrpc", "2.0"}, {"id", parsed.value.id}};
      if (method == "roots/list") reply["result"] = {{"roots", json::array()}};
      else if (method == "ping") reply["result"] = json::object();
      else reply["error"] = {{"code", -32601}, {"message", "mcp-warden scan does not offer " + method}};
      co_await to_session->async_write_message(reply.dump());
    }
  }

  asio::awaitable<void> run(std::chrono::steady_clock::time_point deadline) {
    const json initialize = {
        {"jsonrpc", "2.0"},
        {"id", 1},
        {"method", "initialize"},
        {"params",
         {{"protocolVersion", "2025-11-25"},
          {"capabilities", json::object()},
          {"clientInfo", {{"name", "mcp-warden-scan"}, {"version", "0.1.0"}}}}}};
    co_await to_session->async_write_message(initialize.dump());
    for (;;) {
      auto in = co_await from_session->async_read_message();
      if (in.ec) {
        if (failure.empty()) failure = "the server closed the connection during initialize";
        break;
      }
      auto parsed = parse_message(in.message.bytes, parse_limits{});
      if (!parsed.ok || parsed.value.kind != message_kind::response || parsed.value.id != json(1)) continue;
      if (auto err = parsed.value.doc.find("error"); err != parsed.value.doc.end()) {
        failure = "the server refused initialize: " + err->dump();
        break;
      }
      handshake_done = true;
      break;
    }
    if (handshake_done) {
      co_await to_session->async_write_message(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
      // Keep reading what the server sends us (logs, requests) so that it can never fill the pipe
      // and stall the listing behind it.
      asio::co_spawn(co_await asio::this_coro::executor, drain(), asio::detached);
      // Keep reading (server requests and notifications) until the listing is complete.
      while (!surface_complete && std::chrono::steady_clock::now() < deadline) {
        wakeup->expires_at(deadline);
        boost::system::error_code ignored;
        co_await wakeup->async_wait(asio::redirect_error(asio::use_awaitable, ignored));
      }
      if (!surface_complete) failure = "timed out while listing the server's surface";
    }
    to_session->close();
  }
};

}  // namespace

result<analysis::server_surface> enumerate_server(const enumerate_options& options) {
  asio::io_context context;
  transports::child_spec spec;
  spec.argv = options.argv;
  spec.extra_env = options.extra_env;
  int log_fd = ::open(options.server_log_path.empty() ? "/dev/null" : options.server_log_path.c_str(),
                      O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  spec.stderr_fd = log_fd;
  result<std::unique_ptr<transports::server_link>> child =
      options.upstream ? transports::connect_http_upstream(context.get_executor(), *options.upstream)
                       : result<std::unique_ptr<transports::server_link>>(error{""});
  if (!options.upstream) {
    auto spawned = transports::spawn_child(context.get_executor(), spec);
    if (spawned) child = std::unique_ptr<transports::server_link>(std::move(*spawned));
    else child = error{spawned.error_message()};
  }
  if (log_fd >= 0) ::close(log_fd);
  if (!child) return error{child.error_message()};

  int client_to_session[2], session_to_client[2];
  if (::pipe2(client_to_session, O_CLOEXEC) != 0 || ::pipe2(session_to_client, O_CLOEXEC) != 0)
    return error{"cannot create pipes"};

  session_options session_opts;
  session_opts.stdin_grace = std::chrono::milliseconds(1000);
  session_opts.term_grace = std::chrono::milliseconds(1000);
  session relay(context.get_executor(), session_opts,
                transports::make_fd_reader(context.get_executor(), client_to_session[0], session_opts.max_message_bytes),
                transports::make_fd_writer(context.get_executor(), session_to_client[1]), std::move(*child));

  asio::steady_timer wakeup(context);
  scripted_client client;
  client.to_session = transports::make_fd_writer(context.get_executor(), client_to_session[1]);
  client.from_session = transports::make_fd_reader(context.get_executor(), session_to_client[0], session_opts.max_message_bytes);
  client.wakeup = &wakeup;

  relay.on_surface_changed([&](const analysis::server_surface&) {
    client.surface_complete = relay.surface_complete();
    wakeup.cancel();
  });

  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  session_outcome outcome;
  asio::co_spawn(context, client.run(deadline), asio::detached);
  // A server that never answers initialize must not hold the scan past its deadline: give up,
  // end the client side, and the session shuts the server down as usual.
  asio::steady_timer watchdog(context);
  watchdog.expires_at(deadline);
  watchdog.async_wait([&](boost::system::error_code ec) {
    if (ec || client.handshake_done) return;
    client.failure = "timed out waiting for the server to answer initialize";
    client.from_session->cancel();
    client.to_session->close();
  });
  asio::co_spawn(context, relay.run(), [&](std::exception_ptr, session_outcome done) {
    outcome = done;
    watchdog.cancel();
  });
  context.run();

  if (!client.failure.empty()) return error{client.failure + " (" + outcome.reason + ")"};
  analysis::server_surface surface = relay.surface();
  surface.live = true;
  surface.identity = options.upstream ? options.upstream->url : transports::describe_argv(options.argv);
  return surface;
}

}  // namespace warden::proxy

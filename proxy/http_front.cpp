// The listener of the HTTP front: accepts until stop(), ends idle sessions, and hands each request
// to its handler by path and method (http_front_requests.cpp); graceful shutdown of the sessions.
#include "proxy/http_front.hpp"

#include "proxy/http_front_impl.hpp"

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <spdlog/spdlog.h>

namespace warden::proxy {

using namespace std::chrono_literals;

asio::awaitable<void> http_front::impl::run() {
  auto self = shared_from_this();
  // The idle sweep runs beside the listener and is cancelled when the listener returns, instead
  // of staying detached until the io_context's shutdown destroys it. The handler is a named local:
  // built as a temporary inside the co_await expression, GCC 12 released its copy of `self` twice
  // (ASan: use-after-free of this object at exit).
  using namespace asio::experimental::awaitable_operators;
  transports::http_handler handler = [self](any_stream& stream, request_t& req) { return self->handle(stream, req); };
  co_await (server_.run(std::move(handler)) || sweep());
  // Graceful shutdown: sessions end their servers; connections close once their streams end.
  for (auto& [id, s] : sessions_) s->close_input();
  const auto deadline = clock_type::now() + options_.shutdown_grace;
  while (live_sessions_ > 0 && clock_type::now() < deadline) {
    stopped_wait_.expires_at(deadline);
    co_await stopped_wait_.async_wait(use_tuple);
  }
  server_.close_connections();
  if (live_sessions_ > 0) spdlog::warn("{} session(s) still ending at shutdown", live_sessions_);
}

void http_front::impl::stop() {
  if (stopping_) return;
  stopping_ = true;
  server_.stop();
  stopped_wait_.cancel();
}

asio::awaitable<void> http_front::impl::sweep() {
  asio::steady_timer tick(executor_);
  while (!stopping_) {
    tick.expires_after(std::min<std::chrono::milliseconds>(options_.idle_timeout / 4 + 1ms, 5000ms));
    auto [ec] = co_await tick.async_wait(use_tuple);
    if (ec == asio::error::operation_aborted) co_return;  // the listener has ended
    const auto now = clock_type::now();
    for (auto& [id, s] : sessions_) {
      bool streaming = false;
      for (auto& [sid, out] : s->streams) streaming = streaming || (out->conn && !out->conn->closed && !out->finished);
      if (!streaming && now - s->last_active > options_.idle_timeout && !s->input_closed) {
        spdlog::info("session {} idle for {} ms; ending it", id, options_.idle_timeout.count());
        s->close_input();
      }
    }
  }
}

// Listener checks (probes, Host/Origin, bearer token) are done: route by path and method.
asio::awaitable<bool> http_front::impl::handle(any_stream& stream, request_t& req) {
  const std::string_view target = req.target();
  const std::string_view path = target.substr(0, target.find('?'));
  if (path == options_.mcp_path) {
    switch (req.method()) {
      case http::verb::post: co_return co_await handle_post(stream, req);
      case http::verb::get: co_return co_await handle_get(stream, req);
      case http::verb::delete_: co_return co_await handle_delete(stream, req);
      default:
        co_return co_await send_error(stream, req, http::status::method_not_allowed, -32600, "Method not allowed", "Allow", "GET, POST, DELETE");
    }
  }
  if (path == options_.sse_path) {
    if (req.method() == http::verb::get) co_return co_await handle_legacy_get(stream, req);
    co_return co_await send_error(stream, req, http::status::method_not_allowed, -32600, "Method not allowed", "Allow", "GET");
  }
  if (path == options_.message_path) {
    if (req.method() == http::verb::post) co_return co_await handle_legacy_post(stream, req);
    co_return co_await send_error(stream, req, http::status::method_not_allowed, -32600, "Method not allowed", "Allow", "POST");
  }
  co_return co_await send_error(stream, req, http::status::not_found, -32600, "Not found");
}

// ---------------------------------------------------------------------------------------------

http_front::http_front(asio::any_io_executor executor, http_front_options options, session_options session,
                       server_factory factory, session_hook hook)
    : impl_(std::make_shared<impl>(std::move(executor), std::move(options), session, std::move(factory), std::move(hook))) {}

http_front::~http_front() = default;

result<bool> http_front::listen() { return impl_->server_.listen(); }
bool http_front::accepting() const { return impl_->server_.accepting(); }
std::string http_front::url() const { return impl_->url(); }
asio::awaitable<void> http_front::run() { return impl_->run(); }
void http_front::stop() { impl_->stop(); }

}  // namespace warden::proxy

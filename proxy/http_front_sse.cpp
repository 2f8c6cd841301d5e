// One SSE response of the HTTP front: the head, then the events routed to its stream until the
// stream finishes or the connection goes.
#include "proxy/http_front_impl.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/write.hpp>
#include <spdlog/spdlog.h>

namespace warden::proxy {

namespace {

// Nothing more comes from a client on an SSE stream: a completed read means it went away.
asio::awaitable<void> watch_disconnect(any_stream& stream, std::shared_ptr<attachment> conn) {
  std::array<char, 512> sink;
  for (;;) {
    auto [ec, n] = co_await stream.visit([&](auto& st) { return st.async_read_some(asio::buffer(sink), use_tuple); });
    (void)n;
    if (ec || conn->closed) break;
  }
  conn->closed = true;
  conn->watching = false;
  conn->notify();
}

}  // namespace

// Writes the SSE response head, then whatever is routed to `out` until it finishes or the
// connection goes. Returns whether the connection can carry another request.
asio::awaitable<bool> http_front::impl::pump_stream(any_stream& stream, request_t& req, std::shared_ptr<front_session> s,
                                                    std::shared_ptr<out_stream> out, std::shared_ptr<attachment> conn,
                                                    std::vector<std::pair<std::string, std::string>> headers,
                                                    std::string preamble, bool watch_for_disconnect) {
  http::response<http::empty_body> res{http::status::ok, req.version()};
  res.set(http::field::server, "mcp-warden");
  res.set(http::field::content_type, "text/event-stream");
  res.set(http::field::cache_control, "no-cache");
  for (auto& [k, v] : headers) res.set(k, v);
  const bool chunked = req.version() >= 11;
  res.keep_alive(chunked && req.keep_alive() && !watch_for_disconnect);
  if (chunked) res.chunked(true);
  http::response_serializer<http::empty_body> head{res};
  stream.expires_after(options_.listen.header_timeout);
  auto [hec, hn] = co_await stream.visit([&](auto& st) { return http::async_write_header(st, head, use_tuple); });
  (void)hn;
  if (hec) {
    conn->closed = true;
    co_return false;
  }
  auto write_text = [&](const std::string& text) -> asio::awaitable<bool> {
    stream.expires_after(options_.listen.header_timeout * 3);  // a client that stops reading is dropped
    if (chunked) {
      auto [ec, n] = co_await stream.visit([&](auto& st) { return asio::async_write(st, http::make_chunk(asio::buffer(text)), use_tuple); });
      (void)n;
      co_return !ec;
    }
    auto [ec, n] = co_await stream.visit([&](auto& st) { return asio::async_write(st, asio::buffer(text), use_tuple); });
    (void)n;
    co_return !ec;
  };
  bool ok = preamble.empty() || co_await write_text(preamble);
  if (watch_for_disconnect && ok) {
    conn->watching = true;
    asio::co_spawn(executor_, watch_disconnect(stream, conn), asio::detached);
  }
  bool last_chunk_sent = false;
  while (ok) {
    if (!conn->queue.empty()) {
      const event_text text = std::move(conn->queue.front());
      conn->queue.pop_front();
      conn->queued_bytes -= text->size();
      if (chunked && !watch_for_disconnect && out->finished && conn->queue.empty() && !conn->closed && out->conn == conn) {
        // The last event of a finished stream (usually the answer): it and the terminating
        // chunk in one write, one system call fewer per request.
        stream.expires_after(options_.listen.header_timeout * 3);
        auto [ec, n] = co_await stream.visit([&](auto& st) {
          return asio::async_write(st, beast::buffers_cat(http::make_chunk(asio::buffer(*text)), http::make_chunk_last()),
                                   use_tuple);
        });
        (void)n;
        ok = !ec;
        last_chunk_sent = ok;
        if (ok) break;
        continue;
      }
      ok = co_await write_text(*text);
      continue;
    }
    if (conn->closed || out->conn != conn) {
      ok = false;
      break;
    }
    if (out->finished || s->ended || stopping_) break;
    stream.expires_never();
    conn->wake.expires_at(clock_type::time_point::max());
    co_await conn->wake.async_wait(use_tuple);
  }
  if (out->conn == conn) out->conn.reset();
  if (conn->watching) {
    // The watcher reads from this stream: it must be done before the stream goes away.
    conn->closed = true;
    stream.close();
    while (conn->watching) {
      conn->wake.expires_at(clock_type::time_point::max());
      co_await conn->wake.async_wait(use_tuple);
    }
    co_return false;
  }
  if (!ok) {
    conn->closed = true;
    if (!out->finished && !out->standalone) spdlog::debug("session {}: stream {} lost its connection", s->id, out->id);
    co_return false;
  }
  if (chunked && !last_chunk_sent) {
    stream.expires_after(options_.listen.header_timeout);
    auto [ec, n] = co_await stream.visit([&](auto& st) { return asio::async_write(st, http::make_chunk_last(), use_tuple); });
    (void)n;
    if (ec) co_return false;
  }
  co_return res.keep_alive() && !watch_for_disconnect;
}

}  // namespace warden::proxy

// The HTTP upstream's connections: the pool (a lease per request), TLS, building requests with
// the session's headers, and sending them (a stale pooled connection retried once, OAuth on 401).
#include "transports/http_upstream_state.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>

#include "transports/oauth_client.hpp"

namespace warden::transports {

using tcp = asio::ip::tcp;

asio::awaitable<std::unique_ptr<upstream_state::lease>> upstream_state::connect(std::string& failure, bool allow_reuse) {
  auto l = std::make_unique<lease>();
  l->owner = shared_from_this();
  if (allow_reuse && !idle_.empty()) {
    l->stream = std::move(idle_.back());
    idle_.pop_back();
    l->reused = true;
    active_.insert(l->stream.get());
    co_return l;
  }
  auto endpoints = co_await resolve_within(executor_, url_.host, url_.port, options_.connect_timeout);
  if (!endpoints) {
    failure = endpoints.error_message();
    co_return nullptr;
  }
  beast::tcp_stream tcp_stream(executor_);
  tcp_stream.expires_after(options_.connect_timeout);
  auto [cec, ep] = co_await tcp_stream.async_connect(*endpoints, use_tuple);
  (void)ep;
  if (cec) {
    failure = "cannot connect to " + url_.host_header() + ": " + (cec == beast::error::timeout ? "timed out" : cec.message());
    co_return nullptr;
  }
  tcp_stream.socket().set_option(tcp::no_delay(true));
  if (url_.tls) {
    l->stream = std::make_unique<any_stream>(std::move(tcp_stream), *tls_);
    auto& s = l->stream->tls();
    const bool is_ip = [&] {
      error_code ignored;
      asio::ip::make_address(url_.host, ignored);
      return !ignored;
    }();
    if (!is_ip) SSL_set_tlsext_host_name(s.native_handle(), url_.host.c_str());
    s.set_verify_callback(asio::ssl::host_name_verification(url_.host));
    active_.insert(l->stream.get());
    auto [hec] = co_await s.async_handshake(asio::ssl::stream_base::client, use_tuple);
    if (hec) {
      failure = "TLS handshake with " + url_.host_header() + " failed: " + hec.message();
      co_return nullptr;
    }
  } else {
    l->stream = std::make_unique<any_stream>(std::move(tcp_stream));
    active_.insert(l->stream.get());
  }
  co_return l;
}

http::request<http::string_body> upstream_state::make_request(http::verb verb, const std::string& target, const message_info* info) {
  http::request<http::string_body> req{verb, target, 11};
  req.set(http::field::host, url_.host_header());
  req.set(http::field::user_agent, "mcp-warden/0.1");
  for (const auto& [name, value] : options_.headers) req.set(name, value);
  if (options_.oauth)
    if (auto token = options_.oauth->authorization(); !token.empty()) req.set(http::field::authorization, token);
  if (!session_id_.empty() && mode_ != http_transport::sse) req.set("Mcp-Session-Id", session_id_);
  if (info && !info->modern_version.empty()) {
    req.set("MCP-Protocol-Version", info->modern_version);
    if (!info->method.empty() && !info->request_ids.empty()) req.set("Mcp-Method", info->method);
    if (!info->mcp_name.empty()) req.set("Mcp-Name", info->mcp_name);
  } else if (!protocol_version_.empty() && !(info && info->initialize) && mode_ != http_transport::sse) {
    req.set("MCP-Protocol-Version", protocol_version_);
  }
  req.keep_alive(true);
  return req;
}

// A Streamable HTTP POST of one message to the MCP endpoint; the answer may be JSON or SSE.
http::request<http::string_body> upstream_state::make_post(const message_info* info, std::string body) {
  auto req = make_request(http::verb::post, url_.target, info);
  req.set(http::field::accept, "application/json, text/event-stream");
  req.set(http::field::content_type, "application/json");
  req.body() = std::move(body);
  return req;
}

// A GET of the server's event stream: the standalone stream, a resumption, the legacy stream.
http::request<http::string_body> upstream_state::make_stream_get() {
  auto req = make_request(http::verb::get, url_.target, nullptr);
  req.set(http::field::accept, "text/event-stream");
  return req;
}

// Sends `req`; a 401 (or a 403 for insufficient scope) runs the OAuth flow and sends it again
// with the new token (at most twice: authorisation, then a step-up).
asio::awaitable<std::unique_ptr<upstream_state::lease>> upstream_state::send_request(http::request<http::string_body>& req, std::string& failure) {
  for (int round = 0;; ++round) {
    auto l = co_await send_once(req, failure);
    if (!l || !options_.oauth || round == 2) co_return l;
    const auto& res = l->parser->get();
    if (res.result_int() != 401 && res.result_int() != 403) co_return l;
    std::vector<std::string> challenges;
    for (const auto& field : res)
      if (field.name() == http::field::www_authenticate) challenges.emplace_back(field.value());
    auto outcome = co_await options_.oauth->on_challenge(executor_, res.result_int(), std::move(challenges),
                                                         std::string(req[http::field::authorization]));
    if (outcome.what == oauth::verdict::not_mine || aborted_) co_return l;
    if (outcome.what == oauth::verdict::give_up) {
      failure = "the server answered HTTP " + std::to_string(res.result_int()) + "; " + outcome.reason;
      co_return nullptr;
    }
    l.reset();  // the refusal's connection is not reused
    req.set(http::field::authorization, options_.oauth->authorization());
  }
}

// Sends `req`, retrying once on a fresh connection when a pooled one turns out to be stale.
asio::awaitable<std::unique_ptr<upstream_state::lease>> upstream_state::send_once(http::request<http::string_body>& req, std::string& failure) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto l = co_await connect(failure, attempt == 0);
    if (!l) co_return nullptr;
    req.prepare_payload();
    l->stream->expires_after(options_.read_timeout);
    auto [wec, wn] = co_await l->stream->visit([&](auto& s) { return http::async_write(s, req, use_tuple); });
    (void)wn;
    if (!wec) {
      l->parser = std::make_unique<http::response_parser<http::buffer_body>>();
      auto& parser = *l->parser;
      parser.header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(options_.max_header_bytes, UINT32_MAX)));
      parser.body_limit(boost::none);
      auto [hec, hn] = co_await l->stream->visit([&](auto& s) { return http::async_read_header(s, l->buffer, parser, use_tuple); });
      (void)hn;
      if (!hec) co_return l;
      if (l->reused && (hec == http::error::end_of_stream || hec == asio::error::connection_reset || hec == asio::error::eof))
        continue;
      failure = hec == beast::error::timeout       ? "no answer from " + url_.host_header() + " within " + std::to_string(options_.read_timeout.count()) + " ms"
                : hec == http::error::header_limit ? "the server's response headers exceed " + std::to_string(options_.max_header_bytes) + " bytes"
                                                   : "reading the response from " + url_.host_header() + " failed: " + hec.message();
      co_return nullptr;
    }
    if (l->reused) continue;
    failure = "sending to " + url_.host_header() + " failed: " + wec.message();
    co_return nullptr;
  }
  failure = "the connection to " + url_.host_header() + " was closed";
  co_return nullptr;
}

response_head upstream_state::head_of(const http::response_parser<http::buffer_body>& parser) {
  const auto& res = parser.get();
  response_head head;
  head.status = res.result_int();
  head.reason = std::string(res.reason());
  head.content_type = std::string(res[http::field::content_type]);
  head.session_id = std::string(res["mcp-session-id"]);
  return head;
}

// Reads the start of a body (at most 4096 bytes) to explain a refusal with. Returns "" at the end
// of the body, else why reading stopped.
asio::awaitable<std::string> upstream_state::read_detail(lease& l, std::string& detail) {
  co_return co_await read_body(l, false, [&](std::string_view bytes) -> asio::awaitable<bool> {
    if (detail.size() < 4096) detail.append(bytes.substr(0, 4096 - detail.size()));
    co_return true;
  });
}

std::string refusal_text(const response_head& head, const std::string& detail) {
  return "the server answered HTTP " + std::to_string(head.status) + " " + head.reason +
         (detail.empty() ? "" : ": " + detail.substr(0, 500));
}

bool is_event_stream(const response_head& head) {
  return head.status == 200 && is_media_type(head.content_type, "text/event-stream");
}

}  // namespace warden::transports

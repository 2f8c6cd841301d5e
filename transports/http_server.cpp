#include "transports/http_server.hpp"

#include <openssl/crypto.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http.hpp>
#include <optional>
#include <set>
#include <spdlog/spdlog.h>

#include "protocol/jsonrpc.hpp"

namespace warden::transports {

namespace asio = boost::asio;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;
using namespace std::chrono_literals;

namespace {
constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);
}  // namespace

http_response make_http_response(const http_request& req, http::status status, std::string body,
                                 std::string_view content_type) {
  http_response res{status, req.version()};
  res.set(http::field::server, "mcp-warden");
  if (!body.empty()) res.set(http::field::content_type, content_type);
  res.body() = std::move(body);
  res.keep_alive(req.keep_alive());
  res.prepare_payload();
  return res;
}

class http_server::impl : public std::enable_shared_from_this<impl> {
 public:
  impl(asio::any_io_executor executor, http_listen_options options, refusal_style style)
      : executor_(executor), options_(std::move(options)), style_(style), acceptor_(executor) {}

  result<bool> listen();
  asio::awaitable<void> run(http_handler handler);
  static asio::awaitable<void> serve_connection(std::shared_ptr<impl> self, tcp::socket socket,
                                                std::shared_ptr<const http_handler> handler);
  // The probes and the checks every request passes; nullopt: over to the handler.
  std::optional<http_response> screen(const http_request& req) const;

  asio::awaitable<bool> send(any_stream& stream, http_response&& res) {
    stream.expires_after(options_.header_timeout);
    auto [ec, n] = co_await stream.visit([&](auto& st) { return http::async_write(st, res, use_tuple); });
    (void)n;
    co_return !ec && res.keep_alive();
  }

  http_response refusal(const http_request& req, http::status status, const std::string& message) const {
    // -32600 (invalid request) for everything the listener itself refuses, as MCP SDK servers do.
    if (style_ == refusal_style::jsonrpc) return make_http_response(req, status, protocol::error_response(nullptr, protocol::error_codes::invalid_request, message));
    return make_http_response(req, status, message + "\n", "text/plain; charset=utf-8");
  }

  bool accepting() const { return acceptor_.is_open() && !stopping_; }

  asio::any_io_executor executor_;
  http_listen_options options_;
  refusal_style style_;
  tcp::acceptor acceptor_;
  tcp::endpoint bound_;
  std::optional<asio::ssl::context> tls_;
  std::function<bool()> ready_;
  std::size_t connections_ = 0;
  std::set<any_stream*> open_streams_;
  bool stopping_ = false;
};

result<bool> http_server::impl::listen() {
  const std::string& prefix = options_.option_prefix;
  if (!options_.tls_cert.empty()) {
    tls_.emplace(asio::ssl::context::tls_server);
    error_code ec;
    tls_->use_certificate_chain_file(options_.tls_cert, ec);
    if (ec) return error{"cannot load " + prefix + "tls-cert '" + options_.tls_cert + "': " + ec.message()};
    tls_->use_private_key_file(options_.tls_key.empty() ? options_.tls_cert : options_.tls_key, asio::ssl::context::pem, ec);
    if (ec) return error{"cannot load " + prefix + "tls-key '" + options_.tls_key + "': " + ec.message()};
  }
  error_code ec;
  const auto address = asio::ip::make_address(options_.listen_host == "localhost" ? "127.0.0.1" : options_.listen_host, ec);
  if (ec) return error{prefix + "listen: '" + options_.listen_host + "' is not an IP address"};
  const tcp::endpoint endpoint(address, options_.port);
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return error{"cannot listen on " + options_.listen_host + ":" + std::to_string(options_.port) + ": " + ec.message()};
  bound_ = acceptor_.local_endpoint(ec);
  return true;
}

asio::awaitable<void> http_server::impl::run(http_handler handler) {
  auto self = shared_from_this();
  auto shared_handler = std::make_shared<const http_handler>(std::move(handler));
  while (!stopping_) {
    auto [ec, socket] = co_await acceptor_.async_accept(use_tuple);
    if (ec) {
      if (stopping_ || ec == asio::error::operation_aborted) break;
      spdlog::warn("accept failed: {}", ec.message());
      asio::steady_timer pause(executor_, 100ms);  // e.g. out of file descriptors
      co_await pause.async_wait(use_tuple);
      continue;
    }
    if (connections_ >= options_.max_connections) {
      spdlog::warn("connection refused: {} connections open", connections_);
      error_code ignored;
      socket.close(ignored);
      continue;
    }
    asio::co_spawn(executor_, serve_connection(self, std::move(socket), shared_handler), asio::detached);
  }
}

std::optional<http_response> http_server::impl::screen(const http_request& req) const {
  // Probes first: they tell only "up" / "ready", and orchestrators cannot always send a token.
  const std::string_view target = req.target();
  const std::string_view path = target.substr(0, target.find('?'));
  if ((path == "/healthz" || path == "/readyz") && req.method() == http::verb::get) {
    const bool ok = path == "/healthz" || (ready_ ? ready_() && !stopping_ : accepting());
    auto res = make_http_response(req, ok ? http::status::ok : http::status::service_unavailable,
                                  ok ? "ok\n" : "not ready\n", "text/plain; charset=utf-8");
    res.set(http::field::cache_control, "no-store");
    return res;
  }
  // DNS rebinding: a browser page from another site names that site in Host / Origin.
  std::optional<std::string_view> origin;
  if (auto it = req.find(http::field::origin); it != req.end()) origin = it->value();
  if (const std::string refused = check_host_and_origin(options_.origins, req[http::field::host], origin); !refused.empty()) {
    spdlog::warn("refused {} {}: {}", std::string(req.method_string()), std::string(req.target()), refused);
    return refusal(req, http::status::forbidden, "Forbidden: " + refused);
  }
  if (!options_.auth_token.empty()) {
    const std::string_view given = req[http::field::authorization];
    const std::string expected = "Bearer " + options_.auth_token;
    if (given.size() != expected.size() || CRYPTO_memcmp(given.data(), expected.data(), expected.size()) != 0) {
      auto res = refusal(req, http::status::unauthorized, "Unauthorized: a valid bearer token is required");
      res.set(http::field::www_authenticate, "Bearer");
      return res;
    }
  }
  return std::nullopt;
}

asio::awaitable<void> http_server::impl::serve_connection(std::shared_ptr<impl> self, tcp::socket socket,
                                                          std::shared_ptr<const http_handler> handler) {
  ++self->connections_;
  struct counter {
    impl* f;
    ~counter() { --f->connections_; }
  } count{self.get()};
  error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  std::unique_ptr<any_stream> stream = self->tls_ ? std::make_unique<any_stream>(beast::tcp_stream(std::move(socket)), *self->tls_)
                                                  : std::make_unique<any_stream>(beast::tcp_stream(std::move(socket)));
  self->open_streams_.insert(stream.get());
  struct unregister {
    impl* f;
    any_stream* s;
    ~unregister() { f->open_streams_.erase(s); }
  } registration{self.get(), stream.get()};
  const auto& options = self->options_;
  if (stream->is_tls()) {
    stream->expires_after(options.header_timeout);
    auto [ec] = co_await stream->tls().async_handshake(asio::ssl::stream_base::server, use_tuple);
    if (ec) {
      spdlog::debug("TLS handshake failed: {}", ec.message());
      co_return;
    }
  }
  // The listener's own answers before a request is complete: never kept alive.
  const auto refuse_early = [&](http_request head, http::status status, std::string message) -> asio::awaitable<void> {
    auto res = self->refusal(head, status, message);
    res.keep_alive(false);
    co_await self->send(*stream, std::move(res));
  };
  const std::string body_too_large = "request body exceeds " + std::to_string(options.max_body_bytes) + " bytes";
  beast::flat_buffer buffer;
  for (;;) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(options.max_header_bytes));
    parser.body_limit(options.max_body_bytes);
    // Headers and body must arrive within the timeout: slow clients do not hold a connection.
    stream->expires_after(options.header_timeout);
    auto [hec, hn] = co_await stream->visit([&](auto& s) { return http::async_read_header(s, buffer, parser, use_tuple); });
    (void)hn;
    if (hec) {
      http_request dummy;
      dummy.version(11);
      if (hec == http::error::header_limit) {
        co_await refuse_early(std::move(dummy), http::status::request_header_fields_too_large,
                              "request headers exceed " + std::to_string(options.max_header_bytes) + " bytes");
      } else if (hec != http::error::end_of_stream && hec != beast::error::timeout && hec != asio::error::eof &&
                 hec != asio::error::connection_reset && hec != asio::error::operation_aborted) {
        co_await refuse_early(std::move(dummy), http::status::bad_request, "malformed HTTP request: " + hec.message());
      }
      break;
    }
    if (const auto length = parser.content_length(); length && *length > options.max_body_bytes) {
      co_await refuse_early(parser.release(), http::status::payload_too_large, body_too_large);
      break;
    }
    auto [bec, bn] = co_await stream->visit([&](auto& s) { return http::async_read(s, buffer, parser, use_tuple); });
    (void)bn;
    if (bec) {
      if (bec == http::error::body_limit) co_await refuse_early(parser.release(), http::status::payload_too_large, body_too_large);
      break;
    }
    http_request req = parser.release();
    bool keep = false;
    try {
      if (auto answer = self->screen(req)) keep = co_await self->send(*stream, std::move(*answer));
      else keep = co_await (*handler)(*stream, req);
    } catch (const std::exception& e) {
      // Nothing a client sends may take the process down.
      spdlog::error("request failed: {}", e.what());
      keep = false;
    }
    if (!keep || self->stopping_) break;
  }
  stream->expires_after(1s);
  if (stream->is_tls()) {
    auto [ec] = co_await stream->tls().async_shutdown(use_tuple);
    (void)ec;
  }
  stream->close();
}

// ---------------------------------------------------------------------------------------------

http_server::http_server(asio::any_io_executor executor, http_listen_options options, refusal_style style)
    : impl_(std::make_shared<impl>(std::move(executor), std::move(options), style)) {}

http_server::~http_server() = default;

result<bool> http_server::listen() { return impl_->listen(); }

std::string http_server::base_url() const {
  const auto& bound = impl_->bound_;
  const std::string host = bound.address().is_v6() ? "[" + bound.address().to_string() + "]" : bound.address().to_string();
  return (impl_->tls_ ? "https://" : "http://") + host + ":" + std::to_string(bound.port());
}

void http_server::set_readiness(std::function<bool()> ready) { impl_->ready_ = std::move(ready); }
bool http_server::accepting() const { return impl_->accepting(); }
asio::awaitable<void> http_server::run(http_handler handler) { return impl_->run(std::move(handler)); }

void http_server::stop() {
  if (impl_->stopping_) return;
  impl_->stopping_ = true;
  error_code ignored;
  impl_->acceptor_.close(ignored);
}

void http_server::close_connections() {
  for (any_stream* s : impl_->open_streams_) s->close();
}

asio::awaitable<bool> http_server::send(any_stream& stream, http_response&& res) { return impl_->send(stream, std::move(res)); }

http_response http_server::refusal(const http_request& req, http::status status, const std::string& message) const {
  return impl_->refusal(req, status, message);
}

}  // namespace warden::transports

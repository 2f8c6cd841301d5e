#include "transports/http_request.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http.hpp>

#include "transports/beast_stream.hpp"
#include "transports/http_rules.hpp"

// GCC 12 at -O2 reports Asio's coroutine frame allocator (aligned_alloc, then its matching
// operator delete) as mismatched in some coroutines here: a false positive of the inliner.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace warden::transports {

namespace asio = boost::asio;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

namespace {
constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);
}

std::string http_reply::header(std::string_view name) const {
  for (const auto& [n, v] : headers)
    if (iequals(n, name)) return v;
  return {};
}

struct http_requester::impl {
  asio::ssl::context tls{asio::ssl::context::tls_client};
  limits bounds;
};

http_requester::http_requester(std::unique_ptr<impl> state) : impl_(std::move(state)) {}
http_requester::~http_requester() = default;

result<bool> configure_tls_client(asio::ssl::context& tls, const tls_files& files) {
  error_code ec;
  if (files.ca_file.empty()) tls.set_default_verify_paths(ec);
  else tls.load_verify_file(files.ca_file, ec);
  if (ec)
    return error{"cannot load CA certificates " +
                 (files.ca_file.empty() ? std::string("from the system store") : "from '" + files.ca_file + "'") + ": " + ec.message()};
  tls.set_verify_mode(asio::ssl::verify_peer);
  if (!files.client_cert.empty()) {
    tls.use_certificate_chain_file(files.client_cert, ec);
    if (ec) return error{"cannot load client certificate '" + files.client_cert + "': " + ec.message()};
    tls.use_private_key_file(files.client_key.empty() ? files.client_cert : files.client_key, asio::ssl::context::pem, ec);
    if (ec) return error{"cannot load client key '" + files.client_key + "': " + ec.message()};
  }
  return true;
}

asio::awaitable<result<tcp::resolver::results_type>> resolve_within(asio::any_io_executor executor, const std::string& host,
                                                                    std::uint16_t port, std::chrono::milliseconds timeout) {
  tcp::resolver resolver(executor);
  asio::steady_timer guard(executor);
  guard.expires_after(timeout);
  bool timed_out = false;
  guard.async_wait([&](error_code ec) {
    if (!ec) {
      timed_out = true;
      resolver.cancel();
    }
  });
  auto [ec, endpoints] = co_await resolver.async_resolve(host, std::to_string(port), use_tuple);
  guard.cancel();
  if (ec) co_return error{"cannot resolve " + host + ": " + (timed_out ? std::string("timed out") : ec.message())};
  co_return endpoints;
}

result<std::shared_ptr<http_requester>> http_requester::create(const tls_files& files, limits bounds) {
  auto state = std::make_unique<impl>();
  state->bounds = bounds;
  if (auto configured = configure_tls_client(state->tls, files); !configured) return error{configured.error_message()};
  return std::shared_ptr<http_requester>(new http_requester(std::move(state)));
}

asio::awaitable<result<http_reply>> http_requester::send(asio::any_io_executor executor, http_exchange request) {
  auto url = parse_http_url(request.url);
  if (!url) co_return error{"bad URL '" + request.url.substr(0, 300) + "': " + url.error_message()};
  const auto& bounds = impl_->bounds;

  auto endpoints = co_await resolve_within(executor, url->host, url->port, bounds.connect_timeout);
  if (!endpoints) co_return error{endpoints.error_message()};

  beast::tcp_stream tcp_stream(executor);
  tcp_stream.expires_after(bounds.connect_timeout);
  auto [cec, ep] = co_await tcp_stream.async_connect(*endpoints, use_tuple);
  (void)ep;
  if (cec)
    co_return error{"cannot connect to " + url->host_header() + ": " + (cec == beast::error::timeout ? std::string("timed out") : cec.message())};

  std::unique_ptr<any_stream> stream;
  if (url->tls) {
    stream = std::make_unique<any_stream>(std::move(tcp_stream), impl_->tls);
    auto& s = stream->tls();
    error_code not_ip;
    asio::ip::make_address(url->host, not_ip);
    if (not_ip) SSL_set_tlsext_host_name(s.native_handle(), url->host.c_str());
    s.set_verify_callback(asio::ssl::host_name_verification(url->host));
    stream->expires_after(bounds.connect_timeout);
    auto [hec] = co_await s.async_handshake(asio::ssl::stream_base::client, use_tuple);
    if (hec) co_return error{"TLS handshake with " + url->host_header() + " failed: " + hec.message()};
  } else {
    stream = std::make_unique<any_stream>(std::move(tcp_stream));
  }

  http::request<http::string_body> req{http::string_to_verb(request.method), url->target, 11};
  req.set(http::field::host, url->host_header());
  req.set(http::field::user_agent, "mcp-warden/0.1");
  for (const auto& [name, value] : request.headers) req.set(name, value);
  req.body() = std::move(request.body);
  req.keep_alive(false);
  req.prepare_payload();
  stream->expires_after(bounds.read_timeout);
  auto [wec, wn] = co_await stream->visit([&](auto& s) { return http::async_write(s, req, use_tuple); });
  (void)wn;
  if (wec) co_return error{"sending to " + url->host_header() + " failed: " + wec.message()};

  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.header_limit(64u << 10);
  parser.body_limit(bounds.max_body_bytes);
  auto [rdec, rn] = co_await stream->visit([&](auto& s) { return http::async_read(s, buffer, parser, use_tuple); });
  (void)rn;
  if (rdec)
    co_return error{rdec == beast::error::timeout     ? "no answer from " + url->host_header() + " within " + std::to_string(bounds.read_timeout.count()) + " ms"
                    : rdec == http::error::body_limit ? "the answer from " + url->host_header() + " exceeds " + std::to_string(bounds.max_body_bytes) + " bytes"
                                                      : "reading the answer from " + url->host_header() + " failed: " + rdec.message()};
  stream->close();
  http_reply reply;
  const auto& res = parser.get();
  reply.status = res.result_int();
  for (const auto& field : res) reply.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  reply.body = res.body();
  co_return reply;
}

}  // namespace warden::transports

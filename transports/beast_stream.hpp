#pragma once
// Internal to transports/ and proxy/ .cpp files (pulls in Beast): one HTTP byte stream that is
// either plain TCP or TLS over TCP, so that client and server code is written once.
// Not thread-safe; used from one executor.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <variant>

#include "base/result.hpp"

namespace warden::transports {

namespace beast = boost::beast;

class any_stream {
 public:
  using tls_stream = beast::ssl_stream<beast::tcp_stream>;

  explicit any_stream(beast::tcp_stream tcp) : stream_(std::move(tcp)) {}
  any_stream(beast::tcp_stream tcp, boost::asio::ssl::context& context)
      : stream_(std::in_place_type<tls_stream>, std::move(tcp), context) {}

  bool is_tls() const noexcept { return stream_.index() == 1; }
  tls_stream& tls() { return std::get<1>(stream_); }
  beast::tcp_stream& tcp() {
    return is_tls() ? beast::get_lowest_layer(std::get<1>(stream_)) : std::get<0>(stream_);
  }
  // Calls `op(stream)` with the concrete stream; every alternative must yield the same type.
  template <typename Op>
  decltype(auto) visit(Op&& op) {
    return std::visit(std::forward<Op>(op), stream_);
  }
  void expires_after(std::chrono::steady_clock::duration d) { tcp().expires_after(d); }
  void expires_never() { tcp().expires_never(); }
  // Abrupt close: pending operations complete with operation_aborted.
  void close() {
    boost::system::error_code ignored;
    tcp().socket().shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
    tcp().close();
  }
  bool is_open() { return tcp().socket().is_open(); }

 private:
  std::variant<beast::tcp_stream, tls_stream> stream_;
};

struct tls_files;  // transports/http_request.hpp

// The connection set-up shared by the upstream link and the one-shot requester (defined in
// http_request.cpp). A TLS client context's trust and identity: the system store or a CA file,
// peer verification, an optional client certificate.
result<bool> configure_tls_client(boost::asio::ssl::context& tls, const tls_files& files);
// Name resolution bounded by `timeout` (the resolver has no deadline of its own).
boost::asio::awaitable<result<boost::asio::ip::tcp::resolver::results_type>> resolve_within(
    boost::asio::any_io_executor executor, const std::string& host, std::uint16_t port, std::chrono::milliseconds timeout);

}  // namespace warden::transports

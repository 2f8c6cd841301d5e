#pragma once
// One-shot HTTP(S) requests for the side channels of the upstream client (OAuth metadata,
// client registration, tokens): a fresh connection per request, TLS verified like the
// upstream's (system store or a CA file, host-name verification, SNI, optional client
// certificate), redirects never followed, the body read up to a bound.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.hpp"

namespace warden::transports {

struct tls_files {
  std::string ca_file;      // trust these CAs instead of the system store
  std::string client_cert;  // PEM chain and key for mutual TLS
  std::string client_key;
};

struct http_exchange {
  std::string method = "GET";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

struct http_reply {
  unsigned status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // names as sent
  std::string body;
  // The first value of a header (case-insensitive name), or "".
  std::string header(std::string_view name) const;
};

class http_requester {
 public:
  struct limits {
    std::chrono::milliseconds connect_timeout{10000};
    std::chrono::milliseconds read_timeout{30000};
    std::size_t max_body_bytes = 1u << 20;
  };
  // Loads the TLS files now (clear errors for a bad path).
  static result<std::shared_ptr<http_requester>> create(const tls_files& tls, limits bounds);
  ~http_requester();
  http_requester(const http_requester&) = delete;
  http_requester& operator=(const http_requester&) = delete;

  // Any HTTP status is a reply; only transport failures (and bad URLs) are errors.
  boost::asio::awaitable<result<http_reply>> send(boost::asio::any_io_executor executor, http_exchange request);

 private:
  struct impl;
  explicit http_requester(std::unique_ptr<impl> state);
  std::unique_ptr<impl> impl_;
};

}  // namespace warden::transports

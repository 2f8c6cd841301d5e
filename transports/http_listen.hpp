#pragma once
// What an HTTP listener of ours is told (transports/http_server.hpp runs it). Kept apart so that
// command-line code can fill it in without Beast's headers.
#include <chrono>
#include <cstdint>
#include <string>

#include "transports/http_rules.hpp"

namespace warden::transports {

struct http_listen_options {
  std::string listen_host = "127.0.0.1";
  std::uint16_t port = 8080;  // 0: any free port (see base_url())
  origin_policy origins;
  std::string auth_token;  // non-empty: require "Authorization: Bearer <token>"
  std::string tls_cert;    // PEM chain and key: serve HTTPS
  std::string tls_key;
  std::size_t max_header_bytes = 16u << 10;
  std::size_t max_body_bytes = 4u << 20;
  std::size_t max_connections = 256;
  std::chrono::milliseconds header_timeout{10000};  // a request's headers and body must arrive in this time
  std::string option_prefix = "--";                 // how errors name the options: "--listen", "--metrics-listen"
};

}  // namespace warden::transports

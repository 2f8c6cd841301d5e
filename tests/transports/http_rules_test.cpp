#include "transports/http_rules.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string_view>
#include <utility>

using namespace warden::transports;

TEST_CASE("url: parsing") {
  SUBCASE("accepted: https with its default port, an explicit port without a path, an IPv6 literal") {
    struct row {
      std::string_view text;
      bool tls;
      std::string_view host;
      std::uint16_t port;
      std::string_view target, host_header;
    };
    const row rows[] = {
        {"https://Example.COM/mcp?x=1#frag", true, "example.com", 443, "/mcp?x=1", "example.com"},
        {"http://127.0.0.1:8080", false, "127.0.0.1", 8080, "/", "127.0.0.1:8080"},
        {"http://[::1]:9/sse", false, "::1", 9, "/sse", "[::1]:9"},
    };
    for (const row& r : rows) {
      CAPTURE(r.text);
      auto url = parse_http_url(r.text);
      REQUIRE(url);
      CHECK(url->tls == r.tls);
      CHECK(url->host == r.host);
      CHECK(url->port == r.port);
      CHECK(url->target == r.target);
      CHECK(url->host_header() == r.host_header);
    }
  }
  SUBCASE("errors") {
    const std::pair<const char*, std::string_view> rows[] = {
        {"ftp://x/", "unsupported URL scheme 'ftp' (use http or https)"},
        {"localhost:80", "not an absolute URL: 'localhost:80'"},
        {"http://h:99999/", "port out of range in URL: 99999"},
        {"http://h:8x/", "malformed URL: 'http://h:8x/'"},
        {"http://h:123456/", "port out of range in URL: 123456"},
        {"http://h:0/", "port out of range in URL: 0"},
        {"http://h/a b", "malformed URL: 'http://h/a b'"},
        {"example.com", "not an absolute URL: 'example.com'"},
        {"http://u:p@h/", "URLs with user information are not supported; use --header for credentials"},
    };
    for (const auto& [url, message] : rows) {
      CAPTURE(url);
      CHECK(parse_http_url(url).error_message() == message);
    }
    CHECK(parse_http_url("http:///x").error_message() == "URL has no host: 'http:///x'");
  }
}

TEST_CASE("url: resolving the legacy endpoint") {
  auto base = parse_http_url("http://h:1/a/sse");
  REQUIRE(base);
  CHECK(resolve_url(*base, "/message?sessionId=3")->target == "/message?sessionId=3");
  CHECK(resolve_url(*base, "message?sessionId=3")->target == "/a/message?sessionId=3");
  CHECK(resolve_url(*base, "?sessionId=3")->target == "/a/sse?sessionId=3");
  CHECK(resolve_url(*base, "http://other:2/m")->host == "other");
  CHECK(resolve_url(*base, "//other/m")->to_string() == "http://other/m");
  CHECK(resolve_url(*base, "../b/./c")->target == "/b/c");
  CHECK(resolve_url(*base, "ftp://other/m").error_message() == "unsupported URL scheme 'ftp' (use http or https)");
}

TEST_CASE("media types") {
  CHECK(accepts("application/json, text/event-stream", "text/event-stream"));
  CHECK(accepts("Application/JSON;q=0.9", "application/json"));
  CHECK(accepts("*/*", "application/json"));
  CHECK(accepts("text/*", "text/event-stream"));
  CHECK_FALSE(accepts("application/json", "text/event-stream"));
  CHECK_FALSE(accepts("", "application/json"));
  SUBCASE("a weight of 0 means not acceptable (parameters read with Beast's param_list)") {
    CHECK_FALSE(accepts("application/json;q=0, text/event-stream", "application/json"));
    CHECK_FALSE(accepts("text/event-stream; level=1; Q=0.000", "text/event-stream"));
    CHECK_FALSE(accepts("*/*;q=0", "application/json"));
    CHECK(accepts("application/json;q=0.001", "application/json"));
    CHECK(accepts("application/json; charset=\"a;q=0\"", "application/json"));  // quoted: not a weight
    CHECK(accepts("text/event-stream;q=0, */*;q=0.5", "text/event-stream"));    // the wildcard still covers it
  }
  CHECK(is_media_type("application/json; charset=utf-8", "application/json"));
  CHECK_FALSE(is_media_type("text/plain", "application/json"));
}

TEST_CASE("loopback names") {
  for (const char* host : {"localhost", "LOCALHOST", "127.0.0.1", "127.1.2.3", "::1", "[::1]"}) {
    CAPTURE(host);
    CHECK(is_loopback_host(host));
  }
  for (const char* host : {"127.0.0.1.evil.com", "127.0.0.256", "evil.example.com", "0.0.0.0"}) {
    CAPTURE(host);
    CHECK_FALSE(is_loopback_host(host));
  }
}

TEST_CASE("Host and Origin validation (DNS rebinding)") {
  origin_policy loopback;
  SUBCASE("loopback host, no origin") { CHECK(check_host_and_origin(loopback, "127.0.0.1:8080", std::nullopt).empty()); }
  SUBCASE("loopback host and origin") {
    CHECK(check_host_and_origin(loopback, "localhost:8080", std::string_view("http://localhost:3000")).empty());
    CHECK(check_host_and_origin(loopback, "[::1]:8080", std::string_view("http://[::1]:8080")).empty());
  }
  SUBCASE("rebinding: foreign Host") {
    CHECK(check_host_and_origin(loopback, "evil.example.com", std::string_view("http://evil.example.com")) ==
          "Host 'evil.example.com' is not allowed");
  }
  SUBCASE("foreign Origin with a loopback Host") {
    CHECK(check_host_and_origin(loopback, "127.0.0.1:1", std::string_view("https://evil.example.com")) ==
          "Origin 'https://evil.example.com' is not allowed");
    CHECK(check_host_and_origin(loopback, "127.0.0.1:1", std::string_view("null")) == "Origin 'null' is not allowed");
  }
  SUBCASE("missing Host") { CHECK(check_host_and_origin(loopback, "", std::nullopt) == "missing Host header"); }
  SUBCASE("allowed lists") {
    origin_policy open;
    open.loopback_only = false;
    open.allowed_hosts = {"mcp.example.com"};
    open.allowed_origins = {"https://app.example.com"};
    CHECK(check_host_and_origin(open, "mcp.example.com:443", std::nullopt).empty());
    CHECK(check_host_and_origin(open, "mcp.example.com", std::string_view("https://app.example.com")).empty());
    CHECK(check_host_and_origin(open, "mcp.example.com", std::string_view("https://mcp.example.com")).empty());
    CHECK_FALSE(check_host_and_origin(open, "localhost", std::nullopt).empty());
    CHECK_FALSE(check_host_and_origin(open, "mcp.example.com", std::string_view("https://x.example.com")).empty());
  }
}

TEST_CASE("protocol versions") {
  CHECK(is_known_protocol_version("2025-06-18"));
  CHECK_FALSE(is_known_protocol_version("2025-06-19"));
  CHECK(is_well_formed_protocol_version("2030-01-01"));
  CHECK_FALSE(is_well_formed_protocol_version("2025-6-18"));
  CHECK_FALSE(is_well_formed_protocol_version("garbage!!!"));
  CHECK(is_stateless_protocol_version("2026-07-28"));
  CHECK_FALSE(is_stateless_protocol_version("2025-11-25"));
}

TEST_CASE("Mcp-Name header encoding") {
  CHECK(encode_mcp_header_value("echo") == "echo");
  CHECK(encode_mcp_header_value("file:///tmp/a b") == "file:///tmp/a b");
  CHECK(encode_mcp_header_value(" padded") == "=?base64?IHBhZGRlZA==?=");
  CHECK(encode_mcp_header_value("h\xC3\xA9") == "=?base64?aMOp?=");
  CHECK(encode_mcp_header_value("") ==
        "=?base64?"
        "?=");
}

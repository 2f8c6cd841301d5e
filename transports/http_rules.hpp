#pragma once
// Pure HTTP rules shared by the Streamable HTTP client and server: URL parsing, media-type
// negotiation (Accept / Content-Type), Host and Origin validation against DNS rebinding,
// MCP-Protocol-Version checks, and the header values MCP requests carry. No I/O.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace warden::transports {

struct http_url {
  bool tls = false;                 // https
  std::string host;                 // without brackets for IPv6 literals
  std::uint16_t port = 0;           // explicit or the scheme's default
  std::string target;               // path and query, at least "/"
  std::string host_header() const;  // "host[:port]" as sent in Host (port omitted when default)
  std::string origin() const;       // "scheme://host[:port]"
  std::string to_string() const;
};

// http:// and https:// URLs only (RFC 3986 syntax, read with Boost.URL); no user info; fragments
// are dropped.
result<http_url> parse_http_url(std::string_view text);
// Resolves `reference` (absolute URL, absolute path or relative path) against `base`.
result<http_url> resolve_url(const http_url& base, std::string_view reference);

// True when the Accept header value lists `media_type` (or a wildcard covering it) with a weight
// above 0 (";q=0" means not acceptable).
bool accepts(std::string_view accept_header, std::string_view media_type);
// True when a Content-Type value is `media_type` (parameters such as charset ignored).
bool is_media_type(std::string_view content_type, std::string_view media_type);

// Host names that always mean this machine: localhost, 127.0.0.0/8, ::1.
bool is_loopback_host(std::string_view host);

// Which Host / Origin values a listener accepts. A browser page from another site (DNS
// rebinding) carries that site's name in Host and Origin; non-browser clients send no Origin.
struct origin_policy {
  bool loopback_only = true;                 // accept loopback names (any port)
  std::vector<std::string> allowed_hosts;    // extra Host names (host or host:port), lower case
  std::vector<std::string> allowed_origins;  // extra origins ("https://app.example"), or "*"
};

// Splits "host[:port]" / "[v6]:port" into its host part (lower case, no brackets).
std::string host_of_authority(std::string_view authority);

// Empty when the request may proceed, else the reason for a 403.
std::string check_host_and_origin(const origin_policy& policy, std::string_view host_header,
                                  std::optional<std::string_view> origin_header);

// MCP protocol revisions mcp-warden knows; any well-formed date is still passed through.
bool is_known_protocol_version(std::string_view version);
bool is_well_formed_protocol_version(std::string_view version);
// Revisions without an initialize handshake or sessions (2026-07-28 and later).
bool is_stateless_protocol_version(std::string_view version);

// Header value encoding of the 2026-07-28 revision (Mcp-Name, Mcp-Param-*): plain when the
// value is safe visible ASCII, else "=?base64?<base64 of UTF-8>?=".
std::string encode_mcp_header_value(std::string_view value);

// The _meta key naming the protocol revision of a request in the stateless era (2026-07-28).
inline constexpr std::string_view meta_protocol_version = "io.modelcontextprotocol/protocolVersion";

// A JSON body as one line, for the relay's framing (one message per line): bodies may be
// pretty-printed, and outside strings a raw line break is only whitespace (inside strings JSON
// forbids it), so each becomes a space.
std::string json_on_one_line(std::string text);

// Comparison of header tokens without regard to ASCII case.
bool iequals(std::string_view a, std::string_view b);

}  // namespace warden::transports

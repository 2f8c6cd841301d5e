#include "transports/http_rules.hpp"

#include <boost/beast/http/rfc7230.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

#include <algorithm>
#include <cctype>

#include "base/digest.hpp"

namespace warden::transports {

namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

std::string to_lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), lower);
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// The "type/subtype" of a media type or media range, without parameters, lower case.
std::string bare_media_type(std::string_view value) {
  return to_lower(trim(value.substr(0, value.find(';'))));
}

// Whether the parameters of a media range (";q=0.5;level=1", read with Beast's param_list) give
// it weight 0: "not acceptable" (RFC 9110, section 12.4.2).
bool has_zero_weight(std::string_view parameters) {
  for (const auto& [name, value] : boost::beast::http::param_list({parameters.data(), parameters.size()})) {
    if (name.size() != 1 || (name[0] != 'q' && name[0] != 'Q')) continue;
    return !value.empty() && value.front() == '0' && value.find_first_not_of("0.") == boost::beast::string_view::npos;
  }
  return false;
}

std::uint16_t default_port(bool tls) { return tls ? 443 : 80; }

}  // namespace

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

std::string http_url::host_header() const {
  const bool v6 = host.find(':') != std::string::npos;
  std::string out = v6 ? "[" + host + "]" : host;
  if (port != default_port(tls)) out += ":" + std::to_string(port);
  return out;
}

std::string http_url::origin() const { return std::string(tls ? "https://" : "http://") + host_header(); }

std::string http_url::to_string() const { return origin() + target; }

result<http_url> parse_http_url(std::string_view text) {
  // Boost.URL reads the RFC 3986 grammar (IPv6 literals, user info, fragment, characters a URL
  // may not hold); the checks after it are HTTP's. Two quirks of Boost 1.81 are caught here: it
  // takes "h:8x/" as port 8 and path "x/", and port_number() wraps above 65535.
  const std::string quoted = "'" + std::string(text) + "'";
  const auto parsed = boost::urls::parse_uri(text);
  if (!parsed)
    return error{(text.find("://") == std::string_view::npos ? "not an absolute URL: " : "malformed URL: ") + quoted};
  if (!parsed->has_authority()) return error{"not an absolute URL: " + quoted};
  const std::string_view path = parsed->encoded_path();
  if (!path.empty() && path.front() != '/') return error{"malformed URL: " + quoted};
  http_url url;
  const std::string scheme = to_lower(parsed->scheme());
  if (scheme == "https") url.tls = true;
  else if (scheme != "http") return error{"unsupported URL scheme '" + scheme + "' (use http or https)"};
  if (parsed->has_userinfo()) return error{"URLs with user information are not supported; use --header for credentials"};
  url.host = to_lower(parsed->encoded_host_address());  // IPv6 without its brackets
  if (url.host.empty()) return error{"URL has no host: " + quoted};
  const std::string_view port = parsed->port();  // digits only, or empty for the default
  if (port.empty()) {
    url.port = default_port(url.tls);
  } else {
    const unsigned long value = port.size() > 5 ? 0 : std::stoul(std::string(port));
    if (value == 0 || value > 65535) return error{"port out of range in URL: " + std::string(port)};
    url.port = static_cast<std::uint16_t>(value);
  }
  const std::string_view target = parsed->encoded_target();  // path and query; the fragment is dropped
  url.target = target.empty() || target.front() != '/' ? "/" + std::string(target) : std::string(target);
  return url;
}

result<http_url> resolve_url(const http_url& base, std::string_view reference) {
  // RFC 3986 section 5 resolution, then the same checks as any URL.
  const std::string base_text = base.to_string();  // the views below point into it
  const auto ref = boost::urls::parse_uri_reference(trim(reference));
  const auto base_url = boost::urls::parse_uri(base_text);
  boost::urls::url resolved;
  if (!ref || !base_url || !boost::urls::resolve(*base_url, *ref, resolved))
    return error{"malformed URL reference: '" + std::string(reference) + "'"};
  return parse_http_url(resolved.buffer());
}

bool accepts(std::string_view accept_header, std::string_view media_type) {
  const std::string wanted = to_lower(media_type);
  const std::string wanted_family = wanted.substr(0, wanted.find('/')) + "/*";
  while (!accept_header.empty()) {
    const auto comma = accept_header.find(',');
    const std::string_view range = accept_header.substr(0, comma);
    const std::string type = bare_media_type(range);
    const auto semicolon = range.find(';');
    if ((type == wanted || type == "*/*" || type == wanted_family) &&
        (semicolon == std::string_view::npos || !has_zero_weight(range.substr(semicolon))))
      return true;
    if (comma == std::string_view::npos) break;
    accept_header.remove_prefix(comma + 1);
  }
  return false;
}

bool is_media_type(std::string_view content_type, std::string_view media_type) {
  return bare_media_type(content_type) == to_lower(media_type);
}

bool is_loopback_host(std::string_view host) {
  const std::string name = to_lower(host);
  if (name == "localhost" || name == "::1" || name == "[::1]") return true;
  if (name.size() > 10 && name.substr(name.size() - 10) == ".localhost") return true;
  // 127.0.0.0/8 as a dotted quad.
  if (name.rfind("127.", 0) != 0) return false;
  int parts = 0;
  std::size_t start = 0;
  for (;;) {
    const auto dot = name.find('.', start);
    const std::string_view part = std::string_view(name).substr(start, dot - start);
    if (part.empty() || part.size() > 3 || !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return false;
    if (std::stoi(std::string(part)) > 255) return false;
    ++parts;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts == 4;
}

std::string host_of_authority(std::string_view authority) {
  authority = trim(authority);
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    return to_lower(authority.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1));
  }
  const auto colon = authority.find(':');
  if (colon != std::string_view::npos && authority.find(':', colon + 1) != std::string_view::npos)
    return to_lower(authority);  // a bare IPv6 literal
  return to_lower(authority.substr(0, colon));
}

std::string check_host_and_origin(const origin_policy& policy, std::string_view host_header,
                                  std::optional<std::string_view> origin_header) {
  const std::string host_value = to_lower(trim(host_header));
  const std::string host = host_of_authority(host_value);
  const bool host_listed = std::find(policy.allowed_hosts.begin(), policy.allowed_hosts.end(), host) !=
                               policy.allowed_hosts.end() ||
                           std::find(policy.allowed_hosts.begin(), policy.allowed_hosts.end(), host_value) !=
                               policy.allowed_hosts.end();
  const bool any_host = std::find(policy.allowed_hosts.begin(), policy.allowed_hosts.end(), "*") !=
                        policy.allowed_hosts.end();
  if (host.empty()) return "missing Host header";
  if (!any_host && !host_listed && !(policy.loopback_only && is_loopback_host(host)))
    return "Host '" + host_value + "' is not allowed";
  if (!origin_header) return {};
  const std::string origin = to_lower(trim(*origin_header));
  if (std::find(policy.allowed_origins.begin(), policy.allowed_origins.end(), "*") != policy.allowed_origins.end() ||
      std::find(policy.allowed_origins.begin(), policy.allowed_origins.end(), origin) != policy.allowed_origins.end())
    return {};
  auto url = parse_http_url(origin);
  if (!url) return "Origin '" + origin + "' is not allowed";
  if (policy.loopback_only && is_loopback_host(url->host)) return {};
  // Same origin as the Host we accepted (a page served by an allowed host).
  if ((host_listed || any_host) && url->host == host) return {};
  return "Origin '" + origin + "' is not allowed";
}

bool is_well_formed_protocol_version(std::string_view version) {
  if (version.size() != 10 || version[4] != '-' || version[7] != '-') return false;
  for (std::size_t i = 0; i < version.size(); ++i)
    if (i != 4 && i != 7 && (version[i] < '0' || version[i] > '9')) return false;
  return true;
}

bool is_known_protocol_version(std::string_view version) {
  static constexpr std::string_view known[] = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"};
  return std::find(std::begin(known), std::end(known), version) != std::end(known);
}

bool is_stateless_protocol_version(std::string_view version) {
  return is_well_formed_protocol_version(version) && version >= "2026-07-28";
}

std::string encode_mcp_header_value(std::string_view value) {
  bool plain = !value.empty() && value == trim(value) &&
               !(value.rfind("=?base64?", 0) == 0 && value.size() >= 11 && value.substr(value.size() - 2) == "?=");
  for (char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if (!(u == '\t' || (u >= 0x20 && u <= 0x7e))) plain = false;
  }
  if (plain) return std::string(value);
  return "=?base64?" + base::base64(value) + "?=";
}

std::string json_on_one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text;
}

}  // namespace warden::transports

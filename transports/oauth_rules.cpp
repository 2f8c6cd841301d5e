// The pure rules of the OAuth client (transports/oauth_client.hpp, "pure rules"): parsing
// challenges, metadata and token answers, well-known URLs, resource and scope rules, form and
// PKCE encodings. No I/O; unit-tested on their own.
#include "transports/oauth_client.hpp"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "base/digest.hpp"
#include "transports/oauth_fields.hpp"

namespace warden::transports::oauth {

using nlohmann::json;

namespace {

bool is_token_char(char c) {
  return c > ' ' && c < 127 && c != ',' && c != '=' && c != '"' && c != ';';
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string strip_slash(std::string text) {
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

std::string path_of(const http_url& url) {
  std::string path = url.target.substr(0, url.target.find('?'));
  while (!path.empty() && path.back() == '/') path.pop_back();
  return path;  // "" for the root
}

}  // namespace

std::optional<challenge> parse_www_authenticate(std::string_view value) {
  challenge out;
  bool in_bearer = false;
  bool found = false;
  std::size_t i = 0;
  auto skip = [&](bool commas) {
    while (i < value.size() && (value[i] == ' ' || value[i] == '\t' || (commas && value[i] == ','))) ++i;
  };
  while (true) {
    skip(true);
    if (i >= value.size()) break;
    const std::size_t start = i;
    while (i < value.size() && is_token_char(value[i])) ++i;
    const std::string_view token = value.substr(start, i - start);
    if (token.empty()) {
      ++i;
      continue;
    }
    skip(false);
    if (i < value.size() && value[i] == '=') {  // auth-param (or token68 padding)
      ++i;
      skip(false);
      std::string param;
      if (i < value.size() && value[i] == '"') {
        for (++i; i < value.size() && value[i] != '"'; ++i) {
          if (value[i] == '\\' && i + 1 < value.size()) ++i;
          param.push_back(value[i]);
        }
        ++i;
      } else {
        while (i < value.size() && value[i] != ',' && value[i] != ' ' && value[i] != '\t') param.push_back(value[i++]);
      }
      if (!in_bearer) continue;
      const std::string name = lower(token);
      std::string* field = name == "resource_metadata"   ? &out.resource_metadata
                           : name == "scope"             ? &out.scope
                           : name == "error"             ? &out.error
                           : name == "error_description" ? &out.error_description
                                                         : nullptr;
      if (field && field->empty()) *field = param;
    } else {                          // a new challenge's scheme
      if (found && in_bearer) break;  // the first Bearer challenge is the one
      in_bearer = lower(token) == "bearer";
      found = found || in_bearer;
    }
  }
  if (!found) return std::nullopt;
  return out;
}

result<resource_metadata> parse_resource_metadata(std::string_view body) {
  const json doc = json::parse(body, nullptr, false);
  if (!doc.is_object()) return error{"the protected resource metadata is not a JSON object"};
  resource_metadata out;
  out.resource = string_field(doc, "resource");
  if (out.resource.empty()) return error{"the protected resource metadata has no 'resource'"};
  out.authorization_servers = string_list(doc, "authorization_servers");
  out.scopes_supported = string_list(doc, "scopes_supported");
  return out;
}

result<server_metadata> parse_server_metadata(std::string_view body, std::string_view expected_issuer) {
  const json doc = json::parse(body, nullptr, false);
  if (!doc.is_object()) return error{"the authorization server metadata is not a JSON object"};
  server_metadata out;
  out.issuer = string_field(doc, "issuer");
  out.authorization_endpoint = string_field(doc, "authorization_endpoint");
  out.token_endpoint = string_field(doc, "token_endpoint");
  out.registration_endpoint = string_field(doc, "registration_endpoint");
  out.scopes_supported = string_list(doc, "scopes_supported");
  out.token_endpoint_auth_methods_supported = string_list(doc, "token_endpoint_auth_methods_supported");
  out.code_challenge_methods_supported = string_list(doc, "code_challenge_methods_supported");
  out.pkce_listed = doc.contains("code_challenge_methods_supported");
  out.grant_types_supported = string_list(doc, "grant_types_supported");
  if (const auto it = doc.find("client_id_metadata_document_supported"); it != doc.end() && it->is_boolean())
    out.client_id_metadata_document_supported = it->get<bool>();
  if (out.issuer.empty()) return error{"the authorization server metadata has no 'issuer'"};
  if (!expected_issuer.empty() && strip_slash(out.issuer) != strip_slash(std::string(expected_issuer)))
    return error{"the authorization server metadata names issuer '" + out.issuer.substr(0, 200) + "', not '" +
                 std::string(expected_issuer) + "' (RFC 8414 §3.3)"};
  if (out.token_endpoint.empty()) return error{"the authorization server metadata has no 'token_endpoint'"};
  for (const auto* endpoint : {&out.authorization_endpoint, &out.token_endpoint, &out.registration_endpoint}) {
    if (endpoint->empty()) continue;
    if (auto url = parse_http_url(*endpoint); !url)
      return error{"the authorization server metadata has a bad endpoint '" + endpoint->substr(0, 200) + "': " + url.error_message()};
  }
  return out;
}

std::vector<std::string> resource_metadata_urls(const http_url& server) {
  std::vector<std::string> out;
  const std::string path = path_of(server);
  if (!path.empty()) out.push_back(server.origin() + "/.well-known/oauth-protected-resource" + path);
  out.push_back(server.origin() + "/.well-known/oauth-protected-resource");
  return out;
}

std::vector<std::string> server_metadata_urls(const http_url& issuer) {
  const std::string path = path_of(issuer);
  const std::string origin = issuer.origin();
  if (path.empty())
    return {origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"};
  return {origin + "/.well-known/oauth-authorization-server" + path, origin + "/.well-known/openid-configuration" + path,
          origin + path + "/.well-known/openid-configuration"};
}

bool resource_matches(std::string_view resource, const http_url& server) {
  auto url = parse_http_url(resource);
  if (!url || url->tls != server.tls || url->host != server.host || url->port != server.port) return false;
  const std::string want = path_of(*url);
  const std::string have = path_of(server);
  return want.empty() || have == want || (have.size() > want.size() && have.compare(0, want.size(), want) == 0 && have[want.size()] == '/');
}

std::string select_scope(const challenge* from_challenge, const resource_metadata* resource, const std::string& fallback) {
  if (from_challenge && !from_challenge->scope.empty()) return from_challenge->scope;
  if (resource && !resource->scopes_supported.empty()) {
    std::string out;
    for (const auto& s : resource->scopes_supported) out += (out.empty() ? "" : " ") + s;
    return out;
  }
  return fallback;
}

std::string select_auth_method(bool has_secret, const std::string& registered_method, const std::vector<std::string>& supported) {
  static const std::vector<std::string> known = {"client_secret_basic", "client_secret_post", "none"};
  if (contains(known, registered_method) && (supported.empty() || contains(supported, registered_method)) &&
      (registered_method == "none" || has_secret))
    return registered_method;
  if (supported.empty()) return has_secret ? "client_secret_basic" : "none";  // RFC 8414 §2 default
  if (has_secret && contains(supported, "client_secret_basic")) return "client_secret_basic";
  if (has_secret && contains(supported, "client_secret_post")) return "client_secret_post";
  if (contains(supported, "none")) return "none";
  return has_secret ? "client_secret_basic" : "none";
}

std::vector<std::string> split_scopes(std::string_view scope) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < scope.size()) {
    while (i < scope.size() && scope[i] == ' ') ++i;
    const std::size_t start = i;
    while (i < scope.size() && scope[i] != ' ') ++i;
    if (i > start) {
      std::string s(scope.substr(start, i - start));
      if (!contains(out, s)) out.push_back(std::move(s));
    }
  }
  return out;
}

bool covers(std::string_view granted, std::string_view required) {
  const auto have = split_scopes(granted);
  for (const auto& s : split_scopes(required))
    if (!contains(have, s)) return false;
  return true;
}

std::string join_scopes(std::string_view a, std::string_view b) {
  auto all = split_scopes(a);
  for (auto& s : split_scopes(b))
    if (!contains(all, s)) all.push_back(std::move(s));
  std::string out;
  for (const auto& s : all) out += (out.empty() ? "" : " ") + s;
  return out;
}

std::string percent_encode(std::string_view text) {
  static const char hex[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

std::string form_encode(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [name, value] : fields) out += (out.empty() ? "" : "&") + percent_encode(name) + "=" + percent_encode(value);
  return out;
}

std::map<std::string, std::string> parse_query(std::string_view query) {
  auto decode = [](std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '+') {
        out.push_back(' ');
      } else if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
                 std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
        out.push_back(static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16)));
        i += 2;
      } else {
        out.push_back(s[i]);
      }
    }
    return out;
  };
  std::map<std::string, std::string> out;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const auto eq = pair.find('=');
    if (!pair.empty())
      out.emplace(decode(pair.substr(0, eq)), eq == std::string_view::npos ? std::string() : decode(pair.substr(eq + 1)));
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return out;
}

std::string pkce_challenge(std::string_view verifier) { return base::base64url(base::sha256(verifier)); }

result<token_set> parse_token_response(unsigned status, std::string_view body, std::int64_t now) {
  const json doc = json::parse(body, nullptr, false);
  if (status < 200 || status >= 300 || !doc.is_object() || !doc.contains("access_token")) {
    std::string why = "HTTP " + std::to_string(status);
    if (doc.is_object() && doc.contains("error") && doc["error"].is_string()) {
      why += ", " + doc["error"].get<std::string>();
      if (const auto d = string_field(doc, "error_description"); !d.empty()) why += ": " + d.substr(0, 300);
    }
    return error{"the token endpoint refused (" + why + ")"};
  }
  token_set out;
  out.access_token = string_field(doc, "access_token");
  if (out.access_token.empty()) return error{"the token endpoint's answer has no access_token string"};
  if (const auto type = string_field(doc, "token_type"); !type.empty() && lower(type) != "bearer")
    return error{"the token endpoint issued a '" + type.substr(0, 40) + "' token; only Bearer tokens are supported"};
  out.refresh_token = string_field(doc, "refresh_token");
  out.scope = string_field(doc, "scope");
  if (const auto it = doc.find("expires_in"); it != doc.end() && it->is_number() && it->get<double>() > 0)
    out.expires_at = now + static_cast<std::int64_t>(std::min(it->get<double>(), 10.0 * 365 * 86400));  // at most 10 years
  return out;
}

}  // namespace warden::transports::oauth

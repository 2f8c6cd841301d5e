#pragma once
// The OAuth client of the upstream connection, as the MCP authorization specification
// (2025-06-18 / 2025-11-25) describes it for a client of a protected remote server:
// WWW-Authenticate challenges (resource_metadata, scope, insufficient_scope step-up),
// protected resource metadata (RFC 9728) from the challenge or the well-known URIs,
// authorization server metadata (RFC 8414 and OpenID Connect discovery, 2025-03-26 fallbacks),
// the resource parameter (RFC 8707) checked against the server URL, client registration by the
// specification's priority (pre-registered, Client ID Metadata Document, dynamic registration
// RFC 7591), authorization code with PKCE S256 (loopback redirect, or headless for automated
// authorization servers), client_credentials, refresh tokens and a token cache file.
// Tokens and secrets are never logged.
//
// The pure parts (parsing, URL and scope rules) are free functions, unit-tested on their own.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.hpp"
#include "transports/http_request.hpp"
#include "transports/http_rules.hpp"

namespace warden::transports::oauth {

// ---- pure rules -------------------------------------------------------------------------

// The Bearer challenge of a WWW-Authenticate header value (RFC 6750 §3, RFC 9728 §5.1).
struct challenge {
  std::string resource_metadata;
  std::string scope;
  std::string error;
  std::string error_description;
};
// nullopt when no Bearer challenge is among the value's challenges.
std::optional<challenge> parse_www_authenticate(std::string_view value);

struct resource_metadata {
  std::string resource;
  std::vector<std::string> authorization_servers;
  std::vector<std::string> scopes_supported;
};
result<resource_metadata> parse_resource_metadata(std::string_view body);

struct server_metadata {
  std::string issuer;
  std::string authorization_endpoint;
  std::string token_endpoint;
  std::string registration_endpoint;
  std::vector<std::string> scopes_supported;
  std::vector<std::string> token_endpoint_auth_methods_supported;
  std::vector<std::string> code_challenge_methods_supported;
  std::vector<std::string> grant_types_supported;
  bool client_id_metadata_document_supported = false;
  bool pkce_listed = false;  // code_challenge_methods_supported was present
};
// Checks the required fields and that `issuer` is the authorization server it was fetched for
// (unless `expected_issuer` is empty).
result<server_metadata> parse_server_metadata(std::string_view body, std::string_view expected_issuer);

// RFC 9728 §3.1: path-aware well-known URI first (when the URL has a path), then the root one.
std::vector<std::string> resource_metadata_urls(const http_url& server);
// RFC 8414 §3.1 and OpenID Connect discovery, in the order of the MCP specification.
std::vector<std::string> server_metadata_urls(const http_url& issuer);

// The protected resource a server's metadata names must be this server: same origin, and the
// server URL's path at or below the resource's path.
bool resource_matches(std::string_view resource, const http_url& server);

// Scope selection: the challenge's scope, else the resource's scopes_supported, else the
// configured fallback; "" means the parameter is omitted.
std::string select_scope(const challenge* from_challenge, const resource_metadata* resource, const std::string& fallback);

// Token endpoint authentication: the registered method when the server supports it, else
// client_secret_basic, client_secret_post (with a secret) or none, by the server's list.
std::string select_auth_method(bool has_secret, const std::string& registered_method,
                               const std::vector<std::string>& supported);

std::vector<std::string> split_scopes(std::string_view scope);
// True when every scope of `required` is in `granted`.
bool covers(std::string_view granted, std::string_view required);
std::string join_scopes(std::string_view a, std::string_view b);  // union, order kept

std::string percent_encode(std::string_view text);  // application/x-www-form-urlencoded
std::string form_encode(const std::vector<std::pair<std::string, std::string>>& fields);
std::map<std::string, std::string> parse_query(std::string_view query);  // decoded; first wins
std::string pkce_challenge(std::string_view verifier);                   // BASE64URL(SHA256(verifier))

struct token_set {
  std::string access_token;
  std::string refresh_token;
  std::string scope;            // granted, as the server reported it ("" when not reported)
  std::int64_t expires_at = 0;  // unix seconds, 0 when unknown
};
// A token endpoint answer (RFC 6749 §5.1); the error answer's message otherwise.
result<token_set> parse_token_response(unsigned status, std::string_view body, std::int64_t now);

// ---- the client -------------------------------------------------------------------------

enum class flow_mode { interactive,
                       headless,
                       off };
enum class grant { authorization_code,
                   client_credentials };

struct settings {
  flow_mode mode = flow_mode::interactive;
  grant grant_type = grant::authorization_code;
  std::string client_id;  // pre-registered
  std::string client_secret;
  std::string client_metadata_url;  // https URL of our Client ID Metadata Document
  std::string scope;                // fallback when neither challenge nor metadata name scopes
  std::string cache_path;           // token cache file; "" = no cache
  std::uint16_t callback_port = 0;  // loopback redirect port; 0 = any free one
  bool open_browser = true;
  std::chrono::seconds authorize_timeout{300};
};

// Default token cache: $XDG_CONFIG_HOME/mcp-warden/oauth-tokens.json or
// ~/.config/mcp-warden/oauth-tokens.json.
std::string default_cache_path();

enum class verdict { retry,
                     give_up,
                     not_mine };
struct challenge_outcome {
  verdict what = verdict::not_mine;
  std::string reason;  // for give_up
};

// One per upstream server URL; shared by every connection to it (serve's sessions).
class client {
 public:
  static result<std::shared_ptr<client>> create(settings config, std::string server_url,
                                                std::shared_ptr<http_requester> requester);
  ~client();
  client(const client&) = delete;
  client& operator=(const client&) = delete;

  // "Bearer <token>" for the next request, or "" before any token.
  std::string authorization() const;
  // After a 401, or a 403 with insufficient_scope, from the resource server: obtains a token
  // (one flow at a time; concurrent callers wait for it). `sent_authorization` is what the
  // refused request carried. retry: send again with authorization(); give_up: reason says why;
  // not_mine: not an OAuth challenge (the caller handles the status as any other).
  boost::asio::awaitable<challenge_outcome> on_challenge(boost::asio::any_io_executor executor, unsigned status,
                                                         std::vector<std::string> www_authenticate,
                                                         std::string sent_authorization);

 private:
  struct impl;
  explicit client(std::shared_ptr<impl> state);
  std::shared_ptr<impl> impl_;
};

}  // namespace warden::transports::oauth

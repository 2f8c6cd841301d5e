#include "app/upstream_options.hpp"

#include <cstdlib>

#include "transports/http_rules.hpp"
#include "transports/oauth_client.hpp"

namespace warden::app {

void add_upstream_options(CLI::App& cli, upstream_settings& s) {
  cli.add_option("--upstream", s.url, "Connect to a remote MCP server at URL (http:// or https://) instead of starting COMMAND");
  cli.add_option("--header", s.headers, "Send 'Name: value' with every request to the upstream (repeatable)");
  cli.add_option("--transport", s.transport, "Upstream transport: auto|streamable-http|sse")->capture_default_str();
  cli.add_option("--ca-file", s.ca_file, "Trust the CA certificates in this PEM file instead of the system store");
  cli.add_option("--client-cert", s.client_cert, "Client certificate (PEM chain) for mutual TLS");
  cli.add_option("--client-key", s.client_key, "Private key (PEM) of --client-cert");
  cli.add_option("--connect-timeout-ms", s.connect_timeout_ms, "Upstream: give up connecting after N ms")->capture_default_str()->check(CLI::PositiveNumber);
  cli.add_option("--read-timeout-ms", s.read_timeout_ms, "Upstream: wait at most N ms for response headers or a JSON body")->capture_default_str()->check(CLI::PositiveNumber);
  cli.add_option("--oauth", s.oauth_mode,
                 "Upstream OAuth on HTTP 401: interactive (browser, loopback redirect), headless (an authorization server that "
                 "approves on its own: the redirect's code is taken without a browser) or off")
      ->capture_default_str();
  cli.add_option("--oauth-client-id", s.oauth_client_id, "OAuth: a client pre-registered with the authorization server");
  cli.add_option("--oauth-client-secret", s.oauth_client_secret,
                 "OAuth: its secret (better: the environment variable MCP_WARDEN_OAUTH_CLIENT_SECRET)");
  cli.add_option("--oauth-client-metadata-url", s.oauth_client_metadata_url,
                 "OAuth: https URL of our Client ID Metadata Document, used as client_id where the server supports it");
  cli.add_option("--oauth-scope", s.oauth_scope, "OAuth: scope to request when neither the server's challenge nor its metadata names one");
  cli.add_option("--oauth-grant", s.oauth_grant, "OAuth grant: authorization-code or client-credentials (needs id and secret)")
      ->capture_default_str();
  cli.add_option("--oauth-callback-port", s.oauth_callback_port, "OAuth: loopback redirect port (default: any free port)");
  cli.add_option("--oauth-token-cache", s.oauth_token_cache,
                 "OAuth: token cache file (mode 0600; default $XDG_CONFIG_HOME or ~/.config/mcp-warden/oauth-tokens.json)");
  cli.add_flag("--no-oauth-token-cache", s.no_oauth_token_cache, "OAuth: keep tokens in memory only");
  cli.add_flag("--oauth-no-browser", s.oauth_no_browser, "OAuth: only print the authorisation URL, do not start a browser");
}

namespace {

result<std::shared_ptr<transports::oauth::client>> make_oauth_client(const upstream_settings& s,
                                                                     const transports::http_upstream_options& options) {
  namespace oauth = transports::oauth;
  oauth::settings config;
  if (s.oauth_mode == "interactive") config.mode = oauth::flow_mode::interactive;
  else if (s.oauth_mode == "headless") config.mode = oauth::flow_mode::headless;
  else if (s.oauth_mode == "off") config.mode = oauth::flow_mode::off;
  else return error{"--oauth must be interactive, headless or off, got '" + s.oauth_mode + "'"};
  if (s.oauth_grant == "authorization-code") config.grant_type = oauth::grant::authorization_code;
  else if (s.oauth_grant == "client-credentials") config.grant_type = oauth::grant::client_credentials;
  else return error{"--oauth-grant must be authorization-code or client-credentials, got '" + s.oauth_grant + "'"};
  // An Authorization header of the user's own is what the server gets; OAuth stays out of it.
  for (const auto& [name, value] : options.headers)
    if (transports::iequals(name, "authorization")) config.mode = oauth::flow_mode::off;
  if (config.mode == oauth::flow_mode::off) return std::shared_ptr<oauth::client>();
  config.client_id = s.oauth_client_id;
  config.client_secret = s.oauth_client_secret;
  if (const char* env = std::getenv("MCP_WARDEN_OAUTH_CLIENT_SECRET"); config.client_secret.empty() && env) config.client_secret = env;
  if (!config.client_secret.empty() && config.client_id.empty()) return error{"a client secret needs --oauth-client-id"};
  config.client_metadata_url = s.oauth_client_metadata_url;
  config.scope = s.oauth_scope;
  config.callback_port = s.oauth_callback_port;
  config.open_browser = !s.oauth_no_browser;
  config.cache_path = s.no_oauth_token_cache ? std::string() : s.oauth_token_cache.empty() ? oauth::default_cache_path()
                                                                                           : s.oauth_token_cache;
  transports::http_requester::limits bounds;
  bounds.connect_timeout = options.connect_timeout;
  bounds.read_timeout = options.read_timeout;
  auto requester = transports::http_requester::create({options.ca_file, options.client_cert, options.client_key}, bounds);
  if (!requester) return error{requester.error_message()};
  return oauth::client::create(std::move(config), options.url, std::move(*requester));
}

}  // namespace

result<transports::http_upstream_options> resolve_upstream(const upstream_settings& s, std::size_t max_message_bytes,
                                                           std::size_t max_depth) {
  transports::http_upstream_options options;
  options.url = s.url;
  auto mode = transports::parse_transport_option(s.transport);
  if (!mode) return error{mode.error_message()};
  options.transport = *mode;
  for (const auto& text : s.headers) {
    auto header = transports::parse_header_option(text);
    if (!header) return error{header.error_message()};
    options.headers.push_back(*header);
  }
  if (!s.client_key.empty() && s.client_cert.empty()) return error{"--client-key needs --client-cert"};
  options.ca_file = s.ca_file;
  options.client_cert = s.client_cert;
  options.client_key = s.client_key;
  options.connect_timeout = std::chrono::milliseconds(s.connect_timeout_ms);
  options.read_timeout = std::chrono::milliseconds(s.read_timeout_ms);
  options.max_message_bytes = max_message_bytes;
  options.max_depth = max_depth;
  auto oauth = make_oauth_client(s, options);
  if (!oauth) return error{oauth.error_message()};
  options.oauth = std::move(*oauth);
  return options;
}

}  // namespace warden::app

#include "transports/oauth_client.hpp"

#include <fcntl.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "base/digest.hpp"
#include "transports/oauth_fields.hpp"

// GCC 12 at -O2 reports Asio's coroutine frame allocator (aligned_alloc, then its matching
// operator delete) as mismatched in some coroutines here: a false positive of the inliner.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace warden::transports::oauth {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using nlohmann::json;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string random_token(std::size_t bytes) {
  std::string raw(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(raw.size())) != 1)
    throw std::runtime_error("the system's random number generator failed");
  return base::base64url(raw);
}

}  // namespace

std::string default_cache_path() {
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) return std::string(xdg) + "/mcp-warden/oauth-tokens.json";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.config/mcp-warden/oauth-tokens.json";
  return {};
}

// ---- the client ---------------------------------------------------------------------------

namespace {

struct client_record {
  std::string client_id;
  std::string client_secret;
  std::string auth_method;   // as registered ("" when unknown)
  std::string redirect_uri;  // registered with it ("" for pre-registered / metadata documents)
  std::string issuer;        // the authorization server it belongs to
  bool from_cache_or_registration = false;
};

// Starts the user's browser on `url`, detached; failures are only logged.
void open_browser(const std::string& url) {
  const pid_t first = ::fork();
  if (first < 0) return;
  if (first == 0) {
    ::setsid();
    if (::fork() == 0) {
      const int devnull = ::open("/dev/null", O_RDWR);
      if (devnull >= 0) {
        ::dup2(devnull, 0);
        ::dup2(devnull, 1);
        ::dup2(devnull, 2);
      }
      ::execlp("xdg-open", "xdg-open", url.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(first, &status, 0);
}

const char* page(bool ok) {
  return ok ? "<!doctype html><title>mcp-warden</title><p>Authorised. You can close this window and return to your MCP client."
            : "<!doctype html><title>mcp-warden</title><p>Authorisation failed; see mcp-warden's log.";
}

}  // namespace

struct client::impl : std::enable_shared_from_this<impl> {
  settings config;
  std::string server_url;
  http_url server;
  std::shared_ptr<http_requester> http;

  client_record registered;
  token_set tokens;
  std::string token_issuer;
  std::string requested_scope;  // of the current token, when the server did not say
  bool flow_running = false;
  std::shared_ptr<asio::steady_timer> flow_done;
  std::deque<std::chrono::steady_clock::time_point> recent_flows;

  // ---- cache ------------------------------------------------------------------------------

  json read_cache_file() const {
    std::ifstream in(config.cache_path);
    if (!in) return json::object();
    std::stringstream text;
    text << in.rdbuf();
    json doc = json::parse(text.str(), nullptr, false);
    return doc.is_object() ? doc : json::object();
  }

  void load_cache() {
    if (config.cache_path.empty()) return;
    const json doc = read_cache_file();
    const auto servers = doc.find("servers");
    if (servers == doc.end() || !servers->is_object() || !servers->contains(server_url)) return;
    const json& entry = (*servers)[server_url];
    if (!entry.is_object()) return;
    token_issuer = string_field(entry, "authorization_server");
    if (const auto c = entry.find("client"); c != entry.end() && c->is_object() && config.client_id.empty()) {
      registered.client_id = string_field(*c, "client_id");
      registered.client_secret = string_field(*c, "client_secret");
      registered.auth_method = string_field(*c, "token_endpoint_auth_method");
      registered.redirect_uri = string_field(*c, "redirect_uri");
      registered.issuer = token_issuer;
      registered.from_cache_or_registration = !registered.client_id.empty();
    }
    if (const auto t = entry.find("tokens"); t != entry.end() && t->is_object()) {
      tokens.access_token = string_field(*t, "access_token");
      tokens.refresh_token = string_field(*t, "refresh_token");
      tokens.scope = string_field(*t, "scope");
      if (const auto e = t->find("expires_at"); e != t->end() && e->is_number_integer()) tokens.expires_at = e->get<std::int64_t>();
      requested_scope = string_field(*t, "requested_scope");
    }
    if (!tokens.access_token.empty()) spdlog::info("{}: using the cached OAuth token", server_url);
  }

  void save_cache() const {
    if (config.cache_path.empty()) return;
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path path(config.cache_path);
    if (path.has_parent_path() && !fs::exists(path.parent_path(), ec)) {
      fs::create_directories(path.parent_path(), ec);
      if (!ec) fs::permissions(path.parent_path(), fs::perms::owner_all, ec);
    }
    json doc = read_cache_file();
    if (!doc.contains("servers") || !doc["servers"].is_object()) doc["servers"] = json::object();
    json entry = {{"authorization_server", token_issuer}};
    if (registered.from_cache_or_registration)
      entry["client"] = {{"client_id", registered.client_id},
                         {"client_secret", registered.client_secret},
                         {"token_endpoint_auth_method", registered.auth_method},
                         {"redirect_uri", registered.redirect_uri}};
    entry["tokens"] = {{"access_token", tokens.access_token},
                       {"refresh_token", tokens.refresh_token},
                       {"scope", tokens.scope},
                       {"requested_scope", requested_scope},
                       {"expires_at", tokens.expires_at}};
    doc["servers"][server_url] = entry;
    const std::string temporary = config.cache_path + ".tmp." + std::to_string(::getpid());
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
      spdlog::warn("cannot write the OAuth token cache '{}': {}", temporary, std::strerror(errno));
      return;
    }
    const std::string text = doc.dump(2) + "\n";
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::fchmod(fd, 0600);
    ::close(fd);
    if (!written || std::rename(temporary.c_str(), config.cache_path.c_str()) != 0) {
      spdlog::warn("cannot write the OAuth token cache '{}'", config.cache_path);
      ::unlink(temporary.c_str());
    }
  }

  // ---- HTTP helpers -----------------------------------------------------------------------

  asio::awaitable<result<http_reply>> get_json(asio::any_io_executor ex, const std::string& url) {
    http_exchange req;
    req.url = url;
    req.headers = {{"Accept", "application/json"}};
    co_return co_await http->send(ex, std::move(req));
  }

  void add_client_auth(const std::string& method, const client_record& c, http_exchange& req,
                       std::vector<std::pair<std::string, std::string>>& fields) const {
    if (method == "client_secret_basic") {
      req.headers.emplace_back("Authorization",
                               "Basic " + base::base64(percent_encode(c.client_id) + ":" + percent_encode(c.client_secret)));
    } else if (method == "client_secret_post") {
      fields.emplace_back("client_id", c.client_id);
      fields.emplace_back("client_secret", c.client_secret);
    } else {
      fields.emplace_back("client_id", c.client_id);
    }
  }

  asio::awaitable<result<token_set>> token_request(asio::any_io_executor ex, const server_metadata& md, const client_record& c,
                                                   std::vector<std::pair<std::string, std::string>> fields) {
    const std::string method =
        select_auth_method(!c.client_secret.empty(), c.auth_method, md.token_endpoint_auth_methods_supported);
    http_exchange req;
    req.method = "POST";
    req.url = md.token_endpoint;
    req.headers = {{"Content-Type", "application/x-www-form-urlencoded"}, {"Accept", "application/json"}};
    add_client_auth(method, c, req, fields);
    req.body = form_encode(fields);
    auto reply = co_await http->send(ex, std::move(req));
    if (!reply) co_return error{"the token request failed: " + reply.error_message()};
    co_return parse_token_response(reply->status, reply->body, unix_now());
  }

  // ---- discovery ----------------------------------------------------------------------------

  struct discovery {
    std::optional<resource_metadata> resource;
    std::string issuer;
    server_metadata metadata;
    bool default_endpoints = false;  // 2025-03-26 fallback: no metadata anywhere
  };

  asio::awaitable<result<discovery>> discover(asio::any_io_executor ex, const challenge& ch) {
    discovery out;
    std::vector<std::string> candidates;
    if (!ch.resource_metadata.empty()) candidates.push_back(ch.resource_metadata);
    for (auto& u : resource_metadata_urls(server))
      if (!contains(candidates, u)) candidates.push_back(std::move(u));
    for (const auto& url : candidates) {
      auto reply = co_await get_json(ex, url);
      if (!reply) co_return error{"fetching the protected resource metadata " + url + " failed: " + reply.error_message()};
      if (reply->status != 200) {
        spdlog::debug("{}: no protected resource metadata at {} (HTTP {})", server_url, url, reply->status);
        continue;
      }
      auto parsed = parse_resource_metadata(reply->body);
      if (!parsed) co_return error{parsed.error_message() + " (" + url + ")"};
      out.resource = std::move(*parsed);
      break;
    }
    bool legacy = false;
    if (out.resource) {
      if (!resource_matches(out.resource->resource, server))
        co_return error{"the protected resource metadata names the resource '" + out.resource->resource.substr(0, 200) +
                        "', which is not " + server_url + "; refusing to send it a token"};
      if (out.resource->authorization_servers.empty())
        co_return error{"the protected resource metadata names no authorization server"};
      out.issuer = out.resource->authorization_servers.front();
    } else {
      legacy = true;  // 2025-03-26: the server's origin is the authorization server
      out.issuer = server.origin();
      spdlog::info("{}: no protected resource metadata; trying {} as the authorization server", server_url, out.issuer);
    }
    auto issuer_url = parse_http_url(out.issuer);
    if (!issuer_url) co_return error{"bad authorization server URL '" + out.issuer.substr(0, 200) + "': " + issuer_url.error_message()};
    for (const auto& url : server_metadata_urls(*issuer_url)) {
      auto reply = co_await get_json(ex, url);
      if (!reply) co_return error{"fetching the authorization server metadata " + url + " failed: " + reply.error_message()};
      if (reply->status >= 500) co_return error{"the authorization server metadata " + url + " answered HTTP " + std::to_string(reply->status)};
      if (reply->status != 200) continue;
      // 2025-03-26 servers without resource metadata serve their authorization server's metadata
      // at their own origin, under an issuer of its own.
      auto parsed = parse_server_metadata(reply->body, legacy ? std::string() : out.issuer);
      if (!parsed) co_return error{parsed.error_message() + " (" + url + ")"};
      out.metadata = std::move(*parsed);
      co_return out;
    }
    if (!legacy) co_return error{"the authorization server " + out.issuer + " publishes no metadata (RFC 8414 / OpenID discovery)"};
    // 2025-03-26 fallback: default endpoints at the server's origin.
    out.metadata.issuer = out.issuer;
    out.metadata.authorization_endpoint = out.issuer + "/authorize";
    out.metadata.token_endpoint = out.issuer + "/token";
    out.metadata.registration_endpoint = out.issuer + "/register";
    out.default_endpoints = true;
    co_return out;
  }

  // ---- registration ---------------------------------------------------------------------------

  asio::awaitable<result<client_record>> ensure_client(asio::any_io_executor ex, const discovery& d, const std::string& redirect_uri,
                                                       const std::string& scope) {
    if (!config.client_id.empty()) {
      client_record c;
      c.client_id = config.client_id;
      c.client_secret = config.client_secret;
      c.issuer = d.issuer;
      co_return c;
    }
    if (registered.from_cache_or_registration && registered.issuer == d.issuer &&
        (registered.redirect_uri.empty() || registered.redirect_uri == redirect_uri || config.grant_type == grant::client_credentials))
      co_return registered;
    if (d.metadata.client_id_metadata_document_supported && !config.client_metadata_url.empty()) {
      client_record c;
      c.client_id = config.client_metadata_url;
      c.auth_method = "none";
      c.issuer = d.issuer;
      c.from_cache_or_registration = true;
      spdlog::info("{}: using the client ID metadata document {}", server_url, c.client_id);
      co_return c;
    }
    if (d.metadata.registration_endpoint.empty())
      co_return error{"the authorization server " + d.issuer +
                      " offers no dynamic client registration; give the client registered there with --oauth-client-id "
                      "(and its secret in MCP_WARDEN_OAUTH_CLIENT_SECRET or --oauth-client-secret)"};
    json body = {{"client_name", "mcp-warden"}, {"response_types", json::array({"code"})}};
    if (config.grant_type == grant::client_credentials) {
      body["grant_types"] = json::array({"client_credentials"});
    } else {
      body["grant_types"] = json::array({"authorization_code", "refresh_token"});
      body["redirect_uris"] = json::array({redirect_uri});
    }
    const auto& supported = d.metadata.token_endpoint_auth_methods_supported;
    for (const char* method : {"none", "client_secret_basic", "client_secret_post"}) {
      if (config.grant_type == grant::client_credentials && std::string_view(method) == "none") continue;
      if (contains(supported, method)) {
        body["token_endpoint_auth_method"] = method;
        break;
      }
    }
    if (!scope.empty()) body["scope"] = scope;
    http_exchange req;
    req.method = "POST";
    req.url = d.metadata.registration_endpoint;
    req.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
    req.body = body.dump();
    auto reply = co_await http->send(ex, std::move(req));
    if (!reply) co_return error{"client registration at " + d.metadata.registration_endpoint + " failed: " + reply.error_message()};
    const json answer = json::parse(reply->body, nullptr, false);
    if (reply->status < 200 || reply->status >= 300 || !answer.is_object() || string_field(answer, "client_id").empty()) {
      std::string why = "HTTP " + std::to_string(reply->status);
      if (answer.is_object() && answer.contains("error"))
        why += ", " + string_field(answer, "error") + " " + string_field(answer, "error_description").substr(0, 300);
      co_return error{"client registration at " + d.metadata.registration_endpoint + " was refused (" + why + ")"};
    }
    client_record c;
    c.client_id = string_field(answer, "client_id");
    c.client_secret = string_field(answer, "client_secret");
    c.auth_method = string_field(answer, "token_endpoint_auth_method");
    c.redirect_uri = config.grant_type == grant::client_credentials ? std::string() : redirect_uri;
    c.issuer = d.issuer;
    c.from_cache_or_registration = true;
    spdlog::info("{}: registered as OAuth client '{}' at {}", server_url, c.client_id, d.issuer);
    co_return c;
  }

  // ---- authorization code ---------------------------------------------------------------------

  // Waits for the browser's redirect on the loopback listener.
  asio::awaitable<result<std::map<std::string, std::string>>> await_callback(asio::any_io_executor ex, tcp::acceptor& acceptor,
                                                                             const std::string& state) {
    asio::steady_timer deadline(ex, config.authorize_timeout);
    bool expired = false;
    deadline.async_wait([&](error_code ec) {
      if (!ec) {
        expired = true;
        error_code ignored;
        acceptor.close(ignored);
      }
    });
    while (true) {
      auto [aec, socket] = co_await acceptor.async_accept(use_tuple);
      if (aec) {
        co_return error{expired ? "no authorisation arrived within " + std::to_string(config.authorize_timeout.count()) + " s"
                                : "the redirect listener failed: " + aec.message()};
      }
      beast::tcp_stream stream(std::move(socket));
      stream.expires_after(std::chrono::seconds(10));
      beast::flat_buffer buffer;
      http::request<http::string_body> req;
      auto [rec, rn] = co_await http::async_read(stream, buffer, req, use_tuple);
      (void)rn;
      if (rec) continue;
      const std::string target(req.target());
      const auto q = target.find('?');
      http::response<http::string_body> res{http::status::ok, 11};
      res.set(http::field::content_type, "text/html; charset=utf-8");
      res.keep_alive(false);
      std::map<std::string, std::string> params;
      bool done = false;
      if (target.substr(0, q) != "/callback") {
        res.result(http::status::not_found);
        res.body() = "not found";
      } else {
        params = parse_query(q == std::string::npos ? std::string_view() : std::string_view(target).substr(q + 1));
        if (params["state"] != state) {
          res.result(http::status::bad_request);
          res.body() = page(false);
        } else {
          done = true;
          res.body() = page(!params.count("error") && params.count("code"));
        }
      }
      res.prepare_payload();
      co_await http::async_write(stream, res, use_tuple);
      if (done) co_return params;
    }
  }

  asio::awaitable<result<token_set>> authorization_code(asio::any_io_executor ex, const discovery& d, const std::string& scope) {
    if (!d.metadata.pkce_listed && !d.default_endpoints)
      co_return error{"the authorization server does not advertise PKCE (code_challenge_methods_supported); refusing to authorise"};
    if (d.metadata.pkce_listed && !contains(d.metadata.code_challenge_methods_supported, "S256"))
      co_return error{"the authorization server does not support PKCE S256; refusing to authorise"};
    if (d.metadata.authorization_endpoint.empty()) co_return error{"the authorization server metadata has no authorization_endpoint"};

    // The loopback redirect listener (RFC 8252 §7.3); bound in headless mode too, so that the
    // redirect URI names a port of ours.
    tcp::acceptor acceptor(ex);
    std::uint16_t port = config.callback_port;
    if (port == 0 && !registered.redirect_uri.empty()) {
      if (auto u = parse_http_url(registered.redirect_uri); u && u->host == "127.0.0.1") port = u->port;
    }
    error_code ec;
    for (int attempt = 0; attempt < 2; ++attempt) {
      ec = {};
      if (acceptor.is_open()) acceptor.close(ec);
      acceptor.open(tcp::v4(), ec);
      if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
      if (!ec) acceptor.bind(tcp::endpoint(asio::ip::address_v4::loopback(), port), ec);
      if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
      if (!ec || config.callback_port != 0) break;
      port = 0;  // the cached registration's port is taken: any port (and a new registration)
    }
    if (ec) co_return error{"cannot listen for the OAuth redirect on 127.0.0.1:" + std::to_string(port) + ": " + ec.message()};
    const std::string redirect_uri = "http://127.0.0.1:" + std::to_string(acceptor.local_endpoint().port()) + "/callback";

    auto c = co_await ensure_client(ex, d, redirect_uri, scope);
    if (!c) co_return error{c.error_message()};
    registered = *c;

    const std::string verifier = random_token(32);
    const std::string state = random_token(16);
    std::vector<std::pair<std::string, std::string>> query = {
        {"response_type", "code"}, {"client_id", c->client_id}, {"redirect_uri", redirect_uri}, {"code_challenge", pkce_challenge(verifier)}, {"code_challenge_method", "S256"}, {"state", state}};
    if (!scope.empty()) query.emplace_back("scope", scope);
    if (d.resource) query.emplace_back("resource", d.resource->resource);
    const std::string& endpoint = d.metadata.authorization_endpoint;
    const std::string url = endpoint + (endpoint.find('?') == std::string::npos ? "?" : "&") + form_encode(query);

    std::map<std::string, std::string> answer;
    if (config.mode == flow_mode::headless) {
      http_exchange req;
      req.url = url;
      auto reply = co_await http->send(ex, std::move(req));
      if (!reply) co_return error{"the authorization request failed: " + reply.error_message()};
      const std::string location = reply->header("Location");
      if (reply->status < 300 || reply->status >= 400 || location.empty())
        co_return error{"the authorization endpoint answered HTTP " + std::to_string(reply->status) +
                        " without a redirect; headless authorisation needs an authorization server that approves on its own "
                        "(use --oauth interactive)"};
      const auto q = location.find('?');
      answer = parse_query(q == std::string::npos ? std::string_view() : std::string_view(location).substr(q + 1, location.find('#', q) - q - 1));
      if (answer["state"] != state) co_return error{"the authorization redirect carries the wrong state; refusing it"};
    } else {
      std::fprintf(stderr, "mcp-warden: %s needs authorisation. Open this URL to approve access:\n  %s\n", server_url.c_str(), url.c_str());
      std::fflush(stderr);
      if (config.open_browser) open_browser(url);
      auto got = co_await await_callback(ex, acceptor, state);
      if (!got) co_return error{got.error_message()};
      answer = std::move(*got);
    }
    if (answer.count("error"))
      co_return error{"the authorization server refused: " + answer["error"].substr(0, 100) +
                      (answer["error_description"].empty() ? "" : " (" + answer["error_description"].substr(0, 300) + ")")};
    if (answer["code"].empty()) co_return error{"the authorization redirect carries no code"};
    std::vector<std::pair<std::string, std::string>> fields = {
        {"grant_type", "authorization_code"}, {"code", answer["code"]}, {"redirect_uri", redirect_uri}, {"code_verifier", verifier}};
    if (d.resource) fields.emplace_back("resource", d.resource->resource);
    co_return co_await token_request(ex, d.metadata, *c, std::move(fields));
  }

  // ---- one flow -----------------------------------------------------------------------------

  asio::awaitable<result<bool>> run_flow(asio::any_io_executor ex, unsigned status, const challenge& ch) {
    auto d = co_await discover(ex, ch);
    if (!d) co_return error{d.error_message()};
    const std::string granted = tokens.scope.empty() ? requested_scope : tokens.scope;
    const std::string scope = status == 403 ? join_scopes(granted, ch.scope) : select_scope(&ch, d->resource ? &*d->resource : nullptr, config.scope);

    // A refresh token for this authorization server first (not for a step-up: it cannot widen scope).
    const bool have_client =
        !config.client_id.empty() || (registered.from_cache_or_registration && registered.issuer == d->issuer);
    if (status == 401 && !tokens.refresh_token.empty() && token_issuer == d->issuer && have_client) {
      std::vector<std::pair<std::string, std::string>> fields = {{"grant_type", "refresh_token"}, {"refresh_token", tokens.refresh_token}};
      if (d->resource) fields.emplace_back("resource", d->resource->resource);
      client_record c = config.client_id.empty() ? registered : client_record{config.client_id, config.client_secret, "", "", d->issuer, false};
      auto refreshed = co_await token_request(ex, d->metadata, c, std::move(fields));
      if (refreshed) {
        if (refreshed->refresh_token.empty()) refreshed->refresh_token = tokens.refresh_token;
        tokens = std::move(*refreshed);
        spdlog::info("{}: OAuth token refreshed", server_url);
        save_cache();
        co_return true;
      }
      spdlog::info("{}: refreshing the OAuth token failed ({}); authorising again", server_url, refreshed.error_message());
      tokens = {};
    }

    result<token_set> got = error{""};
    if (config.grant_type == grant::client_credentials) {
      auto c = co_await ensure_client(ex, *d, "", scope);
      if (!c) co_return error{c.error_message()};
      registered = *c;
      std::vector<std::pair<std::string, std::string>> fields = {{"grant_type", "client_credentials"}};
      if (!scope.empty()) fields.emplace_back("scope", scope);
      if (d->resource) fields.emplace_back("resource", d->resource->resource);
      got = co_await token_request(ex, d->metadata, *c, std::move(fields));
    } else {
      got = co_await authorization_code(ex, *d, scope);
    }
    if (!got) co_return error{got.error_message()};
    tokens = std::move(*got);
    token_issuer = d->issuer;
    requested_scope = scope;
    spdlog::info("{}: authorised by {}{}{}", server_url, d->issuer, tokens.scope.empty() && scope.empty() ? "" : ", scope ",
                 tokens.scope.empty() ? scope : tokens.scope);
    save_cache();
    co_return true;
  }
};

client::client(std::shared_ptr<impl> state) : impl_(std::move(state)) {}
client::~client() = default;

result<std::shared_ptr<client>> client::create(settings config, std::string server_url, std::shared_ptr<http_requester> requester) {
  auto url = parse_http_url(server_url);
  if (!url) return error{url.error_message()};
  if (!config.client_metadata_url.empty()) {
    auto m = parse_http_url(config.client_metadata_url);
    if (!m || !m->tls || m->target == "/")
      return error{"--oauth-client-metadata-url must be an https URL with a path, got '" + config.client_metadata_url + "'"};
  }
  if (config.grant_type == grant::client_credentials && (config.client_id.empty() || config.client_secret.empty()))
    return error{"the client_credentials grant needs --oauth-client-id and a client secret"};
  auto state = std::make_shared<impl>();
  state->config = std::move(config);
  state->server_url = url->to_string();
  state->server = *url;
  state->http = std::move(requester);
  state->load_cache();
  return std::shared_ptr<client>(new client(std::move(state)));
}

std::string client::authorization() const {
  const auto& t = impl_->tokens;
  if (t.access_token.empty()) return {};
  if (t.expires_at != 0 && t.expires_at <= unix_now()) return {};  // expired: the 401 refreshes it
  return "Bearer " + t.access_token;
}

asio::awaitable<challenge_outcome> client::on_challenge(asio::any_io_executor executor, unsigned status,
                                                        std::vector<std::string> www_authenticate, std::string sent_authorization) {
  auto self = impl_;  // keeps the state alive across the flow
  std::optional<challenge> ch;
  for (const auto& value : www_authenticate)
    if ((ch = parse_www_authenticate(value))) break;
  if (status == 403 && (!ch || ch->error != "insufficient_scope")) co_return challenge_outcome{verdict::not_mine, {}};
  if (self->config.mode == flow_mode::off)
    co_return challenge_outcome{verdict::give_up, "the server requires authorisation (HTTP " + std::to_string(status) + ") and OAuth is off"};
  if (!ch) ch.emplace();  // a 401 without a Bearer challenge: discovery still applies

  while (self->flow_running) {  // one flow at a time; the others wait for its outcome
    auto done = self->flow_done;
    co_await done->async_wait(use_tuple);
  }
  if (sent_authorization != authorization() && !authorization().empty())
    co_return challenge_outcome{verdict::retry, {}};  // another request already obtained a new token
  if (status == 403) {
    const std::string granted = self->tokens.scope.empty() ? self->requested_scope : self->tokens.scope;
    if (!ch->scope.empty() && covers(granted, ch->scope))
      co_return challenge_outcome{verdict::give_up, "the server refuses the request for insufficient scope although scope '" +
                                                        ch->scope + "' was granted; not authorising again"};
  }
  const auto now = std::chrono::steady_clock::now();
  while (!self->recent_flows.empty() && now - self->recent_flows.front() > std::chrono::seconds(60)) self->recent_flows.pop_front();
  if (self->recent_flows.size() >= 3)
    co_return challenge_outcome{verdict::give_up, "the server keeps refusing (HTTP " + std::to_string(status) +
                                                      ") after 3 authorisations within a minute; giving up"};
  self->recent_flows.push_back(now);

  self->flow_running = true;
  self->flow_done = std::make_shared<asio::steady_timer>(executor, std::chrono::steady_clock::time_point::max());
  spdlog::info("{}: HTTP {}{}; starting OAuth authorisation", self->server_url, status,
               ch->error.empty() ? std::string() : " (" + ch->error + ")");
  result<bool> outcome = error{""};
  try {
    outcome = co_await self->run_flow(executor, status, *ch);
  } catch (const std::exception& e) {
    outcome = error{e.what()};
  }
  self->flow_running = false;
  self->flow_done->cancel();
  if (!outcome) {
    spdlog::error("{}: OAuth authorisation failed: {}", self->server_url, outcome.error_message());
    co_return challenge_outcome{verdict::give_up, "OAuth authorisation failed: " + outcome.error_message()};
  }
  co_return challenge_outcome{verdict::retry, {}};
}

}  // namespace warden::transports::oauth

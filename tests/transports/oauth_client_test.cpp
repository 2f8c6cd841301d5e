#include "transports/oauth_client.hpp"

#include <doctest/doctest.h>

using namespace warden::transports;
using namespace warden::transports::oauth;

TEST_CASE("oauth: WWW-Authenticate") {
  SUBCASE("the SDK's challenge") {
    auto c = parse_www_authenticate(
        R"(Bearer error="invalid_token", error_description="Missing Authorization header", resource_metadata="http://localhost:9/.well-known/oauth-protected-resource/mcp")");
    REQUIRE(c);
    CHECK(c->error == "invalid_token");
    CHECK(c->error_description == "Missing Authorization header");
    CHECK(c->resource_metadata == "http://localhost:9/.well-known/oauth-protected-resource/mcp");
    CHECK(c->scope.empty());
  }
  SUBCASE("step-up: scope with spaces, insufficient_scope, any order") {
    auto c = parse_www_authenticate(R"(Bearer scope="mcp:basic mcp:write", resource_metadata="https://a/x", error="insufficient_scope")");
    REQUIRE(c);
    CHECK(c->scope == "mcp:basic mcp:write");
    CHECK(c->error == "insufficient_scope");
  }
  SUBCASE("several challenges, unquoted values, escapes, case") {
    auto c = parse_www_authenticate(R"(Basic realm="a, b", bEaReR realm=x,error=invalid_token , scope="say \"hi\"")");
    REQUIRE(c);
    CHECK(c->error == "invalid_token");
    CHECK(c->scope == "say \"hi\"");
  }
  SUBCASE("a Basic realm's parameters are not the Bearer's") {
    auto c = parse_www_authenticate(R"(Basic scope="wrong", Bearer)");
    REQUIRE(c);
    CHECK(c->scope.empty());
  }
  SUBCASE("no Bearer challenge") {
    CHECK_FALSE(parse_www_authenticate(R"(Basic realm="x")"));
    CHECK_FALSE(parse_www_authenticate(""));
    CHECK_FALSE(parse_www_authenticate("Negotiate abc=="));
  }
}

TEST_CASE("oauth: well-known URLs in the specification's order") {
  auto server = parse_http_url("https://host:8443/tenant/mcp/?q=1");
  REQUIRE(server);
  CHECK(resource_metadata_urls(*server) ==
        std::vector<std::string>{"https://host:8443/.well-known/oauth-protected-resource/tenant/mcp",
                                 "https://host:8443/.well-known/oauth-protected-resource"});
  auto root = parse_http_url("http://localhost:9");
  REQUIRE(root);
  CHECK(resource_metadata_urls(*root) == std::vector<std::string>{"http://localhost:9/.well-known/oauth-protected-resource"});
  CHECK(server_metadata_urls(*root) == std::vector<std::string>{"http://localhost:9/.well-known/oauth-authorization-server",
                                                                "http://localhost:9/.well-known/openid-configuration"});
  auto tenant = parse_http_url("https://as.example/tenant1/");
  REQUIRE(tenant);
  CHECK(server_metadata_urls(*tenant) == std::vector<std::string>{"https://as.example/.well-known/oauth-authorization-server/tenant1",
                                                                  "https://as.example/.well-known/openid-configuration/tenant1",
                                                                  "https://as.example/tenant1/.well-known/openid-configuration"});
}

TEST_CASE("oauth: the metadata's resource must be this server") {
  auto server = parse_http_url("http://localhost:9/mcp");
  REQUIRE(server);
  CHECK(resource_matches("http://localhost:9/mcp", *server));
  CHECK(resource_matches("http://localhost:9/mcp/", *server));
  CHECK(resource_matches("http://localhost:9", *server));
  CHECK(resource_matches("http://LOCALHOST:9/", *server));
  CHECK_FALSE(resource_matches("https://evil.example.com/mcp", *server));
  CHECK_FALSE(resource_matches("http://localhost:10/mcp", *server));
  CHECK_FALSE(resource_matches("https://localhost:9/mcp", *server));
  CHECK_FALSE(resource_matches("http://localhost:9/mc", *server));
  CHECK_FALSE(resource_matches("http://localhost:9/mcp/deeper", *server));
  CHECK_FALSE(resource_matches("not a url", *server));
}

TEST_CASE("oauth: metadata documents") {
  SUBCASE("protected resource") {
    auto m = parse_resource_metadata(R"({"resource":"http://h/mcp","authorization_servers":["http://as"],"scopes_supported":["a","b"]})");
    REQUIRE(m);
    CHECK(m->resource == "http://h/mcp");
    CHECK(m->authorization_servers == std::vector<std::string>{"http://as"});
    CHECK(m->scopes_supported.size() == 2);
    CHECK_FALSE(parse_resource_metadata(R"({"authorization_servers":["http://as"]})"));
    CHECK_FALSE(parse_resource_metadata("<html>"));
  }
  SUBCASE("authorization server") {
    const std::string good = R"({"issuer":"http://as/tenant1","authorization_endpoint":"http://as/tenant1/authorize",
      "token_endpoint":"http://as/tenant1/token","registration_endpoint":"http://as/tenant1/register",
      "code_challenge_methods_supported":["S256"],"token_endpoint_auth_methods_supported":["client_secret_basic"],
      "client_id_metadata_document_supported":true})";
    auto m = parse_server_metadata(good, "http://as/tenant1/");
    REQUIRE(m);
    CHECK(m->pkce_listed);
    CHECK(m->client_id_metadata_document_supported);
    CHECK(m->token_endpoint_auth_methods_supported == std::vector<std::string>{"client_secret_basic"});
    auto other = parse_server_metadata(good, "http://as");
    REQUIRE_FALSE(other);
    CHECK(other.error_message().find("issuer") != std::string::npos);
    CHECK_FALSE(parse_server_metadata(R"({"issuer":"http://as","authorization_endpoint":"http://as/a"})", "http://as"));
    CHECK_FALSE(parse_server_metadata(R"({"issuer":"http://as","token_endpoint":"ftp://as/t"})", "http://as"));
    auto bare = parse_server_metadata(R"({"issuer":"http://as","token_endpoint":"http://as/t"})", "http://as");
    REQUIRE(bare);
    CHECK_FALSE(bare->pkce_listed);
  }
}

TEST_CASE("oauth: scope selection") {
  challenge with_scope;
  with_scope.scope = "mcp:basic";
  challenge without;
  resource_metadata prm;
  prm.scopes_supported = {"mcp:basic", "mcp:read", "mcp:write"};
  resource_metadata bare;
  CHECK(select_scope(&with_scope, &prm, "x") == "mcp:basic");
  CHECK(select_scope(&without, &prm, "x") == "mcp:basic mcp:read mcp:write");
  CHECK(select_scope(&without, &bare, "") == "");
  CHECK(select_scope(&without, nullptr, "fallback") == "fallback");
  CHECK(covers("a b c", "c a"));
  CHECK_FALSE(covers("a b", "a z"));
  CHECK(covers("a", ""));
  CHECK(join_scopes("a b", "b c") == "a b c");
  CHECK(split_scopes("  a  b a ") == std::vector<std::string>{"a", "b"});
}

TEST_CASE("oauth: token endpoint authentication method") {
  CHECK(select_auth_method(true, "client_secret_post", {"client_secret_basic", "client_secret_post"}) == "client_secret_post");
  CHECK(select_auth_method(true, "", {"client_secret_basic", "client_secret_post"}) == "client_secret_basic");
  CHECK(select_auth_method(true, "", {"client_secret_post"}) == "client_secret_post");
  CHECK(select_auth_method(true, "", {"none"}) == "none");
  CHECK(select_auth_method(false, "none", {"none"}) == "none");
  CHECK(select_auth_method(false, "", {"client_secret_basic", "none"}) == "none");
  CHECK(select_auth_method(true, "", {}) == "client_secret_basic");
  CHECK(select_auth_method(false, "", {}) == "none");
  CHECK(select_auth_method(false, "client_secret_basic", {"client_secret_basic", "none"}) == "none");  // no secret to send
}

TEST_CASE("oauth: encodings") {
  CHECK(percent_encode("a b&c=d/é~") == "a%20b%26c%3Dd%2F%C3%A9~");
  CHECK(form_encode({{"grant_type", "authorization_code"}, {"scope", "a b"}}) == "grant_type=authorization_code&scope=a%20b");
  auto q = parse_query("code=test-auth-code&state=a%2Bb+c&empty&code=second");
  CHECK(q["code"] == "test-auth-code");
  CHECK(q["state"] == "a+b c");
  CHECK(q.count("empty") == 1);
  // openssl dgst -sha256 -binary | base64url
  CHECK(pkce_challenge("dBjftJeZ4CVP-mJ92K9qW5j5AuSWyBpjgr9GiMA2cTc") == "zChPJYoSApu8jH-FIwigoNtI9Jp5qHAYZfGOOGcKO5s");
}

TEST_CASE("oauth: token responses") {
  auto t = parse_token_response(200, R"({"access_token":"T","token_type":"bearer","expires_in":3600,"refresh_token":"R","scope":"a"})", 1000);
  REQUIRE(t);
  CHECK(t->access_token == "T");
  CHECK(t->refresh_token == "R");
  CHECK(t->expires_at == 4600);
  CHECK(t->scope == "a");
  auto refused = parse_token_response(400, R"({"error":"invalid_grant","error_description":"code expired"})", 0);
  REQUIRE_FALSE(refused);
  CHECK(refused.error_message() == "the token endpoint refused (HTTP 400, invalid_grant: code expired)");
  CHECK_FALSE(parse_token_response(200, R"({"access_token":"T","token_type":"DPoP"})", 0));
  CHECK_FALSE(parse_token_response(200, "not json", 0));
  auto forever = parse_token_response(200, R"({"access_token":"T","expires_in":1e308})", 0);
  REQUIRE(forever);
  CHECK(forever->expires_at == 10LL * 365 * 86400);
}

// Every prefix and many random mutations of real inputs: the parsers never crash and never read
// out of bounds (the ASan stage runs this too).
TEST_CASE("oauth: parsers on truncated and mutated input") {
  const std::vector<std::string> seeds = {
      R"(Basic realm="a\"b", Bearer error="insufficient_scope", scope="a b", resource_metadata="http://h/x")",
      R"({"resource":"http://h/mcp","authorization_servers":["http://as"],"scopes_supported":["a"]})",
      R"({"issuer":"http://as","token_endpoint":"http://as/t","code_challenge_methods_supported":["S256"]})",
      R"({"access_token":"T","token_type":"Bearer","expires_in":1e308,"refresh_token":"R"})",
      "code=a%2&state=%zz+%&=&&x"};
  unsigned state = 12345;
  auto next = [&] { return state = state * 1103515245u + 12345u; };
  for (const auto& seed : seeds) {
    for (std::size_t cut = 0; cut <= seed.size(); ++cut) {
      const std::string text = seed.substr(0, cut);
      (void)parse_www_authenticate(text);
      (void)parse_resource_metadata(text);
      (void)parse_server_metadata(text, "http://as");
      (void)parse_token_response(200, text, 0);
      (void)parse_query(text);
    }
    for (int round = 0; round < 500; ++round) {
      std::string text = seed;
      for (int k = 0; k < 4; ++k) text[next() % text.size()] = static_cast<char>(next() % 256);
      (void)parse_www_authenticate(text);
      (void)parse_query(text);
      (void)split_scopes(text);
      CHECK(percent_encode(text).find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~%") ==
            std::string::npos);
    }
  }
}

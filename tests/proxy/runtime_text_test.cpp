#include "proxy/runtime_text.hpp"

#include <doctest/doctest.h>

using namespace warden::proxy;
using nlohmann::json;

TEST_CASE("known credential shapes are found and redacted") {
  SUBCASE("aws") {
    CHECK(redact_secrets("key=AKIAIOSFODNN7EXAMPLE here", false) == "key=[REDACTED:aws-access-key-id] here");
  }
  SUBCASE("github") {
    CHECK(redact_secrets("token ghp_abcdefghijklmnopqrstuvwxyz0123456789", false) == "token [REDACTED:github-token]");
  }
  SUBCASE("private key block") {
    CHECK(redact_secrets("a\n-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----\nb", false) ==
          "a\n[REDACTED:private-key]\nb");
  }
  SUBCASE("openai and slack") {
    std::size_t n = 0;
    redact_secrets("sk-proj-abcdefghijklmnopqrstuvwx and xoxb-1234567890-abcdef", false, &n);
    CHECK(n == 2);
  }
}

TEST_CASE("generic detection: assignments and high-entropy tokens, not hashes or words") {
  CHECK(find_secrets("password: S3cr3t-Passw0rd!", true).size() == 1);
  CHECK(find_secrets("password: S3cr3t-Passw0rd!", false).empty());
  CHECK(find_secrets("password=changeme", true).empty() == false);  // still a credential assignment
  CHECK(find_secrets("commit 3f786850e387550fdab836ed7e6dc881de23001b3f786850", true).empty());
  CHECK(find_secrets("the_quick_brown_fox_jumps_over_the_lazy_dog_again", true).empty());
  CHECK(find_secrets("q8Zr3Lk9Xw2Pn7Vt5Bm1Hc4Jd6Fg0SaQe8Ry3Uo", true).size() == 1);
  CHECK(find_secrets("ordinary text without secrets", true).empty());
}

TEST_CASE("the cheap pre-check in front of the patterns lets the shortest shapes through") {
  // Each is at (or near) the minimum length or run its pattern allows.
  CHECK(find_secrets("pwd=Xq7#kL9z", true).size() == 1);                     // 12 bytes, an assignment
  CHECK(find_secrets("x eyJhbGciOiJ.eyJzdWIiOiJ.c2lnbmF0 y", false).size() == 1);  // runs of 11
  CHECK(find_secrets("q8Zr3Lk9+w2Pn7Vt/Bm1Hc4Jd+Fg0SaQe8R/3Uo", true).size() == 1);  // short token runs, one long base64 run
  CHECK(find_secrets("https://hooks.slack.com/services/T0000/B0000/abcdefghij", false).size() == 1);  // '/'-split path
  CHECK(find_secrets("-----BEGIN PRIVATE KEY-----", false).size() == 1);
  CHECK(find_secrets("eleven char", true).empty());
  CHECK(find_secrets("a plain sentence, with words and short names", true).empty());
}

TEST_CASE("redact_json walks nested values; secret_kinds_in names kinds once") {
  json v = json::parse(R"({"a":["AKIAIOSFODNN7EXAMPLE", {"b":"AKIAIOSFODNN7EXAMPLE"}], "n": 3})");
  CHECK(secret_kinds_in(v, false) == std::vector<std::string>{"aws-access-key-id"});
  CHECK(redact_json(v, false) == 2);
  CHECK(v["a"][1]["b"] == "[REDACTED:aws-access-key-id]");
  CHECK(v["n"] == 3);
}

TEST_CASE("sanitize removes invisible payloads and terminal escapes, keeps legitimate text") {
  SUBCASE("tag characters") {
    const auto s = sanitize_text("ok\xF3\xA0\x81\x89\xF3\xA0\x81\x87 done");  // U+E0049 U+E0047
    CHECK(s.text == "ok done");
    CHECK(s.invisible == 2);
  }
  SUBCASE("ANSI and OSC sequences") {
    const auto s = sanitize_text("a\x1b[31mred\x1b[0m b\x1b]0;title\x07 c\x1b[2K");
    CHECK(s.text == "ared b c");
    CHECK(s.escapes == 4);
  }
  SUBCASE("bidi override and zero-width space") {
    const auto s = sanitize_text("x\xE2\x80\xAEy\xE2\x80\x8Bz");
    CHECK(s.text == "xyz");
  }
  SUBCASE("emoji presentation selector and ZWJ sequences stay") {
    const std::string family = "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9 \xE2\x9D\xA4\xEF\xB8\x8F";
    const auto s = sanitize_text(family);
    CHECK(s.text == family);
    CHECK_FALSE(s.changed());
  }
  SUBCASE("variation selector runs are payloads") {
    const auto s = sanitize_text("a\xEF\xB8\x80\xEF\xB8\x81\xEF\xB8\x82");
    CHECK(s.text == "a");
    CHECK(s.invisible == 3);
  }
  SUBCASE("newlines and tabs are kept, other controls go") {
    const auto s = sanitize_text("a\tb\nc\x07" "d");
    CHECK(s.text == "a\tb\ncd");
  }
  SUBCASE("invalid UTF-8 becomes U+FFFD") { CHECK(sanitize_text("a\xFF" "b").text == "a\xEF\xBF\xBD" "b"); }
}

TEST_CASE("cap_json cuts long strings at a code point boundary and summarises deep values") {
  json v = {{"s", std::string(10, 'x') + "\xC3\xA9"}, {"deep", {{"a", {{"b", 1}}}}}};
  cap_json(v, 11, 2);
  CHECK(v["s"] == "xxxxxxxxxx...[12 bytes]");
  CHECK(v["deep"]["a"] == "[object of 1]");
}

#include "proxy/runtime_text.hpp"

#include <doctest/doctest.h>
#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <random>

#include "analysis/engine.hpp"

using namespace warden::proxy;
using nlohmann::json;

namespace {

// What find_secrets answers when every shape, high-entropy too, is searched with RE2: a shape's
// credential is its group 1 (a private key: the whole block), the generic shapes' matches pass
// their filters, and of overlapping hits the earliest (then the most specific) stays.
std::vector<secret_hit> secrets_by_re2_alone(std::string_view text, bool generic) {
  static const auto compiled = [] {
    std::vector<std::unique_ptr<re2::RE2>> out;
    for (const auto& shape : secret_shapes()) out.push_back(std::make_unique<re2::RE2>(shape.regex));
    return out;
  }();
  std::vector<secret_hit> all;
  for (std::size_t k = 0; k < secret_shapes().size(); ++k) {
    const secret_shape& shape = secret_shapes()[k];
    if (shape.generic && !generic) continue;
    const re2::RE2& re = *compiled[k];
    re2::StringPiece groups[2];
    const int wanted = re.NumberOfCapturingGroups() >= 1 && shape.kind != "private-key" ? 2 : 1;
    for (std::size_t from = 0; from < text.size();) {
      if (!re.Match(re2::StringPiece(text.data(), text.size()), from, text.size(), re2::RE2::UNANCHORED, groups, 2)) break;
      const re2::StringPiece credential = wanted == 2 && !groups[1].empty() ? groups[1] : groups[0];
      const std::string_view token(credential.data(), credential.size());
      const bool passes = shape.kind == "high-entropy"            ? looks_random(token)
                          : shape.kind == "credential-assignment" ? entropy_bits(token) >= 2.5
                                                                  : true;
      const auto begin = static_cast<std::size_t>(credential.data() - text.data());
      if (passes) all.push_back({shape.kind, begin, begin + credential.size()});
      from = static_cast<std::size_t>(groups[0].data() - text.data()) + std::max<std::size_t>(groups[0].size(), 1);
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const secret_hit& a, const secret_hit& b) { return a.begin < b.begin; });
  std::vector<secret_hit> kept;
  for (const auto& hit : all) {
    if (kept.empty() || hit.begin >= kept.back().end) kept.push_back(hit);
    else kept.back().end = std::max(kept.back().end, hit.end);
  }
  return kept;
}

bool same_hits(const std::vector<secret_hit>& a, const std::vector<secret_hit>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const secret_hit& x, const secret_hit& y) {
    return x.kind == y.kind && x.begin == y.begin && x.end == y.end;
  });
}

}  // namespace

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
  SUBCASE("hugging face: the same catalogue as scan's embedded-secret rule") {
    const std::string token = "hf_Qm7xKp2VtL9wRz4YbN8cJd3HsF6gAe1UoWq";
    CHECK(redact_secrets("use " + token + " for the hub", false) == "use [REDACTED:huggingface-token] for the hub");
    const auto findings = warden::analysis::scan_text("Set HF_TOKEN=" + token + " and send it along", "result");
    CHECK(std::any_of(findings.begin(), findings.end(), [](const auto& f) { return f.rule_id == "poison.embedded-secret"; }));
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
  CHECK(find_secrets("pwd=Xq7#kL9z", true).size() == 1);                                              // 12 bytes, an assignment
  CHECK(find_secrets("x eyJhbGciOiJ.eyJzdWIiOiJ.c2lnbmF0 y", false).size() == 1);                     // runs of 11
  CHECK(find_secrets("q8Zr3Lk9+w2Pn7Vt/Bm1Hc4Jd+Fg0SaQe8R/3Uo", true).size() == 1);                   // short token runs, one long base64 run
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
    const auto s = sanitize_text(
        "a\tb\nc\x07"
        "d");
    CHECK(s.text == "a\tb\ncd");
  }
  SUBCASE("invalid UTF-8 becomes U+FFFD") { CHECK(sanitize_text("a\xFF"
                                                                "b")
                                                      .text ==
                                                  "a\xEF\xBF\xBD"
                                                  "b"); }
}

TEST_CASE("cap_json cuts long strings at a code point boundary and summarises deep values") {
  json v = {{"s", std::string(10, 'x') + "\xC3\xA9"}, {"deep", {{"a", {{"b", 1}}}}}};
  cap_json(v, 11, 2);
  CHECK(v["s"] == "xxxxxxxxxx...[12 bytes]");
  CHECK(v["deep"]["a"] == "[object of 1]");
}

TEST_CASE("may_hold_secret never turns away a text that a credential shape matches; find_secrets answers as RE2 alone would") {
  // The prefilter must be a necessary condition: texts assembled from credential shapes, their
  // prefixes and keywords (any case, and the Kelvin sign and long s that RE2's case folding maps
  // to k and s), near misses and filler, against RE2 sets built from the same shapes.
  re2::RE2::Options options;
  options.set_log_errors(false);
  re2::RE2::Set all(options, re2::RE2::UNANCHORED), specific(options, re2::RE2::UNANCHORED);
  for (const auto& shape : secret_shapes()) {
    REQUIRE(all.Add(shape.regex, nullptr) >= 0);
    if (!shape.generic) REQUIRE(specific.Add(shape.regex, nullptr) >= 0);
  }
  REQUIRE(all.Compile());
  REQUIRE(specific.Compile());

  std::mt19937 random(1201);
  const auto pick = [&](std::string_view alphabet, std::size_t n) {
    std::string out;
    for (std::size_t i = 0; i < n; ++i) out += alphabet[random() % alphabet.size()];
    return out;
  };
  const std::string alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const std::string upper_digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const auto fragment = [&]() -> std::string {
    switch (random() % 24) {
      case 0: return "AKIA" + pick(upper_digits, 14 + random() % 4);
      case 1: return std::string(random() % 2 ? "ghp_" : "ghs_") + pick(alnum, 30 + random() % 10);
      case 2: return "github_pat_" + pick(alnum + "_", 18 + random() % 8);
      case 3: return "glpat-" + pick(alnum + "-_", 16 + random() % 8);
      case 4: return "xoxb-" + pick(alnum + "-", 6 + random() % 8);
      case 5: return "https://hooks.slack.com/services/" + pick(alnum + "/", 16 + random() % 8);
      case 6: return std::string(random() % 2 ? "sk-ant-" : "sk-proj-") + pick(alnum + "-_", 16 + random() % 8);
      case 7: return std::string(random() % 2 ? "sk_live_" : "rk_test_") + pick(alnum, 12 + random() % 8);
      case 8: return "AIza" + pick(alnum + "-_", 33 + random() % 4);
      case 9: return "eyJ" + pick(alnum, 6 + random() % 6) + ".eyJ" + pick(alnum, 6 + random() % 6) + "." + pick(alnum, 6 + random() % 6);
      case 10: return "npm_" + pick(alnum, 34 + random() % 4);
      case 11: return "-----BEGIN " + std::string(random() % 2 ? "RSA " : "") + "PRIVATE KEY-----\n" + pick(alnum, 8);
      case 12: {  // a keyword in any case, sometimes with the letters RE2 folds from non-ASCII
        static const char* const words[] = {"password", "passwd", "pwd", "secret", "api_key", "apikey",
                                            "access-key", "auth_token", "access_token", "client_secret"};
        std::string word = words[random() % std::size(words)];
        std::string out;
        for (char c : word) {
          if (c == 'k' && random() % 4 == 0) out += "\xE2\x84\xAA";   // KELVIN SIGN
          else if (c == 's' && random() % 4 == 0) out += "\xC5\xBF";  // LATIN SMALL LETTER LONG S
          else out += random() % 2 ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
        }
        return out;
      }
      case 13: return std::string(random() % 2 ? "=" : ":") + (random() % 2 ? " " : "") + (random() % 2 ? "\"" : "");
      case 14: return pick(alnum + "+/=_-", 20 + random() % 20);  // base64-ish runs around 32
      case 15: return pick(alnum, 6 + random() % 8);
      case 16: return std::string(1, "-AgxhsreNn"[random() % 10]) + pick(alnum + "-_", random() % 6);  // near-miss prefixes
      case 17: return "caf\xC3\xA9";
      case 18: return std::string(1, " \t\n,;'\"."[random() % 8]);
      default: return pick("abcdefghijklmnopqrstuvwxyz ", 3 + random() % 10);
    }
  };
  int matched_generic = 0, matched_specific = 0, turned_away = 0, found_random_run = 0, found_with_random_run = 0;
  for (int round = 0; round < 40000; ++round) {
    std::string text;
    const int parts = 1 + static_cast<int>(random() % 6);
    for (int k = 0; k < parts; ++k) text += fragment();
    const bool generic_match = all.Match(text, nullptr), specific_match = specific.Match(text, nullptr);
    matched_generic += generic_match;
    matched_specific += specific_match;
    if (generic_match) REQUIRE_MESSAGE(may_hold_secret(text, true), text);
    if (specific_match) REQUIRE_MESSAGE(may_hold_secret(text, false), text);
    turned_away += !may_hold_secret(text, true);
    // high-entropy is found without RE2, the other shapes only where the prefilter sends them.
    for (const bool generic : {true, false}) {
      const auto hits = find_secrets(text, generic);
      REQUIRE_MESSAGE(same_hits(hits, secrets_by_re2_alone(text, generic)), text);
      const auto random_runs = std::count_if(hits.begin(), hits.end(), [](const secret_hit& h) { return h.kind == "high-entropy"; });
      found_random_run += random_runs > 0;
      found_with_random_run += random_runs > 0 && static_cast<std::size_t>(random_runs) < hits.size();
    }
  }
  MESSAGE(found_random_run, " texts with a random run, ", found_with_random_run, " beside other credentials");
  CHECK(found_random_run > 1000);
  CHECK(found_with_random_run > 200);
  // The texts exercise both answers.
  CHECK(matched_specific > 4000);
  CHECK(matched_generic > matched_specific);
  CHECK(turned_away > 4000);
}

TEST_CASE("may_hold_secret turns away ordinary short texts") {
  CHECK_FALSE(may_hold_secret("xxxxxxxxxxxxxxxx", true));
  CHECK_FALSE(may_hold_secret("Echo: xxxxxxxxxxxxxxxx", true));
  CHECK_FALSE(may_hold_secret("Echo: xxxxxxxxxxxxxxxx", false));
  CHECK_FALSE(may_hold_secret("see https://example.com/docs for more", true));
  CHECK(may_hold_secret("password: hunter2hunter2", true));
  CHECK_FALSE(may_hold_secret("password: hunter2hunter2", false));
  CHECK(may_hold_secret(
      "the \xE2\x84\xAA"
      "ey = 0123456789ab",
      true));  // Kelvin sign: RE2 folds it to k
  CHECK(may_hold_secret("token AKIAIOSFODNN7EXAMPLE", false));
}

TEST_CASE("may_hold_secret sees a prefix or a long run wherever it falls, in blocks of 16 or not") {
  // Every offset of every issuer prefix, and runs of 31 and 32 base64 bytes at every offset, in
  // texts of many lengths: the 16-byte steps and the byte-wise tail must agree everywhere.
  for (std::size_t length = 12; length <= 70; ++length) {
    for (std::string_view prefix : {"-----BEGIN", "AKIA", "ghp_", "github_pat_", "xox", "sk-", "eyJ", "npm_", "hooks.slack.com"}) {
      for (std::size_t at = 0; at + prefix.size() <= length; ++at) {
        std::string text(length, ' ');
        text.replace(at, prefix.size(), prefix);
        REQUIRE_MESSAGE(may_hold_secret(text, false), text);
      }
    }
    for (const std::size_t run : {31, 32}) {
      for (std::size_t at = 0; at + run <= length; ++at) {
        for (const char filler : {' ', '.', '\xC3'}) {
          std::string text(length, filler);
          for (std::size_t k = 0; k < run; ++k) text[at + k] = "aZ9+/_=-"[k % 8];
          // The run holds '=': beside a non-ASCII byte that may be a folded keyword's assignment.
          const bool expected = run >= 32 || (filler == '\xC3' && length > run);
          REQUIRE_MESSAGE(may_hold_secret(text, true) == expected, text);
        }
      }
    }
    const std::string plain(length, 'x');
    CHECK_FALSE(may_hold_secret(std::string(length, ' '), true));
    CHECK(may_hold_secret(plain, true) == (length >= 32));
  }
}

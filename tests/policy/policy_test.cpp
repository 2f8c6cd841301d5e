#include "policy/policy.hpp"

#include <doctest/doctest.h>
#include <fstream>
#include <iterator>
#include <re2/re2.h>

using namespace warden::policy;

namespace {
std::string error_of(std::string_view text) {
  auto parsed = parse_policy(text, "p.json");
  return parsed ? std::string("(no error)") : parsed.error_message();
}
}  // namespace

TEST_CASE("the built-in default hides high findings, blocks injected results, allows calls") {
  const policy p = default_policy();
  CHECK(p.default_action == action::allow);
  REQUIRE(p.surface.hide_at);
  CHECK(*p.surface.hide_at == warden::analysis::severity::high);
  CHECK(p.results.injection == result_action::block);
  CHECK(p.results.hidden_unicode == result_action::sanitize);
  CHECK_FALSE(p.secrets.in_arguments);
  CHECK(p.secrets.redact_audit);
  CHECK_FALSE(p.flows.untrusted_then_sink);
  CHECK(p.tools.empty());
}

TEST_CASE("a full policy parses, with comments and trailing commas") {
  auto parsed = parse_policy(R"(// team policy
{
  "version": 1,
  "mode": "enforce",
  "default": "ask",
  /* rules: first match wins */
  "tools": [
    {"tool": "delete_*", "action": "deny", "reason": "no deletions"},
    {"server": "fs*", "tool": "read_file", "action": "allow",
     "arguments": {"path": {"paths": {"allow": ["/srv/**"], "deny": ["**/.ssh/**"]}, "maxLength": 200}},
     "rateLimit": {"calls": 5, "perSeconds": 60}},
    {"tool": "fetch", "arguments": {"url": {"hosts": ["*.Example.com"], "schemes": ["https"]},
                                    "/opts/depth": {"minimum": 0, "maximum": 3}}},
  ],
  "roles": {"fetch": ["untrusted_content"], "send_*": ["external_sink"]},
  "surface": {"hideAtOrAbove": "medium", "prompts": false},
  "results": {"injection": {"action": "sanitize", "atOrAbove": "critical"}, "ansi": "block"},
  "secrets": {"arguments": "deny", "allTools": true},
  "flows": {"untrustedThenSink": "ask", "privateThenSink": "deny"},
  "pins": {"firstSight": "strict", "onDrift": "log"},
})",
                             "team.json");
  REQUIRE_MESSAGE(parsed, parsed.error_message());
  const policy& p = *parsed;
  CHECK(p.preferred_mode == mode::enforce);
  CHECK(p.default_action == action::ask);
  REQUIRE(p.tools.size() == 3);
  CHECK(p.tools[0].decision == action::deny);
  CHECK(p.tools[0].reason == "no deletions");
  CHECK(p.tools[0].location == "team.json:8:5");
  CHECK(p.tools[1].server == "fs*");
  REQUIRE(p.tools[1].arguments.size() == 1);
  CHECK(p.tools[1].arguments[0].path_allow == std::vector<std::string>{"/srv/**"});
  CHECK(p.tools[1].arguments[0].max_length == 200u);
  REQUIRE(p.tools[1].limit);
  CHECK(p.tools[1].limit->calls == 5u);
  CHECK_FALSE(p.tools[2].decision);
  CHECK(p.tools[2].arguments[0].name == "url");
  CHECK(p.tools[2].arguments[0].hosts == std::vector<std::string>{"*.example.com"});
  CHECK(p.tools[2].arguments[1].name == "/opts/depth");
  CHECK(p.tools[2].arguments[1].maximum == 3.0);
  REQUIRE(p.roles.size() == 2);
  CHECK(p.roles[0].first == "fetch");  // file order kept
  CHECK(p.roles[0].second == role_bit(role::untrusted_content));
  CHECK(*p.surface.hide_at == warden::analysis::severity::medium);
  CHECK_FALSE(p.surface.prompts);
  CHECK(p.results.injection == result_action::sanitize);
  CHECK(p.results.ansi == result_action::block);
  CHECK(p.secrets.in_arguments == action::deny);
  CHECK(p.flows.untrusted_then_sink == action::ask);
  CHECK_FALSE(p.flows.untrusted_then_destructive);
  CHECK(p.pins.first_sight == pin_mode::strict);
  CHECK_FALSE(p.pins.hide_drift);
}

TEST_CASE("policy errors name file:line:col and the member") {
  struct row {
    const char* name;
    const char* text;
    std::string_view error;
  };
  const row rows[] = {
      {"JSON syntax", "{\n  \"default\": allow\n}",
       "p.json:2:14: invalid JSON: syntax error while parsing value - invalid literal; last read: '\"default\": a'"},
      {"unknown action", "{\n  \"tools\": [\n    {\"tool\": \"x\", \"action\": \"alow\"}\n  ]\n}",
       "p.json:3:29: tools[0].action: expected one of \"allow\", \"deny\", \"ask\", got \"alow\""},
      {"unknown member", "{\"tools\": [{\"tool\": \"x\", \"acton\": \"deny\"}]}",
       "p.json:1:26: tools[0].acton: unknown member 'acton' (expected one of: server, tool, action, reason, arguments, rateLimit, roles)"},
      {"bad regex", "{\"tools\": [{\"arguments\": {\"q\": {\"regex\": \"(a\"}}}]}",
       "p.json:1:42: tools[0].arguments.q.regex: invalid regular expression: missing ): (a"},
      {"bad glob", "{\"tools\": [{\"tool\": \"[ab\"}]}", "p.json:1:21: tools[0].tool: unterminated '[' in glob"},
      {"bad role", "{\"roles\": {\"x\": [\"sink\"]}}",
       "p.json:1:18: roles.x[0]: expected one of \"untrusted_content\", \"private_data\", \"external_sink\", "
       "\"code_execution\", \"destructive\", \"filesystem_write\", got \"sink\""},
      {"rate limit needs both members", "{\"tools\": [{\"rateLimit\": {\"calls\": 3}}]}",
       "p.json:1:26: tools[0].rateLimit: needs both 'calls' and 'perSeconds'"},
      {"inconsistent ranges", "{\"tools\": [{\"arguments\": {\"n\": {\"minimum\": 5, \"maximum\": 1}}}]}",
       "p.json:1:44: tools[0].arguments.n.minimum: minimum is greater than maximum"},
      {"version", "{\"version\": 2}", "p.json:1:13: version: only version 1 is supported"},
      {"not an object", "[]", "p.json:1:1: (document): expected an object"},
  };
  for (const row& r : rows) {
    CAPTURE(r.name);
    CHECK(error_of(r.text) == r.error);
  }
}

TEST_CASE("position_of counts lines and byte columns") {
  const auto at = position_of("ab\ncd\nef", 7);
  CHECK(at.line == 3);
  CHECK(at.column == 2);
}

TEST_CASE("regex constraints compile with RE2 and match whole strings") {
  auto parsed = parse_policy(R"({"tools":[{"arguments":{"q":{"regex":"[a-z]+"}}}]})", "p");
  REQUIRE(parsed);
  const auto& re = *parsed->tools[0].arguments[0].regex;
  CHECK(re2::RE2::FullMatch("abc", re));
  CHECK_FALSE(re2::RE2::FullMatch("abc1", re));
}

// Found by fuzz_policy (tests/fuzz/regressions/policy-stray-byte-oom): the position index looped
// on a stray byte and grew without bound.
TEST_CASE("hostile policy bytes end in an error, not a hang") {
  SUBCASE("a NUL byte is refused with its position") {
    constexpr char raw[] = "// comment\n{\"default\": \"allow\"}\0 junk";
    const std::string text(raw, sizeof raw - 1);  // the NUL inside included, the terminator not
    auto parsed = warden::policy::parse_policy(text, "p.json");
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error_message() == "p.json:2:21: a policy file must not contain NUL bytes");
  }
  SUBCASE("the fuzzer's input") {
    std::ifstream in(std::string(WARDEN_SOURCE_DIR) + "/tests/fuzz/regressions/policy-stray-byte-oom", std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    REQUIRE(text.size() > 100);
    CHECK_FALSE(warden::policy::parse_policy(text, "fuzz.json"));
  }
}

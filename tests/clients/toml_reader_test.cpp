// The TOML reader (toml++ into located values): tables in source order, keys, strings, arrays,
// inline tables, byte spans, errors.
#include <doctest/doctest.h>

#include "clients/toml_reader.hpp"

using warden::clients::located_value;
using warden::clients::parse_toml;

namespace {
std::string span_of(const std::string& text, const located_value& value) {
  return text.substr(value.begin, value.end - value.begin);
}
}  // namespace

TEST_CASE("toml: root keys, tables, dotted and quoted keys, in source order") {
  const std::string text =
      "# comment\nmodel = \"o3\"\n[mcp_servers.\"my server\"]\ncommand = \"npx\" # trailing\nenv.KEY = 'v'\n"
      "[mcp_servers.a]\ncommand = 'x'\n[[profiles]]\nname = \"p\"\n";
  auto doc = parse_toml(text);
  REQUIRE(doc);
  CHECK(doc->keys == std::vector<std::string>{"model", "mcp_servers", "profiles"});
  CHECK(doc->find("model")->text == "o3");
  const located_value* servers = doc->find("mcp_servers");
  REQUIRE(servers);
  CHECK(servers->keys == std::vector<std::string>{"my server", "a"});
  const located_value& server = servers->items[0];
  CHECK(text.substr(server.begin, 1) == "[");
  CHECK(text.substr(servers->key_begins[0], 11) == "\"my server\"");
  CHECK(server.find("command")->text == "npx");
  CHECK(span_of(text, *server.find("command")) == "\"npx\"");
  CHECK(server.find("env")->find("KEY")->text == "v");
  CHECK(server.end == text.find("\n[mcp_servers.a]"));  // a header table ends with its last member
  CHECK(doc->find("profiles")->is_array());
}

TEST_CASE("toml: strings of every kind") {
  const std::string text =
      "a = \"tab\\there \\\"q\\\" \\u00e9 \\U0001F600\"\n"
      "b = 'C:\\raw\\path'\n"
      "c = \"\"\"\nline1\nline2 \\\n   joined\"\"\"\n"
      "d = '''\nraw ''' \n"
      "e = \"\"\"x\"\"\"\"\"\n";
  auto doc = parse_toml(text);
  REQUIRE(doc);
  CHECK(doc->find("a")->text == "tab\there \"q\" \xC3\xA9 \xF0\x9F\x98\x80");
  CHECK(doc->find("b")->text == "C:\\raw\\path");
  CHECK(doc->find("c")->text == "line1\nline2 joined");
  CHECK(doc->find("d")->text == "raw ");
  CHECK(doc->find("e")->text == "x\"\"");
}

TEST_CASE("toml: arrays with comments, newlines and a trailing comma; inline tables; scalars") {
  const std::string text =
      "args = [\n  \"-y\", # one\n  'tw\xC3\xB6',\n  [1, 2],\n]\n"
      "env = { A = \"1\", \"B\" = 2, c.d = true }\n"
      "n = -1_000\nf = 6.02e23\nt = true\nwhen = 1979-05-27 07:32:00Z\n";
  auto doc = parse_toml(text);
  REQUIRE(doc);
  const located_value& args = *doc->find("args");
  REQUIRE(args.is_array());
  CHECK(args.items.size() == 3);
  CHECK(span_of(text, args.items[1]) == "'tw\xC3\xB6'");  // byte spans past non-ASCII text
  CHECK(span_of(text, args) == "[\n  \"-y\", # one\n  'tw\xC3\xB6',\n  [1, 2],\n]");
  const located_value& env = *doc->find("env");
  CHECK(span_of(text, env) == "{ A = \"1\", \"B\" = 2, c.d = true }");
  CHECK(env.find("A")->text == "1");
  CHECK(env.find("B")->text == "2");
  CHECK(env.find("c")->find("d")->text == "true");
  CHECK(doc->find("n")->text == "-1_000");
  CHECK(doc->find("f")->text == "6.02e23");
  CHECK(doc->find("t")->type == located_value::kind::boolean);
  CHECK(doc->find("when")->text == "1979-05-27 07:32:00Z");
}

TEST_CASE("toml: CRLF line endings") {
  const std::string text = "[a]\r\nb = \"c\"\r\n";
  auto doc = parse_toml(text);
  REQUIRE(doc);
  CHECK(doc->find("a")->find("b")->text == "c");
  CHECK(span_of(text, *doc->find("a")->find("b")) == "\"c\"");
}

TEST_CASE("toml: errors name line and column (in bytes)") {
  auto doc = parse_toml("a = 1\nb = \"\xC3\xA9\\q\"\n");
  REQUIRE_FALSE(doc);
  CHECK(doc.error_message() == "2:9: Error while parsing string: unknown escape sequence '\\q'");  // byte 9 is the q
  for (const char* text : {"a = \"open\n", "a = [1, 2\n", "[table\n", "a = 1 b = 2\n", "= 1\n", "a = \n", "a = 1\na = 2\n"}) {
    CAPTURE(text);
    CHECK_FALSE(parse_toml(text));
  }
}

TEST_CASE("toml: deep nesting and size are refused, not a crash") {
  CHECK_FALSE(parse_toml("a = " + std::string(100000, '[')));
  CHECK(parse_toml("a = 1\n", 3).error_message() == "1:1: larger than a config file can be");
}

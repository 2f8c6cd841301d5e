// The TOML subset reader: tables, keys, strings, arrays, inline tables, spans, errors.
#include <doctest/doctest.h>

#include "config/toml_subset.hpp"

using warden::config::located_value;
using warden::config::parse_toml_subset;

namespace {
std::string span_of(const std::string& text, const located_value& value) {
  return text.substr(value.begin, value.end - value.begin);
}
}  // namespace

TEST_CASE("toml: root keys, tables, dotted and quoted keys") {
  const std::string text =
      "# comment\nmodel = \"o3\"\n[mcp_servers.\"my server\"]\ncommand = \"npx\" # trailing\nenv.KEY = 'v'\n"
      "[[profiles]]\nname = \"p\"\n";
  auto doc = parse_toml_subset(text);
  REQUIRE(doc);
  REQUIRE(doc->tables.size() == 3);
  CHECK(doc->tables[0].path.empty());
  CHECK(doc->tables[0].entries[0].value.text == "o3");
  CHECK(doc->tables[1].path == std::vector<std::string>{"mcp_servers", "my server"});
  CHECK(text.substr(doc->tables[1].header_begin, 1) == "[");
  CHECK(doc->tables[1].entries[0].value.text == "npx");
  CHECK(span_of(text, doc->tables[1].entries[0].value) == "\"npx\"");
  CHECK(doc->tables[1].entries[1].key == std::vector<std::string>{"env", "KEY"});
  CHECK(doc->tables[2].array_item);
}

TEST_CASE("toml: strings of every kind") {
  const std::string text =
      "a = \"tab\\there \\\"q\\\" \\u00e9 \\U0001F600\"\n"
      "b = 'C:\\raw\\path'\n"
      "c = \"\"\"\nline1\nline2 \\\n   joined\"\"\"\n"
      "d = '''\nraw ''' \n"
      "e = \"\"\"x\"\"\"\"\"\n";
  auto doc = parse_toml_subset(text);
  REQUIRE(doc);
  const auto& e = doc->tables[0].entries;
  CHECK(e[0].value.text == "tab\there \"q\" \xC3\xA9 \xF0\x9F\x98\x80");
  CHECK(e[1].value.text == "C:\\raw\\path");
  CHECK(e[2].value.text == "line1\nline2 joined");
  CHECK(e[3].value.text == "raw ");
  CHECK(e[4].value.text == "x\"\"");
}

TEST_CASE("toml: arrays with comments, newlines and a trailing comma; inline tables; scalars") {
  const std::string text =
      "args = [\n  \"-y\", # one\n  'two',\n  [1, 2],\n]\n"
      "env = { A = \"1\", \"B\" = 2, c.d = true }\n"
      "n = -1_000\nf = 6.02e23\nt = true\nwhen = 1979-05-27 07:32:00Z\n";
  auto doc = parse_toml_subset(text);
  REQUIRE(doc);
  const auto& e = doc->tables[0].entries;
  REQUIRE(e[0].value.is_array());
  CHECK(e[0].value.items.size() == 3);
  CHECK(span_of(text, e[0].value.items[1]) == "'two'");
  CHECK(e[1].value.find("A")->text == "1");
  CHECK(e[1].value.find("B")->text == "2");
  CHECK(e[1].value.find("c.d")->text == "true");
  CHECK(e[2].value.text == "-1_000");
  CHECK(e[3].value.text == "6.02e23");
  CHECK(e[4].value.type == located_value::kind::boolean);
  CHECK(e[5].value.text == "1979-05-27 07:32:00Z");
}

TEST_CASE("toml: CRLF line endings") {
  auto doc = parse_toml_subset("[a]\r\nb = \"c\"\r\n");
  REQUIRE(doc);
  CHECK(doc->tables[1].entries[0].value.text == "c");
}

TEST_CASE("toml: errors name line and column") {
  struct bad_case {
    const char* text;
    const char* message;
  };
  const bad_case cases[] = {
      {"a = \"open\n", "1:5: unterminated string"},
      {"a = [1, 2\n", "2:1: expected ',' or ']' in array"},
      {"[table\n", "1:7: expected ']' to close the table header"},
      {"a = 1 b = 2\n", "1:7: unexpected text after the value"},
      {"= 1\n", "1:1: expected a key"},
      {"a 1\n", "1:3: expected '=' after the key"},
      {"a = \"\\q\"\n", "1:6: unknown escape"},
      {"a = '''never", "1:5: unterminated multi-line literal string"},
      {"a = {b = 1\n", "1:11: expected ',' or '}' in inline table"},
      {"a = \n", "1:5: expected a value"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    auto doc = parse_toml_subset(c.text);
    REQUIRE_FALSE(doc);
    CHECK(doc.error_message() == c.message);
  }
}

TEST_CASE("toml: nesting limit") {
  const std::string deep = "a = " + std::string(200, '[');
  auto doc = parse_toml_subset(deep);
  REQUIRE_FALSE(doc);
  CHECK(doc.error_message() == "1:134: nesting deeper than 128");
}

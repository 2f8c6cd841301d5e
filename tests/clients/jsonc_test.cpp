// JSONC reader: values, spans, comments, trailing commas, errors with line:col, limits.
#include <doctest/doctest.h>

#include "clients/jsonc.hpp"

using warden::clients::located_value;
using warden::clients::parse_jsonc;

TEST_CASE("jsonc: values and their byte spans") {
  const std::string text = R"({"a": [1, "two", true, null], "b" : {"c": -1.5e3}})";
  auto doc = parse_jsonc(text);
  REQUIRE(doc);
  REQUIRE(doc->is_object());
  CHECK(doc->begin == 0);
  CHECK(doc->end == text.size());
  const located_value* a = doc->find("a");
  REQUIRE(a);
  REQUIRE(a->items.size() == 4);
  CHECK(text.substr(a->begin, a->end - a->begin) == R"([1, "two", true, null])");
  CHECK(a->items[1].text == "two");
  CHECK(text.substr(a->items[1].begin, a->items[1].end - a->items[1].begin) == "\"two\"");
  CHECK(a->items[2].type == located_value::kind::boolean);
  CHECK(a->items[3].type == located_value::kind::null);
  CHECK(doc->find("b")->find("c")->text == "-1.5e3");
  CHECK(text.substr(doc->key_begins[1], 3) == "\"b\"");
  CHECK(doc->find("zzz") == nullptr);
}

TEST_CASE("jsonc: comments, trailing commas and a byte-order mark") {
  const std::string text =
      "\xEF\xBB\xBF// head\n{ /* block\n comment */ \"a\": [1, 2,], // tail\n \"b\": {\"x\": \"y\",},\n}\n";
  auto doc = parse_jsonc(text);
  REQUIRE(doc);
  CHECK(doc->find("a")->items.size() == 2);
  CHECK(doc->find("b")->find("x")->text == "y");
}

TEST_CASE("jsonc: string escapes decode, raw span keeps them") {
  const std::string text = R"(["a\"b\\c\/d\n", "\u00e9\ud83d\ude00", "\ud800x"])";
  auto doc = parse_jsonc(text);
  REQUIRE(doc);
  CHECK(doc->items[0].text == "a\"b\\c/d\n");
  CHECK(doc->items[1].text == "\xC3\xA9\xF0\x9F\x98\x80");
  CHECK(doc->items[2].text == "\xEF\xBF\xBDx");  // lone surrogate: U+FFFD as a JS engine shows it
  CHECK(text.substr(doc->items[0].begin, doc->items[0].end - doc->items[0].begin) == R"("a\"b\\c\/d\n")");
}

TEST_CASE("jsonc: duplicate keys: the last one wins, as JSON.parse does") {
  auto doc = parse_jsonc(R"({"k": 1, "k": 2})");
  REQUIRE(doc);
  CHECK(doc->find("k")->text == "2");
  CHECK(doc->keys.size() == 2);
}

TEST_CASE("jsonc: errors name line and column") {
  struct bad_case {
    const char* text;
    const char* message;
  };
  const bad_case cases[] = {
      {"{\n  \"a\": 1\n  \"b\": 2\n}", "3:3: expected ',' or '}' in object"},
      {"{\"a\": tru}", "1:7: unexpected character 't', expected a value"},
      {"[1, 2", "1:1: unterminated array"},
      {"{\"a\": \"x", "1:7: unterminated string"},
      {"/* open", "1:1: unterminated /* comment"},
      {"{a: 1}", "1:2: expected a member name in double quotes, got 'a'"},
      {"[1,,2]", "1:4: unexpected character ',', expected a value"},
      {"{\"a\": \"\\q\"}", "1:9: unknown escape '\\q'"},
      {"[\"a\tb\"]", "1:4: control character in string"},
      {"{} x", "1:4: unexpected text after the document"},
      {"", "1:1: unexpected end of file, expected a value"},
      {"[01]", "1:3: expected ',' or ']' in array"},
      {"[-]", "1:3: malformed number"},
      {"{\"a\" 1}", "1:6: expected ':' after member name \"a\""},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    auto doc = parse_jsonc(c.text);
    REQUIRE_FALSE(doc);
    CHECK(doc.error_message() == c.message);
  }
}

TEST_CASE("jsonc: limits on depth and size") {
  SUBCASE("depth") {
    const std::string deep(300, '[');
    auto doc = parse_jsonc(deep);
    REQUIRE_FALSE(doc);
    CHECK(doc.error_message() == "1:258: nesting deeper than 256");
  }
  SUBCASE("size") {
    warden::clients::jsonc_limits limits;
    limits.max_bytes = 8;
    auto doc = parse_jsonc("[1, 2, 3, 4]", limits);
    REQUIRE_FALSE(doc);
    CHECK(doc.error_message() == "1:1: file is larger than 8 bytes");
  }
}

TEST_CASE("jsonc: quote_json round-trips through the reader") {
  const std::string original = "a\"b\\c\n\t\x01 caf\xC3\xA9 $HOME ${x}";
  const std::string quoted = warden::clients::quote_json(original);
  CHECK(quoted == "\"a\\\"b\\\\c\\n\\t\\u0001 caf\xC3\xA9 $HOME ${x}\"");
  auto doc = parse_jsonc(quoted);
  REQUIRE(doc);
  CHECK(doc->text == original);
}

TEST_CASE("jsonc: line_col counts from 1") {
  CHECK(warden::clients::line_col("ab\ncd", 0) == "1:1");
  CHECK(warden::clients::line_col("ab\ncd", 4) == "2:2");
}

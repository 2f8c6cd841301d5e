#include "protocol/jsonrpc.hpp"

#include <doctest/doctest.h>

using namespace warden::protocol;
using nlohmann::json;

TEST_CASE("messages are classified as MCP peers send them") {
  const parse_limits limits;
  SUBCASE("request with a numeric id") {
    auto out = parse_message(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}})", limits);
    REQUIRE(out.ok);
    CHECK(out.value.kind == message_kind::request);
    CHECK(out.value.method == "initialize");
    CHECK(out.value.id == json(0));
  }
  SUBCASE("request with a string id") {
    auto out = parse_message(R"({"jsonrpc":"2.0","id":"abc","method":"tools/list"})", limits);
    REQUIRE(out.ok);
    CHECK(out.value.kind == message_kind::request);
    CHECK(out.value.id == json("abc"));
  }
  SUBCASE("notification") {
    auto out = parse_message(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", limits);
    REQUIRE(out.ok);
    CHECK(out.value.kind == message_kind::notification);
    CHECK(out.value.id.is_null());
  }
  SUBCASE("result and error responses") {
    auto ok = parse_message(R"({"jsonrpc":"2.0","id":3,"result":{}})", limits);
    REQUIRE(ok.ok);
    CHECK(ok.value.kind == message_kind::response);
    auto failed = parse_message(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}})", limits);
    REQUIRE(failed.ok);
    CHECK(failed.value.kind == message_kind::response);
    CHECK(failed.value.id.is_null());
  }
  SUBCASE("batch of requests and notifications") {
    auto out = parse_message(R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"}])", limits);
    REQUIRE(out.ok);
    CHECK(out.value.kind == message_kind::batch);
    REQUIRE(out.value.items.size() == 2);
    CHECK(out.value.items[0].kind == message_kind::request);
    CHECK(out.value.items[1].kind == message_kind::notification);
  }
}

TEST_CASE("malformed input gets the JSON-RPC error the sender should see") {
  const parse_limits limits;
  SUBCASE("not JSON") {
    auto out = parse_message("{nope", limits);
    CHECK_FALSE(out.ok);
    CHECK(out.failure.code == -32700);
    CHECK(out.failure.id.is_null());
  }
  SUBCASE("JSON but not an object") {
    auto out = parse_message("42", limits);
    CHECK_FALSE(out.ok);
    CHECK(out.failure.code == -32600);
  }
  SUBCASE("method that is not a string keeps the id") {
    auto out = parse_message(R"({"jsonrpc":"2.0","id":5,"method":7})", limits);
    CHECK_FALSE(out.ok);
    CHECK(out.failure.code == -32600);
    CHECK(out.failure.id == json(5));
  }
  SUBCASE("object id on a request") {
    auto out = parse_message(R"({"jsonrpc":"2.0","id":{"a":1},"method":"x"})", limits);
    CHECK_FALSE(out.ok);
    CHECK(out.failure.code == -32600);
  }
  SUBCASE("empty batch") {
    auto out = parse_message("[]", limits);
    CHECK_FALSE(out.ok);
    CHECK(out.failure.reason == "empty batch");
  }
}

TEST_CASE("nesting deeper than the limit is refused before parsing") {
  parse_limits limits;
  limits.max_depth = 64;
  std::string deep(100000, '[');
  auto out = parse_message(deep, limits);
  CHECK_FALSE(out.ok);
  CHECK(out.failure.code == -32700);
  CHECK(out.failure.reason == "JSON nesting deeper than 64 levels");
  CHECK(json_nesting_depth(R"({"a":"[[[[[[","b":[1,{"c":2}]})", 100) == 3);
}

TEST_CASE("invalid UTF-8 is parsed from a repaired copy, as Node decodes it") {
  // The validator and the repair themselves are tested in tests/analysis/text_tests.cpp.
  const std::string bad = "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"s\":\"a\xff\xc3(b\"}}";
  auto out = parse_message(bad, parse_limits{});
  REQUIRE(out.ok);
  CHECK(out.value.had_invalid_utf8);
  CHECK(out.value.doc["params"]["s"] == "a\xEF\xBF\xBD\xEF\xBF\xBD(b");
}

TEST_CASE("ids as keys keep 1 and \"1\" apart") {
  CHECK(id_key(json(1)) != id_key(json("1")));
  CHECK(id_key(json("a")) == id_key(json::parse(R"("a")")));
}

TEST_CASE("error responses are well-formed JSON-RPC") {
  auto text = error_response(json("x"), -32000, "boom");
  auto parsed = json::parse(text);
  CHECK(parsed["jsonrpc"] == "2.0");
  CHECK(parsed["id"] == "x");
  CHECK(parsed["error"]["code"] == -32000);
  CHECK(parsed["error"]["message"] == "boom");
  CHECK(text.find('\n') == std::string::npos);
}

TEST_CASE("log excerpts cannot carry terminal escapes or broken UTF-8") {
  CHECK(log_excerpt("plain text") == "plain text");
  CHECK(log_excerpt("a\x1b[2Jb") == "a\\x1b[2Jb");
  CHECK(log_excerpt("bell\x07 del\x7f") == "bell\\x07 del\\x7f");
  CHECK(log_excerpt("c1 \xc2\x9b") == "c1 \\xc2\\x9b");
  CHECK(log_excerpt("bad \xff") == "bad \\xff");
  CHECK(log_excerpt("caf\xc3\xa9") == "caf\xc3\xa9");
  CHECK(log_excerpt(std::string(300, 'x'), 10) == std::string(10, 'x') + "...");
  SUBCASE("a multi-byte character at the cut is left out whole") {
    CHECK(log_excerpt("ab\xe2\x82\xac", 3) == "ab...");
  }
}

TEST_CASE("json_text reads members of validated text as the document holds them") {
  const std::string text =
      R"({"a" : 1, "s":"x\"y\\","o":{"k":[1,{"n":"]}"}],"k":"last"}, "arr":[ "p" , {"q":true} ,null],"e\u0041":2})";
  const parse_outcome out = parse_message(R"({"jsonrpc":"2.0","id":7,"result":)" + text + "}", parse_limits{64, false});
  REQUIRE(out.ok);
  REQUIRE_FALSE(out.value.has_document);
  const std::string bytes = R"({"jsonrpc":"2.0","id":7,"result":)" + text + "}";
  const std::string_view result = out.value.result_text.in(bytes);
  CHECK(result == text);
  CHECK(out.value.params_text.size == 0);
  CHECK(out.value.error_text.in(bytes).empty());
  const json doc = json::parse(text);

  CHECK(json_text::member(result, "a").value == "1");
  CHECK(json_text::member(result, "missing").value.empty());
  std::string storage;
  const json_text::lookup s = json_text::member(result, "s");
  CHECK(json_text::string_text(s.value, storage) == doc["s"].get<std::string>());
  // A repeated key: the last one, as in the document.
  const std::string_view o = json_text::member(result, "o").value;
  CHECK(json_text::string_text(json_text::member(o, "k").value, storage) == "last");
  // An escaped key ("eA") might be the one asked for: the lookup says it is unsure.
  CHECK(json_text::member(result, "eA").unsure);
  std::vector<std::string_view> elements;
  CHECK(json_text::for_each_element(json_text::member(result, "arr").value, [&](std::string_view e) { elements.push_back(e); }));
  CHECK(elements == std::vector<std::string_view>{R"("p")", R"({"q":true})", "null"});
  for (const auto& [key, value] : doc.items()) {
    const json_text::lookup found = json_text::member(result, key);
    if (!found.unsure) CHECK(json::parse(found.value) == value);
  }
  CHECK_FALSE(json_text::for_each_element(result, [](std::string_view) {}));  // not an array
  CHECK(json_text::member("[1,2]", "a").value.empty());                       // not an object
  // A long string with non-ASCII text and escapes past the word-at-a-time part.
  const std::string long_string = "\"" + std::string(100, 'x') + "\\u00e9\\\"" + "\xc3\xa9" + std::string(70, 'y') + "\"";
  CHECK(json_text::value_end(long_string + ",1", 0) == long_string.size());
  CHECK(json_text::string_text(long_string, storage) == json::parse(long_string).get<std::string>());
  // Every escape at every offset, so that each lands on, before and after a 16-byte block's edge.
  for (const std::string escape : {R"(\")", R"(\\)", R"(\\\")", R"(\u0041)", R"(\n)", "\xc3\xa9"}) {
    for (std::size_t before = 0; before < 40; ++before) {
      for (std::size_t after : {0u, 1u, 15u, 16u, 17u, 33u}) {
        const std::string token = "\"" + std::string(before, 'a') + escape + std::string(after, 'b') + "\"";
        CAPTURE(token);
        REQUIRE(json_text::value_end(token + R"(,"x":1})", 0) == token.size());
        REQUIRE(json_text::value_end("[" + token + "]", 0) == token.size() + 2);
        CHECK(json_text::string_text(token, storage) == json::parse(token).get<std::string>());
      }
    }
  }
  CHECK(json_text::value_end(R"("unterminated \")", 0) == 16);  // no closing quote: the end of the text
}

TEST_CASE("values of a classified message read the same with and without its document") {
  const std::string bytes =
      R"({"jsonrpc":"2.0","id":"r1","method":"tools/call","params":{"name":"echo","n":3,)"
      R"("_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"s":"a\"b"}})";
  for (const bool document : {false, true}) {
    CAPTURE(document);
    const parse_outcome out = parse_message(bytes, parse_limits{64, document});
    REQUIRE(out.ok);
    REQUIRE(out.value.has_document == document);
    const message& msg = out.value;
    CHECK(string_at(msg, bytes, {"params", "name"}) == "echo");
    CHECK(string_at(msg, bytes, {"params", "s"}) == "a\"b");  // escapes decoded
    CHECK(string_at(msg, bytes, {"params", "_meta", "io.modelcontextprotocol/protocolVersion"}) == "2026-07-28");
    CHECK(string_at(msg, bytes, {"jsonrpc"}) == "2.0");
    CHECK_FALSE(string_at(msg, bytes, {"params", "n"}));  // not a string
    CHECK_FALSE(string_at(msg, bytes, {"params", "missing"}));
    CHECK_FALSE(string_at(msg, bytes, {"params", "name", "x"}));  // a string has no members
    CHECK(value_at(msg, bytes, {"params", "_meta", "progressToken"}) == json(7));
    CHECK(value_at(msg, bytes, {"params", "n"}) == json(3));
    CHECK(value_at(msg, bytes, {"params", "missing"}).is_null());
    CHECK(value_at(msg, bytes, {"result"}).is_null());
  }
  SUBCASE("an escaped key is read as the document reads it") {
    const std::string escaped = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"first","n\u0061me":"echo"}})";
    const parse_outcome out = parse_message(escaped, parse_limits{64, false});
    REQUIRE(out.ok);
    REQUIRE_FALSE(out.value.has_document);
    // The document keeps the last of the equal keys, here the escaped one, which the text alone
    // cannot tell from another key.
    CHECK(string_at(out.value, escaped, {"params", "name"}) == "echo");
    CHECK(value_at(out.value, escaped, {"params", "name"}) == json("echo"));
  }
  SUBCASE("batch members are read from their documents") {
    const std::string batch = R"([{"jsonrpc":"2.0","id":1,"method":"a","params":{"k":"v1"}},{"jsonrpc":"2.0","method":"b","params":{"k":"v2"}}])";
    const parse_outcome out = parse_message(batch, parse_limits{64, false});
    REQUIRE(out.ok);
    REQUIRE(out.value.items.size() == 2);
    CHECK(string_at(out.value.items[0], batch, {"params", "k"}) == "v1");
    CHECK(string_at(out.value.items[1], batch, {"params", "k"}) == "v2");
  }
}

TEST_CASE("an id key is the id's JSON text, the same from the fast path and the document") {
  for (const std::string id : {R"(0)", R"(-12)", R"("a")", R"("a\"b")", R"("é")", R"(18446744073709551615)", R"(1.5)"}) {
    CAPTURE(id);
    const std::string bytes = R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":"ping"})";
    const parse_outcome fast = parse_message(bytes, parse_limits{64, false});
    const parse_outcome full = parse_message(bytes, parse_limits{64, true});
    REQUIRE(fast.ok);
    REQUIRE(full.ok);
    CHECK(fast.value.key() == full.value.key());
    CHECK(fast.value.key() == json::parse(id).dump());
    CHECK(json::parse(fast.value.key()) == json::parse(id));  // keys read back as the id
  }
}

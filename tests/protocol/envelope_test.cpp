// The envelope fast path of parse_message (document = false) must answer exactly as the full
// parse does: same acceptance, kind, method, id and failure, for any input. Checked on hand-picked
// edge cases and on many random mutations of real messages.
#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "protocol/jsonrpc.hpp"

using namespace warden::protocol;
using nlohmann::json;

namespace {

// Same document, strictly: nlohmann's == calls 1 (unsigned) and 1.0 (double) equal, and -0.0 and
// 0.0; the document the session builds must have the very types and values nlohmann's parser gives.
bool same_document(const json& a, const json& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case json::value_t::object: {
      if (a.size() != b.size()) return false;
      for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
        if (i.key() != j.key() || !same_document(*i, *j)) return false;
      return true;
    }
    case json::value_t::array: {
      if (a.size() != b.size()) return false;
      for (std::size_t k = 0; k < a.size(); ++k)
        if (!same_document(a[k], b[k])) return false;
      return true;
    }
    case json::value_t::number_float: {
      const double x = a.get<double>(), y = b.get<double>();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    default: return a == b;
  }
}

void check_same(const std::string& input) {
  parse_limits full;
  full.max_depth = 8;
  parse_limits fast = full;
  fast.document = false;
  parse_outcome a = parse_message(input, full);
  parse_outcome b = parse_message(input, fast);
  INFO("input: ", input);
  REQUIRE(a.ok == b.ok);
  if (!a.ok) {
    CHECK(a.failure.code == b.failure.code);
    CHECK(a.failure.reason == b.failure.reason);
    CHECK(a.failure.id == b.failure.id);
    return;
  }
  CHECK(a.value.kind == b.value.kind);
  CHECK(a.value.method == b.value.method);
  CHECK(a.value.id == b.value.id);
  CHECK(a.value.id.type() == b.value.id.type());
  if (!a.value.id.is_null()) CHECK(id_key(a.value.id) == id_key(b.value.id));
  CHECK(a.value.had_invalid_utf8 == b.value.had_invalid_utf8);
  CHECK(a.value.items.size() == b.value.items.size());
  load_document(b.value, input);
  CHECK(b.value.has_document);
  CHECK(same_document(a.value.doc, b.value.doc));
}

const std::vector<std::string> samples = {
    R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}})",
    R"({"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"name":"echo","arguments":{"message":"h\u00e9\"llo\n"}}})",
    R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"x"}})",
    R"({"result":{"content":[{"type":"text","text":"Echo: x"}],"isError":false},"jsonrpc":"2.0","id":17})",
    R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})",
    R"({"jsonrpc":"2.0","id":-5,"result":[1,2.5,-3e2,true,false,null,{},[]]})",
    R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"}])",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"t\":\"\xF0\x9F\x98\x80 \xE2\x82\xAC\"}}",
};

}  // namespace

TEST_CASE("envelope fast path: edge cases answer as the full parse") {
  const std::vector<std::string> cases = {
      "",
      " ",
      "{}",
      "[]",
      "null",
      "42",
      "\"x\"",
      "{",
      "}",
      "{\"id\":1,}",
      "{\"id\":1 \"method\":\"x\"}",
      R"({"method":"x"})",
      R"({"method":"x","id":1})",
      R"({"method":"x","id":null})",
      R"({"method":7,"id":1})",
      R"({"method":"x","id":{"a":1}})",
      R"({"method":"x","id":[1]})",
      R"({"method":"x","id":true})",
      R"({"id":1})",
      R"({"id":1,"result":null})",
      R"({"id":{"k":1},"result":1})",
      R"({"id":[1],"error":{}})",
      R"({"id":1.5,"result":1})",
      R"({"id":1e2,"result":1})",
      R"({"id":-0,"result":1})",
      R"({"id":18446744073709551615,"result":1})",
      R"({"id":18446744073709551616,"result":1})",
      R"({"id":-9223372036854775808,"result":1})",
      R"({"id":123456789012345678,"result":1})",
      R"({"id":1,"result":1e999})",
      R"({"id":1,"result":1e-999})",
      R"({"id":1,"result":01})",
      R"({"id":1,"result":1.})",
      R"({"id":1,"result":.5})",
      R"({"id":1,"result":+1})",
      R"({"id":1,"result":-})",
      R"({"id":1,"result":tru})",
      R"({"id":1,"result":nul})",
      R"({"id":1,"result":"a\qb"})",
      R"({"id":1,"result":"\ud800"})",
      R"({"id":1,"result":"\udc00"})",
      R"({"id":1,"result":"\ud800\udc00"})",
      R"({"id":1,"result":"\ud800\u0041"})",
      R"({"id":1,"result":"\u12"})",
      R"({"id":1,"result":"\u0000"})",
      "{\"id\":1,\"result\":\"a\tb\"}",
      "{\"id\":1,\"result\":\"\x01\"}",
      "{\"id\":1,\"result\":\"\xC3\"}",
      "{\"id\":1,\"result\":\"\xED\xA0\x80\"}",
      "{\"id\":1,\"result\":\"\xF4\x90\x80\x80\"}",
      "{\"id\":1,\"result\":\"\xC0\xAF\"}",
      "{\"id\":1,\"result\":\"ok\"}\xFF",
      "\xEF\xBB\xBF{\"id\":1,\"result\":1}",
      R"({"id":1,"id":2,"result":1})",
      R"({"method":"a","method":"b"})",
      R"({"method":"a","method":5,"id":1})",
      R"({"\u0069d":1,"result":1})",
      R"({"m\u0065thod":"x"})",
      R"({"method":"tools\/call","id":"a\"b"})",
      R"({"method":"x","id":"\u00e9"})",
      "{\"method\":\"x\",\"id\":\"\xC3\xA9\"}",
      R"({"id":"\t","result":1})",
      R"({"id":1,"result":[[[[[[[[[1]]]]]]]]]})",
      R"({"id":1,"result":[[[[[[1]]]]]]})",
      " \r\n\t{\"id\":1,\"result\":2} \r",
      R"({"id":1,"result":1} {"x":1})",
      R"({"id":1,"result":[1,]})",
      R"({"id":1,"result":{"a"}})",
      R"({"id":1,"result":{"a":}})",
      R"({"id":1,"result":{1:2}})",
      R"({"jsonrpc":"2.0","id":"","method":""})",
      // Documents built by the session's own builder must match nlohmann's parse exactly.
      R"({"id":1,"result":[-0,0,-0.0,0.0,1.0,-1.5e-3,1E2,2e+3,5E-1,18446744073709551615,-9223372036854775808]})",
      R"({"id":1,"result":[18446744073709551616,-9223372036854775809,123456789012345678901234567890,1e308,1e309,-1e309]})",
      R"({"id":1,"result":{"s":"a\/b\\c\"d\ud83d\ude00\u00e9\u0041\n\r\t\b\f","t":"\"","u":"\\","v":""}})",
      R"({"id":1,"result":{"a":1,"a":[2],"b":{"c":1,"c":{"d":null}}}})",
      R"({"id":1,"result":{"z":1,"a":2,"m":[true,false,null,[],{}]}})",
      R"({"id":1,"result":"\uD83D\uDE00 \uDBFF\uDFFF \u0080 \u07FF \u0800 \uFFFF"})",
      R"({"id":1,"result":"\ud83d"})",
      R"({"id":1,"result":"\ud83dx"})",
      R"({"id":1,"result":"\ude00\ud83d"})",
      "{\"id\":1,\"result\":\"tab\there\"}",
      R"({"id":1,"result":[1,2 , 3 ,{ "a" : "b" } ]})",
  };
  for (const auto& c : cases) check_same(c);
  for (const auto& c : samples) check_same(c);
}

TEST_CASE("envelope fast path: random mutations answer as the full parse") {
  std::mt19937 random(12345);
  const std::string alphabet = "{}[]\":,\\ -0123456789.eEtrufalsn\x01\x7f\xC3\xA9\xED\xF0\x80u";
  for (int round = 0; round < 20000; ++round) {
    std::string text = samples[random() % samples.size()];
    const int edits = 1 + static_cast<int>(random() % 3);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const std::size_t at = random() % text.size();
      switch (random() % 4) {
        case 0: text[at] = alphabet[random() % alphabet.size()]; break;
        case 1: text.insert(at, 1, alphabet[random() % alphabet.size()]); break;
        case 2: text.erase(at, 1); break;
        default: text.resize(at); break;
      }
    }
    check_same(text);
  }
}

TEST_CASE("id_key is the id's JSON text") {
  for (const json& id : {json(0), json(-7), json(18446744073709551615ull), json(1.5), json("abc"), json(""),
                         json("a\"b"), json("tab\there"), json("\xC3\xA9"), json("x\\y")})
    CHECK(id_key(id) == id.dump());
}

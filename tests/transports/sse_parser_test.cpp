#include "transports/sse_parser.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using warden::transports::format_sse_event;
using warden::transports::sse_event;
using warden::transports::sse_parser;

namespace {

std::vector<sse_event> parse_all(sse_parser& parser, std::string_view text, std::size_t chunk = 0) {
  std::vector<sse_event> events;
  auto sink = [&](sse_event&& e) { events.push_back(std::move(e)); };
  if (chunk == 0) {
    parser.feed(text, sink);
  } else {
    for (std::size_t i = 0; i < text.size(); i += chunk) parser.feed(text.substr(i, chunk), sink);
  }
  return events;
}

std::vector<sse_event> parse_all(std::string_view text, std::size_t chunk = 0, std::size_t limit = 1 << 20) {
  sse_parser parser(limit);
  return parse_all(parser, text, chunk);
}

}  // namespace

TEST_CASE("sse: one event with type, id and data") {
  auto events = parse_all("event: message\nid: 7\ndata: {\"a\":1}\n\n");
  REQUIRE(events.size() == 1);
  CHECK(events[0].type == "message");
  CHECK(events[0].id == "7");
  CHECK(events[0].data == "{\"a\":1}");
  CHECK_FALSE(events[0].oversized);
}

TEST_CASE("sse: line endings") {
  const std::string expected = "x";
  SUBCASE("LF") { CHECK(parse_all("data: x\n\n").at(0).data == expected); }
  SUBCASE("CRLF") { CHECK(parse_all("data: x\r\n\r\n").at(0).data == expected); }
  SUBCASE("CR") { CHECK(parse_all("data: x\r\r").at(0).data == expected); }
  SUBCASE("CRLF split between chunks counts once") {
    sse_parser parser(1024);
    auto first = parse_all(parser, "data: x\r");
    auto second = parse_all(parser, "\ndata: y\r\n\r\n");
    CHECK(first.empty());
    REQUIRE(second.size() == 1);
    CHECK(second[0].data == "x\ny");
  }
}

TEST_CASE("sse: every chunking gives the same events") {
  const std::string stream =
      "\xEF\xBB\xBF: keep-alive\r\nevent: endpoint\r\ndata: /message?sessionId=1\r\n\r\n"
      "id: 2\ndata: a\ndata: b\n\nretry: 1500\ndata:c\r\r";
  for (std::size_t chunk = 1; chunk <= stream.size(); ++chunk) {
    CAPTURE(chunk);
    sse_parser parser(1024);
    auto events = parse_all(parser, stream, chunk);
    REQUIRE(events.size() == 3);
    CHECK(events[0].type == "endpoint");
    CHECK(events[0].data == "/message?sessionId=1");
    CHECK(events[1].data == "a\nb");
    CHECK(events[1].id == "2");
    CHECK(events[2].data == "c");
    CHECK(events[2].id == "2");  // the last event id stays in force
    CHECK(parser.retry_ms() == 1500u);
  }
}

TEST_CASE("sse: fields") {
  SUBCASE("comments are ignored") { CHECK(parse_all(":ping\n\n: another\ndata: x\n\n").size() == 1); }
  SUBCASE("a field without colon has an empty value") {
    auto events = parse_all("data\n\n");
    REQUIRE(events.size() == 1);
    CHECK(events[0].data.empty());
  }
  SUBCASE("only one leading space is removed") { CHECK(parse_all("data:  x\n\n").at(0).data == " x"); }
  SUBCASE("unknown fields are ignored") { CHECK(parse_all("foo: bar\ndata: x\n\n").at(0).data == "x"); }
  SUBCASE("an event without data is not dispatched but its id counts") {
    sse_parser parser(1024);
    CHECK(parse_all(parser, "id: prime-1\n\n").empty());
    CHECK(parser.last_event_id() == "prime-1");
  }
  SUBCASE("empty data is dispatched (priming events)") {
    auto events = parse_all("id: 5\ndata:\n\n");
    REQUIRE(events.size() == 1);
    CHECK(events[0].data.empty());
  }
  SUBCASE("an id containing NUL is ignored") {
    sse_parser parser(1024);
    parse_all(parser, std::string("id: a\0b\ndata: x\n\n", 18));
    CHECK(parser.last_event_id().empty());
  }
  SUBCASE("an empty id resets the last event id") {
    sse_parser parser(1024);
    parse_all(parser, "id: 1\ndata: x\n\nid\ndata: y\n\n");
    CHECK(parser.last_event_id().empty());
  }
  SUBCASE("retry must be digits") {
    sse_parser parser(1024);
    parse_all(parser, "retry: 12a\ndata: x\n\n");
    CHECK_FALSE(parser.retry_ms().has_value());
  }
  SUBCASE("event type resets after dispatch") {
    auto events = parse_all("event: a\ndata: 1\n\ndata: 2\n\n");
    REQUIRE(events.size() == 2);
    CHECK(events[0].type == "a");
    CHECK(events[1].type == "message");
  }
}

TEST_CASE("sse: a BOM is stripped only at the start") {
  SUBCASE("at the start") { CHECK(parse_all("\xEF\xBB\xBF"
                                            "data: x\n\n")
                                      .at(0)
                                      .data == "x"); }
  SUBCASE("a second BOM is content") {
    auto events = parse_all(
        "\xEF\xBB\xBF\xEF\xBB\xBF"
        "data: x\n\n");
    CHECK(events.empty());  // the field name is now "\xEF\xBB\xBF" "data", unknown
  }
  SUBCASE("a partial BOM is content") {
    auto events = parse_all(
        "\xEF"
        "data: x\n\ndata: y\n\n");
    REQUIRE(events.size() == 1);
    CHECK(events[0].data == "y");
  }
}

TEST_CASE("sse: end of stream discards an unterminated event") {
  sse_parser parser(1024);
  CHECK(parse_all(parser, "data: x\n").empty());
  parser.finish();
  CHECK(parse_all(parser, "\n").empty());
  CHECK(parser.buffered() == 0);
}

TEST_CASE("sse: size limits") {
  SUBCASE("an over-long data line gives one oversized event with excerpts") {
    const std::string big(5000, 'a');
    for (std::size_t chunk : {std::size_t{0}, std::size_t{7}, std::size_t{1000}}) {
      CAPTURE(chunk);
      sse_parser parser(100);
      auto events = parse_all(parser, "data: {\"id\":42," + big + "}\n\ndata: small\n\n", chunk);
      REQUIRE(events.size() == 2);
      CHECK(events[0].oversized);
      CHECK(events[0].data.empty());
      CHECK(events[0].size == big.size() + 10);
      CHECK(events[0].head.rfind("{\"id\":42,", 0) == 0);
      CHECK(events[0].tail.back() == '}');
      CHECK(events[1].data == "small");
      CHECK_FALSE(events[1].oversized);
      CHECK(parser.buffered() == 0);
    }
  }
  SUBCASE("many short data lines add up") {
    std::string stream;
    for (int i = 0; i < 50; ++i) stream += "data: 0123456789\n";
    auto events = parse_all(stream + "\n", 0, 100);
    REQUIRE(events.size() == 1);
    CHECK(events[0].oversized);
    CHECK(events[0].size == 50 * 10 + 49);
  }
  SUBCASE("an over-long other field is dropped, memory stays bounded") {
    sse_parser parser(100);
    auto events = parse_all(parser, "event: " + std::string(100000, 'e') + "\ndata: x\n\n", 1000);
    REQUIRE(events.size() == 1);
    CHECK(events[0].type == "message");
    CHECK(parser.dropped_lines() == 1);
  }
  SUBCASE("a line without end never holds more than the limit") {
    sse_parser parser(100);
    parse_all(parser, "data: " + std::string(1 << 20, 'x'), 4096);
    CHECK(parser.buffered() <= 200);
  }
}

TEST_CASE("sse: format_sse_event round-trips") {
  const std::string text = format_sse_event("line1\nline2\r\nline3", "s1-4", "message", 2000);
  CHECK(text == "event: message\nid: s1-4\nretry: 2000\ndata: line1\ndata: line2\ndata: line3\n\n");
  auto events = parse_all(text);
  REQUIRE(events.size() == 1);
  CHECK(events[0].data == "line1\nline2\nline3");
  CHECK(events[0].id == "s1-4");
  CHECK(format_sse_event("") == "data: \n\n");
}

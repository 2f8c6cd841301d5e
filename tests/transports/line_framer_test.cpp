#include "transports/line_framer.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using warden::transports::frame;
using warden::transports::line_framer;

namespace {

std::vector<frame> feed_all(line_framer& framer, const std::vector<std::string>& chunks, bool finish = false) {
  std::vector<frame> out;
  for (const auto& chunk : chunks) framer.feed(chunk, [&](frame&& f) { out.push_back(std::move(f)); });
  if (finish) framer.finish([&](frame&& f) { out.push_back(std::move(f)); });
  return out;
}

}  // namespace

TEST_CASE("a message split across reads is delivered once, whole") {
  line_framer framer(1024);
  auto frames = feed_all(framer, {"{\"jsonrpc\":", "\"2.0\",\"method\"", ":\"ping\"}\n"});
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].bytes == R"({"jsonrpc":"2.0","method":"ping"})");
  CHECK_FALSE(frames[0].oversized);
  CHECK(framer.buffered() == 0);
}

TEST_CASE("many messages in one read come out in order") {
  line_framer framer(1024);
  auto frames = feed_all(framer, {"{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n{\"d\""});
  REQUIRE(frames.size() == 3);
  CHECK(frames[0].bytes == R"({"a":1})");
  CHECK(frames[2].bytes == R"({"c":3})");
  CHECK(framer.buffered() == 4);
}

TEST_CASE("CRLF endings and blank lines are tolerated") {
  line_framer framer(1024);
  SUBCASE("CRLF") {
    auto frames = feed_all(framer, {"{\"a\":1}\r\n{\"b\":2}\r", "\n"});
    REQUIRE(frames.size() == 2);
    CHECK(frames[0].bytes == R"({"a":1})");
    CHECK(frames[1].bytes == R"({"b":2})");
  }
  SUBCASE("empty and whitespace-only lines are skipped") {
    auto frames = feed_all(framer, {"\n\n  \n\t\r\n{\"a\":1}\n\n"});
    REQUIRE(frames.size() == 1);
    CHECK(frames[0].bytes == R"({"a":1})");
  }
}

TEST_CASE("a line at the limit passes, one byte over is refused and the stream goes on") {
  const std::string at_limit(16, 'x');
  SUBCASE("exactly at the limit") {
    line_framer framer(16);
    auto frames = feed_all(framer, {at_limit + "\n"});
    REQUIRE(frames.size() == 1);
    CHECK(frames[0].bytes == at_limit);
    CHECK_FALSE(frames[0].oversized);
  }
  SUBCASE("exactly at the limit with CRLF") {
    line_framer framer(16);
    auto frames = feed_all(framer, {at_limit + "\r\n"});
    REQUIRE(frames.size() == 1);
    CHECK(frames[0].bytes == at_limit);
  }
  SUBCASE("one byte over") {
    line_framer framer(16);
    auto frames = feed_all(framer, {at_limit + "y\n{\"ok\":1}\n"});
    REQUIRE(frames.size() == 2);
    CHECK(frames[0].oversized);
    CHECK(frames[0].bytes.empty());
    CHECK(frames[0].size == 17);
    CHECK(frames[1].bytes == R"({"ok":1})");
  }
  SUBCASE("over the limit across many reads keeps memory bounded") {
    line_framer framer(1000);
    std::vector<std::string> chunks(200, std::string(500, 'z'));
    chunks.emplace_back("\n{\"next\":true}\n");
    std::size_t most_buffered = 0;
    std::vector<frame> frames;
    for (const auto& c : chunks) {
      framer.feed(c, [&](frame&& f) { frames.push_back(std::move(f)); });
      most_buffered = std::max(most_buffered, framer.buffered());
    }
    CHECK(most_buffered <= 1001);
    REQUIRE(frames.size() == 2);
    CHECK(frames[0].oversized);
    CHECK(frames[0].size == 100000);
    CHECK(frames[1].bytes == R"({"next":true})");
  }
}

TEST_CASE("an over-size line keeps its head and tail so its id can be recovered") {
  line_framer framer(64);
  const std::string body = R"({"jsonrpc":"2.0","id":7,"result":{"text":")" + std::string(5000, 'a') + R"("},"id2":9})";
  auto frames = feed_all(framer, {body.substr(0, 100), body.substr(100, 3000), body.substr(3100) + "\n"});
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].oversized);
  CHECK(frames[0].head == body.substr(0, warden::transports::oversized_excerpt_bytes));
  CHECK(frames[0].tail == body.substr(body.size() - warden::transports::oversized_excerpt_bytes));
}

TEST_CASE("an unterminated tail is delivered at end of stream") {
  line_framer framer(1024);
  auto frames = feed_all(framer, {"{\"a\":1}\n{\"last\":true}"}, true);
  REQUIRE(frames.size() == 2);
  CHECK(frames[1].bytes == R"({"last":true})");
}

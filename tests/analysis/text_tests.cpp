#include <doctest/doctest.h>
#include <random>

#include "analysis/text.hpp"

using namespace warden::analysis;

TEST_CASE("decode_utf8 rejects malformed sequences one byte at a time") {
  SUBCASE("overlong encoding") {
    std::string s = "\xC0\xAF";
    std::size_t pos = 0;
    CHECK(text::decode_utf8(s, pos) == text::invalid_code_point);
    CHECK(pos == 1);
  }
  SUBCASE("surrogate") {
    std::string s = "\xED\xA0\x80";
    std::size_t pos = 0;
    CHECK(text::decode_utf8(s, pos) == text::invalid_code_point);
  }
  SUBCASE("truncated") {
    std::string s = "\xE2\x82";
    std::size_t pos = 0;
    CHECK(text::decode_utf8(s, pos) == text::invalid_code_point);
    CHECK(pos == 1);
  }
  SUBCASE("valid four-byte") {
    std::string s = "\xF0\x9F\x98\x80";
    std::size_t pos = 0;
    CHECK(text::decode_utf8(s, pos) == 0x1F600);
    CHECK(pos == 4);
  }
  CHECK_FALSE(text::is_valid_utf8("ok \xFF"));
  CHECK(text::is_valid_utf8("caf\xC3\xA9"));
}

TEST_CASE("normalize keeps ASCII as is and maps offsets back") {
  auto n = text::normalize("Ignore This");
  CHECK(n.identity());
  CHECK(n.view() == "Ignore This");
  CHECK(n.original_offset(7) == 7);
}

TEST_CASE("normalize folds look-alike spellings for matching") {
  SUBCASE("full-width letters") {
    std::string raw = "\xEF\xBC\xA9\xEF\xBD\x87\xEF\xBD\x8E\xEF\xBD\x8F\xEF\xBD\x92\xEF\xBD\x85";  // Ｉｇｎｏｒｅ
    auto n = text::normalize(raw);
    CHECK(n.view() == "ignore");
    CHECK(n.original_offset(1) == 3);  // second letter starts at byte 3 of the original
  }
  SUBCASE("Cyrillic letters inside a Latin word") {
    auto n = text::normalize("s\xD0\xB5nd");  // Cyrillic е
    CHECK(n.view() == "send");
  }
  SUBCASE("zero-width characters disappear") {
    auto n = text::normalize("ig\xE2\x80\x8Bnore");
    CHECK(n.view() == "ignore");
  }
  SUBCASE("genuine Russian text stays Cyrillic") {
    auto n = text::normalize("\xD0\xBD\xD0\xB5 \xD1\x81\xD0\xBE\xD0\xBE\xD0\xB1\xD1\x89\xD0\xB0\xD0\xB9");  // не сообщай
    CHECK(n.view() == "\xD0\xBD\xD0\xB5 \xD1\x81\xD0\xBE\xD0\xBE\xD0\xB1\xD1\x89\xD0\xB0\xD0\xB9");
  }
}

TEST_CASE("make_visible never emits raw control, bidi or invisible characters") {
  CHECK(text::make_visible("a\x1b[8mb") == "a\\x1b[8mb");
  CHECK(text::make_visible("x\xE2\x80\xAEy") == "x<U+202E>y");
  CHECK(text::make_visible("line\nnext") == "line\\nnext");
  CHECK(text::make_visible(std::string(20, ' ') + "z") == "<20 spaces>z");
  CHECK(text::make_visible("bad \xFF") == "bad \\xff");
}

TEST_CASE("skeleton equates confusable identifiers") {
  CHECK(text::skeleton("read_fiIe") == text::skeleton("read_file"));
  CHECK(text::skeleton("send_\xD0\xB5mail") == text::skeleton("send_email"));
  CHECK(text::skeleton("read_file") != text::skeleton("write_file"));
}

TEST_CASE("edit_distance stops above its limit") {
  CHECK(text::edit_distance("create_issue", "create_isue", 2) == 1);
  CHECK(text::edit_distance("kitten", "sitting", 3) == 3);
  CHECK(text::edit_distance("a", "abcdefgh", 2) == 3);
}

TEST_CASE("json_plain_prefix stops at the first byte a JSON string cannot hold as it is") {
  // Every byte value at every offset of texts up to 40 bytes long, on a plain background: the
  // word-at-a-time search must stop exactly where a byte-by-byte one does.
  const auto plain = [](unsigned char c) { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\'; };
  for (std::size_t length = 1; length <= 40; ++length)
    for (std::size_t at = 0; at < length; ++at)
      for (unsigned value = 0; value < 256; ++value) {
        std::string s(length, 'a');
        s[at] = static_cast<char>(value);
        const std::size_t expected = plain(static_cast<unsigned char>(value)) ? length : at;
        REQUIRE(text::json_plain_prefix(s) == expected);
      }
  CHECK(text::json_plain_prefix("") == 0);
  CHECK(text::json_plain_prefix("hello, world: ~/.ssh/id_rsa \x7f ok") == 32);
  CHECK(text::json_plain_prefix("abcdefgh\"ijk") == 8);
  CHECK(text::json_plain_prefix("abcdefghij\xC3\xA9") == 10);
  CHECK(text::json_plain_prefix(std::string_view("abc\0def", 7)) == 3);
}

TEST_CASE("json_plain_prefix finds the first of several special bytes whatever their neighbours") {
  // The word tricks can raise false alarms next to a true one (borrows): random texts of bytes
  // around every boundary, many special bytes per block, against the byte-by-byte answer.
  const unsigned char edges[] = {0x00, 0x01, 0x1E, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D,
                                 0x7E, 0x7F, 0x80, 0x81, 0xA0, 0xC3, 0xFF, 'a', 'a', 'a', 'a'};
  const auto plain = [](unsigned char c) { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\'; };
  std::mt19937 random(20261201);
  for (int round = 0; round < 200000; ++round) {
    std::string s(1 + random() % 40, 'a');
    for (auto& c : s) c = static_cast<char>(edges[random() % sizeof edges]);
    std::size_t expected = 0;
    while (expected < s.size() && plain(static_cast<unsigned char>(s[expected]))) ++expected;
    REQUIRE(text::json_plain_prefix(s) == expected);
  }
}
